"""Training time: tokens/s, wall-clock and GPU-hours for a token budget, at a calibrated MFU.

Model FLOPs per token (the MFU numerator, PaLM App. B / MosaicML llm-foundry, with the causal mask counted):
    full / pre-training : 6·N + 3·A(s)        N = matmul parameters (active ones for MoE)
    LoRA / QLoRA / freeze: 4·N + 3·A(s)       frozen base: no weight-gradient GEMMs (backward ≈ 2N instead of 4N)
    A(s) = 2·L·(s+1)/2·(d_qk + d_v)           forward attention FLOPs per token, causal, averaged over the sequence
Hardware FLOPs (what the GPU executes) add the recomputed forward pass: +2·N + A(s) with full recomputation
(→ 8·N·D), +A(s) with selective recomputation (attention core only; Korthikanti et al. 2022).

Speed: an optimizer step accumulates micro-batches of b × s tokens up to `tokens_per_gpu_step` tokens per GPU;
compute time per step = step tokens × hardware FLOPs / (peak × HFU), where HFU is the calibrated compute-only
utilisation of the GPU class (MosaicML/Megatron measurements; see calibration.yaml). Data-parallel communication
(`collective_bytes`): DeepSpeed ZeRO-3 all-gathers the 16-bit parameters (2·P bytes) for the forward, the backward
and the recomputed forward (full checkpointing) and reduce-scatters the gradients in EVERY micro-batch, so its
traffic grows with step tokens / (b × s); ZeRO-2 reduce-scatters per micro-batch and gathers once per step;
ZeRO-0/1 all-reduce once per step. The collectives run as NCCL rings over all n GPUs: each GPU receives (n−1)/n of
the buffers over NVLink/PCIe and each server receives (n−1)/n through its network — one NIC per GPU on HGX/OAM
baseboard servers (50/200/400 Gb/s by the host's PCIe generation 3/4/5), one shared 200 Gb/s on servers of PCIe
cards — at the NICs' measured NCCL efficiency; the slower part sets the time. Communication hides behind the step's
compute up to its length; the rest is exposed. Achieved MFU = model FLOPs/s ÷ (n × peak).
"""

from __future__ import annotations

import math

from advisor.workload import DEFAULT_CONTEXT, MAX_CONTEXT
from knowledge.errors import InputError
from knowledge.quantities import Seconds
from knowledge.schemas import MAX_CLUSTER_GPUS, GpuSpec, ModelSpec
from knowledge.structs import Value

from .calibration import Calibration
from .model_flops import model_flops
from .speed_results import TrainTimeEstimate
from .training_memory import FREEZE_TRAINABLE_LAYERS, lora_params

MAX_TOKENS = 1e15  # 1,000 trillion tokens: far beyond any published training run (Llama 3: 15.6T)
LORA_TASKS = ("lora", "qlora", "freeze")
TASKS = ("pretrain", "full", *LORA_TASKS)
OFFLOADS = ("none", "optimizer", "all")
BEST_CASE = ("calibrated on tuned llm-foundry/Megatron runs: a best case; large multi-node runs reach less "
             "(Meta's Llama 2 runs took 1.5–1.6× the A100-hours this calibration predicts for them)")
PRIOR_CASE = "a stated prior, no measured run of this class: treat it as a best case"
DEFAULT_LORA_RANK = 16  # Workload's default rank, all linear layers adapted (the optimizer's share under LoRA)


def gpu_class(gpu: GpuSpec) -> str:
    """The MFU class of a GPU: architecture family and market segment (the calibration's keys)."""
    arch, seg = gpu.architecture, gpu.segment
    if gpu.vendor != "NVIDIA":
        return "amd" if gpu.vendor == "AMD" else "default"
    if arch == "hopper":
        return "hopper"
    if arch == "blackwell" and seg == "datacenter":
        return "blackwell-datacenter"
    if arch == "ampere" and seg == "datacenter":
        return "ampere-datacenter"
    if arch == "ada" and seg in ("datacenter", "workstation"):
        return "ada-datacenter"
    if arch in ("volta", "turing") and seg == "datacenter":
        return "volta-turing-datacenter"
    if seg in ("consumer", "workstation"):
        return "consumer"
    return "default"


