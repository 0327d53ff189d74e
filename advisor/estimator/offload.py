"""llama.cpp partial offload: as many layers as fit on the GPU(s), the rest in system RAM (`-ngl N`).

Memory (llama.cpp's placement, src/llama-model.cpp: `-ngl N` puts the last N repeating layers, with their KV cache,
on the GPU; the output matrix joins them only when N exceeds the layer count; the token embedding is a row gather and
stays in RAM):

    per layer on the GPU = layer weights + its KV cache (context × KV bytes per token per layer)
    GPU budget           = count × (GPU memory − CUDA context − 1 GiB) − one compute buffer (n_ubatch tokens)
                           (1 GiB: the free margin llama.cpp's --fit keeps per device, -fitt default 1024 MiB)
    -ngl                 = ⌊budget / per layer⌋ (L + 1 when every layer and the output matrix fit): the value
                           `llama-server --fit on` picks; a GPU without layers holds no compute buffer
    system RAM           = CPU layers (weights + KV) + token embedding + output matrix unless offloaded + compute buffer

Decode (one token passes through the GPU layers, then the CPU layers; nothing overlaps at batch 1; a MoE layer reads
its k of E routed experts, W_layer = dense + experts · k/E):

    t_token = [W_gpu / (B_gpu · η_w) + KV_gpu / (B_gpu · η_kv) + c_step + N_gpu · c_layer]      GPU part
            + (W_cpu + KV_cpu) / (B_host · η_host)                                           CPU part

Prefill (llama.cpp ≥ b2400, PR #6083: batches of ≥ 32 tokens run the CPU-resident layers on the GPU too, copying their
weights over PCIe once per micro-batch of n_ubatch tokens):

    t_prefill = ⌈p / n_ubatch⌉ · [t_prefill_all_layers_on_gpu(n_ubatch) + W_cpu / (B_pcie · η_pcie)]

B_host is a host class (channels × MT/s × 8 B, JEDEC) from the calibration, or the user's `--host-bandwidth`; η_host is
fitted on measured partial-offload rows (benchmarks/speed_validation.yaml, `offload:`). All sizes in bytes, times in
seconds, bandwidths in bytes/s.
"""

from __future__ import annotations

import math

import msgspec

from advisor.workload import DEFAULT_CONTEXT, Workload, request_lengths
from knowledge.errors import InputError
from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

from .calibration import Calibration, HostMemory
from .formats import weight_bytes_by_group
from .kv_cache import kv_bytes_per_token_layer
from .memory import default_inference_format, estimate_memory
from .throughput import Hardware, SpeedProfile, hardware, memory_class, prefill_step, speed_profile
from .training import pcie_bytes_per_s

DENSE_GROUPS = ("attention", "mlp", "shared_experts", "router", "norm")  # read in full by every token


class Host(Value):
    """The host side of an offload: DRAM bandwidth (bytes/s, theoretical) and RAM size when known."""

    label: str
    bandwidth_bytes_per_s: float
    ram_bytes: int | None = None
    stated: bool = False  # True: the user gave the bandwidth; False: a host class assumed


class OffloadPlan(Value):
    """Where the layers go and how fast decode and prefill run (SI units: bytes, seconds, tokens/s)."""

    ngl: int  # the -ngl value (layer_count + 1 when the output matrix is on the GPU too)
    layers: int
    gpu_layers: int  # repeating layers on the GPU(s)
    cpu_layers: int
    output_on_gpu: bool
    gpu_bytes_per_gpu: int  # what each GPU holds: layers (split evenly, -ts default), CUDA context, compute buffer
    gpu_budget_bytes: int  # all GPUs together, for layers
    system_ram_bytes: int  # host RAM the model needs (weights, KV of CPU layers, buffers)
    host: Host
    decode_tokens_per_s: float
    gpu_part_s: float
    cpu_part_s: float
    prefill_tokens_per_s: float
    ttft_s: float
    fits: bool  # the chosen -ngl fits in GPU memory and the host has the RAM (when its size is known)
    gpu_weights_bytes: int = 0  # all GPUs together: layer weights (+ output matrix when offloaded)
    gpu_kv_bytes: int = 0
    cpu_weights_bytes: int = 0  # system RAM: CPU layers, token embedding, output matrix unless offloaded
    cpu_kv_bytes: int = 0
    cuda_context_bytes: int = 0  # per GPU
    compute_buffer_bytes: int = 0
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)

    @property
    def full_offload(self) -> bool:
        """Every layer and the output matrix on the GPU(s): no offload needed."""
        return self.cpu_layers == 0 and self.output_on_gpu

    def to_contract(self) -> dict[str, object]:
        return {
            "ngl": self.ngl, "layers": self.layers, "gpu_layers": self.gpu_layers, "cpu_layers": self.cpu_layers,
            "output_on_gpu": self.output_on_gpu, "gpu_bytes_per_gpu": self.gpu_bytes_per_gpu,
            "system_ram_bytes": self.system_ram_bytes, "host_bandwidth_bytes_per_s": self.host.bandwidth_bytes_per_s,
            "host": self.host.label, "host_bandwidth_stated": self.host.stated,
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "decode_gpu_s": self.gpu_part_s, "decode_cpu_s": self.cpu_part_s,
            "prefill_tokens_per_s": self.prefill_tokens_per_s, "ttft_s": self.ttft_s, "fits": self.fits,
            "formulas": list(self.formulas), "assumptions": list(self.assumptions),
        }


