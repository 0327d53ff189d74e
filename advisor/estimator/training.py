"""Training time: tokens/s, wall-clock and GPU-hours for a token budget, at a calibrated MFU.

Model FLOPs per token (the MFU numerator, PaLM App. B / MosaicML llm-foundry, with the causal mask counted):
    full / pre-training : 6·N + 3·A(s)        N = matmul parameters (active ones for MoE)
    LoRA / QLoRA / freeze: 4·N + 3·A(s)       frozen base: no weight-gradient GEMMs (backward ≈ 2N instead of 4N)
    A(s) = 2·L·(s+1)/2·(d_qk + d_v)           forward attention FLOPs per token, causal, averaged over the sequence
Hardware FLOPs (what the GPU executes) add the recomputed forward pass: +2·N + A(s) with full recomputation
(→ 8·N·D), +A(s) with selective recomputation (attention core only; Korthikanti et al. 2022).

Speed: compute time per GPU step = tokens_per_gpu_step × hardware FLOPs / (peak × HFU), where HFU is the
calibrated compute-only utilisation of the GPU class (MosaicML/Megatron measurements; see calibration.yaml).
Data-parallel communication (FSDP/ZeRO-3: all-gather forward, all-gather backward, reduce-scatter gradients,
V = 3·2·N bytes per GPU per step) is hierarchical: (m−1)/m·V over NVLink/PCIe among the m GPUs of a server and
(k−1)/k·V over the GPU's network share among k servers — its own NIC on HGX/OAM baseboard servers (50/200/400 Gb/s
by the host's PCIe generation 3/4/5), 1/m of the server's one 200 Gb/s on servers of PCIe cards — at the NICs'
measured NCCL efficiency; the slower part sets the time. It hides behind the step's compute up to its length; the
rest is exposed. Achieved MFU = model FLOPs/s ÷ (n × peak).
"""

from __future__ import annotations

import math

from knowledge.errors import InputError
from knowledge.schemas import GpuSpec, ModelSpec

from .calibration import Calibration
from .model_flops import model_flops
from .speed_results import TrainTimeEstimate

MAX_TOKENS = 1e15  # 1,000 trillion tokens: far beyond any published training run (Llama 3: 15.6T)
LORA_TASKS = ("lora", "qlora", "freeze")
TASKS = ("pretrain", "full", *LORA_TASKS)
GIB = 2**30


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
    """Network bytes/s (one direction, line rate) one GPU gets to other servers, and a description: on baseboard
    servers its own NIC at the rate of the host's PCIe generation (DGX-1 50 Gb/s, DGX A100 200 Gb/s, DGX H100/B200
    400 Gb/s), on PCIe servers its share of the server's one figure among the `per_node` GPUs of the job."""
    tr = calib.training
    if server_class(gpu) == "baseboard":
        table = tr.nic_bytes_per_s_per_gpu
        gen = gpu.pcie_gen if gpu.pcie_gen in table else (max(table) if gpu.pcie_gen > max(table) else min(table))
        nic = table[gen].value
        return nic, f"one {nic * 8 / 1e9:.0f} Gb/s NIC per GPU ({gpu.form_factor})"
    server = tr.pcie_server_network_bytes_per_s.value
    return server / per_node, f"{server * 8 / 1e9:.0f} Gb/s per server shared by its {per_node} PCIe GPUs"


