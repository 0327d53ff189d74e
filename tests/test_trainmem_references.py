"""Training memory against references the estimator was not fitted on: Answer.AI's published FSDP + QLoRA peaks
(AnswerDotAI/fsdp_qlora benchmarks_03_2024.md, peak reserved GiB per GPU, which excludes the CUDA context, so the
estimate's CUDA-context line is left out), and TRL's DPO reference model (hand arithmetic from the model's shape).

Tolerance: ±15 % for the FSDP runs without CPU offload (Llama-2-7B at 512 tokens is the low one, −13 %: the
runs' reserve after loading, 3.72 GiB, exceeds the weights the estimate holds, 2.76 GiB). The runs with CPU offload
are under-predicted by 8–9 % today (the tests pin that bound, −10 %, so a regression shows); the recommender keeps
10 % of the card free, which covers it.
"""

from __future__ import annotations

import pytest

from advisor.estimator.engines import default_engines
from advisor.estimator.memory import estimate_memory
from advisor.workload import Constraints, Workload
from knowledge.catalog import load_catalog
from knowledge.structs import replace

GIB = 2**30
CAT = load_catalog()


def _reserved_gib(model: str, **kw: object) -> float:
    w = Workload(task="qlora", engine="fsdp", gpus=2, lora_rank=64, recompute="full", **kw)  # type: ignore[arg-type]
    e = estimate_memory(CAT.model(model), w)
    return (e.per_gpu.total.n - default_engines().get("fsdp").cuda_context_bytes.value) / GIB


# (model, context, micro-batch, published peak reserved GiB); fsdp_qlora defaults: LoRA r 64, checkpointing
NO_OFFLOAD = [("yi-34b", 2048, 2, 23.05), ("llama-2-7b", 512, 1, 4.98), ("llama-2-7b", 2048, 1, 5.21),
              ("llama-2-7b", 2048, 4, 11.22), ("llama-2-7b", 2048, 10, 20.97)]
WITH_OFFLOAD = [("llama-2-70b", 2048, 2, 14.92), ("yi-34b", 2048, 4, 22.98)]


@pytest.mark.parametrize("model, context, batch, published", NO_OFFLOAD)
def test_fsdp_qlora_without_offload_within_15_percent(model: str, context: int, batch: int, published: float) -> None:
    pred = _reserved_gib(model, context=context, batch=batch)
    assert pred == pytest.approx(published, rel=0.15), f"{model} {context}×{batch}: {pred:.2f} vs {published}"


@pytest.mark.parametrize("model, context, batch, published", WITH_OFFLOAD)
def test_fsdp_qlora_cpu_offload_within_10_percent_below(model: str, context: int, batch: int,
                                                         published: float) -> None:
    pred = _reserved_gib(model, context=context, batch=batch, offload="all")
    assert 0.90 * published <= pred <= 1.15 * published, f"{model}: {pred:.2f} vs {published}"


def test_llama2_70b_on_two_24gb_cards_needs_cpu_offload() -> None:
    """Answer.AI's 70B runs on 2 × 24 GB (RTX 3090/4090, A5000) all used CPU offload: without it the 4-bit shards
    (~18 GiB each) leave no room for activations at 2,048 tokens; with it the peak is well under 24 GiB."""
    gpu = CAT.gpu("rtx-3090")
    base = Workload(task="qlora", engine="fsdp", gpus=2, context=2048, lora_rank=64)
    sharded = estimate_memory(CAT.model("llama-2-70b"), base, gpu)
    offloaded = estimate_memory(CAT.model("llama-2-70b"), replace(base, offload="all"), gpu)
    assert not sharded.fits(gpu)
    assert offloaded.fits(gpu)
    assert offloaded.cpu.total.n > 35 * GIB  # the NF4 base (~37 GiB) lives in host RAM
    assert any("CPU offload" in a for a in offloaded.assumptions)