def default_host(gpu: GpuSpec, calib: Calibration, *, bandwidth_bytes_per_s: float | None = None,
                 ram_bytes: int | None = None) -> Host:
    """The host class assumed for `gpu`'s market segment, or the user's stated bandwidth; validates both inputs."""
    hm = _host_memory(calib)
    if bandwidth_bytes_per_s is not None and not (math.isfinite(bandwidth_bytes_per_s) and bandwidth_bytes_per_s > 0):
        raise InputError.from_key("errors.host_bandwidth", field="host_bandwidth",
                                  accepted="> 0 GB/s (e.g. 89.6 for 2 × DDR5-5600)", gb_per_s=bandwidth_bytes_per_s / 1e9)
    if ram_bytes is not None and ram_bytes <= 0:
        raise InputError.from_key("errors.host_ram", field="host_ram", accepted="> 0 GiB", gib=ram_bytes / GIB)
    if bandwidth_bytes_per_s is not None:
        return Host(f"stated {bandwidth_bytes_per_s / 1e9:g} GB/s", bandwidth_bytes_per_s, ram_bytes, stated=True)
    cls = hm.classes[hm.default_class[gpu.segment]]
    return Host(f"{cls.label} = {cls.bytes_per_s / 1e9:.1f} GB/s (assumed)", cls.bytes_per_s, ram_bytes)


def _fit_margin(calib: Calibration) -> int:
    """Bytes llama.cpp's --fit leaves free per GPU when it chooses -ngl (0 when the calibration has none)."""
    c = _host_memory(calib).gpu_fit_margin_bytes
    return int(c.value) if c is not None else 0


def _host_memory(calib: Calibration) -> HostMemory:
    hm = calib.inference.host_memory
    if hm is None:
        raise InputError("this calibration has no host-memory constants for offload", field="offload",
                         accepted="a calibration with inference.host_memory")
    return hm


class _Split(Value):
    layer_w: float  # bytes of one repeating layer (what it holds)
    layer_read: float  # bytes one decode token reads from it (MoE: the k of E routed experts)
    layer_kv: float  # KV bytes of one layer at the context
    output_w: float  # output matrix (lm_head; the embedding when tied)
    embed_w: float  # token embedding (RAM; a gather)


def _split(model: ModelSpec, weights: str, kv: str, context: int) -> _Split:
    groups = weight_bytes_by_group(model, weights)
    L = model.num_layers
    dense = sum(groups.get(g, 0) for g in DENSE_GROUPS)
    experts = float(groups.get("experts", 0))
    share = model.experts_per_token / model.n_routed_experts if model.n_routed_experts else 1.0
    embed = float(groups.get("embedding", 0))
    out = float(groups.get("lm_head", 0)) or embed
    kv_layer = float(kv_bytes_per_token_layer(model, kv, 1)) * context
    return _Split((dense + experts) / L, (dense + experts * share) / L, kv_layer, out, embed)


def check_ngl(model: ModelSpec, ngl: int | None) -> None:
    """-ngl must lie in 0 … L + 1 (L repeating layers, then the output matrix)."""
    L = model.num_layers
    if ngl is not None and not 0 <= ngl <= L + 1:
        raise InputError.from_key("errors.ngl", field="ngl", accepted=f"0 … {L + 1} ({L} layers + the output matrix)",
                                  ngl=ngl, model=model.name, layers=L, most=L + 1)


