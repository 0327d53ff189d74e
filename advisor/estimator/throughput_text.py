"""The words of a throughput estimate (advisor.estimator.throughput): each formula line with its numbers, and what
the estimate assumes. Pure text over the computed steps; nothing here changes a figure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec

from . import collectives
from .calibration import Calibration
from .formats import FORMATS

if TYPE_CHECKING:
    from .throughput import Hardware, Shape, SpeedProfile, Step



def throughput_formulas(model: ModelSpec, gpu: GpuSpec, shape: Shape, prof: SpeedProfile, hw: Hardware,
                        dstep: Step, pstep: Step, hop: tuple[float, float] | None, ttft: float,
                        ceiling: float, mem_class: str) -> list[str]:
    """The formula lines of a throughput estimate, each with its numbers."""
    tp, per_replica, decode_context = shape.tp, shape.per_replica, shape.decode_context
    t_dec = dstep.total_s
    formulas = [
        decode_step_formula(dstep, hw),
        f"weights = {prof.weight_read_bytes(per_replica) / GIB:.3f} GiB / ({gpu.bandwidth_bytes_per_s / 1e9:.0f} GB/s"
        f" × η {hw.eta_w:.2f}); KV = {per_replica} × {prof.kv_bytes(decode_context) / GIB:.4f} GiB / (… × η "
        f"{hw.eta_kv:.2f}) per GPU",
        f"matmul = {per_replica} × 2·N_active/tp FLOP / ({hw.peak / 1e12:.0f} TFLOP/s × η {hw.eta_c:.2f})"
        + (f", the routed experts' share at × {hw.moe_factor:.2f} of that rate (grouped GEMMs)" if hw.moe_factor != 1.0
           else "")
        + (f", + {model.experts_per_token * model.moe_layers} routed copies × {hw.moe_copy_s * 1e9:.2f} ns per token "
           "(the down projection's narrow reduction and the permutation's memory traffic)" if hw.moe_copy_s else "")
        + "; "
        f"attention = {per_replica} × 2·c·(d_qk+d_v)·L/tp at c = {decode_context} / ({hw.attn_peak / 1e12:.0f} "
        f"TFLOP/s × η {hw.eta_attn:.2f})",
        f"overhead ({shape.engine}, {mem_class.upper()} GPU) = {hw.step_overhead * 1e3:.3f} ms + "
        f"{model.num_layers} layers × {hw.layer_overhead * 1e6:.1f} µs",
        f"decode tokens/s per sequence = 1 / step = {1.0 / t_dec:.1f}; total = {shape.concurrency} sequences / "
        f"step = {shape.concurrency / t_dec:.1f}",
        f"prefill {shape.prompt} tokens = pmax({pstep.weights_s * 1e3:.3f}, {pstep.matmul_s * 1e3:.3f}) + "
        f"pmax({pstep.kv_s * 1e3:.3f}, {pstep.attention_s * 1e3:.3f}) + {pstep.comm_s * 1e3:.3f} + "
        f"{pstep.overhead_s * 1e3:.3f} ms; TTFT = prefill + {hw.request_overhead * 1e3:.1f} ms request overhead = "
        f"{ttft * 1e3:.1f} ms",
        f"physical ceiling per sequence = bandwidth / bytes per step = {ceiling:.1f} tokens/s",
    ]
    if hop is not None:
        formulas.append(f"llama.cpp layer split over {tp} GPUs: one step = one GPU's time for all {model.num_layers} "
                        f"layers + ({tp}−1) hand-overs × [tokens × {model.hidden_size} × 2 B / {hop[0] / 1e9:.1f} GB/s "
                        f"+ {hop[1] * 1e6:.0f} µs]; no speed-up for one sequence")
    elif tp > 1:
        k = collectives.kernel(per_replica, hw.allreduce)
        if k is not None:
            formulas.append(f"all-reduce ({k.name} at {per_replica} tokens) = 2 × {model.num_layers} × "
                            f"[{k.share_text.format(t=tp)} × tokens × {model.hidden_size} × 2 B / "
                            f"{hw.link_bw / 1e9:.1f} GB/s + {k.syncs_text.format(t=tp)} × "
                            f"{hw.link_alpha * 1e6:.0f} µs] over {hw.link_name}")
    return formulas


def decode_step_formula(dstep: Step, hw: Hardware) -> str:
    """The first formula line of a throughput estimate: the decode step's terms and its time."""
    return (f"decode step = pmax(weights, matmul) + pmax(KV, attention) + all-reduce + overhead = "
            f"pmax({dstep.weights_s * 1e3:.3f}, {dstep.matmul_s * 1e3:.3f}) + pmax({dstep.kv_s * 1e3:.3f}, "
            f"{dstep.attention_s * 1e3:.3f}) + {dstep.comm_s * 1e3:.3f} + {dstep.overhead_s * 1e3:.3f} ms = "
            f"{dstep.total_s * 1e3:.3f} ms ({dstep.bound}-bound); pmax(a, b) = (a^p + b^p)^(1/p), p = {hw.sharpness:g}")


def throughput_assumptions(gpu: GpuSpec, calib: Calibration, shape: Shape, prof: SpeedProfile) -> list[str]:
    """What a throughput estimate assumes: formats, layout, the KV length read, the calibration, batching."""
    tp, replicas, decode_context = shape.tp, shape.replicas, shape.decode_context
    assumptions = [
        f"weights {FORMATS[prof.weights].label}; KV cache {shape.kv}; tensor parallel {tp}"
        + (f", {replicas} replicas" if replicas > 1 else ""),
        f"decode reads each sequence's KV at its mean length {decode_context} tokens" if shape.has_lengths
        else f"decode reads {decode_context} tokens of KV per sequence",
        f"efficiencies and overheads: calibration {calib.version} (fitted on {calib.fitted_on})",
        "continuous batching: all sequences decode in the same step",
    ]
    if prof.fp8_compute and not (gpu.fp8_dense_flops and gpu.supports_fp8):
        assumptions.append(f"{gpu.name} has no FP8 tensor cores: FP8 weights are up-cast, matmuls run at BF16/FP16")
    if prof.fp4_compute and gpu.fp4_dense_flops:
        eff = calib.inference.fp4_compute_efficiency
        assumptions.append(f"{gpu.name} runs FP4 natively: {prof.fp4_share:.0%} of the matmuls at the FP4 peak, the rest "
                           "at BF16, " + (f"FP4 GEMM efficiency {eff.value:.2f} (fitted on one B200 NVFP4 row)" if eff
                                          else "FP8 GEMM efficiency assumed (no FP4 calibration)"))
    elif prof.fp4_compute:
        assumptions.append(f"{gpu.name} has no FP4 tensor cores (Blackwell has): {FORMATS[prof.weights].label} weights "
                           "are dequantised to BF16 on the fly (weight-only): less to read, no compute speed-up")
    return assumptions