def pcie_bytes_per_s(gpu: GpuSpec, calib: Calibration) -> float:
    """One direction of a x16 link of the card's PCIe generation."""
    table = calib.inference.allreduce.pcie_bytes_per_s
    return table.get(gpu.pcie_gen, table[max(table)] if gpu.pcie_gen > max(table) else table[min(table)])


def data_parallel_link(gpu: GpuSpec, per_node: int, calib: Calibration) -> tuple[float, str]:
    """Bytes/s one GPU gets for collectives among the `per_node` GPUs of one server, and the path's description."""
    tr, ar = calib.training, calib.inference.allreduce
    if gpu.link_kind in ("nvlink-switch", "infinity-fabric") or (gpu.link_kind == "nvlink-bridge" and per_node <= 2):
        return gpu.nvlink_bytes_per_s / 2 * ar.nvlink_efficiency.value, f"{gpu.nvlink}"
    bw = pcie_bytes_per_s(gpu, calib) * ar.pcie_efficiency.value
    if gpu.segment == "consumer":
        return bw * tr.consumer_pcie_efficiency.value, f"PCIe {gpu.pcie_gen}.0 x16 through the host (no P2P)"
    return bw, f"PCIe {gpu.pcie_gen}.0 x16"


def server_class(gpu: GpuSpec) -> str:
    """'baseboard' for SXM/OAM modules on an NVSwitch/Infinity Fabric baseboard (HGX, DGX, MI300X UBB), which
    carry one NIC per GPU; 'pcie' for servers of PCIe cards (GeForce, workstation, L20/L40S/A10, PCIe A100/H100),
    which share a few NICs per server."""
    if gpu.interface in ("sxm", "oam") or gpu.link_kind in ("nvlink-switch", "infinity-fabric"):
        return "baseboard"
    return "pcie"


def inter_node_bytes_per_s(gpu: GpuSpec, per_node: int, calib: Calibration) -> tuple[float, str]:
    """Network bytes/s (one direction, line rate) of one server holding `per_node` GPUs of the job, and a
    description: on baseboard servers one NIC per GPU at the rate of the host's PCIe generation (DGX-1 50 Gb/s,
    DGX A100 200 Gb/s, DGX H100/B200 400 Gb/s), on PCIe servers the server's one figure, shared by its GPUs."""
    tr = calib.training
    if server_class(gpu) == "baseboard":
        table = tr.nic_bytes_per_s_per_gpu
        gen = gpu.pcie_gen if gpu.pcie_gen in table else (max(table) if gpu.pcie_gen > max(table) else min(table))
        nic = table[gen].value
        return nic * per_node, f"{per_node} × {nic * 8 / 1e9:.0f} Gb/s NICs, one per GPU ({gpu.form_factor})"
    server = tr.pcie_server_network_bytes_per_s.value
    return server, f"{server * 8 / 1e9:.0f} Gb/s per server shared by its {per_node} PCIe GPUs"


