"""Time of one optimizer step of a parallel training layout, by cause (seconds, one GPU's view).

* compute = (global tokens / world) × hardware FLOPs per token / (peak × HFU); HFU is the calibrated compute-only
  utilisation of the GPU class at scale × 1/(1 + h₀/h) (memory-bound elementwise work grows as s·b·h against the
  GEMMs' s·b·h²), × `moe_compute_factor` for MoE models. FP8: the transformer blocks' GEMMs run against the FP8
  peak; the attention (FlashAttention in BF16: Transformer Engine's and torchao's FP8 recipes convert the linear
  layers only) and the output projection (outside Transformer Engine in Megatron-Core, filtered out in torchtitan)
  against the BF16 peak, i.e. their FLOPs count (FP8 peak / BF16 peak) times.
* pipeline bubble (1F1B, m micro-batches, v interleaved stages; Narayanan et al. 2021 §2.2): the step is
  compute × (1 + z·(PP−1)/(v·m)); z = 1 for 1F1B, ≈ 1/3 for the zero-bubble ZB-H1 schedule (Qi et al. 2023);
  DualPipe (DeepSeek-V3 report §3.2.1, Table 2): bubble (PP/2−1)(F&B+B−3W) against 1F1B's (PP−1)(F+B), with
  B = 2F, W = F and F&B = F+B (a forward and a backward chunk overlapped): z = 2(PP/2−1)/(3(PP−1)); its
  all-to-all and PP communication are fully hidden (the report's stated design), so EP and PP terms are 0.
* TP with sequence parallelism: per layer and micro-batch 4 all-gather/reduce-scatter pairs (2 forward, 2 backward;
  2 more with full recompute) of b·(s/CP)·h 16-bit values, each moving 2(t−1)/t of the buffer over NVLink (PCIe
  without it); `tp_overlap` of it hidden behind the GEMMs (the engine's own share where it states one: vanilla
  PyTorch TP blocks on its collectives; its async TP overlaps them as Megatron does, and is assumed unless pinned
  off).
* CP (ring attention): each layer passes the K and V chunks around the CP ring, (CP−1)/CP of b·s·kv_width·2·2 B
  forward and twice that backward; hidden behind attention up to `tp_overlap`.
* PP point-to-point: activations b·(s/CP)·h·2 B /TP (scatter-gather) per micro-batch forward and backward, on the
  critical path once per stage boundary crossing of the first micro-batch's ramp (2·(PP−1) transfers).
* DP: ZeRO-0/1/2 reduce-scatter the 16-bit gradients and all-gather the updated 16-bit parameters once per step
  (2 × 2Ψ bytes on each GPU, ring over DP × CP ranks), hidden behind the last micro-batch's backward and the first
  one's forward (Megatron --overlap-grad-reduce / --overlap-param-gather), i.e. up to one micro-batch's compute;
  with an interleaved pipeline (v virtual stages) the chunks' gradients become final PP micro-batches apart, so up
  to PP·(v − 1)/v micro-batches' compute (`interleaved_dp_window`);
  ZeRO-3 gathers the parameters for the forward and the backward (and the recomputed forward, except under PyTorch
  FSDP, whose backward gather serves the recomputation) in every micro-batch,
  prefetched behind the whole step's compute. The ring runs over NVLink when the DP group fits in one server,
  otherwise over each GPU's share of its server's NICs at the measured NCCL efficiency; every ring collective
  also pays (ranks − 1) hops of latency, which makes ZeRO-3 over thousands of ranks latency-bound.
* MoE expert layers (`moe_copy_seconds`), per routed token copy (k per token and MoE layer), beyond the expert
  GEMMs' FLOPs at the dense rate: (1) grouped-GEMM efficiency falls with the reduction width K as 1/(1 + K₀/K),
  K₀ = `gemm_reduction_bytes` × peak FLOP/s ÷ HBM B/s (a GEMM's output tile is written once per K-loop: DeepGEMM's
  H800 FP8 table, M = 4,096: 590 TFLOP/s at K = 512, 990 at 1,536, 1,025 at 2,048, 1,304 at 7,168, 1,358 at 16,384,
  fits K₀ ≈ 740 = 1.25 × 1,979 TFLOP/s ÷ 3.35 TB/s within 3 %). Of the expert's 18·h·f training FLOPs, the forward
  down projection (2 of 18, K = f/ETP) and the gate/up data gradient (4 of 18, K = 2f/ETP) reduce over the expert
  width, both weight gradients (6 of 18) over the tokens one expert receives per micro-batch,
  M_e = b·(s/CP)/TP · k · EP · ETP / E; the K = h terms are the dense GEMMs' own (in the calibrated HFU). (2) token
  permutation, unpermutation and the gated activation are memory-bound: per copy, forward and backward, 8 h-wide
  and 8 f-wide BF16 reads/writes (16·h + 16·f bytes; FP8 adds the casts of the expert inputs and gradients, 6·h + 9·f
  bytes) at `moe_bandwidth_efficiency` of the HBM bandwidth; under DualPipe the h-wide part runs inside the
  overlapped dispatch/combine kernels (DeepSeek-V3 report §3.2.2: the communication SMs forward, permute and
  reduce) and is hidden with the all-to-all. Megatron-Core's MoE guide names these walls
  ("fine-grained MoE produces many small operations that can underutilize GPU resources"); both grow as 1/f, which
  is why many small experts (Qwen3, gpt-oss) train at a lower MFU than DeepSeek-V3's 2,048-wide ones.
* EP: per MoE layer and micro-batch, dispatch and combine all-to-alls forward and backward (4; 6 with full
  recompute) of the tokens' top-k copies, b·(s/CP)/TP·k·h values (1 B FP8 dispatch as DeepSeek-V3, else 2 B); the
  share (1 − in-server ranks/EP) crosses the network; `ep_overlap` hidden.
"""

