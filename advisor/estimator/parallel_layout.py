"""Parallel layouts of a training job and the rules a layout must obey (Megatron-LM / DeepSpeed conventions).

A layout splits `count` GPUs as world = TP × CP × PP × DP:
* TP (tensor parallel, with sequence parallelism): splits every matmul and the attention heads; it all-reduces in
  every layer, so it stays inside one NVLink/NVSwitch domain (one server), and over plain PCIe at most
  `pcie_tp_max` (2) unless asked for. TP must divide the attention heads and, for grouped-query attention, the KV
  heads (Megatron-LM: num_query_groups % TP == 0): TP ≤ KV heads.
* CP (context parallel, ring attention): splits the sequence; for long sequences (Llama 3: CP16 at 128K tokens).
  The sequence must split into 2·CP equal chunks (load-balanced causal ring).
* PP (pipeline parallel, 1F1B; `vpp` interleaved virtual stages): splits the layers into PP stages; every stage
  needs at least one layer (Llama 3 405B: 126 layers on 16 stages, uneven).
* DP (data parallel) with ZeRO stage 1/2/3 sharding the model states over DP × CP ranks.
* EP (expert parallel, MoE only): the routed experts are split over EP ranks taken from the DP × CP ranks
  (Megatron-Core: EP divides DP × CP); EP must divide the number of routed experts. A pinned EP that does not divide
  DP × CP but divides TP × DP × CP is folded over the TP ranks with expert TP 1 (Megatron-Core MoE parallel folding).
Micro-batch b sequences per GPU and `grad_accum` micro-batches per optimizer step: the global batch is
b × grad_accum × DP sequences.
"""

from __future__ import annotations

from knowledge.errors import InputError
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

RECOMPUTES = ("none", "selective", "full")
ZERO_STAGES = (0, 1, 2, 3)


