"""Inference speed: decode and prefill as a calibrated roofline, tensor-parallel communication, capacity.

One forward step on one GPU of a tensor-parallel group of `tp` GPUs (every GPU runs the same step in parallel):

    t_step = pmax(t_weights, t_matmul) + pmax(t_kv, t_attention) + t_allreduce + t_overhead
    t_weights  = W_read / (B_dram · η_w[format])          t_matmul    = (F_dense + F_experts / f_moe) / (P_peak · η_c)
                                                                        + k · L_moe · t_copy (MoE, per token)
    t_kv       = KV_read / (B_dram · η_kv)                t_attention = F_attn / (P_16bit · η_attn)
    pmax(a, b) = (a^p + b^p)^(1/p) ≥ max(a, b): a smooth roofline (near the ridge point neither limit is reached;
                 matmuls and attention are separate kernels, so their times add)
    t_allreduce= 2 · L · [2(tp−1)/tp · M / (B_link · η_link) + s · α_link]   M = tokens · hidden · 2 bytes
                 s = 2·log2(tp) synchronisations on a switched fabric (NVSwitch, Infinity Fabric: recursive halving
                 and doubling, Thakur, Rabenseifner & Gropp 2005), 2(tp−1) for a ring over PCIe or 2-way bridges
    t_overhead = c_step[engine] + c_layer[engine, memory class] · L        (kernel launches, scheduling)
                 llama.cpp has its own batch-1 costs (per layer ≈140 µs on HBM parts, ≈16 µs on GDDR cards); the
                 serving engines share one pair (TensorRT-LLM-fitted)

Decode (one new token for each of the b sequences of the batch, each with c tokens of context):
    W_read  = matmul weights on this GPU, embedding gather excluded; MoE: the routed experts touched by the batch,
              E·(1−(1−k/E)^b) of E per layer (each token picks k; the expected number of distinct experts)
    KV_read = b × KV bytes of a c-token sequence on this GPU (sliding windows and GQA/MLA included)
    FLOPs   = b × (2·N_active + 4·c·d_attn per layer) / tp; the routed experts' share (F_experts) runs as grouped
              GEMMs with routing and token permutation at f_moe of the dense rate, the constant the training planner
              uses (calibration.yaml planner.moe_compute_factor, 0.7); and each of the k routed copies per MoE layer
              pays t_copy, its forward share of the training planner's per-copy costs (moe_costs: the down projection's
              narrow reduction, the permutation's h- and f/tp-wide rows at the HBM bandwidth)
Prefill of p prompt tokens: the same with b·p tokens, attention over the causal triangle (mean context (p+1)/2),
all routed experts read; time to first token = t_prefill + c_request.

The efficiencies η, the overheads c and the link constants α are one calibrated set for every model and GPU
(knowledge/data/calibration.yaml). Because η ≤ 1 and every added term is ≥ 0, a prediction never exceeds the
physical limits B_dram / bytes-per-step and P_peak / FLOPs-per-step.
"""

from __future__ import annotations

import math

from advisor.workload import DEFAULT_CONTEXT, MAX_CONTEXT, Workload, request_lengths
from knowledge.errors import InputError
from knowledge.quantities import Bytes, Seconds
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value, replace

from . import collectives
from .calibration import Calibration
from .formats import (
    FORMATS,
    NATIVE_COMPUTE,
    check_format,
    kv_bits,
    quantised_active_share,
    shard_weight_bytes,
    weight_bytes_by_group,
)
from .kv_cache import kv_cache_bytes
from .memory import default_inference_format, estimate_memory
from .model_flops import model_flops
from .moe_costs import down_projection_seconds, permutation_bytes
from .speed_results import Bound, Capacity, ServingEstimate, StepTime, ThroughputEstimate
from .throughput_text import decode_step_formula, throughput_assumptions, throughput_formulas

MAX_CONCURRENCY = 100_000


# ------------------------------------------------------------------------------------------------------------
# per-model constants (precomputed once per model × weight format × KV format × tp)