from __future__ import annotations

from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

from .calibration import Calibration
from .layout_memory import Memo, memoised, stage_params
from .model_flops import model_flops
from .moe_costs import permutation_bytes
from .parallel_layout import ParallelLayout
from .training import gpu_class, inter_node_bytes_per_s, pcie_bytes_per_s, train_flops_per_token


class StepBreakdown(Value):
    compute_s: float
    bubble_s: float
    tp_s: float  # exposed
    cp_s: float
    pp_s: float
    dp_s: float
    ep_s: float
    step_s: float
    bubble_fraction: float
    hfu: float
    peak_flops: float
    model_flops_per_token: float
    hardware_flops_per_token: float
    mfu: float
    tokens_per_step: float
    hfu_note: str

    @property
    def exposed_comm_s(self) -> float:
        return self.tp_s + self.cp_s + self.pp_s + self.dp_s + self.ep_s


def intra_bytes_per_s(gpu: GpuSpec, calib: Calibration) -> float:
    """One direction of a GPU's link to its server peers: NVLink/Infinity Fabric, else its PCIe link."""
    ar = calib.inference.allreduce
    if gpu.link_kind in ("nvlink-switch", "infinity-fabric", "nvlink-bridge") and gpu.nvlink_bytes_per_s:
        return gpu.nvlink_bytes_per_s / 2 * ar.nvlink_efficiency.value
    bw = pcie_bytes_per_s(gpu, calib) * ar.pcie_efficiency.value
    if gpu.segment == "consumer":
        bw *= calib.training.consumer_pcie_efficiency.value
    return bw


def nvlink_domain(gpu: GpuSpec, calib: Calibration) -> int:
    """GPUs that reach each other over NVLink/NVSwitch: the rack's switch domain where the card sits in one (GB200 /
    GB300 NVL72: 72), else one server (`training.gpus_per_node`, 8)."""
    return gpu.nvlink_domain or int(calib.training.gpus_per_node.value)


def nic_bytes_per_gpu(gpu: GpuSpec, calib: Calibration) -> float:
    """Each GPU's share of its server's network, one direction, at NCCL's efficiency."""
    per_node = int(calib.training.gpus_per_node.value)
    net, _ = inter_node_bytes_per_s(gpu, per_node, calib)
    return net / per_node * calib.training.network_efficiency.value


