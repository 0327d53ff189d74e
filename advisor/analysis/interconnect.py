"""Whether a job needs a fast link between its cards ("Do I need NVLink for 70B on 4 GPUs?", "两张 4090 需要 NVLink
吗"): the share of each decode step that the tensor-parallel all-reduces take on the link the configuration has.

Tensor parallelism splits every layer across the cards, so each layer ends in an all-reduce of the activations
(Megatron-LM, Shoeybi et al. 2019, §3): 2 per layer, each moving 2(tp−1)/tp · tokens · hidden · 2 bytes per GPU
(advisor.estimator.throughput, the decode step's `communication_s`). The share

    share = communication_s / total_s   (one decode step at the configuration's own concurrency)

is the most a faster link could win back: over an infinitely fast link the step would be `total_s − communication_s`.
With one card, or copies of the model on separate cards (TP 1), nothing crosses the link and the share is 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.estimator.calibration import load_calibration
from advisor.estimator.throughput import estimate_throughput, tp_link
from knowledge.errors import AdvisorError
from knowledge.structs import Value, replace

if TYPE_CHECKING:
    from advisor.estimator.calibration import Calibration
    from advisor.recommend.results import Option
    from advisor.workload import Workload
    from knowledge.schemas import GpuSpec, ModelSpec

# a link whose all-reduces take at least this share of a decode step is worth a faster one: an NVLink-class link
# then makes decoding up to 1 / (1 − 0.25) ≈ 1.33× faster per user (a judgement threshold of this product, said in
# the answer beside the share)
WORTH_SHARE = 0.25
NVLINK_CLASS = ("nvlink-bridge", "nvlink-switch", "infinity-fabric")  # GPU-to-GPU links the estimator uses for TP


class LinkShare(Value):
    """The link between the cards of one configuration and the share of a decode step its all-reduces take."""

    gpu: str
    gpu_name: str
    count: int
    tp: int
    kind: str  # the card's link_kind: none, nvlink-bridge, nvlink-switch, infinity-fabric, hccs, roce
    nvlink: str  # the catalog's description of the card's NVLink ("none (no NVLink connector on any RTX 40 card)")
    consumer: bool  # a GeForce-class card (no NVLink since the 40 series; no PCIe peer-to-peer)
    link: str  # the link the estimator takes for the TP group ("PCIe 4.0 x16 (…)", "NVLink 4 … (450 GB/s each way)")
    share: float | None  # all-reduce time / decode-step time; None for training (no decode step)
    training: bool
    share_pcie: float | None = None  # a bridged pair: the same share without the bridge (over PCIe)

    @property
    def has_nvlink(self) -> bool:
        """An NVLink-class link between the cards (NVLink bridge or switch, AMD Infinity Fabric)."""
        return self.kind in NVLINK_CLASS

    @property
    def worth(self) -> bool:
        """A faster link would win back at least WORTH_SHARE of a step (for a bridged pair: the step over PCIe)."""
        share = self.share_pcie if self.share_pcie is not None else self.share
        return share is not None and share >= WORTH_SHARE


def link_share(model: ModelSpec, gpu: GpuSpec, option: Option) -> LinkShare:
    """The link of `option` (count × gpu, its TP layout) and the all-reduce share of its decode step."""
    tp = option.layout.tp
    calib = load_calibration()
    link = tp_link(gpu, tp, calib)[2] if tp > 1 else ""
    share: float | None = 0.0 if tp <= 1 else None
    sized = option.sized_workload
    training = option.training is not None
    share_pcie: float | None = None
    if tp > 1 and not training and sized is not None:
        count = option.count if sized.pp == 1 else tp
        share = _decode_share(model, gpu, count, sized, calib)
        if gpu.link_kind == "nvlink-bridge" and tp <= 2:  # the pair without its bridge: over PCIe
            share_pcie = _decode_share(model, replace(gpu, link_kind="none", nvlink_bytes_per_s=0.0), count, sized,
                                       calib)
    return LinkShare(gpu=gpu.id, gpu_name=gpu.name, count=option.count, tp=tp, kind=gpu.link_kind, nvlink=gpu.nvlink,
                     consumer=gpu.segment == "consumer", link=link, share=share, training=training,
                     share_pcie=share_pcie)


def _decode_share(model: ModelSpec, gpu: GpuSpec, count: int, sized: Workload, calib: Calibration) -> float | None:
    """The all-reduce share of one decode step (None when the estimator refuses the configuration)."""
    try:
        est = estimate_throughput(model, gpu, count, sized, calib, with_capacity=False)
    except (AdvisorError, ValueError):
        return None
    return est.decode_step.communication_s / est.decode_step.total_s