class SpeedProfile(Value):
    """Everything about one model sharded `tp` ways that a step needs, as plain numbers."""

    model_id: str
    weights: str
    kv: str
    tp: int
    family: str  # bandwidth-efficiency class: float, weight_only, gguf, bnb, fp8
    fp8_compute: bool  # the weights are FP8 and the matmuls may run on FP8 tensor cores
    fp4_compute: bool  # MXFP4/NVFP4 weights: the quantised share may run on FP4 tensor cores (Blackwell)
    fp4_share: float  # share of the per-token matmul parameters stored in FP4
    dense_read_bytes: float  # per GPU per step: all matmul weights except routed experts (and the embedding gather)
    expert_bytes: float  # per GPU: all routed experts
    n_experts: int
    experts_per_token: int
    matmul_flops_per_token: float  # 2 · N_active / tp
    d_attn_per_gpu: float  # (d_qk + d_v) / tp, for attention FLOPs
    layers: int
    window: int | None
    window_layers: int
    hidden: int
    kv_seq_cache: dict[int, int]  # context -> KV bytes of one sequence on one GPU (memoised)
    model: ModelSpec
    attention_dp: bool = False  # attention data-parallel over the TP group: whole attention, own sequences' KV
    whole_flops_per_token: float = 0.0  # 2 · (N_active − routed-expert active) / tp: the part DP attention keeps whole

    def kv_bytes(self, context: int) -> int:
        hit = self.kv_seq_cache.get(context)
        if hit is None:
            hit = kv_cache_bytes(self.model, context, 1, self.kv, self.tp, attention_dp=self.attention_dp)
            if len(self.kv_seq_cache) > 256:
                self.kv_seq_cache.clear()
            self.kv_seq_cache[context] = hit
        return hit

    def attention_flops(self, context: float) -> float:
        """Forward attention FLOPs per token on this GPU at `context` keys (window-capped layers)."""
        full = (self.layers - self.window_layers) * context
        if self.window_layers:
            full += self.window_layers * min(context, float(self.window or context))
        return 2.0 * full * self.d_attn_per_gpu

    def prefill_attention_flops(self, prompt: float) -> float:
        """Forward attention FLOPs per prompt token, averaged over the causal triangle."""
        full = (self.layers - self.window_layers) * (prompt + 1) / 2.0
        if self.window_layers:
            w = float(self.window or prompt)
            mean = (prompt + 1) / 2.0 if prompt <= w else w - w * (w - 1) / (2.0 * prompt)
            full += self.window_layers * mean
        return 2.0 * full * self.d_attn_per_gpu

    def experts_touched(self, tokens: float) -> float:
        """Expected distinct routed experts per MoE layer when `tokens` tokens each pick k of E."""
        if not self.n_experts:
            return 0.0
        e, k = self.n_experts, self.experts_per_token
        touched: float = e * (1.0 - (1.0 - k / e) ** tokens)  # float ** float is Any to the checker
        return touched

    def weight_read_bytes(self, tokens: float) -> float:
        if not self.n_experts:
            return self.dense_read_bytes
        return self.dense_read_bytes + self.expert_bytes * self.experts_touched(tokens) / self.n_experts


_PROFILES: dict[tuple[int, str, str, int, bool], tuple[ModelSpec, SpeedProfile]] = {}


def attention_dp_on(model: ModelSpec, w: Workload, tp: int) -> bool:
    """Whether a serving workload runs attention data-parallel over its TP group of `tp`: asked, an MLA model, tp > 1
    (the memory estimate refuses it for other models; the speed model reads it as plain TP there)."""
    return bool(w.attention_dp) and tp > 1 and model.is_mla


def speed_profile(model: ModelSpec, weights: str, kv: str, tp: int, attention_dp: bool = False) -> SpeedProfile:
    """The model's per-GPU byte and FLOP constants under `weights`/`kv` formats and TP degree (cached).

    `attention_dp` (attention data-parallel over the TP group, MLA models): each GPU reads all weights but the routed
    experts' 1/tp and the KV of its own 1/tp of the sequences; the FLOPs per GPU are the same as under TP (b/tp
    tokens through the whole attention, b tokens' expert work split tp ways)."""
    dpa = attention_dp and tp > 1
    key = (id(model), weights, kv, tp, dpa)
    hit = _PROFILES.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    info = check_format(weights)
    kv_bits(kv)  # validates the KV format
    if tp < 1 or model.num_attention_heads % tp:
        raise InputError(f"tensor parallelism {tp} must divide the {model.num_attention_heads} attention heads of "
                         f"{model.name}", field="count", accepted=_divisor_text(model.num_attention_heads))
    groups = dict(weight_bytes_by_group(model, info.name))
    experts = groups.pop("experts", 0)
    if not model.tie_word_embeddings:  # the token embedding is a gather of b rows, not a streamed matrix
        groups["embedding"] = 0
    groups["position"] = 0
    dense = shard_weight_bytes(model, groups, tp=1 if dpa else tp, pp=1)
    expert = shard_weight_bytes(model, {"experts": experts}, tp=tp, pp=1) if experts else 0
    mf = model_flops(model)
    family = info.family.replace("-", "_")
    fp8 = info.name == "fp8"
    if fp8:
        family = "fp8"
    fp4 = NATIVE_COMPUTE.get(info.name) == "fp4"
    prof = SpeedProfile(
        model_id=model.id, weights=info.name, kv=kv, tp=tp, family=family, fp8_compute=fp8, fp4_compute=fp4,
        fp4_share=quantised_active_share(model, info.name) if fp4 else 0.0,
        dense_read_bytes=float(dense), expert_bytes=float(expert), n_experts=model.n_routed_experts,
        experts_per_token=model.experts_per_token, matmul_flops_per_token=2.0 * mf.matmul_active / tp,
        d_attn_per_gpu=(mf.d_qk + mf.d_v) / tp, layers=model.num_layers, window=model.sliding_window,
        window_layers=mf.window_layers, hidden=model.hidden_size, kv_seq_cache={}, model=model, attention_dp=dpa,
        whole_flops_per_token=2.0 * (mf.matmul_active - mf.routed_expert_params * model.experts_per_token
                                     / max(1, model.n_routed_experts)) / tp,
    )
    if len(_PROFILES) > 2048:
        _PROFILES.clear()
    _PROFILES[key] = (model, prof)
    return prof