def elementwise_h0(gpu: GpuSpec, calib: Calibration) -> float:
    """h₀ of the memory-bound share of a layer, HFU × 1/(1 + h₀/h), on `gpu`.

    Norms, rotary, activations and residuals move s·b·h bytes per layer at the HBM bandwidth B while the GEMMs do
    s·b·h² FLOPs at the peak P, so their ratio is ∝ (P/B)/h: h₀ = h₀,ref × (P/B) / (P/B)_ref with the BF16 balance
    of the A100 that h₀,ref was fitted on (312 TFLOP/s ÷ 2.039 TB/s = 153 FLOP/B; an H100 SXM is 295, a B200 281).
    The BF16 balance stands for FP8 runs too (calibration planner.elementwise_reference_flops_per_byte)."""
    pl = calib.planner
    h0 = pl.elementwise_hidden.value
    ref = pl.elementwise_reference_flops_per_byte
    if ref is None or not gpu.bandwidth_bytes_per_s or not gpu.bf16_dense_flops:
        return h0
    return h0 * float(gpu.bf16_dense_flops) / float(gpu.bandwidth_bytes_per_s) / ref.value


def compute_utilisation(model: ModelSpec, gpu: GpuSpec, precision: str, calib: Calibration,
                        engine: str = "megatron") -> tuple[float, float, str]:
    """(peak FLOP/s, HFU, description) for the GPU class and precision, × the training engine's factor."""
    pl = calib.planner
    if precision == "fp8":
        peak, hfu = float(gpu.fp8_dense_flops or 0.0), pl.fp8_hfu.value
        note = f"FP8 HFU {hfu:.2f} of the FP8 peak (sources {', '.join(pl.fp8_hfu.source)})"
    else:
        cls = gpu_class(gpu)
        const = pl.hfu_by_class.get(cls) or pl.hfu_by_class["default"]
        peak, hfu = float(gpu.bf16_dense_flops), const.value
        note = f"class '{cls}' HFU {hfu:.2f} at scale ({const.basis}; sources {', '.join(const.source)})"
    h0 = elementwise_h0(gpu, calib)
    hfu /= 1 + h0 / model.hidden_size
    note += f" × 1/(1 + {h0:.0f}/h) = {1 / (1 + h0 / model.hidden_size):.3f} for memory-bound elementwise work"
    if model.is_moe:
        hfu *= pl.moe_compute_factor.value
        note += f" × {pl.moe_compute_factor.value:.2f} for MoE expert GEMMs and routing"
    eng = pl.training_engines.get(engine)
    if eng is not None and eng.hfu_factor.value != 1.0:
        hfu *= eng.hfu_factor.value
        note += f" × {eng.hfu_factor.value:.2f} for {eng.name} ({', '.join(eng.hfu_factor.source)})"
    if eng is not None and precision == "fp8" and eng.fp8_factor is not None:
        hfu *= eng.fp8_factor.value
        note += f" × {eng.fp8_factor.value:.2f} for its FP8 linears ({', '.join(eng.fp8_factor.source)})"
    return peak, hfu, note


def moe_copy_seconds(model: ModelSpec, gpu: GpuSpec, lay: ParallelLayout, context: int, calib: Calibration,
                     precision: str, peak: float, hfu: float) -> float:
    """Seconds one GPU spends per routed token copy of the whole cluster's step beyond the expert GEMMs' FLOPs
    (module doc: reduction-width GEMM efficiency and the permutation's memory traffic); 0 for dense models or
    without the constants. Multiply by copies per step (tokens × k × MoE layers) ÷ world."""
    pl = calib.planner
    if not model.is_moe or pl.gemm_reduction_bytes is None or pl.moe_bandwidth_efficiency is None:
        return 0.0
    h, etp = model.hidden_size, lay.expert_tp
    f = model.moe_intermediate_size or model.intermediate_size
    f_local = f / etp
    bw = float(gpu.bandwidth_bytes_per_s)
    k0 = pl.gemm_reduction_bytes.value * peak / bw
    m_e = max(1.0, lay.micro_batch * context / (lay.cp * lay.tp) * model.experts_per_token * lay.ep * etp
              / model.n_routed_experts)
    gemm = etp * k0 * h * (4.0 + 6.0 * f_local / m_e) / (peak * hfu)
    fp8 = precision == "fp8"
    # DualPipe: the permutation runs inside the overlapped dispatch/combine kernels (DeepSeek-V3 report §3.2.2)
    h_traffic = 0.0 if lay.schedule == "dualpipe" else permutation_bytes(h * etp, 0.0, low_precision=fp8,
                                                                         forward_only=False)
    traffic = h_traffic + permutation_bytes(0.0, f, low_precision=fp8, forward_only=False)
    return gemm + traffic / (bw * pl.moe_bandwidth_efficiency.value)