def test_recommender_offers_fsdp_qlora_on_two_3090s() -> None:
    from advisor.recommend.recommender import recommend

    rec = recommend(Workload(model="llama-3-70b", task="qlora", context=2048),
                    Constraints(candidates=("rtx-3090",), max_gpus_per_node=2, max_nodes=1))
    opts = [o for o in rec.options if o.gpu == "rtx-3090" and o.count == 2]
    assert opts and opts[0].layout.engine == "fsdp" and opts[0].layout.zero_offload == "all"


# --- DPO's reference model (TRL DPOTrainer) ----------------------------------------------------------------------

LLAMA3_8B_PARAMS = 8_030_261_248
LLAMA3_VOCAB = 128_256


def test_full_dpo_adds_a_bf16_reference_copy_and_its_logits() -> None:
    """Full DPO of Llama-3-8B at 2,048 tokens, one GPU: the reference copy is 2 B × 8,030,261,248 params =
    16,060,522,496 B; its forward's bf16 logits for chosen + rejected: 2 B × 2 × 2,048 × 128,256 =
    1,050,673,152 B."""
    m = CAT.model("llama-3-8b")
    e = estimate_memory(m, Workload(task="full", method="dpo", context=2048))
    assert e.per_gpu.reference_model.n == 2 * LLAMA3_8B_PARAMS + 2 * 2 * 2048 * LLAMA3_VOCAB
    sft = estimate_memory(m, Workload(task="full", context=2048))
    assert e.per_gpu.total.n > sft.per_gpu.total.n + 2 * LLAMA3_8B_PARAMS
    assert e.to_contract()["per_gpu_bytes"]["reference_model"] == e.per_gpu.reference_model.n


def test_dpo_with_lora_keeps_no_copy_but_runs_two_sequences() -> None:
    """With a PEFT adapter the reference is the base with the adapter disabled (no copy); chosen + rejected still
    double the sequences per prompt: DPO at micro-batch 1 needs what SFT needs at micro-batch 2."""
    m = CAT.model("llama-3-8b")
    dpo = estimate_memory(m, Workload(task="lora", method="dpo", context=2048))
    assert dpo.per_gpu.reference_model.n == 0
    two = estimate_memory(m, Workload(task="lora", context=2048, batch=2))
    assert dpo.per_gpu.activations.n == two.per_gpu.activations.n
    one = estimate_memory(m, Workload(task="lora", context=2048))
    assert dpo.per_gpu.total.n > one.per_gpu.total.n


def test_dpo_reference_sharded_under_zero3_whole_under_zero2() -> None:
    """TRL's prepare_deepspeed keeps ZeRO-3 for the reference (sharded like the policy) and turns ZeRO off below
    stage 3 (a whole copy per GPU): over 8 GPUs the ZeRO-3 share is 1/8 of the copy plus one gathered layer."""
    m = CAT.model("llama-3-8b")
    z3 = estimate_memory(m, Workload(task="full", method="dpo", context=2048, gpus=8, zero=3))
    z2 = estimate_memory(m, Workload(task="full", method="dpo", context=2048, gpus=8, zero=2))
    logits = 2 * 2 * 2048 * LLAMA3_VOCAB
    assert z2.per_gpu.reference_model.n - logits == 2 * LLAMA3_8B_PARAMS
    largest = LLAMA3_VOCAB * 4096  # embedding / lm_head
    assert z3.per_gpu.reference_model.n - logits == pytest.approx(2 * LLAMA3_8B_PARAMS / 8 + 2 * largest, abs=8)


def test_orpo_has_no_reference_model() -> None:
    e = estimate_memory(CAT.model("llama-3-8b"), Workload(task="full", method="orpo", context=2048))
    assert e.per_gpu.reference_model.n == 0