def _divisor_text(n: int) -> str:
    from advisor.estimator.parallel_layout import divisors  # start-up: only a TP degree that fails loads the layouts

    return "a GPU count that divides " + f"{n} (" + ", ".join(map(str, divisors(n))) + ")"


# ------------------------------------------------------------------------------------------------------------
# hardware numbers


class Hardware(Value):
    bandwidth: float  # bytes/s
    peak: float  # FLOP/s for the matmuls of this format
    eta_w: float  # bandwidth efficiency for the weights of this format
    eta_kv: float  # bandwidth efficiency for KV reads
    eta_c: float  # matmul compute efficiency
    attn_peak: float  # FLOP/s for attention (16-bit tensor cores: FMHA runs in BF16/FP16)
    eta_attn: float
    link_bw: float  # bytes/s one direction, after efficiency (0 when tp == 1)
    link_alpha: float  # seconds per synchronisation step of an all-reduce
    link_name: str
    step_overhead: float
    layer_overhead: float
    request_overhead: float
    sharpness: float
    link_switched: bool = False  # every GPU of the group on one switch (NVSwitch, Infinity Fabric mesh)
    # the step's all-reduce seconds as lines in its tokens (collectives.pieces); empty without TP
    allreduce: tuple[collectives.Line, ...] = ()
    moe_factor: float = 1.0  # grouped expert GEMMs' share of the dense matmul rate (planner.moe_compute_factor)
    moe_copy_s: float = 0.0  # seconds per routed token copy on one GPU beyond the expert FLOPs (routed_copy_seconds)


def matmul_s_per_token(prof: SpeedProfile, hw: Hardware) -> float:
    """Seconds of matmul compute per token on one GPU: the dense part (F_whole) at P_peak·η_c, the routed experts'
    part (F_matmul − F_whole, 0 for a dense model) at f_moe of that rate (grouped GEMMs, routing, permutation)."""
    experts = prof.matmul_flops_per_token - prof.whole_flops_per_token
    copies = prof.experts_per_token * prof.model.moe_layers if prof.n_experts else 0
    return (prof.whole_flops_per_token + experts / hw.moe_factor) / (hw.peak * hw.eta_c) + copies * hw.moe_copy_s


def memory_class(gpu: GpuSpec) -> str:
    """The key of the per-layer fixed cost: "hbm" for HBM parts (A100/H100/H200/B200/MI300 class), else "gddr"."""
    return "hbm" if gpu.memory_type.upper().startswith("HBM") else "gddr"


def default_engine(weights: str) -> str:
    """The engine a format implies when none is named: llama.cpp for GGUF, vLLM otherwise."""
    return "llama.cpp" if FORMATS[check_format(weights).name].family == "gguf" else "vllm"


def fp8_gemms_per_layer(model: ModelSpec) -> float:
    """The FP8 GEMMs of one layer, averaged over the layers, that each quantise their input (act_quant_s):
    attention 2 (fused QKV, output), MLA 4 (q_a, q_b, kv_a, output; 3 without a query low-rank); a dense MLP 2 (fused
    gate-up, down); an MoE layer 2 for the routed experts (the fused-MoE kernel's two GEMMs) and 2 for shared experts.
    The router and MLA's absorbed key/value products stay in 16 bits."""
    attention = (4 if model.q_lora_rank else 3) if model.is_mla else 2
    moe = model.moe_layers
    per_moe = 2 + (2 if model.n_shared_experts else 0)
    return attention + (2 * (model.num_layers - moe) + per_moe * moe) / model.num_layers


def act_quant_per_layer(engine: str, model: ModelSpec, fp8_cores: bool) -> float:
    """Seconds per layer the engine spends quantising each FP8 GEMM's input in a kernel of its own (engines.yaml
    `act_quant_s` × `fp8_gemms_per_layer`; vLLM, SGLang), when the matmuls run on FP8 tensor cores; 0 otherwise and
    for engines that fuse it (TensorRT-LLM). The one charge the roofline (`hardware`) and the serving simulation's
    scheduler (serving.scheduler_for) both pay."""
    if not fp8_cores:
        return 0.0
    from .engines import default_engines  # start-up: only an FP8 model on FP8 tensor cores reads engines.yaml

    profile = default_engines().get(engine)
    quant = profile.serving.act_quant_s if profile is not None and profile.serving is not None else None
    return quant.value * fp8_gemms_per_layer(model) if quant is not None else 0.0