def bubble_factor(lay: ParallelLayout, calib: Calibration) -> float:
    """The pipeline schedule's bubble relative to 1F1B's (zero-bubble ZB-H1 ≈ 1/3; calibration planner; DualPipe
    by PP, module doc)."""
    if lay.schedule == "dualpipe":
        return 2.0 * (lay.pp / 2 - 1) / (3.0 * (lay.pp - 1)) if lay.pp > 2 else 0.0
    const = calib.planner.schedule_bubble_factor.get(lay.schedule)
    return const.value if const is not None else 1.0


def tp_hidden(calib: Calibration, engine: str, async_tp: bool | None = None) -> float:
    """Share of the TP/SP (and CP ring) exchanges hidden behind computation for `engine`: planner.tp_overlap
    (Megatron-Core), or the engine's own plain-TP figure, or its overlapped TP's (torchtitan's async TP) where it
    offers one and `async_tp` is not False (None: the engine's best, as a practitioner at scale sets it)."""
    eng = calib.planner.training_engines.get(engine)
    if eng is None or eng.tp_overlap is None:
        return calib.planner.tp_overlap.value
    if eng.async_tp_overlap is not None and async_tp is not False:
        return eng.async_tp_overlap.value
    return eng.tp_overlap.value


def regathers(calib: Calibration, engine: str) -> bool:
    """Whether `engine`'s ZeRO-3 gathers the parameters a third time for the recomputed forward (DeepSpeed,
    Megatron); PyTorch FSDP re-gathers once in the backward and recomputes under that gather."""
    eng = calib.planner.training_engines.get(engine)
    return eng is None or eng.recompute_regathers


def _ring(volume: float, ranks: int, bw: float) -> float:
    return volume * (ranks - 1) / ranks / bw if ranks > 1 else 0.0