def data_parallel_seconds(gpu: GpuSpec, count: int, volume_bytes: float, calib: Calibration) -> tuple[float, str]:
    """Time one GPU spends in ring all-gathers/reduce-scatters (NCCL) over `count` GPUs whose buffers total
    `volume_bytes`: every GPU receives (n−1)/n·V over its NVLink/PCIe link, and every server receives (n−1)/n·V
    through its network (each ring channel crosses each server boundary once; the channels spread over the
    server's NICs, so NCCL's bus bandwidth across servers is the server's NIC total: 46–48 GB/s per 400G NIC,
    85–96 GB/s on 4 × HDR). The slower part sets the time. Returns (seconds, description)."""
    tr = calib.training
    per_server = int(tr.gpus_per_node.value)
    nodes = -(-count // per_server)
    per_node = -(-count // nodes)
    ring = (count - 1) / count
    t_intra = t_inter = 0.0
    desc = []
    if per_node > 1:
        bw, path = data_parallel_link(gpu, per_node, calib)
        t_intra = volume_bytes * ring / bw
        desc.append(f"{per_node} GPUs per server over {path}")
    if nodes > 1:
        net, what = inter_node_bytes_per_s(gpu, per_node, calib)
        t_inter = volume_bytes * ring / (net * tr.network_efficiency.value)
        desc.append(f"{nodes} servers, each with {what}")
    return max(t_intra, t_inter), "; ".join(desc) or "none (one GPU)"


def collective_bytes(total_params: float, task: str, zero: int, recompute: str) -> tuple[float, float, int]:
    """(bytes per micro-batch, bytes per optimizer step, all-gathers per micro-batch) of data-parallel collectives,
    as buffer sizes of 16-bit tensors (2·P bytes for P parameters). DeepSpeed ZeRO-3 gathers the parameters for the
    forward, again for the backward and again for the recomputed forward under full checkpointing, and
    reduce-scatters the gradients, in every micro-batch; ZeRO-2 reduce-scatters gradients every micro-batch and
    gathers the updated parameters once per step; ZeRO-0/1 all-reduce gradients (2·2P) once per step. LoRA/QLoRA/
    freeze: only the frozen base's gathers (ZeRO-3), the adapters' gradients are negligible."""
    p2 = 2.0 * total_params
    lora = task in LORA_TASKS
    if zero >= 3:
        gathers = 3 if recompute == "full" else 2
        return gathers * p2 + (0.0 if lora else p2), 0.0, gathers
    if lora:
        return 0.0, 0.0, 0
    if zero == 2:
        return p2, p2, 0
    return 0.0, 2.0 * p2, 0


def trainable_params(model: ModelSpec, task: str) -> float:
    """Parameters the optimizer updates: all of them for pre-training and full fine-tuning; the adapters for
    LoRA/QLoRA (rank 16 on every linear layer, Workload's default); the last two blocks for freeze."""
    total = float(model_flops(model).total_params)
    if task in ("lora", "qlora"):
        return float(lora_params(model, min(DEFAULT_LORA_RANK, model.hidden_size)))
    if task == "freeze":
        return total * min(FREEZE_TRAINABLE_LAYERS, model.num_layers) / model.num_layers
    return total


def offload_seconds(gpu: GpuSpec, count: int, trainable: float, total: float, calib: Calibration, *,
                    offload: str, fetches_per_step: float = 0.0) -> tuple[float, float, str]:
    """ZeRO-Offload per optimizer step (Ren et al. 2021; DeepSpeed's default schedule, no delayed update):
    each GPU sends its shard of 16-bit gradients to the host and receives the updated 16-bit parameters,
    2·2·T/n bytes over its PCIe link; each server's CPUs run Adam over the T·m/n parameters its m GPUs own at
    `cpu_adam_params_per_s`. With the parameters offloaded too ("all"), each GPU copies its 16-bit shard (2·P/n)
    from host memory before every ZeRO-3 gather. Returns (offload seconds, parameter-fetch seconds, description)."""
    tr, ar = calib.training, calib.inference.allreduce
    per_node = -(-count // -(-count // int(tr.gpus_per_node.value)))
    pcie = pcie_bytes_per_s(gpu, calib) * ar.pcie_efficiency.value
    t_pcie = 2.0 * 2.0 * trainable / count / pcie
    per_server = trainable * per_node / count
    t_adam = per_server / tr.cpu_adam_params_per_s.value
    t_fetch = fetches_per_step * 2.0 * total / count / pcie if offload == "all" else 0.0
    desc = (f"CPU Adam {per_server / 1e9:,.2f} B parameters per server / "
            f"{tr.cpu_adam_params_per_s.value / 1e9:.1f} B/s = {t_adam:.3f} s + PCIe {gpu.pcie_gen}.0 gradients "
            f"down and parameters up 4 B × {trainable / count / 1e9:,.2f} B / {pcie / 1e9:.1f} GB/s = {t_pcie:.3f} s")
    return t_adam + t_pcie, t_fetch, desc


def train_flops_per_token(model: ModelSpec, context: int, task: str, recompute: str) -> tuple[float, float]:
    """(model FLOPs, hardware FLOPs) per trained token; see the module docstring for the formulas."""
    mf = model_flops(model)
    n = float(mf.matmul_active)
    attn = mf.causal_attention_flops_per_token(context)
    if task in LORA_TASKS:
        model_f = 4.0 * n + 3.0 * attn
    else:
        model_f = 6.0 * n + 3.0 * attn
    if recompute == "full":
        hw = model_f + 2.0 * n + attn
    elif recompute == "selective":
        hw = model_f + attn
    else:
        hw = model_f
    return model_f, hw


def _check(tokens: float, count: int, context: int, mfu: float | None, task: str, recompute: str,
           micro_batch: int, offload: str) -> None:
    """Raise InputError naming the first training input out of its accepted range."""
    if not math.isfinite(tokens) or tokens <= 0:
        raise InputError(f"token budget must be positive, got {tokens:g}", field="tokens",
                         accepted=f"1 … {MAX_TOKENS:.0e} tokens")
    if tokens > MAX_TOKENS:
        raise InputError(f"token budget {tokens:.3g} is absurd (more than {MAX_TOKENS:.0e} tokens)",
                         field="tokens", accepted=f"1 … {MAX_TOKENS:.0e} tokens")
    if count < 1 or count > MAX_CLUSTER_GPUS:
        raise InputError(f"GPU count must be between 1 and {MAX_CLUSTER_GPUS}, got {count}", field="count",
                         accepted=f"1 … {MAX_CLUSTER_GPUS}")
    if context < 1 or context > MAX_CONTEXT:
        raise InputError(f"sequence length must be between 1 and {MAX_CONTEXT:,}, got {context}", field="context")
    if mfu is not None and not 0 < mfu <= 1:
        raise InputError(f"MFU must be a fraction in (0, 1], got {mfu}", field="mfu", accepted="0 < mfu ≤ 1")
    if task not in TASKS:
        raise InputError(f"unknown training task '{task}'", field="task", accepted=", ".join(TASKS))
    if recompute not in ("none", "selective", "full"):
        raise InputError(f"unknown recompute '{recompute}'", field="recompute", accepted="none, selective, full")
    if not 1 <= micro_batch <= 100_000:
        raise InputError(f"micro-batch must be between 1 and 100000 sequences, got {micro_batch}",
                         field="micro_batch", accepted="1 … 100000")
    if offload not in OFFLOADS:
        raise InputError(f"unknown offload '{offload}'", field="offload", accepted=", ".join(OFFLOADS))


class _Mfu(Value):
    """The dense peak of the precision and the compute MFU applied to it, with where that MFU comes from."""

    peak: float  # FLOP/s per GPU
    base: float  # compute MFU (or the user's achieved MFU)
    source: str


def _compute_mfu(gpu: GpuSpec, calib: Calibration, precision: str, task: str, mfu: float | None) -> _Mfu:
    """FP8: the FP8 peak at the fitted FP8 MFU; bf16/fp16: the GPU class's MFU (calibration.yaml); × the QLoRA
    factor for 4-bit dequantisation; the user's `mfu` replaces it."""
    tr = calib.training
    if precision == "fp8":
        if not gpu.fp8_dense_flops or not gpu.supports_fp8:
            raise InputError(f"{gpu.name} has no FP8 tensor cores; FP8 training needs Hopper, Ada or newer",
                             field="precision", accepted="bf16 on this GPU")
        peak = gpu.fp8_dense_flops
        base = tr.fp8_mfu.value
        mfu_note = f"FP8 MFU {base:.2f} of the FP8 peak (fitted: Megatron-Bridge and llm-foundry FP8 rows); {BEST_CASE}"
    elif precision in ("bf16", "fp16"):
        peak = gpu.bf16_dense_flops
        cls = gpu_class(gpu)
        const = tr.mfu_by_class.get(cls) or tr.mfu_by_class["default"]
        base = const.value
        mfu_note = (f"class '{cls}' compute MFU {base:.2f} ({const.basis}; sources {', '.join(const.source)}); "
                    + (BEST_CASE if const.basis == "fitted" else PRIOR_CASE))
    else:
        raise InputError(f"unknown training precision '{precision}'", field="precision", accepted="bf16, fp8")
    if task == "qlora":
        base *= tr.qlora_mfu_factor.value
        mfu_note += f"; × {tr.qlora_mfu_factor.value:.2f} for QLoRA's 4-bit dequantisation"
    if mfu is not None:
        return _Mfu(peak, mfu, "user override")
    return _Mfu(peak, base, mfu_note)


class _StepTimes(Value):
    """One optimizer step per GPU: compute, data-parallel traffic (exposed beyond the overlap), host offload."""

    step_tokens: float  # tokens per GPU per optimizer step
    accum: float  # micro-batches per step
    compute_s: float
    comm_s: float  # data-parallel traffic (with offload's parameter fetches)
    link_desc: str
    per_micro: float  # bytes of ZeRO-3 collectives per micro-batch
    gathers: int
    offload_s: float
    fetch_s: float
    offload_desc: str
    exposed_s: float
    step_s: float


def _step_times(model: ModelSpec, gpu: GpuSpec, count: int, calib: Calibration, context: int, task: str,
                recompute: str, zero: int, micro_batch: int, offload: str, mfu: float | None, rate: _Mfu,
                total_params: float, model_f: float, hw_f: float) -> _StepTimes:
    """compute = step tokens × hardware FLOPs / (peak × MFU); exposed = max(0, comm − overlap × compute);
    step = compute + exposed + offload. A user's MFU is the achieved one: model FLOPs, nothing on top.

    Compute-only: the calibrated MFU counts model FLOPs without recomputation; recomputed FLOPs run at the same
    hardware utilisation, so the step takes hw/model longer. An optimizer step: tokens_per_gpu_step tokens per GPU
    (one micro-batch when that is larger), i.e. `accum` micro-batches on average; per-token costs then never grow
    with the micro-batch."""
    tr = calib.training
    micro_tokens = micro_batch * context
    step_tokens = max(tr.tokens_per_gpu_step.value, micro_tokens)
    accum = step_tokens / micro_tokens
    compute_s = step_tokens * hw_f / (rate.peak * rate.base)

    comm_s = 0.0
    link_desc = "none (one GPU)"
    per_micro, per_step, gathers = collective_bytes(total_params, task, zero, recompute)
    if count > 1:
        comm_s, link_desc = data_parallel_seconds(gpu, count, per_micro * accum + per_step, calib)
    offload_s, fetch_s, offload_desc = 0.0, 0.0, ""
    if offload != "none":
        offload_s, fetch_s, offload_desc = offload_seconds(
            gpu, count, trainable_params(model, task), total_params, calib, offload=offload,
            fetches_per_step=gathers * accum if zero >= 3 else 0.0)
        comm_s += fetch_s  # parameter shards fetched from host memory ahead of each gather (prefetched, overlapped)
    exposed_s = max(0.0, comm_s - tr.comm_overlap.value * compute_s)
    step_s = compute_s + exposed_s + offload_s
    if mfu is not None:  # the user's MFU is the achieved one: no recompute, communication or offload on top
        compute_s = step_tokens * model_f / (rate.peak * mfu)
        exposed_s = offload_s = 0.0
        step_s = compute_s
    return _StepTimes(step_tokens, accum, compute_s, comm_s, link_desc, per_micro, gathers, offload_s, fetch_s,
                      offload_desc, exposed_s, step_s)


def _train_formulas(model: ModelSpec, count: int, tokens: float, calib: Calibration, context: int, task: str,
                    recompute: str, precision: str, micro_batch: int, offload: str, mfu: float | None, rate: _Mfu,
                    st: _StepTimes, model_f: float, hw_f: float) -> list[str]:
    """The formula lines of a training-time estimate, each with its numbers."""
    mf = model_flops(model)
    tokens_per_s = st.step_tokens / st.step_s * count
    wall_s = tokens / tokens_per_s
    formulas = [
        f"N (matmul parameters{', active' if model.is_moe else ''}) = {mf.matmul_active:,}",
        (f"model FLOPs/token = {'4' if task in LORA_TASKS else '6'}·N + 3·A(s) = {model_f:.4g} "
         f"(A(s) = L·(s+1)·(d_qk+d_v) = {mf.causal_attention_flops_per_token(context):.4g}, s = {context})"),
        f"hardware FLOPs/token ({recompute} recompute) = {hw_f:.4g}",
        f"peak = {rate.peak / 1e12:.1f} TFLOP/s per GPU ({precision} dense tensor), "
        f"{'MFU (user)' if mfu is not None else 'compute MFU'} = {rate.base:.3f}",
        f"compute per step = {st.step_tokens:,.0f} tokens × {model_f if mfu is not None else hw_f:.4g} / "
        f"(peak × {rate.base:.3f}) = {st.compute_s:.3f} s",
    ]
    if count > 1 and mfu is None:
        if st.gathers:
            rs = "" if task in LORA_TASKS else " + 1 reduce-scatter of the gradients"
            formulas.append(f"ZeRO-3 per micro-batch of {micro_batch} × {context} tokens: {st.gathers} all-gathers of "
                            f"the 16-bit parameters{rs} ({st.per_micro / 1e9:,.1f} GB); {st.accum:.3g} micro-batch(es) "
                            f"per {st.step_tokens:,.0f}-token step")
        formulas.append(f"data-parallel traffic = {st.comm_s:.3f} s per step over {st.link_desc}; "
                        f"exposed = max(0, comm − {calib.training.comm_overlap.value:.2f} × compute) = "
                        f"{st.exposed_s:.3f} s")
    if offload != "none" and mfu is None:
        formulas.append(f"offload ({offload}) per step = {st.offload_desc} = {st.offload_s:.3f} s, not hidden"
                        + (f"; parameter fetches {st.fetch_s:.3f} s counted with the traffic" if st.fetch_s else ""))
    formulas += [
        f"tokens/s = {count} × {st.step_tokens:,.0f} / {st.step_s:.3f} s = {tokens_per_s:,.0f}",
        f"MFU = tokens/s per GPU × model FLOPs/token / peak = {st.step_tokens / st.step_s * model_f / rate.peak:.3f}",
        f"wall = {tokens:.4g} tokens / {tokens_per_s:,.0f} tokens/s = {wall_s:,.0f} s ({wall_s / 86400:.2f} days)",
        f"GPU-hours = wall × {count} / 3600 = {wall_s * count / 3600.0:,.1f}",
    ]
    return formulas


def _train_assumptions(gpu: GpuSpec, count: int, calib: Calibration, context: int, zero: int, micro_batch: int,
                       offload: str, mfu: float | None, rate: _Mfu, st: _StepTimes) -> list[str]:
    """What a training-time estimate assumes: the MFU and its definition, the step, offload, several servers."""
    tr = calib.training
    gathers = st.gathers
    assumptions = [
        f"MFU source: {rate.source}",
        "MFU definition: model FLOPs (6·N + attention, causal) per second over the dense tensor peak, as in "
        "MosaicML llm-foundry and PaLM; recomputation is not counted as useful work",
        *(["MFU is a best case: the constants come from tuned single-job benchmark runs (llm-foundry, Megatron); "
           "long production runs lose time to restarts, checkpoints, evaluation, power caps and stragglers — "
           "Llama 2 (Touvron et al. 2023) used 1.5–1.6× the A100-hours this model predicts for its 7B–70B runs"]
          if mfu is None else []),
        f"{st.step_tokens:,.0f} tokens per GPU per optimizer step = {st.accum:.3g} micro-batch(es) of {micro_batch} × "
        f"{context} tokens; data-parallel FSDP/ZeRO-{min(zero, 3)} traffic"
        + (f", the parameters gathered {gathers}× in every micro-batch (forward, backward"
           f"{', recomputed forward' if gathers == 3 else ''})" if gathers else ""),
        "the model fits the chosen GPUs (check `gpu-advisor estimate --task ...`)",
    ]
    if offload != "none":
        assumptions.append(
            f"ZeRO-Offload ({offload}): the CPU Adam step runs after the backward with the GPUs idle "
            f"({tr.cpu_adam_params_per_s.value / 1e9:.1f} B parameters per second per server, measured with "
            f"DeepSpeedCPUAdam on A100 servers; weaker hosts are slower), plus 16-bit gradients down and parameters "
            f"up over each GPU's PCIe link" + (", and each parameter shard fetched from host memory before every "
                                               "gather" if offload == "all" else ""))
    if count > int(tr.gpus_per_node.value):
        per_node = -(-count // -(-count // int(tr.gpus_per_node.value)))
        net, what = inter_node_bytes_per_s(gpu, per_node, calib)
        if server_class(gpu) == "baseboard":
            assumptions.append(f"more than {int(tr.gpus_per_node.value)} GPUs: several HGX/OAM baseboard servers, "
                               f"each with {what}, at {tr.network_efficiency.value:.0%} of line rate")
        else:
            assumptions.append(f"more than {int(tr.gpus_per_node.value)} GPUs: several PCIe servers, each with one "
                               f"{net * 8 / 1e9:.0f} Gb/s network shared by its GPUs (a typical 8-GPU PCIe "
                               f"server with one InfiniBand/RoCE NIC, as DeepSeek's Fire-Flyer 2 nodes), at "
                               f"{tr.network_efficiency.value:.0%} of line rate")
    return assumptions


def estimate_train_time(model: ModelSpec, gpu: GpuSpec, count: int, tokens: float, calib: Calibration, *,
                        context: int | None = None, task: str = "pretrain", recompute: str | None = None,
                        precision: str = "bf16", mfu: float | None = None, zero: int = 3,
                        micro_batch: int = 1, offload: str = "none", seq_len: int | None = None) -> TrainTimeEstimate:
    """Tokens/s, wall-clock seconds and GPU-hours to train `model` on `tokens` tokens with `count` GPUs.

    `mfu` sets the achieved MFU directly (model FLOPs/s over the dense peak), replacing the calibrated model.
    `recompute` defaults to full for fine-tuning and selective for pre-training (Workload's convention).
    `context`: tokens per training sequence (`seq_len`, its name in the JSON contract, is accepted as well).
    `micro_batch` × `context` tokens run between ZeRO-3 parameter gathers; an optimizer step accumulates micro-batches
    up to `tokens_per_gpu_step` tokens per GPU. `offload` ("none", "optimizer", "all") adds ZeRO-Offload's host work
    (`offload_seconds`).
    """
    context = int(context or seq_len or min(model.max_context, DEFAULT_CONTEXT))
    if recompute is None:
        recompute = "selective" if task == "pretrain" else "full"
    _check(tokens, count, context, mfu, task, recompute, micro_batch, offload)
    rate = _compute_mfu(gpu, calib, precision, task, mfu)
    model_f, hw_f = train_flops_per_token(model, context, task, recompute)
    mf = model_flops(model)
    st = _step_times(model, gpu, count, calib, context, task, recompute, zero, micro_batch, offload, mfu, rate,
                     mf.total_params, model_f, hw_f)
    # tokens/s = count × step tokens / step; achieved MFU = tokens/s per GPU × model FLOPs/token / peak
    tokens_per_s_gpu = st.step_tokens / st.step_s
    tokens_per_s = tokens_per_s_gpu * count
    wall_s = tokens / tokens_per_s
    return TrainTimeEstimate(
        model=model.id, gpu=gpu.id, count=count, task=task, precision=precision, recompute=recompute,
        tokens=float(tokens), context=context, params_matmul=mf.matmul_active, flops_per_token=model_f,
        hardware_flops_per_token=hw_f, peak_flops_per_gpu=rate.peak, mfu=tokens_per_s_gpu * model_f / rate.peak,
        mfu_compute=rate.base, mfu_source=rate.source, communication_s_per_step=st.exposed_s,
        compute_s_per_step=st.compute_s, offload_s_per_step=st.offload_s,
        tokens_per_step=st.step_tokens * count, tokens_per_s=tokens_per_s, tokens_per_s_per_gpu=tokens_per_s_gpu,
        wall=Seconds(wall_s), gpu_hours=wall_s * count / 3600.0,
        formulas=_train_formulas(model, count, tokens, calib, context, task, recompute, precision, micro_batch,
                                 offload, mfu, rate, st, model_f, hw_f),
        assumptions=_train_assumptions(gpu, count, calib, context, zero, micro_batch, offload, mfu, rate, st),
    )