class ParallelLayout(Value):
    tp: int
    pp: int
    dp: int
    cp: int = 1
    ep: int = 1
    zero: int = 1
    recompute: str = "selective"
    micro_batch: int = 1
    grad_accum: int = 1
    vpp: int = 1  # interleaved virtual pipeline stages per GPU
    recompute_layers: int = 0  # with "full": layers per stage recomputed in full, the rest selective (0 = all)
    schedule: str = "1f1b"  # pipeline schedule: "1f1b" (interleaved when vpp > 1), "zero-bubble" (ZB-H1), "dualpipe"

    @property
    def world(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    @property
    def expert_tp(self) -> int:
        """Tensor parallelism of the expert layers: TP, or 1 where EP is folded over the TP ranks because it does not
        divide DP × CP (Megatron-Core "MoE parallel folding": expert TP × EP × expert DP = TP × CP × DP)."""
        return 1 if self.ep > 1 and (self.dp * self.cp) % self.ep else self.tp

    @property
    def expert_dp(self) -> int:
        """Data-parallel replicas of each expert: TP × CP × DP / (EP × expert TP) (DP × CP / EP unfolded)."""
        return max(1, self.tp * self.dp * self.cp // (self.ep * self.expert_tp))

    @property
    def global_batch_seqs(self) -> int:
        return self.micro_batch * self.grad_accum * self.dp

    def describe(self) -> str:
        parts = [f"TP {self.tp}", f"PP {self.pp}" + (f" (×{self.vpp} interleaved)" if self.vpp > 1 else "")
                 + (f", {self.schedule} schedule" if self.schedule != "1f1b" and self.pp > 1 else ""),
                 f"DP {self.dp}"]
        if self.cp > 1:
            parts.insert(1, f"CP {self.cp}")
        if self.ep > 1:
            parts.append(f"EP {self.ep}" + (" (folded over TP)" if self.expert_tp != self.tp else ""))
        rec = (f"full recompute of {self.recompute_layers} layer(s) per stage, selective elsewhere"
               if self.partial_recompute else f"{self.recompute} recompute")
        return (" × ".join(parts) + f", ZeRO-{self.zero}, {rec}, micro-batch "
                f"{self.micro_batch} × {self.grad_accum} accumulation")

    @property
    def partial_recompute(self) -> bool:
        return self.recompute == "full" and self.recompute_layers > 0


def divisors(n: int) -> list[int]:
    """The divisors of `n`, ascending (the TP degrees, stage and expert-group counts that split `n` evenly)."""
    return [d for d in range(1, n + 1) if n % d == 0]


def nvlink_domain(gpu: GpuSpec, gpus_per_node: int) -> int:
    """GPUs one TP group may span: the server's NVSwitch/Infinity Fabric domain; 2 for NVLink-bridged pairs; 1 for
    PCIe-only cards (TP over PCIe is allowed up to `pcie_tp_max`, see :func:`max_tp`)."""
    if gpu.link_kind in ("nvlink-switch", "infinity-fabric"):
        return gpus_per_node
    if gpu.link_kind == "nvlink-bridge":
        return 2
    return 1


def max_tp(gpu: GpuSpec, gpus_per_node: int, pcie_tp_max: int) -> int:
    return max(nvlink_domain(gpu, gpus_per_node), min(pcie_tp_max, gpus_per_node))


def tp_ok(model: ModelSpec, tp: int) -> str | None:
    """None when `tp` can split the model's heads, else the constraint it breaks."""
    a, kv = model.num_attention_heads, model.num_kv_heads
    if a % tp:
        return f"tensor parallelism {tp} must divide the {a} attention heads of {model.name}"
    if not model.is_mla and kv < a and (tp > kv or kv % tp):
        return (f"tensor parallelism {tp} must divide the {kv} KV heads of {model.name} (grouped-query attention: "
                f"TP ≤ KV heads)")
    return None


def stages_ok(layers: int, pp: int) -> bool:
    """The L layers split into pp non-empty stages of ⌊L/pp⌋ or ⌈L/pp⌉ layers (Llama 3 405B: 126 on 16 stages)."""
    return 1 <= pp <= layers


def check_layout(model: ModelSpec, gpu: GpuSpec, count: int, lay: ParallelLayout, context: int, *,
                 gpus_per_node: int, pcie_tp_max: int, allow_pcie_tp: bool = False) -> None:
    """Raise InputError naming the first rule `lay` breaks (field = the flag to change)."""
    for name, value in (("tp", lay.tp), ("pp", lay.pp), ("dp", lay.dp), ("cp", lay.cp), ("ep", lay.ep),
                        ("micro_batch", lay.micro_batch), ("grad_accum", lay.grad_accum), ("vpp", lay.vpp)):
        if value < 1:
            raise InputError(f"{name} must be at least 1, got {value}", field=name, accepted="≥ 1")
    if lay.world != count:
        raise InputError.from_key("errors.layout_factor", field="count",
                                  accepted=f"TP × CP × PP dividing {count}: world size = TP × CP × PP × DP",
                                  count=count, tp=lay.tp, cp=lay.cp, pp=lay.pp, dp=lay.dp, world=lay.world)
    why = tp_ok(model, lay.tp)
    if why:
        ok = [d for d in divisors(model.num_attention_heads) if tp_ok(model, d) is None]
        raise InputError(why, field="tp", accepted=", ".join(map(str, ok)),
                         message_zh=f"张量并行度 {lay.tp} 不能整除 {model.name} 的注意力头/KV 头")
    limit = gpus_per_node if allow_pcie_tp else max_tp(gpu, gpus_per_node, pcie_tp_max)
    if lay.tp > limit:
        where = ("one server's NVLink domain" if nvlink_domain(gpu, gpus_per_node) > 1
                 else f"{pcie_tp_max} PCIe cards without NVLink")
        raise InputError.from_key("errors.tp_domain", field="tp", accepted=f"1 … {limit}", tp=lay.tp, where=where,
                                  limit=limit, gpu=gpu.name)
    if not stages_ok(model.num_layers, lay.pp):
        raise InputError.from_key("errors.pp_layers", field="pp",
                                  accepted=f"a stage count ≤ {model.num_layers} (a divisor of {model.num_layers} is balanced)",
                                  pp=lay.pp, layers=model.num_layers, model=model.name)
    if lay.vpp > 1 and (lay.pp == 1 or not stages_ok(model.num_layers, lay.pp * lay.vpp)):
        raise InputError(f"{lay.vpp} interleaved stages per GPU need PP > 1 and {lay.pp * lay.vpp} ≤ "
                         f"{model.num_layers} layers", field="vpp", accepted="1, or PP × vpp ≤ layers")
    if lay.cp > 1 and context % (2 * lay.cp):
        raise InputError.from_key("errors.cp_context", field="cp", accepted=f"CP with {context} % (2·CP) = 0",
                                  cp=lay.cp, divisor=2 * lay.cp, context=context)
    experts = model.n_routed_experts if model.is_moe else 0
    if lay.ep > 1 and not experts:
        raise InputError.from_key("errors.ep_dense", field="ep", accepted="1 for dense models", ep=lay.ep,
                                  model=model.name)
    if experts and (lay.ep > experts or experts % lay.ep):
        raise InputError.from_key("errors.ep_experts", field="ep",
                                  accepted=", ".join(str(d) for d in divisors(experts) if d <= count),
                                  ep=lay.ep, experts=experts, model=model.name)
    if lay.ep > 1 and (lay.tp * lay.dp * lay.cp) % lay.ep:
        raise InputError.from_key("errors.ep_split", field="ep", ep=lay.ep, ranks=lay.tp * lay.dp * lay.cp,
                                  accepted=", ".join(str(d) for d in divisors(lay.tp * lay.dp * lay.cp)
                                                     if experts % d == 0))
    if lay.zero not in ZERO_STAGES:
        raise InputError(f"ZeRO stage {lay.zero} is not defined", field="zero", accepted="0, 1, 2 or 3")
    if lay.zero == 3 and lay.pp > 1:
        raise InputError.from_key("errors.zero3_pp", field="zero", accepted="--zero 0, 1 or 2 with --pp > 1")
    if lay.recompute not in RECOMPUTES:
        raise InputError(f"unknown recompute '{lay.recompute}'", field="recompute", accepted=", ".join(RECOMPUTES))