def test_dpo_reference_whole_under_fsdp2() -> None:
    """TRL's prepare_fsdp wraps the reference with one fully_shard call on the root (FSDP2): its forward gathers
    every parameter at once, so a whole 16-bit copy is live on each GPU then, however many GPUs share it."""
    m = CAT.model("llama-3-8b")
    e = estimate_memory(m, Workload(task="full", method="dpo", context=2048, gpus=8, engine="fsdp"))
    assert e.per_gpu.reference_model.n - 2 * 2 * 2048 * LLAMA3_VOCAB == 2 * LLAMA3_8B_PARAMS


def test_full_dpo_recommendation_holds_the_reference_copy() -> None:
    """The recommender sizes full DPO with the ZeRO layouts (TRL under DeepSpeed), so every option's memory has the
    reference copy in it."""
    from advisor.recommend.recommender import recommend

    rec = recommend(Workload(model="llama-3-8b", task="full", method="dpo", context=2048),
                    Constraints(candidates=("a100-80g-sxm",)))
    assert rec.options
    assert all(o.per_gpu.reference_model.n > 0 for o in rec.options)


# --- the chat's answers read the new memory -----------------------------------------------------------------------

def _answer(lang: str, text: str) -> str:
    from advisor.conversation.session import Conversation

    return Conversation(lang=lang).respond(text).answer


@pytest.mark.parametrize(("lang", "text"), [("en", "QLoRA Llama 3 70B on two 3090s"),
                                            ("zh", "用两张 4090 做 70B 的 QLoRA 可以吗")])
def test_two_24gb_cards_70b_qlora_is_sized_with_fsdp_cpu_offload(lang: str, text: str) -> None:
    """The lead's per-GPU figure is the FSDP + QLoRA estimate with CPU offload (the published 2 × 24 GB layout) at
    the default 4,096 tokens, and the answer names that layout; the longest sequence that fits is given."""
    gpu = CAT.gpu("rtx-3090")
    model = "llama-3-70b" if lang == "en" else "llama-3.1-70b"
    need = estimate_memory(CAT.model(model), Workload(task="qlora", engine="fsdp", gpus=2, zero=3, offload="all",
                                                      context=4096), gpu).per_gpu.total.n / GIB
    answer = _answer(lang, text)
    lead = answer.strip().split("\n\n")[0]
    assert f"{need:.1f} GiB" in lead, lead
    assert "FSDP" in answer
    assert ("longest sequence that fits" in answer) if lang == "en" else ("最长" in answer)
    # the lead says it too, before any other configuration: a shorter sequence keeps the user's two cards
    limit = "With sequences of up to 3840 tokens (micro-batch 1) it fits on 2×" if lang == "en" else "序列不超过 3840"
    assert limit in lead, lead
    shorter = Workload(task="qlora", engine="fsdp", gpus=2, zero=3, offload="all", context=3840)
    assert estimate_memory(CAT.model(model), shorter, gpu).per_gpu.total.n < 24.0 * GIB  # the 3,840 tokens do fit


def test_full_dpo_on_one_h100_lead_counts_the_reference_copy() -> None:
    answer = _answer("en", "full DPO of Llama-3-8B on one H100?")
    lead = answer.strip().split("\n\n")[0]
    # the verdict first, then what the sizing assumes about DPO's reference model
    assert lead.startswith("**Yes: 1× NVIDIA H100"), lead
    assert "DPO is sized here as full fine-tuning" in lead and "figures below include" in lead
    # the one card fits with ZeRO-2 and the optimizer in host RAM; its figure holds the reference copy
    gpu = CAT.gpu("h100-sxm")
    est = estimate_memory(CAT.model("llama-3-8b"), Workload(task="full", method="dpo", zero=2, offload="optimizer",
                                                            context=4096), gpu)
    assert f"{est.per_gpu.total.n / GIB:.1f} GiB needed per GPU" in lead, lead
    assert est.per_gpu.reference_model.n > 2 * LLAMA3_8B_PARAMS
    assert "reference model (frozen copy)" in answer