def data_parallel_seconds(gpu: GpuSpec, count: int, volume_bytes: float, calib: Calibration) -> tuple[float, str]:
    """Time one GPU spends moving `volume_bytes` of collective traffic (all-gather/reduce-scatter) across `count`
    GPUs: hierarchical, inside each server over NVLink/PCIe and between servers over the GPU's network share
    (`inter_node_bytes_per_s` at the NICs' NCCL efficiency), each part carrying its (m−1)/m share; the slower part
    sets the time. Returns (seconds, description)."""
    tr = calib.training
    per_server = int(tr.gpus_per_node.value)
    nodes = -(-count // per_server)
    per_node = -(-count // nodes)
    t_intra = t_inter = 0.0
    desc = []
    if per_node > 1:
        bw, path = data_parallel_link(gpu, per_node, calib)
        t_intra = volume_bytes * (per_node - 1) / per_node / bw
        desc.append(f"{per_node} GPUs per server over {path}")
    if nodes > 1:
        net, what = inter_node_bytes_per_s(gpu, per_node, calib)
        t_inter = volume_bytes * (nodes - 1) / nodes / (net * tr.network_efficiency.value)
        desc.append(f"{nodes} servers, {what}")
    return max(t_intra, t_inter), "; ".join(desc) or "none (one GPU)"


def train_flops_per_token(model: ModelSpec, seq_len: int, task: str, recompute: str) -> tuple[float, float]:
    """(model FLOPs, hardware FLOPs) per trained token; see the module docstring for the formulas."""
    mf = model_flops(model)
    n = float(mf.matmul_active)
    attn = mf.causal_attention_flops_per_token(seq_len)
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


def _check(tokens: float, count: int, seq_len: int, mfu: float | None, task: str, recompute: str) -> None:
    if not math.isfinite(tokens) or tokens <= 0:
        raise InputError(f"token budget must be positive, got {tokens:g}", field="tokens",
                         accepted=f"1 … {MAX_TOKENS:.0e} tokens")
    if tokens > MAX_TOKENS:
        raise InputError(f"token budget {tokens:.3g} is absurd (more than {MAX_TOKENS:.0e} tokens)",
                         field="tokens", accepted=f"1 … {MAX_TOKENS:.0e} tokens")
    if count < 1 or count > 100_000:
        raise InputError(f"GPU count must be between 1 and 100000, got {count}", field="count")
    if seq_len < 1 or seq_len > 10_000_000:
        raise InputError(f"sequence length must be between 1 and 10,000,000, got {seq_len}", field="seq_len")
    if mfu is not None and not 0 < mfu <= 1:
        raise InputError(f"MFU must be a fraction in (0, 1], got {mfu}", field="mfu", accepted="0 < mfu ≤ 1")
    if task not in TASKS:
        raise InputError(f"unknown training task '{task}'", field="task", accepted=", ".join(TASKS))
    if recompute not in ("none", "selective", "full"):
        raise InputError(f"unknown recompute '{recompute}'", field="recompute", accepted="none, selective, full")


def estimate_train_time(model: ModelSpec, gpu: GpuSpec, count: int, tokens: float, calib: Calibration, *,
                        seq_len: int | None = None, task: str = "pretrain", recompute: str | None = None,
                        precision: str = "bf16", mfu: float | None = None, zero: int = 3) -> TrainTimeEstimate:
    """Tokens/s, wall-clock seconds and GPU-hours to train `model` on `tokens` tokens with `count` GPUs.

    `mfu` sets the achieved MFU directly (model FLOPs/s over the dense peak), replacing the calibrated model.
    `recompute` defaults to full for fine-tuning and selective for pre-training (Workload's convention).
    """
    seq_len = int(seq_len or min(model.max_context, 4096))
    if recompute is None:
        recompute = "selective" if task == "pretrain" else "full"
    _check(tokens, count, seq_len, mfu, task, recompute)
    tr = calib.training
    if precision == "fp8":
        if not gpu.fp8_dense_flops or not gpu.supports_fp8:
            raise InputError(f"{gpu.name} has no FP8 tensor cores; FP8 training needs Hopper, Ada or newer",
                             field="precision", accepted="bf16 on this GPU")
        peak = gpu.fp8_dense_flops
        base = tr.fp8_mfu.value
        cls = "fp8"
        mfu_note = f"FP8 MFU {base:.2f} of the FP8 peak (fitted: Megatron-Bridge and llm-foundry FP8 rows)"
    elif precision in ("bf16", "fp16"):
        peak = gpu.bf16_dense_flops
        cls = gpu_class(gpu)
        const = tr.mfu_by_class.get(cls) or tr.mfu_by_class["default"]
        base = const.value
        mfu_note = f"class '{cls}' compute MFU {base:.2f} ({const.basis}; sources {', '.join(const.source)})"
    else:
        raise InputError(f"unknown training precision '{precision}'", field="precision", accepted="bf16, fp8")
    if task == "qlora":
        base *= tr.qlora_mfu_factor.value
        mfu_note += f"; × {tr.qlora_mfu_factor.value:.2f} for QLoRA's 4-bit dequantisation"
    mfu_source = mfu_note
    if mfu is not None:
        base = mfu
        mfu_source = "user override"

    model_f, hw_f = train_flops_per_token(model, seq_len, task, recompute)
    mf = model_flops(model)
    # compute-only: the calibrated MFU counts model FLOPs without recomputation; recomputed FLOPs run at the
    # same hardware utilisation, so the step takes hw/model longer.
    step_tokens = tr.tokens_per_gpu_step.value
    compute_s = step_tokens * hw_f / (peak * base)

    comm_s = 0.0
    link_desc = "none (one GPU)"
    if count > 1:
        if task in LORA_TASKS:
            # only the adapters' gradients are reduced; with ZeRO-3 the frozen base is still gathered twice
            volume = 2.0 * 2.0 * mf.total_params if zero >= 3 else 0.0
        else:
            volume = (3.0 if zero >= 3 else 2.0) * 2.0 * mf.total_params
        comm_s, link_desc = data_parallel_seconds(gpu, count, volume, calib)
    exposed_s = max(0.0, comm_s - tr.comm_overlap.value * compute_s)
    step_s = compute_s + exposed_s
    if mfu is not None:  # the user's MFU is the achieved one: no recompute or communication on top
        compute_s = step_tokens * model_f / (peak * mfu)
        exposed_s = 0.0
        step_s = compute_s

    tokens_per_s_gpu = step_tokens / step_s
    tokens_per_s = tokens_per_s_gpu * count
    achieved_mfu = tokens_per_s_gpu * model_f / peak
    wall_s = tokens / tokens_per_s
    gpu_hours = wall_s * count / 3600.0

    formulas = [
        f"N (matmul parameters{', active' if model.is_moe else ''}) = {mf.matmul_active:,}",
        (f"model FLOPs/token = {'4' if task in LORA_TASKS else '6'}·N + 3·A(s) = {model_f:.4g} "
         f"(A(s) = L·(s+1)·(d_qk+d_v) = {mf.causal_attention_flops_per_token(seq_len):.4g}, s = {seq_len})"),
        f"hardware FLOPs/token ({recompute} recompute) = {hw_f:.4g}",
        f"peak = {peak / 1e12:.1f} TFLOP/s per GPU ({precision} dense tensor), "
        f"{'MFU (user)' if mfu is not None else 'compute MFU'} = {base:.3f}",
        f"compute per step = {step_tokens:,.0f} tokens × {model_f if mfu is not None else hw_f:.4g} / "
        f"(peak × {base:.3f}) = {compute_s:.3f} s",
    ]
    if count > 1 and mfu is None:
        formulas.append(f"data-parallel traffic = {comm_s:.3f} s per step over {link_desc}; "
                        f"exposed = max(0, comm − {tr.comm_overlap.value:.2f} × compute) = {exposed_s:.3f} s")
    formulas += [
        f"tokens/s = {count} × {step_tokens:,.0f} / {step_s:.3f} s = {tokens_per_s:,.0f}",
        f"MFU = tokens/s per GPU × model FLOPs/token / peak = {achieved_mfu:.3f}",
        f"wall = {tokens:.4g} tokens / {tokens_per_s:,.0f} tokens/s = {wall_s:,.0f} s ({wall_s / 86400:.2f} days)",
        f"GPU-hours = wall × {count} / 3600 = {gpu_hours:,.1f}",
    ]
    assumptions = [
        f"MFU source: {mfu_source}",
        "MFU definition: model FLOPs (6·N + attention, causal) per second over the dense tensor peak, as in "
        "MosaicML llm-foundry and PaLM; recomputation is not counted as useful work",
        f"{tr.tokens_per_gpu_step.value:,.0f} tokens per GPU per step; data-parallel FSDP/ZeRO-{min(zero, 3)} traffic",
        "the model fits the chosen GPUs (check `gpu-advisor estimate --task ...`)",
    ]
    if count > int(tr.gpus_per_node.value):
        per_node = -(-count // -(-count // int(tr.gpus_per_node.value)))
        net, what = inter_node_bytes_per_s(gpu, per_node, calib)
        if server_class(gpu) == "baseboard":
            assumptions.append(f"more than {int(tr.gpus_per_node.value)} GPUs: several HGX/OAM baseboard servers "
                               f"with {what}, at {tr.network_efficiency.value:.0%} of line rate")
        else:
            assumptions.append(f"more than {int(tr.gpus_per_node.value)} GPUs: several PCIe servers, each with one "
                               f"{net * per_node * 8 / 1e9:.0f} Gb/s network shared by its GPUs (a typical 8-GPU PCIe "
                               f"server with one InfiniBand/RoCE NIC, as DeepSeek's Fire-Flyer 2 nodes), at "
                               f"{tr.network_efficiency.value:.0%} of line rate")
    return TrainTimeEstimate(
        model=model.id, gpu=gpu.id, count=count, task=task, precision=precision, recompute=recompute,
        tokens=float(tokens), seq_len=seq_len, params_matmul=mf.matmul_active, flops_per_token=model_f,
        hardware_flops_per_token=hw_f, peak_flops_per_gpu=peak, mfu=achieved_mfu, mfu_compute=base,
        mfu_source=mfu_source, communication_s_per_step=exposed_s, compute_s_per_step=compute_s,
        tokens_per_step=step_tokens * count, tokens_per_s=tokens_per_s, tokens_per_s_per_gpu=tokens_per_s_gpu,
        wall_s=wall_s, gpu_hours=gpu_hours, formulas=formulas, assumptions=assumptions,
    )