def hardware(gpu: GpuSpec, prof: SpeedProfile, calib: Calibration, engine: str | None = None) -> Hardware:
    """The GPU's numbers for this profile, with the fixed costs of `engine` (default: by the weight format)."""
    inf = calib.inference
    eff = inf.bandwidth_efficiency
    fixed = inf.engine_fixed_costs.get(engine or default_engine(prof.weights))
    fp8_cores = prof.fp8_compute and bool(gpu.fp8_dense_flops) and gpu.supports_fp8
    # GPUs whose measured matmul share of peak is below the class the efficiencies were fitted on (calibration.yaml
    # matmul_factor_by_gpu, MAMF table); the FP4 efficiency was fitted on a B200 itself and keeps its value
    factor = inf.matmul_factor_by_gpu.get(gpu.id)
    matmul_factor = factor.value if factor is not None else 1.0
    if fp8_cores:
        peak, eta_c = float(gpu.fp8_dense_flops or 0), inf.fp8_compute_efficiency.value
        fam = "fp8"
    elif prof.fp4_compute and gpu.fp4_dense_flops:
        # FP4 tensor cores for the FP4 share s of the matmuls, 16-bit for the rest: 1 / (s/P_fp4 + (1-s)/P_bf16),
        # at the FP4 GEMM efficiency (calibration.yaml: fitted on one B200 NVFP4 row)
        s = prof.fp4_share
        peak = 1.0 / (s / float(gpu.fp4_dense_flops) + (1.0 - s) / gpu.bf16_dense_flops)
        eta_c, fam = (inf.fp4_compute_efficiency or inf.fp8_compute_efficiency).value, "fp8"
        matmul_factor = 1.0
    else:
        peak, eta_c = gpu.bf16_dense_flops, inf.compute_efficiency.value
        fam = "weight_only" if prof.family == "fp8" else prof.family
        if prof.weights == "fp32":
            peak = (getattr(gpu, "tf32_dense_flops", None) or gpu.fp32_flops)
    eta_c *= matmul_factor
    link_bw, alpha, name = 0.0, 0.0, "none"
    if prof.tp > 1:
        link_bw, alpha, name = tp_link(gpu, prof.tp, calib)
    switched = gpu.link_kind in ("nvlink-switch", "infinity-fabric")
    eta_w = eff.of(fam)
    step_c, layer_c = inf.step_overhead_s.value, inf.layer_overhead_s.value
    if fixed is not None:
        step_c, layer_c = fixed.step_s.value, fixed.layer_s[memory_class(gpu)].value  # type: ignore[index]
        if fam == "float" and fixed.float_bandwidth_efficiency is not None:
            eta_w = fixed.float_bandwidth_efficiency.value
    layer_c += act_quant_per_layer(engine or default_engine(prof.weights), prof.model, fp8_cores)
    # a GPU whose measured share of its datasheet bandwidth is below the class η_w and η_kv were fitted on
    # (calibration.yaml bandwidth_factor_by_gpu: STREAM kernels on one cloud's H100, H200 and MI300X)
    bw = inf.bandwidth_factor_by_gpu.get(gpu.id)
    bw_factor = bw.value if bw is not None else 1.0
    return Hardware(
        bandwidth=gpu.bandwidth_bytes_per_s, peak=peak, eta_w=eta_w * bw_factor,
        eta_kv=inf.kv_bandwidth_efficiency.value * bw_factor, eta_c=eta_c,
        attn_peak=gpu.bf16_dense_flops, eta_attn=inf.attention_efficiency.value,
        link_bw=link_bw, link_alpha=alpha, link_name=name, step_overhead=step_c,
        layer_overhead=layer_c, request_overhead=inf.request_overhead_s.value,
        sharpness=inf.roofline_sharpness.value, link_switched=switched,
        allreduce=collectives.pieces(prof.tp, prof.hidden, prof.layers, link_bw, alpha, switched),
        moe_factor=calib.planner.moe_compute_factor.value if prof.n_experts else 1.0,
        moe_copy_s=routed_copy_seconds(prof, gpu, calib, eta_c, low_precision=fam == "fp8"),
    )


def routed_copy_seconds(prof: SpeedProfile, gpu: GpuSpec, calib: Calibration, eta_c: float, *,
                        low_precision: bool) -> float:
    """Seconds one GPU of the TP group spends per routed token copy beyond the expert GEMMs' FLOPs, forward only
    (moe_costs: the down projection's narrow reduction, and the permutation's h-wide and f/TP-wide rows at
    planner.moe_bandwidth_efficiency of the HBM bandwidth); 0 for a dense model."""
    pl = calib.planner
    if not prof.n_experts or pl.gemm_reduction_bytes is None or pl.moe_bandwidth_efficiency is None:
        return 0.0
    m = prof.model
    bw = float(gpu.bandwidth_bytes_per_s)
    f = (m.moe_intermediate_size or m.intermediate_size) / prof.tp
    traffic = permutation_bytes(m.hidden_size, f, low_precision=low_precision, forward_only=True)
    return (down_projection_seconds(m.hidden_size, bw, eta_c, pl.gemm_reduction_bytes.value)
            + traffic / (bw * pl.moe_bandwidth_efficiency.value))


