"""Print the memory estimator's validation table: prediction, reference, error %, tolerance, source.

    .venv/bin/python benchmarks/validate_memory.py [--markdown]

The same rows are asserted by tests/test_memory_*.py; this script only shows them side by side.
References: ../shared/reference/validation_public.md §1–3 and the sources in knowledge/data/sources/memory.yaml.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.estimator import training_memory as tm
from advisor.estimator.activations import layer_activations
from advisor.estimator.formats import weight_bytes
from advisor.estimator.kv_cache import kv_cache_bytes
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from tests.memory_fixtures import bloomz_7b1, codellama_34b, gpt_like, octocoder

GIB, GB, MIB = 2**30, 1e9, 2**20


@dataclass
class Row:
    group: str
    case: str
    predicted: float
    reference: float
    unit: str
    tolerance: float  # relative
    source: str

    @property
    def error(self) -> float:
        return (self.predicted - self.reference) / self.reference


def rows() -> list[Row]:
    cat = load_catalog()
    out: list[Row] = []

    def add(group: str, case: str, pred: float, ref: float, unit: str, tol: float, src: str) -> None:
        out.append(Row(group, case, pred, ref, unit, tol, src))

    # --- ZeRO paper Figure 1 ---
    for stage, ref in [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)]:
        s = tm.zero_model_states(7.5e9, stage, 64, k=12)
        add("ZeRO", f"7.5B, N_d 64, ZeRO-{stage}", (s.weights + s.gradients + s.optimizer) / GB, ref, "GB", 0.02,
            "ZeRO paper Fig. 1")
    # --- DeepSpeed estimator, t5-3b, 8 GPUs ---
    for off, ref in [(True, 5.31), (False, 15.93)]:
        g, _ = tm.deepspeed_zero2(2851e6, 8, offload_optimizer=off)
        add("DeepSpeed", f"t5-3b ZeRO-2 GPU, offload={'cpu' if off else 'none'}", g / GIB, ref, "GiB", 0.02,
            "DeepSpeed memory.rst")
    g, c = tm.deepspeed_zero2(2851e6, 8, offload_optimizer=True)
    add("DeepSpeed", "t5-3b ZeRO-2 CPU", c / GIB, 127.45, "GiB", 0.02, "DeepSpeed memory.rst")
    for po, oo, zi, ref_c, ref_g in [(True, True, True, 71.69, 0.12), (False, True, True, 63.72, 0.78),
                                     (False, False, True, 1.43, 6.09), (False, False, False, 127.45, 6.09)]:
        g, c = tm.deepspeed_zero3(2851e6, 32e6, 8, offload_params=po, offload_optimizer=oo, zero_init=zi)
        label = f"param={'cpu' if po else 'none'}, opt={'cpu' if oo else 'none'}, zero_init={int(zi)}"
        add("DeepSpeed", f"t5-3b ZeRO-3 GPU {label}", g / GIB, ref_g, "GiB", 0.05 if ref_g < 0.2 else 0.02,
            "DeepSpeed memory.rst")
        add("DeepSpeed", f"t5-3b ZeRO-3 CPU {label}", c / GIB, ref_c, "GiB", 0.02, "DeepSpeed memory.rst")
    for po, oo, ref in [(False, False, 3291), (True, True, 125), (False, True, 477)]:
        g, _ = tm.deepspeed_zero3(737.67e6, 32.90e6, 4, offload_params=po, offload_optimizer=oo)
        add("DeepSpeed", f"t5-large ZeRO-3 GPU, param={'cpu' if po else 'none'}, opt={'cpu' if oo else 'none'}",
            g / MIB, ref, "MiB", 0.02, "DeepSpeed memory.rst worked example")
    # --- activations ---
    la = layer_activations(gpt_like(8192, 64), 8192, 1, flash=False, dropout=True, moe_layer=False)
    add("Activations", "70B-class layer, s 8192, b 1, no recompute", la.per_gpu(1, False, "none") / GB, 23.8,
        "GB", 0.01, "Korthikanti sbh(34+5as/h)")
    # --- KV cache (formula) ---
    add("KV", "Llama-2-7B, 4096 tok, fp16", kv_cache_bytes(cat.model("llama-2-7b"), 4096) / GIB, 2.0, "GiB", 0.0,
        "2·L·kv·d·2 B")
    add("KV", "Llama-3-70B, 8192 tok", kv_cache_bytes(cat.model("llama-3-70b"), 8192),
        2 * 80 * 8 * 128 * 2 * 8192, "B", 0.0, "2·L·kv·d·2 B")
    add("KV", "DeepSeek-V3 MLA, 32768 tok", kv_cache_bytes(cat.model("deepseek-v3"), 32768),
        61 * 576 * 2 * 32768, "B", 0.0, "L·(512+64)·2 B")
    add("KV", "Gemma-2-9B, 8192 tok (SWA alt.)", kv_cache_bytes(cat.model("gemma-2-9b"), 8192),
        (21 * 8192 + 21 * 4096) * 2 * 8 * 256 * 2, "B", 0.0, "window 4096 on 21 of 42 layers")
    # --- GGUF ---
    l3 = cat.model("llama-3-8b")
    for fmt, ref in {"q8_0": 7.96, "q6_k": 6.14, "q5_k_m": 5.33, "q4_k_m": 4.58, "q4_0": 4.34, "q3_k_m": 3.74,
                     "q2_k": 2.96}.items():
        add("GGUF", f"Llama-3-8B {fmt.upper()}", weight_bytes(l3, fmt) / GIB, ref, "GiB", 0.03,
            "llama.cpp quantize.cpp table")
    add("GGUF", "Llama-3-70B Q4_K_M", weight_bytes(cat.model("llama-3-70b"), "q4_k_m") / GIB, 39.59, "GiB", 0.03,
        "XiongjieDai GPU-Benchmarks README")
    add("GGUF", "Llama-2-7B Q4_0", weight_bytes(cat.model("llama-2-7b"), "q4_0") / GIB, 3.56, "GiB", 0.03,
        "llama-bench, llama.cpp PR #4812")
    add("GGUF", "Llama-2-7B Q8_0", weight_bytes(cat.model("llama-2-7b"), "q8_0") / GIB, 6.67, "GiB", 0.03,
        "llama-bench, llama.cpp PR #4766")
    # --- GPTQ ---
    l7 = cat.model("llama-2-7b")
    for gs, ref in [(128, 3.90), (64, 4.02), (32, 4.28)]:
        add("GPTQ", f"Llama-2-7B 4-bit g{gs}", weight_bytes(l7, "gptq-int4", group_size=gs) / GB, ref, "GB", 0.03,
            "TheBloke/Llama-2-7b-Chat-GPTQ")
    add("GPTQ", "Llama-2-13B 4-bit g128", weight_bytes(cat.model("llama-2-13b"), "gptq-int4") / GB, 7.26, "GB",
        0.03, "TheBloke/MythoMax-L2-13B-GPTQ")
    add("GPTQ", "CodeLlama-34B 4-bit g128", weight_bytes(codellama_34b(), "gptq-int4") / GB, 18.33, "GB", 0.03,
        "TheBloke/CodeLlama-34B-Instruct-GPTQ")
    # --- measured peaks ---
    oc = octocoder()
    for fmt, ref in [("bf16", 29.0260648727417), ("bnb-int8", 15.219234466552734), ("bnb-4bit", 9.543574333190918)]:
        e = estimate_memory(oc, Workload(engine="transformers", weights=fmt, context=80, prompt_tokens=20))
        add("Measured", f"octocoder generate, {fmt}", (e.per_gpu.total - e.per_gpu.overhead).gib, ref, "GiB", 0.15,
            "HF llm_tutorial_optimization (max_memory_allocated)")
    e = estimate_memory(bloomz_7b1(), Workload(task="lora", weights="fp32", lora_rank=8, lora_targets="attention",
                                               batch=8, context=64, recompute="none", flash_attention=False,
                                               engine="transformers"))
    add("Measured", "bloomz-7b1 PEFT LoRA r8, fp32, b8 × 64", (e.per_gpu.total - e.per_gpu.overhead).gib, 32.0,
        "GiB", 0.15, "PEFT README (A100 80GB)")
    return out


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1e5 else f"{x:.4g}"


def print_table(head: list[str], body: list[list[str]], *, markdown: bool = False) -> None:
    """A table to stdout: Markdown (for the README and docs) or aligned columns (also used by
    validate_measured_memory.py)."""
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for b in body:
            print("| " + " | ".join(b) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
        for line in [head, *body]:
            print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--markdown", action="store_true", help="a Markdown table (for the README)")
    args = p.parse_args(argv)
    table = rows()
    head = ["group", "case", "predicted", "reference", "unit", "error %", "tol %", "source"]
    body = [[r.group, r.case, _fmt(r.predicted), _fmt(r.reference), r.unit, f"{100 * r.error:+.2f}",
             f"{100 * r.tolerance:g}", r.source] for r in table]
    print_table(head, body, markdown=args.markdown)
    failed = [r for r in table if abs(r.error) > r.tolerance + 1e-12]
    errs = [abs(r.error) for r in table]
    print(f"\n{len(table)} rows; mean |error| {100 * sum(errs) / len(errs):.2f} %, max {100 * max(errs):.2f} %; "
          f"{len(failed)} outside tolerance")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