def comm_terms(model: ModelSpec, lay: ParallelLayout, context: int, calib: Calibration, intra: float, nic: float,
               passes: float, fp8: bool, engine: str = "megatron",
               domain: int | None = None, async_tp: bool | None = None) -> tuple[float, float, float, float]:
    """Exposed (TP, CP, PP point-to-point, EP) seconds per step; they do not depend on the ZeRO stage, and depend
    on recomputation only through `passes` (4 + 2 × the share of layers recomputed in full). `domain`: GPUs on one
    NVLink domain (`nvlink_domain`; default one server)."""
    pl = calib.planner
    per_node = domain or int(calib.training.gpus_per_node.value)
    m = lay.grad_accum
    s_local = context // lay.cp
    stage_layers = -(-model.num_layers // lay.pp)
    act_bytes = lay.micro_batch * s_local * model.hidden_size * 2.0
    hidden = tp_hidden(calib, engine, async_tp)
    tp_s = (1 - hidden) * stage_layers * m * passes * 2 * _ring(act_bytes, lay.tp, intra)
    cp_s = 0.0
    if lay.cp > 1:
        kv_width = (2 * model.num_attention_heads * ((model.qk_nope_head_dim or 0) + (model.qk_rope_head_dim or 0))
                    if model.is_mla else 2 * model.num_kv_heads * model.head_dim)
        kv_bytes = lay.micro_batch * s_local * kv_width * 2.0 / lay.tp
        link = intra if lay.tp * lay.cp <= per_node else nic
        cp_s = (1 - hidden) * stage_layers * m * 3 * kv_bytes * (lay.cp - 1) / link
    pp_s = 2 * (lay.pp - 1) * act_bytes / lay.tp / nic if lay.pp > 1 else 0.0
    ep_s = 0.0
    if lay.ep > 1 and model.moe_layers:
        tok = lay.micro_batch * s_local / lay.tp
        per_pass = tok * model.experts_per_token * model.hidden_size * (1.0 if fp8 else 2.0) * (lay.ep - 1) / lay.ep
        in_node = max(1, min(lay.ep, per_node // lay.expert_tp))
        cross = 1 - in_node / lay.ep
        t_pass = per_pass * cross / nic + per_pass * (1 - cross) / intra
        ep_s = (1 - pl.ep_overlap.value) * min(stage_layers, model.moe_layers) * m * passes * t_pass
    if lay.schedule == "dualpipe":  # DualPipe overlaps the all-to-alls and the PP sends with computation
        pp_s = ep_s = 0.0
    return tp_s, cp_s, pp_s, ep_s


def interleaved_dp_window(lay: ParallelLayout) -> float:
    """Micro-batches of compute that hide ZeRO-1/2's gradient reduce-scatter and parameter all-gather (module doc):
    1 without interleaving (the stage's last backward / first forward); with v > 1 virtual stages per rank the
    interleaved schedule runs the backward of each group of PP micro-batches chunk by chunk, from the last virtual
    stage to the first (Narayanan et al. 2021 §2.2.2), so chunk c's gradients are final while (v − 1 − c) chunk
    groups of PP micro-batches remain, and Megatron's distributed optimizer reduces them then (its buckets are the
    layers of one virtual stage: NeMo "Communication Overlap"); the forward of the next step mirrors it for the
    gather: a window of PP·(v − 1)/v micro-batches (at most m)."""
    if lay.vpp <= 1 or lay.pp <= 1:
        return 1.0
    return max(1.0, min(float(lay.grad_accum), lay.pp * (lay.vpp - 1) / lay.vpp))


def dp_seconds(lay: ParallelLayout, dense: float, experts: float, compute: float, calib: Calibration,
               intra: float, nic: float, layers: int, domain: int | None = None,
               regather_for_recompute: bool = True) -> float:
    """Exposed data-parallel seconds per step (module doc), with NCCL's ring latency: every collective takes
    (ranks − 1) hops of `ring_hop_latency_s`; one reduce-scatter and one all-gather per layer bucket per step
    (ZeRO-1/2), per-layer gathers in every micro-batch (ZeRO-3)."""
    per_node = domain or int(calib.training.gpus_per_node.value)
    hop = calib.planner.ring_hop_latency_s.value
    m = lay.grad_accum
    shards = lay.dp * lay.cp
    link = intra if lay.world <= per_node else nic
    stage_layers = -(-layers // lay.pp)
    if lay.zero >= 3:
        gathers = 3 if lay.recompute == "full" and regather_for_recompute else 2
        raw = _ring((gathers + 1) * 2 * dense * m, shards, link)
        calls = (gathers + 1) * stage_layers * m
        window = compute
    else:
        raw = _ring(2 * 2 * dense, shards, link)
        calls = 2 * stage_layers
        window = compute / m * interleaved_dp_window(lay)
    raw += calls * (shards - 1) * hop if shards > 1 else 0.0
    if experts and lay.expert_dp > 1:
        edp = lay.expert_dp
        raw += _ring((2 * 2 if lay.zero < 3 else 2 * 3 * m) * experts, edp, nic if lay.world > per_node else intra)
    return max(0.0, raw - calib.training.comm_overlap.value * window)


def engine_flops_per_token(model: ModelSpec, context: int, recompute: str, calib: Calibration,
                           engine: str) -> tuple[float, float]:
    """(model, hardware) FLOPs per token; "selective" is Megatron's (the attention core recomputed, + A(s)) unless
    the engine states its own: torchtitan's op-level policy saves every compute op's output except every second
    matmul, so it recomputes that share of the forward matmuls (2·N × share) and none of the attention."""
    model_f, hw_f = train_flops_per_token(model, context, "pretrain", recompute)
    eng = calib.planner.training_engines.get(engine)
    if recompute == "selective" and eng is not None and eng.selective_matmul_recompute is not None:
        hw_f = model_f + 2.0 * eng.selective_matmul_recompute.value * model_flops(model).matmul_active
    return model_f, hw_f


def bf16_attention_extra(model: ModelSpec, gpu: GpuSpec, context: int, precision: str, recompute: str) -> float:
    """FP8 training: extra FP8-equivalent FLOPs per token for the work that stays at the BF16 peak, × (FP8 peak /
    BF16 peak − 1); 0 in BF16. (1) The attention: its hardware FLOPs 3·A(s), 4·A(s) with selective or full
    recomputation (Transformer Engine's and torchao's recipes convert the linear layers only). (2) The output
    (vocabulary) projection, 6·h·V forward and backward, never recomputed: Megatron-Core builds it as its own
    tensor_parallel.ColumnParallelLinear outside Transformer Engine, and torchtitan's float8 recipe filters
    `output` out (components/quantization/float8.md)."""
    if precision != "fp8" or not gpu.bf16_dense_flops or not gpu.fp8_dense_flops:
        return 0.0
    attn = model_flops(model).causal_attention_flops_per_token(context)
    head = 6.0 * model.hidden_size * model.vocab_size
    bf16 = (3.0 if recompute == "none" else 4.0) * attn + head
    return bf16 * (float(gpu.fp8_dense_flops) / float(gpu.bf16_dense_flops) - 1)


def step_time(model: ModelSpec, gpu: GpuSpec, lay: ParallelLayout, context: int, calib: Calibration, *,
              precision: str = "bf16", fp8_dispatch: bool | None = None, memo: Memo | None = None,
              engine: str = "megatron", async_tp: bool | None = None) -> StepBreakdown:
    """One optimizer step of `lay` (module doc for every term). `memo`: a dict shared by the calls of one search
    (same model, GPU, sequence and precision)."""
    peak, hfu, note = memoised(memo, ("util", engine),
                               lambda: compute_utilisation(model, gpu, precision, calib, engine))

    def flops(rec: str) -> tuple[float, float]:
        return memoised(memo, ("flops", rec, engine),
                        lambda: engine_flops_per_token(model, context, rec, calib, engine))

    model_f, hw_f = flops(lay.recompute)
    stage_layers = -(-model.num_layers // lay.pp)
    share = 1.0 if lay.recompute == "full" else 0.0
    if lay.partial_recompute:  # block recompute: k of a stage's layers in full, the others selective
        share = min(1.0, lay.recompute_layers / stage_layers)
        hw_f = flops("selective")[1] * (1 - share) + hw_f * share
    m = lay.grad_accum
    tokens = float(lay.global_batch_seqs * context)
    work = hw_f + memoised(memo, ("attn16", lay.recompute),
                           lambda: bf16_attention_extra(model, gpu, context, precision, lay.recompute))
    compute = tokens / lay.world * work / (peak * hfu)
    if model.is_moe:
        per_copy = memoised(memo, ("moe", engine, lay.tp, lay.cp, lay.ep, lay.micro_batch, lay.expert_tp),
                            lambda: moe_copy_seconds(model, gpu, lay, context, calib, precision, peak, hfu))
        compute += tokens * model.experts_per_token * model.moe_layers / lay.world * per_copy
    bubble = compute * (lay.pp - 1) / (lay.vpp * m) * bubble_factor(lay, calib)
    bubble_fraction = bubble / (compute + bubble) if compute + bubble > 0 else 0.0
    intra, nic = memoised(memo, ("links",), lambda: (intra_bytes_per_s(gpu, calib), nic_bytes_per_gpu(gpu, calib)))
    fp8 = precision == "fp8" if fp8_dispatch is None else fp8_dispatch
    tp_s, cp_s, pp_s, ep_s = comm_terms(model, lay, context, calib, intra, nic, 4 + 2 * share, fp8, engine,
                                        nvlink_domain(gpu, calib), async_tp)
    dense, experts = memoised(memo, ("stage", lay.tp, lay.pp, lay.ep, lay.expert_tp), lambda: stage_params(model, lay))
    dp_s = dp_seconds(lay, dense, experts, compute, calib, intra, nic, model.num_layers, nvlink_domain(gpu, calib),
                      regathers(calib, engine))
    step = compute + bubble + tp_s + cp_s + pp_s + dp_s + ep_s
    mfu = tokens * model_f / (lay.world * peak * step)
    return StepBreakdown(compute_s=compute, bubble_s=bubble, tp_s=tp_s, cp_s=cp_s, pp_s=pp_s, dp_s=dp_s, ep_s=ep_s,
                         step_s=step, bubble_fraction=bubble_fraction, hfu=hfu, peak_flops=peak,
                         model_flops_per_token=model_f, hardware_flops_per_token=hw_f, mfu=mfu,
                         tokens_per_step=tokens, hfu_note=note)