class _Placement(Value):
    """Where the layers go (-ngl) and the bytes that takes on the GPU(s) and in system RAM."""

    budget: float  # GPU bytes for layers, all GPUs
    fit_ngl: int  # what llama-server --fit on picks
    chosen: int  # -ngl
    g_layers: int
    out_gpu: bool  # the output matrix on the GPU (-ngl > L)
    c_layers: int
    gpu_buffer: int  # compute buffer on the GPU (none without a GPU layer)
    gpu_bytes: float  # layers (+ output) on the GPU(s)
    ram: float  # system RAM
    fits: bool


class _Decode(Value):
    """One decode token: the GPU part, then the CPU part (module docstring)."""

    w_gpu: float
    w_cpu: float
    kv_read: float  # one layer's KV read per token
    eta_host: float
    t_gpu: float
    t_cpu: float

    @property
    def t_token(self) -> float:
        return self.t_gpu + self.t_cpu


class _Prefill(Value):
    """The prompt in micro-batches, each copying the CPU layers' weights over PCIe (module docstring)."""

    pcie: float  # bytes/s, effective
    chunks: int
    t_chunk_gpu: float
    w_copy: float
    t_prefill: float


def _placement(model: ModelSpec, gpu: GpuSpec, count: int, host: Host, sp: _Split, ngl: int | None, margin: int,
               cuda_context_bytes: int, compute_buffer_bytes: int) -> _Placement:
    """GPU budget = count × (memory − CUDA context − --fit margin) − one compute buffer; -ngl = ⌊budget / per
    layer⌋ (L + 1 when every layer and the output matrix fit); system RAM = CPU layers + embedding + output
    unless offloaded + compute buffer. A host without that RAM is refused."""
    L = model.num_layers
    per_layer = sp.layer_w + sp.layer_kv
    budget = count * (gpu.memory_bytes - cuda_context_bytes - margin) - compute_buffer_bytes
    fit_layers = max(0, min(L, int(budget // per_layer))) if per_layer > 0 else L
    fit_ngl = L + 1 if fit_layers == L and budget - L * per_layer >= sp.output_w else fit_layers
    chosen = fit_ngl if ngl is None else ngl
    g_layers = min(chosen, L)
    out_gpu = chosen > L
    c_layers = L - g_layers
    gpu_buffer = compute_buffer_bytes if (g_layers or out_gpu) else 0  # no layer on the GPU: no GPU compute graph
    gpu_bytes = g_layers * per_layer + (sp.output_w if out_gpu else 0.0)
    ram = c_layers * per_layer + sp.embed_w + (0.0 if out_gpu else sp.output_w) + compute_buffer_bytes
    fits_gpu = gpu_bytes <= budget
    host_ram = host.ram_bytes
    fits_ram = host_ram is None or ram <= host_ram
    if host_ram is not None and not fits_ram and c_layers:
        raise InputError.from_key("errors.host_ram_short", field="host_ram",
                                  accepted=f"≥ {ram / GIB:.1f} GiB (or more GPUs, or a smaller --weights format)",
                                  need_gib=ram / GIB, layers=c_layers, host_gib=host_ram / GIB)
    return _Placement(budget, fit_ngl, chosen, g_layers, out_gpu, c_layers, gpu_buffer, gpu_bytes, ram,
                      fits_gpu and fits_ram)


def _decode(sp: _Split, place: _Placement, hw: Hardware, host: Host, calib: Calibration, context: int,
            decode_context: int | None) -> _Decode:
    """t_token = [W_gpu / (B_gpu · η_w) + KV_gpu / (B_gpu · η_kv) + c_step + N_gpu · c_layer]
    + (W_cpu + KV_cpu) / (B_host · η_host)."""
    g_layers, c_layers, out_gpu = place.g_layers, place.c_layers, place.out_gpu
    eta_host = _host_memory(calib).efficiency.value
    w_gpu = g_layers * sp.layer_read + (sp.output_w if out_gpu else 0.0)
    w_cpu = c_layers * sp.layer_read + (0.0 if out_gpu else sp.output_w)
    kv_read = sp.layer_kv * min(1.0, (decode_context or context) / context)  # one layer's KV read per token
    t_gpu = (w_gpu / (hw.bandwidth * hw.eta_w) + g_layers * kv_read / (hw.bandwidth * hw.eta_kv)
             + hw.step_overhead + g_layers * hw.layer_overhead)
    t_cpu = (w_cpu + c_layers * kv_read) / (host.bandwidth_bytes_per_s * eta_host)
    return _Decode(w_gpu, w_cpu, kv_read, eta_host, t_gpu, t_cpu)


def _prefill(gpu: GpuSpec, calib: Calibration, prof: SpeedProfile, hw: Hardware, sp: _Split, place: _Placement,
             prompt_tokens: int, ubatch: int) -> _Prefill:
    """t_prefill = ⌈p / n_ubatch⌉ · [t_prefill_all_layers_on_gpu(n_ubatch) + W_cpu / (B_pcie · η_pcie)]."""
    pcie = pcie_bytes_per_s(gpu, calib) * calib.inference.allreduce.pcie_efficiency.value
    chunks = math.ceil(prompt_tokens / ubatch)
    chunk = min(ubatch, prompt_tokens)
    t_chunk_gpu = prefill_step(prof, hw, 1, chunk).total_s
    w_copy = place.c_layers * sp.layer_w + (0.0 if place.out_gpu else sp.output_w)  # a micro-batch touches every expert
    return _Prefill(pcie, chunks, t_chunk_gpu, w_copy, chunks * (t_chunk_gpu + w_copy / pcie))


def _offload_formulas(model: ModelSpec, gpu: GpuSpec, count: int, host: Host, sp: _Split, place: _Placement,
                      dec: _Decode, pre: _Prefill, hw: Hardware, context: int, prompt_tokens: int, margin: int,
                      cuda_context_bytes: int, compute_buffer_bytes: int) -> list[str]:
    """The formula lines of an offload plan, each with its numbers."""
    L, p = model.num_layers, place
    return [
        f"per layer = {sp.layer_w / GIB:.3f} GiB weights + {sp.layer_kv / GIB:.3f} GiB KV ({context} tokens); "
        f"budget = {count} × ({gpu.memory_bytes / GIB:.1f} GiB − {cuda_context_bytes / GIB:.2f} GiB CUDA context − "
        f"{margin / GIB:.2f} GiB --fit margin) − {compute_buffer_bytes / GIB:.2f} GiB compute buffer = "
        f"{p.budget / GIB:.2f} GiB → {min(p.fit_ngl, L)} "
        f"of {L} layers fit" + (" (+ output matrix)" if p.fit_ngl > L else ""),
        f"-ngl {p.chosen}: {p.g_layers} layers{' + output' if p.out_gpu else ''} on GPU ({p.gpu_bytes / GIB:.2f} GiB), "
        f"{p.c_layers} in RAM; system RAM = CPU layers + embedding {sp.embed_w / GIB:.2f} GiB"
        + ("" if p.out_gpu else f" + output {sp.output_w / GIB:.2f} GiB") + f" + buffer = {p.ram / GIB:.2f} GiB",
        f"decode = GPU {dec.w_gpu / GIB:.2f} GiB / ({hw.bandwidth / 1e9:.0f} GB/s × η {hw.eta_w:.2f}) + KV + "
        f"{hw.step_overhead * 1e3:.2f} ms + {p.g_layers} × {hw.layer_overhead * 1e6:.0f} µs "
        f"({memory_class(gpu).upper()}) = {dec.t_gpu * 1e3:.2f} ms; CPU "
        f"{(dec.w_cpu + p.c_layers * dec.kv_read) / GIB:.2f} GiB / ({host.bandwidth_bytes_per_s / 1e9:.1f} GB/s × "
        f"η_host {dec.eta_host:.2f}) = {dec.t_cpu * 1e3:.2f} ms; {1 / dec.t_token:.1f} tokens/s",
        f"prefill {prompt_tokens} tokens = {pre.chunks} × [{pre.t_chunk_gpu * 1e3:.1f} ms on GPU + "
        f"{pre.w_copy / GIB:.2f} GiB of CPU layers over PCIe {pre.pcie / 1e9:.1f} GB/s] = {pre.t_prefill * 1e3:.0f} ms",
    ]


def _offload_assumptions(model: ModelSpec, count: int, host: Host, pcie: float, ubatch: int) -> list[str]:
    """What an offload plan assumes about llama.cpp's placement and prefill, and about MoE and several GPUs."""
    assumptions = [
        f"host memory {host.label}" + ("" if host.stated else "; override with --host-bandwidth GB/s"),
        "llama.cpp -ngl: the last N layers and their KV cache on the GPU(s), the token embedding in RAM",
        "prefill: llama.cpp copies the CPU layers' weights to the GPU per micro-batch of "
        f"{ubatch} tokens (PR #6083 behaviour) at {pcie / 1e9:.1f} GB/s; the prefill figure is not validated against "
        "measurements (decode is)",
    ]
    if model.n_routed_experts:
        assumptions.append(f"MoE: decode reads {model.experts_per_token} of {model.n_routed_experts} routed experts "
                           "per layer; the whole layer is held in memory")
    if count > 1:
        assumptions.append(f"{count} GPUs hold the GPU layers split by layer (pipeline): no decode speed-up")
    return assumptions


def plan_offload(model: ModelSpec, gpu: GpuSpec, count: int, calib: Calibration, host: Host, *, weights: str,
                 kv: str = "fp16", context: int = DEFAULT_CONTEXT, prompt_tokens: int = 512, ngl: int | None = None,
                 cuda_context_bytes: int, compute_buffer_bytes: int, ubatch: int = 512,
                 decode_context: int | None = None) -> OffloadPlan:
    """Layer placement, memory and speed of `model` on `count` × `gpu` plus host RAM (see the module docstring).

    `ngl` None: as many layers as fit. `cuda_context_bytes` and `compute_buffer_bytes` come from the memory
    estimator (llama.cpp's engine profile and its one-micro-batch compute buffer). The KV cache is allocated for
    `context` tokens; decode reads it at `decode_context` (default `context`).
    """
    check_ngl(model, ngl)
    sp = _split(model, weights, kv, context)
    margin = _fit_margin(calib)
    place = _placement(model, gpu, count, host, sp, ngl, margin, cuda_context_bytes, compute_buffer_bytes)
    prof = speed_profile(model, weights, kv, 1)
    hw = hardware(gpu, prof, calib, "llama.cpp")
    dec = _decode(sp, place, hw, host, calib, context, decode_context)
    pre = _prefill(gpu, calib, prof, hw, sp, place, prompt_tokens, ubatch)
    g_layers, c_layers, out_gpu = place.g_layers, place.c_layers, place.out_gpu
    return OffloadPlan(
        ngl=place.chosen, layers=model.num_layers, gpu_layers=g_layers, cpu_layers=c_layers, output_on_gpu=out_gpu,
        gpu_bytes_per_gpu=int(place.gpu_bytes / count + cuda_context_bytes + place.gpu_buffer),
        gpu_budget_bytes=int(place.budget), system_ram_bytes=int(place.ram), host=host,
        decode_tokens_per_s=1.0 / dec.t_token, gpu_part_s=dec.t_gpu, cpu_part_s=dec.t_cpu,
        prefill_tokens_per_s=prompt_tokens / pre.t_prefill, ttft_s=pre.t_prefill + hw.request_overhead,
        fits=place.fits, gpu_weights_bytes=int(g_layers * sp.layer_w + (sp.output_w if out_gpu else 0.0)),
        gpu_kv_bytes=int(g_layers * sp.layer_kv),
        cpu_weights_bytes=int(c_layers * sp.layer_w + sp.embed_w + (0.0 if out_gpu else sp.output_w)),
        cpu_kv_bytes=int(c_layers * sp.layer_kv), cuda_context_bytes=int(cuda_context_bytes),
        compute_buffer_bytes=int(place.gpu_buffer),
        formulas=_offload_formulas(model, gpu, count, host, sp, place, dec, pre, hw, context, prompt_tokens, margin,
                                   cuda_context_bytes, compute_buffer_bytes),
        assumptions=_offload_assumptions(model, count, host, pre.pcie, ubatch),
    )


def offload_for(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration, host: Host, *,
                ngl: int | None = None) -> OffloadPlan:
    """plan_offload with llama.cpp's CUDA context and compute buffer from the memory estimator for `workload`
    (an advisor.workload.Workload: weights, kv, context, prompt/output tokens). Decode reads the KV at the mean length
    prompt + output/2 when lengths are given, else at `context` (as estimate_throughput does)."""
    w = workload
    weights = w.weights or default_inference_format(model)
    kv = w.kv or "fp16"
    context = int(w.context)
    given_prompt, given_output = w.prompt_tokens, w.output_tokens
    prompt, output = request_lengths(context, given_prompt, given_output)
    decode_context = int(prompt + output / 2) if (given_prompt or given_output) else context
    one = Workload(task="inference", weights=weights, kv=kv, context=context, prompt_tokens=prompt,
                   engine="llama.cpp")
    est = estimate_memory(model, one, gpu)
    return plan_offload(model, gpu, count, calib, host, weights=weights, kv=kv, context=context,
                        prompt_tokens=prompt, ngl=ngl, cuda_context_bytes=est.per_gpu.overhead.n,
                        compute_buffer_bytes=est.per_gpu.activations.n, decode_context=max(1, decode_context))
