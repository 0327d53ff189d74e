"""Whether a training job needs a fast network between its servers ("Do I need InfiniBand for 4 nodes of H100?",
"4 台服务器训练 70B 需要 IB 网络吗"): the run on the configuration as sized, over the network the estimator assumes
for its servers (one 400 Gb/s NIC per GPU on HGX/OAM boards, calibration training.nic_bytes_per_s_per_gpu), against
the same job where each server has one 100 Gb/s Ethernet port instead.

Data parallelism all-reduces the gradients (and ZeRO-3/FSDP gathers the parameters) across every server at each
step; the ring's inter-server part moves (n−1)/n · V bytes through each server's network
(advisor.estimator.training.data_parallel_seconds). Both runs come from the same estimator — the planner's fastest
layout for each network (a practitioner re-plans for a slow one), or the 6·N·D estimate — so

    slowdown = wall(100 GbE) / wall(as sized)

is what the fast fabric buys for this job. One server: no network between servers is used at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.estimator.calibration import load_calibration
from advisor.estimator.training import estimate_train_time, inter_node_bytes_per_s
from advisor.recommend.training_advice import plan_for
from knowledge.structs import Value, replace

if TYPE_CHECKING:
    from advisor.estimator.calibration import Calibration
    from advisor.recommend.results import Option
    from advisor.workload import Workload
    from knowledge.schemas import GpuSpec, ModelSpec

ETHERNET_SERVER_BYTES_PER_S = 100e9 / 8  # the what-if the answer names: one 100 Gb/s Ethernet port per server
NEEDED_SLOWDOWN = 1.2  # the fast fabric is "needed" when the job takes at least 20 % longer without it (a judgement of
# this product, said in the answer with the two run times)


class FabricNeed(Value):
    """One configuration's training run over the servers' assumed network and over 100 GbE per server."""

    gpu_name: str
    count: int
    nodes: int
    network_bytes_per_s: float  # the assumed network's line rate per server, one direction (0 for one server)
    wall_s: float  # the run as sized (the option's own figure)
    ethernet_wall_s: float  # the same job with one 100 GbE port per server (= wall_s for one server)

    @property
    def slowdown(self) -> float:
        return self.ethernet_wall_s / self.wall_s if self.wall_s > 0 else 1.0

    @property
    def needed(self) -> bool:
        return self.nodes > 1 and self.slowdown >= NEEDED_SLOWDOWN


def ethernet_calibration(calib: Calibration) -> Calibration:
    """`calib` with each server's network at ETHERNET_SERVER_BYTES_PER_S: baseboard servers' per-GPU NICs at 1/8 of
    it (8 per server), PCIe servers' one figure at it."""
    tr = calib.training
    per_gpu = ETHERNET_SERVER_BYTES_PER_S / tr.gpus_per_node.value
    nics = {gen: replace(c, value=per_gpu) for gen, c in tr.nic_bytes_per_s_per_gpu.items()}
    slow = replace(tr, nic_bytes_per_s_per_gpu=nics,
                   pcie_server_network_bytes_per_s=replace(tr.pcie_server_network_bytes_per_s,
                                                           value=ETHERNET_SERVER_BYTES_PER_S))
    return replace(calib, training=slow)


def fabric_need(model: ModelSpec, gpu: GpuSpec, option: Option, workload: Workload,
                mfu: float | None = None) -> FabricNeed | None:
    """The training run of `option` over its servers' assumed network and over 100 GbE per server; None for an
    option that is not a sized training run."""
    tr = option.training
    if tr is None or not option.fits:
        return None
    calib = load_calibration()
    per_node = -(-option.count // option.nodes)
    wall = tr.wall.s
    if option.nodes <= 1:
        return FabricNeed(gpu_name=option.gpu_name, count=option.count, nodes=1, network_bytes_per_s=0.0, wall_s=wall,
                          ethernet_wall_s=wall)
    fast = _run_seconds(model, gpu, option, workload, None, mfu)  # the project's network: the option's own plan
    slow = _run_seconds(model, gpu, option, workload, ethernet_calibration(calib), mfu)
    if fast is None or slow is None:
        return None
    rate = inter_node_bytes_per_s(gpu, per_node, calib)[0]
    return FabricNeed(gpu_name=option.gpu_name, count=option.count, nodes=option.nodes, network_bytes_per_s=rate,
                      wall_s=wall, ethernet_wall_s=wall * slow / fast)


def _run_seconds(model: ModelSpec, gpu: GpuSpec, option: Option, w: Workload, calib: Calibration | None,
                 mfu: float | None) -> float | None:
    """The run's wall-clock as the option's speed was computed (advisor.recommend.speed), under `calib`: the
    planner's fastest layout when the option was planned (memoised for the project's calibration, `calib` None), else
    the 6·N·D estimate at the option's layout."""
    tr = option.training
    assert tr is not None
    if tr.planned is not None:  # the same planner call as the option's (training_advice.plan_for), under `calib`
        plan = plan_for(model, gpu, option.count, w, tr.tokens, mfu, calib)
        return None if plan is None else plan.run_wall_s  # None: no layout fits under this network

    lay = option.layout
    r = estimate_train_time(model, gpu, option.count, tr.tokens, calib or load_calibration(), context=w.context, task=w.task,
                            recompute=w.recompute, zero=max(lay.zero, 1) if option.count > 1 else 0,
                            micro_batch=w.batch, offload=lay.zero_offload, mfu=mfu)
    return r.wall.s