def tp_link(gpu: GpuSpec, tp: int, calib: Calibration) -> tuple[float, float, str]:
    """(bytes/s one direction after efficiency, seconds per ring step, description) for a TP group of `tp`.

    NVLink through a switch (SXM/HGX, AMD Infinity Fabric) joins every GPU; a 2-way bridge joins pairs only, so
    groups larger than 2 fall back to PCIe. Consumer cards have no peer-to-peer over PCIe and go through host
    memory (calibration.training.consumer_pcie_efficiency).
    """
    ar = calib.inference.allreduce
    if gpu.link_kind in ("nvlink-switch", "infinity-fabric") or (gpu.link_kind == "nvlink-bridge" and tp <= 2):
        bw = gpu.nvlink_bytes_per_s / 2 * ar.nvlink_efficiency.value
        return bw, ar.nvlink_latency_s.value, f"{gpu.nvlink} ({gpu.nvlink_bytes_per_s / 2e9:.0f} GB/s each way)"
    table = ar.pcie_bytes_per_s
    raw = table.get(gpu.pcie_gen) or table[max(table)]
    bw = raw * ar.pcie_efficiency.value
    name = f"PCIe {gpu.pcie_gen}.0 x16 ({raw / 1e9:.1f} GB/s each way)"
    if gpu.segment == "consumer":
        bw *= calib.training.consumer_pcie_efficiency.value
        name += ", no peer-to-peer: through host memory"
    return bw, ar.pcie_latency_s.value, name


# ------------------------------------------------------------------------------------------------------------
# one step


def _pmax(a: float, b: float, p: float) -> float:
    """Smooth roofline max(a, b)·(1 + (min/max)^p)^(1/p): equals the larger near either end, up to 2^(1/p) times it
    at the ridge point where neither memory nor compute is saturated. Never below max(a, b)."""
    hi, lo = (a, b) if a >= b else (b, a)
    if hi <= 0.0:
        return 0.0
    smooth: float = hi * (1.0 + (lo / hi) ** p) ** (1.0 / p)  # float ** float is Any to the checker
    return smooth


class Step(Value):
    """One forward step on one GPU, by operator class. Matmuls and attention are separate kernels, so each is its
    own roofline and their times add: t = max(W/B, F_mm/P) + max(KV/B, F_attn/P) + comm + overhead."""

    weights_s: float
    kv_s: float
    matmul_s: float  # compute time of the matmuls
    attention_s: float  # compute time of attention (QKᵀ, softmax·V)
    comm_s: float
    overhead_s: float
    bytes_read: float
    flops: float

    @property
    def memory_s(self) -> float:
        return self.weights_s + self.kv_s

    @property
    def compute_s(self) -> float:
        return self.matmul_s + self.attention_s

    sharpness: float = 8.0  # p of the smooth roofline; p → ∞ is the hard max

    @property
    def total_s(self) -> float:
        p = self.sharpness
        return (_pmax(self.weights_s, self.matmul_s, p) + _pmax(self.kv_s, self.attention_s, p)
                + self.comm_s + self.overhead_s)

    @property
    def bound(self) -> Bound:
        mem = max(self.weights_s - self.matmul_s, 0.0) + max(self.kv_s - self.attention_s, 0.0)
        comp = max(self.matmul_s - self.weights_s, 0.0) + max(self.attention_s - self.kv_s, 0.0)
        return "memory" if mem >= comp else "compute"

    def to_model(self) -> StepTime:
        return StepTime(weights_s=self.weights_s, kv_s=self.kv_s, memory_s=self.memory_s, compute_s=self.compute_s,
                        communication_s=self.comm_s, overhead_s=self.overhead_s, total_s=self.total_s,
                        bound=self.bound, bytes_read=int(self.bytes_read), flops=self.flops)


smooth_max = _pmax  # the step's term, public for the serving simulation


def decode_step(prof: SpeedProfile, hw: Hardware, batch: int, context: int) -> Step:
    """One decode step for `batch` sequences of `context` tokens each, on one GPU of the TP group: one token per
    sequence, the whole KV cache read."""
    return _step(prof, hw, batch, float(batch * prof.kv_bytes(context)), batch * prof.attention_flops(context))


