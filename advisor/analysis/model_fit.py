"""Which models fit the cards a person has: "what's the biggest model I can run on my 4090?", "一张 4060 Ti 16G
能跑什么模型写代码？".

Every catalog model is sized on the cards (`estimate_memory`, one user at the stated or default context) at each
weight format of the card's usual stack, from the most precise down, and keeps the most precise format that fits
with the recommender's headroom (`advisor.recommend.search.sized`: ≥ 10 % of the card free). The answer lists the
largest by total parameters; for a coding question the catalog's coding models come first.

Formats per stack: a consumer or workstation card, or a unified-memory machine, runs llama.cpp's GGUF files (BF16,
Q8_0, Q4_K_M: the formats Ollama and LM Studio offer by default); a data-centre card runs vLLM with BF16, FP8 (where
it has FP8 tensor cores) and AWQ-INT4. Nothing below 4 bits is offered: quality falls off sharply there.
"""

from __future__ import annotations

from advisor.estimator.formats import bits_per_weight
from advisor.estimator.memory import DEFAULT_WEIGHTS, default_inference_format, estimate_memory
from advisor.recommend.search import sized, valid_tp
from advisor.workload import Engine, Task, WeightFormat, Workload
from knowledge.catalog import Catalog
from knowledge.errors import AdvisorError
from knowledge.params import param_counts
from knowledge.quantities import Bytes
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

CODING_WORDS = ("coder", "code")


class ModelFit(Value):
    """One model on the cards: the most precise format that fits and its memory per GPU."""

    model: ModelSpec
    params: int  # total parameters
    active: int  # parameters read per token (MoE: the active experts; dense: all)
    weights: str  # the weight format, as the estimator names it
    per_gpu: Bytes  # memory per GPU at that format
    usable: Bytes  # what the engine lets it use of one card
    full_precision: bool  # BF16 (or the checkpoint's own precision)


def formats_for(gpu: GpuSpec) -> tuple[tuple[WeightFormat, ...], Engine]:
    """(weight formats from the most precise down, engine) for the card's usual software."""
    if gpu.segment == "datacenter" and not gpu.unified_memory:
        return (("bf16", "fp8", "awq-int4") if gpu.supports_fp8 else ("bf16", "int8", "awq-int4")), "vllm"
    return ("bf16", "q8_0", "q4_k_m"), "llama.cpp"


def train_fit_on(model: ModelSpec, gpu: GpuSpec, count: int, context: int, task: Task) -> ModelFit | None:
    """`model` trained by `task` (LoRA, QLoRA, full) on `count` × `gpu` at micro-batch 1 × `context` tokens, at the
    task's own weight format (BF16; NF4 for QLoRA), data-parallel with ZeRO-3 on more than one card and no CPU
    offload: its memory per GPU, when it fits with the recommender's headroom."""
    w = Workload(model=model.id, task=task, context=context, gpus=count, zero=3 if count > 1 else 0)
    try:
        est = estimate_memory(model, w, gpu)
    except (AdvisorError, ValueError):
        return None
    if not sized(est, gpu):
        return None
    counts = param_counts(model)
    return ModelFit(model, counts.total, counts.active or counts.total, DEFAULT_WEIGHTS[task], est.per_gpu.total,
                    est.usable_bytes(gpu), True)


def fit_on(model: ModelSpec, gpu: GpuSpec, count: int, context: int, users: int = 1) -> ModelFit | None:
    """The most precise format at which `model` fits `count` × `gpu` for `users` concurrent sequences of `context`
    tokens: the checkpoint's own precision (BF16; FP8 for DeepSeek; MXFP4 for gpt-oss), then the stack's smaller
    formats of `formats_for(gpu)`."""
    stack, engine = formats_for(gpu)
    own = default_inference_format(model)
    formats: list[WeightFormat] = [own, *(f for f in stack if bits_per_weight(f) < bits_per_weight(own))]
    counts = param_counts(model)
    # one group of all the cards: split evenly (TP) where the heads split that way, else by layers (vLLM's pipeline
    # parallel, llama.cpp's default split: 3 cards hold a 64-head model as 3 stages)
    tp, pp = (count, 1) if valid_tp(model, count) else (1, count)
    for fmt in formats:
        w = Workload(model=model.id, weights=fmt, context=context, concurrency=users, gpus=count, tp=tp, pp=pp,
                     engine=engine)
        try:
            est = estimate_memory(model, w, gpu)
        except (AdvisorError, ValueError):
            continue
        if sized(est, gpu):
            return ModelFit(model, counts.total, counts.active or counts.total, fmt, est.per_gpu.total,
                            est.usable_bytes(gpu), fmt == own)
    return None


def models_that_fit(catalog: Catalog, gpu: GpuSpec, count: int = 1, *, context: int = 4096,
                    coding: bool = False, task: Task = "inference", users: int = 1) -> list[ModelFit]:
    """Every catalog model that fits, the largest (total parameters) first; coding models first for `coding`; for
    a training `task` ("the biggest model I can LoRA on a 4090"), trained that way (`train_fit_on`); served to
    `users` concurrent sequences."""
    def one(m: ModelSpec) -> ModelFit | None:
        return fit_on(m, gpu, count, context, users) if task == "inference" else train_fit_on(m, gpu, count, context, task)

    fits = [f for m in catalog.models if not m.id.startswith("user-") and (f := one(m))]
    fits.sort(key=lambda f: -f.params)
    if coding:
        fits.sort(key=lambda f: not is_coding(f.model))  # stable: the largest coding models first
    return fits


def is_coding(model: ModelSpec) -> bool:
    name = f"{model.id} {model.name}".lower()
    return any(w in name for w in CODING_WORDS)