def prefill_step(prof: SpeedProfile, hw: Hardware, batch: int, prompt: int) -> Step:
    """Prefill of `batch` prompts of `prompt` tokens in one forward (KV written, weights read once).

    Under DP attention a prompt is prefilled by its own GPU: with fewer prompts than GPUs the busiest GPU does
    c = tp·⌈batch/tp⌉/batch times the even share of the attention, the non-expert matmuls and the KV writes (c = tp
    for one prompt); the routed experts stay split."""
    tokens = batch * prompt
    step = _step(prof, hw, tokens, float(batch * prof.kv_bytes(prompt)), tokens * prof.prefill_attention_flops(prompt))
    if not prof.attention_dp:
        return step
    c = prof.tp * -(-batch // prof.tp) / batch
    extra_mm = (c - 1.0) * tokens * prof.whole_flops_per_token
    return replace(step, kv_s=step.kv_s * c, attention_s=step.attention_s * c,
                   matmul_s=step.matmul_s + extra_mm / (hw.peak * hw.eta_c),
                   flops=step.flops + extra_mm + (c - 1.0) * tokens * prof.prefill_attention_flops(prompt))


def _step(prof: SpeedProfile, hw: Hardware, tokens: int, kv_bytes: float, attention_flops: float) -> Step:
    """The roofline terms of one forward over `tokens` tokens: weights read once, `kv_bytes` of KV cache moved,
    the matrix multiplies and `attention_flops`, the TP all-reduces, fixed per-step and per-layer overheads."""
    w_bytes = prof.weight_read_bytes(tokens)
    mm = tokens * prof.matmul_flops_per_token
    return Step(
        weights_s=w_bytes / (hw.bandwidth * hw.eta_w), kv_s=kv_bytes / (hw.bandwidth * hw.eta_kv),
        matmul_s=tokens * matmul_s_per_token(prof, hw), attention_s=attention_flops / (hw.attn_peak * hw.eta_attn),
        comm_s=collectives.seconds(tokens, hw.allreduce), overhead_s=hw.step_overhead + hw.layer_overhead * prof.layers,
        bytes_read=w_bytes + kv_bytes, flops=mm + attention_flops, sharpness=hw.sharpness,
    )


def decode_rate(model: ModelSpec, gpu: GpuSpec, count: int, calib: Calibration, *, weights: str = "bf16",
                kv: str = "fp16", context: int = DEFAULT_CONTEXT, concurrency: int = 1) -> tuple[float, float, str]:
    """The hot path for searches: (tokens/s per sequence, tokens/s in total, bound) with tp = count."""
    prof = speed_profile(model, weights, kv, count)
    hw = hardware(gpu, prof, calib)
    step = decode_step(prof, hw, concurrency, context)
    t = step.total_s
    return 1.0 / t, concurrency / t, step.bound


# ------------------------------------------------------------------------------------------------------------
# the estimate


def _check_inputs(count: int, tp: int, concurrency: int, context: int, prompt: int, output: int) -> None:
    if count < 1 or count > 1024:
        raise InputError(f"GPU count must be between 1 and 1024, got {count}", field="count", accepted="1 … 1024")
    if tp < 1 or count % tp:
        raise InputError(f"tensor parallelism {tp} must divide the GPU count {count}", field="tp",
                         accepted=f"a divisor of {count}")
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise InputError(f"concurrency must be between 1 and {MAX_CONCURRENCY}, got {concurrency}",
                         field="concurrency", accepted=f"1 … {MAX_CONCURRENCY}")
    for name, value in (("context", context), ("prompt_tokens", prompt), ("output_tokens", output)):
        if not 1 <= value <= MAX_CONTEXT:
            raise InputError(f"{name} must be between 1 and {MAX_CONTEXT:,} tokens, got {value}", field=name,
                             accepted=f"1 … {MAX_CONTEXT:,}")


class Shape(Value):
    """What an inference workload asks of the GPUs: formats, the TP group, lengths, sequences per replica."""

    weights: str
    kv: str
    tp: int
    replicas: int
    context: int  # tokens per sequence (prompt + output)
    prompt: int
    output: int
    concurrency: int
    per_replica: int  # sequences each TP group decodes together
    has_lengths: bool  # prompt or output length given
    decode_context: int  # the KV length a decode step reads per sequence
    engine: str
    attention_dp: bool = False  # attention data-parallel over the TP group (MLA models; Workload.attention_dp)


def _shape(model: ModelSpec, count: int, w: Workload) -> Shape:
    """The workload read for `count` GPUs (see `estimate_throughput`): tp as given when the workload describes
    these GPUs, else all of them; prompt = half the context and output = the rest unless given; decode reads a
    sequence's KV at its mean length prompt + output/2 when lengths are given, else at `context`."""
    # no format given: the checkpoint's own precision, as the memory estimate assumes (FP8 for DeepSeek-V3)
    weights = w.weights or default_inference_format(model)
    kv = w.kv or "fp16"
    wtp = int(w.tp or 1)
    world = int(w.gpus or 1) * int(w.nodes or 1)
    tp = wtp if (wtp > 1 or world == count) else count
    context = int(w.context)
    prompt, output = request_lengths(context, w.prompt_tokens, w.output_tokens)
    concurrency = int(w.concurrency or 1)
    _check_inputs(count, tp, concurrency, context, prompt, output)
    replicas = count // tp
    has_lengths = w.prompt_tokens is not None or w.output_tokens is not None
    decode_context = max(1, int(prompt + output / 2)) if has_lengths else context
    engine = w.engine or default_engine(weights)
    return Shape(weights, kv, tp, replicas, context, prompt, output, concurrency,
                  max(1, math.ceil(concurrency / replicas)), has_lengths, decode_context, engine,
                  attention_dp_on(model, w, tp))


def serving_shape(model: ModelSpec, count: int, workload: Workload) -> Shape:
    """How `estimate_throughput` reads `workload` on `count` GPUs (its tp, formats and lengths), without estimating."""
    return _shape(model, count, workload)


def _steps(model: ModelSpec, gpu: GpuSpec, calib: Calibration,
           shape: Shape) -> tuple[SpeedProfile, Hardware, Step, Step, tuple[float, float] | None]:
    """(profile, hardware, decode step, prefill step, llama.cpp's hand-over link (bytes/s, latency) or None).

    llama.cpp spreads the layers over the GPUs (--split-mode layer, its default): a token passes through them one
    after another, so a step costs what one GPU holding every layer would need, plus a hand-over per boundary;
    the other engines shard every layer (tensor parallelism) and all GPUs work at once."""
    prof, hw, pstep, hop = _prefill(model, gpu, calib, shape)
    dstep = decode_step(prof, hw, shape.per_replica, shape.decode_context)
    if hop is not None:
        dstep = replace(dstep, comm_s=_hand_over(model, shape.tp, hop, shape.per_replica))
    return prof, hw, dstep, pstep, hop


def _prefill(model: ModelSpec, gpu: GpuSpec, calib: Calibration,
             shape: Shape) -> tuple[SpeedProfile, Hardware, Step, tuple[float, float] | None]:
    """(profile, hardware, the prefill step of one prompt, llama.cpp's hand-over link or None): see `_steps`."""
    layer_split = shape.engine == "llama.cpp" and shape.tp > 1
    prof = speed_profile(model, shape.weights, shape.kv, 1 if layer_split else shape.tp, shape.attention_dp)
    hw = hardware(gpu, prof, calib, shape.engine)
    pstep = prefill_step(prof, hw, 1, shape.prompt)
    hop = None
    if layer_split:
        link_bw, alpha, _name = tp_link(gpu, 2, calib)
        hop = link_bw, alpha
        pstep = replace(pstep, comm_s=_hand_over(model, shape.tp, hop, shape.prompt))
    return prof, hw, pstep, hop


def _hand_over(model: ModelSpec, tp: int, hop: tuple[float, float], tokens: int) -> float:
    """llama.cpp's layer split: (tp − 1) hand-overs of `tokens` activations, each latency + bytes / link bandwidth."""
    return collectives.seconds(tokens, collectives.hand_overs(tp, model.hidden_size, *hop))


def time_to_first_token(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration) -> float:
    """`estimate_throughput(...).ttft` in seconds, of the same inputs (one prompt's prefill step + the request overhead),
    without the decode step, the formulas and the result: what the recommender needs for a shown option's chat
    turn, whose lengths differ from those it was sized for."""
    shape = _shape(model, count, workload)
    _prof, hw, pstep, _hop = _prefill(model, gpu, calib, shape)
    return _first_token_s(pstep, hw)


def _first_token_s(pstep: Step, hw: Hardware) -> float:
    return pstep.total_s + hw.request_overhead


def estimate_throughput(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration, *,
                        with_capacity: bool = True, brief: bool = False) -> ThroughputEstimate:
    """Decode/prefill speed of `model` on `count` × `gpu` for an inference `workload` (advisor.workload.Workload).

    Layout: when the workload describes these `count` GPUs (gpus × nodes = count) its `tp` is taken as given and
    the other GPUs are replicas that split the concurrency (tp = 1: count independent copies); otherwise (a bare
    workload) all `count` GPUs form one tensor-parallel group. The decode step reads the KV of a sequence at its mean length while
    it generates: prompt + output/2 (or `context` when no prompt/output lengths are given).

    `brief`: the figures with the first formula line only (the decode step) and no assumptions, for a caller that
    shows no more of them (the recommender's search, which tries dozens of configurations and shows a few).
    """
    shape = _shape(model, count, workload)
    prof, hw, dstep, pstep, hop = _steps(model, gpu, calib, shape)
    per_replica, replicas, context = shape.per_replica, shape.replicas, shape.context
    t_dec = dstep.total_s
    # every one of the C sequences gains a token per step of its replica, costed at the busiest replica's ⌈C/r⌉
    # (1 user on 4 replicas: one sequence's tokens, not four)
    total = shape.concurrency / t_dec
    ttft = _first_token_s(pstep, hw)
    ceiling = hw.bandwidth / max(dstep.bytes_read, 1.0)
    ceiling_total = shape.concurrency * min(ceiling, hw.peak / max(dstep.flops, 1.0))
    formulas = [decode_step_formula(dstep, hw)] if brief else throughput_formulas(
        model, gpu, shape, prof, hw, dstep, pstep, hop, ttft, ceiling, memory_class(gpu))
    touched = None
    if prof.n_experts:
        touched = prof.experts_touched(per_replica)
    if touched is not None and not brief:
        formulas.append(f"MoE experts read per layer = E·(1−(1−k/E)^b) = {prof.n_experts}·(1−(1−{prof.experts_per_token}"
                        f"/{prof.n_experts})^{per_replica}) = {touched:.1f} of {prof.n_experts}")

    capacity, fits, shortfall = None, True, 0
    if with_capacity:
        capacity, fits, shortfall = _capacity(model, gpu, count, shape.tp, workload, prof, hw, shape.decode_context,
                                              shape.concurrency)
        if capacity is not None and capacity.ms_per_token_at_max is not None:
            formulas.append(f"capacity: {capacity.max_concurrency} sequences of {context} tokens fit; there "
                            f"{capacity.ms_per_token_at_max:.1f} ms/token per sequence")
    return ThroughputEstimate(
        model=model.id, gpu=gpu.id, count=count, tp=shape.tp, replicas=replicas, weights=prof.weights, kv=shape.kv,
        context=context, decode_context=shape.decode_context, prompt_tokens=shape.prompt, output_tokens=shape.output,
        concurrency=shape.concurrency, decode_tokens_per_s=1.0 / t_dec, decode_tokens_per_s_total=total,
        tpot=Seconds(t_dec), prefill_tokens_per_s=shape.prompt / pstep.total_s, ttft=Seconds(ttft),
        e2e=Seconds(ttft + shape.output * t_dec), bound=dstep.bound, prefill_bound=pstep.bound,
        decode_step=dstep.to_model(), prefill_step=pstep.to_model(), ceiling_tokens_per_s=ceiling,
        ceiling_tokens_per_s_total=ceiling_total, moe_experts_touched=touched, attention_dp=shape.attention_dp,
        capacity=capacity, fits=fits,
        memory_shortfall_bytes=shortfall, formulas=formulas,
        assumptions=[] if brief else throughput_assumptions(gpu, calib, shape, prof),
    )


# ------------------------------------------------------------------------------------------------------------
# capacity and serving


def _memory_workload(w: Workload, count: int, tp: int, concurrency: int, context: int) -> Workload:
    fields = {k: getattr(w, k) for k in ("model", "weights", "kv", "prompt_tokens", "output_tokens", "engine",
                                         "flash_attention")}
    dpa = bool(w.attention_dp) and tp > 1
    return Workload(task="inference", context=context, batch=1, concurrency=concurrency, gpus=count, tp=tp,
                    attention_dp=dpa, **fields)


def _capacity(model: ModelSpec, gpu: GpuSpec, count: int, tp: int, w: Workload, prof: SpeedProfile, hw: Hardware,
              decode_context: int, concurrency: int) -> tuple[Capacity | None, bool, int]:
    """Largest concurrency whose KV fits next to the weights (memory estimator), and the latency there."""
    context = int(w.context)
    replicas = count // tp
    per_replica = max(1, math.ceil(concurrency / replicas))
    est = estimate_memory(model, _memory_workload(w, tp, tp, per_replica, context), gpu)
    shortfall = max(0, -est.headroom_bytes(gpu).n)
    per_rep_max = est.fit_count(gpu, Bytes(kv_cache_bytes(model, context, 1, prof.kv, tp,
                                                         attention_dp=prof.attention_dp)))
    max_conc = min(per_rep_max * replicas, MAX_CONCURRENCY)
    ms_at_max = tps_at_max = None
    if per_rep_max >= 1:
        step = decode_step(prof, hw, min(per_rep_max, MAX_CONCURRENCY), decode_context)
        ms_at_max = step.total_s * 1e3
        tps_at_max = min(per_rep_max, MAX_CONCURRENCY) * replicas / step.total_s
    cap = Capacity(max_concurrency=max_conc, kv_tokens=est.kv_capacity_tokens(gpu),
                   ms_per_token_at_max=ms_at_max, tokens_per_s_total_at_max=tps_at_max)
    return cap, shortfall == 0, int(shortfall)


def max_concurrency_for_latency(model: ModelSpec, gpu: GpuSpec, count: int, calib: Calibration, *,
                                ms_per_token: float, weights: str = "bf16", kv: str = "fp16", context: int = DEFAULT_CONTEXT,
                                limit: int | None = None) -> int:
    """The most sequences one TP group of `count` GPUs decodes at ≤ `ms_per_token` each (0 if even one is slower).

    Step time grows with the batch (KV reads, expert reads, compute), so the answer is found by bisection;
    `limit` caps it (e.g. at the memory capacity).
    """
    if ms_per_token <= 0:
        raise InputError("latency target must be positive", field="max_ms_per_token", accepted="> 0 ms")
    prof = speed_profile(model, weights, kv, count)
    hw = hardware(gpu, prof, calib)
    target = ms_per_token / 1e3
    hi_cap = min(limit or MAX_CONCURRENCY, MAX_CONCURRENCY)
    if hi_cap < 1 or decode_step(prof, hw, 1, context).total_s > target:
        return 0
    lo, hi = 1, hi_cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if decode_step(prof, hw, mid, context).total_s <= target:
            lo = mid
        else:
            hi = mid - 1
    return lo


def estimate_serving(model: ModelSpec, gpu: GpuSpec, tp: int, calib: Calibration, *, batch: int,
                     input_tokens: int, output_tokens: int, weights: str = "bf16", kv: str = "fp16") -> ServingEstimate:
    """Throughput of a batch of `batch` requests processed together (TensorRT-LLM gptSessionBenchmark style):
    one prefill of batch × ISL tokens, then OSL decode steps at the mean context ISL + OSL/2.

        output tokens/s = batch · OSL / (t_prefill + OSL · t_step(batch, ISL + OSL/2))
    """
    prof = speed_profile(model, weights, kv, tp)
    hw = hardware(gpu, prof, calib, "trtllm")  # that benchmark's engine: its FP8 activation quantisation is fused
    pre = prefill_step(prof, hw, batch, input_tokens).total_s
    step = decode_step(prof, hw, batch, int(input_tokens + output_tokens / 2)).total_s
    dec = output_tokens * step
    rate = batch * output_tokens / (pre + dec)
    return ServingEstimate(
        batch=batch, input_tokens=input_tokens, output_tokens=output_tokens, prefill=Seconds(pre), decode=Seconds(dec),
        output_tokens_per_s=rate, output_tokens_per_s_per_gpu=rate / tp,
        formulas=[f"{batch} × {output_tokens} / ({pre:.3f} s prefill + {output_tokens} × {step * 1e3:.2f} ms) = "
                  f"{rate:,.0f} output tokens/s"],
    )
