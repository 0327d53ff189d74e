"""Value judgements of the guides: the performance-per-price ranking and what each card is "for".

Guide-003 ranks cards by value (2080 Ti 22G > 4080 > 3090 > 4090 > 2080 Ti 11G) for a single card in
isolation, prefers A100/H100 for clusters, calls the 4090 strong at inference but weaker at training, and
says a CNY buys 1.5× more training performance as a 3090 than as a 4090. Guide-000 scopes each card
(4090: fine-tuning ≤ 13B, full training ≤ 7B; 5090: full fine-tuning < 7B, inference < 20B; 5080: training
≤ 3B, inference ≤ 7B; A100/A800: 4/8/12 cards for 7B/13B/30B training; A6000: memory-heavy inference).
These rules state the guides' view; the estimator's numbers decide fit and speed.
"""

from __future__ import annotations

from rules.common import CONFIG, FINE_TUNING, GUIDE_000, GUIDE_003, INFERENCE, NOT_DATACENTER, TRAINING
from rules.conditions import f
from rules.meta import RuleMeta

_VALUE = "part 3 (三), 显卡性价比对比-重要结论: 2080ti 22G>4080>3090>4090>2080 11G"
_ORDINAL = ("first", "second", "third", "fourth", "fifth")  # the summary's words (English, as every summary)


def _rank_rule(rank: int, family: str) -> RuleMeta:
    return RuleMeta(
        id=f"value-rank-{family}",
        topic="value",
        applies_to=CONFIG,
        when=f.gpu_family == family,
        severity="info",
        source=GUIDE_003,
        section=_VALUE,
        summary=f"Guide-003's value ranking puts this card {_ORDINAL[rank - 1]} of five (single card, per CNY).",
        key="value-rank",  # one template for the five ranks; each fills in its place in the catalog's words
        words=(("place", f"rules.value-rank.place.{rank}"),),
    )


_RANKING = ("rtx-2080ti-22g", "rtx-4080", "rtx-3090", "rtx-4090", "rtx-2080ti")

RULES: tuple[RuleMeta, ...] = (
    *(_rank_rule(i, fam) for i, fam in enumerate(_RANKING, start=1)),
    RuleMeta(
        id="value-cluster-prefers-datacenter",
        topic="value",
        applies_to=CONFIG,
        when=NOT_DATACENTER & (f.count >= 4) & (f.nodes == 1) & TRAINING,
        severity="info",
        source=GUIDE_003,
        section="part 3 (三), 显卡性价比对比-重要结论: 上述对比未考虑…多卡集群带来的性能损耗; 集群环境下A100/H100仍是首选",
        summary="Single-card value does not carry over to multi-card training, where A100/H100-class cards are preferred.",
    ),
    RuleMeta(
        id="value-4090-training",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-4090", "rtx-4090d")) & TRAINING,
        severity="info",
        source=GUIDE_003,
        section="part 3 (三), 不同显卡性能对比-重要结论: 4090推理性能很强…但训练能力不如A100; part 1 (一): 3090是4090的1.5倍",
        refs=("ada-wp", "a100-wp"),
        summary="Guide-003: the 4090 is weaker at training than the A100, and per CNY the 3090 trains 1.5× better.",
        alternative="rtx-3090",
    ),
    RuleMeta(
        id="value-4090-inference",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-4090", "rtx-4090d")) & INFERENCE,
        severity="info",
        source=GUIDE_003,
        section="part 3 (三), 不同显卡性能对比-重要结论: 4090推理性能很强（强于A100）",
        refs=("ada-wp", "a100-wp"),
        summary="Guide-003 calls the 4090 strong at inference; that holds for low-precision compute, not for bandwidth.",
    ),
    RuleMeta(
        id="value-3090-training",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-3090") & TRAINING,
        severity="info",
        source=GUIDE_003,
        section="part 3 (三), 不同显卡性能对比-重要结论: 3090的推理和训练的理论性能约是A100的60%",
        refs=("ga102-wp", "a100-wp"),
        summary="Guide-003: the 3090 is a low-cost training option, well short of an A100 in practice.",
    ),
    RuleMeta(
        id="value-scope-4090",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-4090", "rtx-4090d"))
        & (((f.task.one_of("full", "pretrain")) & (f.params > 7.5e9))
           | ((f.task.one_of("lora", "qlora", "freeze")) & (f.params > 14e9))
           | (INFERENCE & (f.params > 14e9))),
        severity="info",
        source=GUIDE_000,
        section="NVIDIA RTX 4090：经久不衰的性价比王者 (130亿参数以下的模型微调和70亿参数以下的全参数训练)",
        summary="Beyond guide-000's scope for the RTX 4090 (fine-tuning ≤ 13B, full training ≤ 7B, inference 13B 8-bit).",
    ),
    RuleMeta(
        id="value-scope-5090",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-5090", "rtx-5090d"))
        & (((f.task.one_of("full", "pretrain")) & (f.params > 7.5e9)) | (INFERENCE & (f.params > 20.5e9))),
        severity="info",
        source=GUIDE_000,
        section="NVIDIA RTX 5090/5090D (70亿参数以下模型的全参数微调和200亿参数以下模型的推理)",
        summary="Beyond guide-000's scope for the RTX 5090/5090 D (full fine-tuning < 7B, inference < 20B).",
    ),
    RuleMeta(
        id="value-scope-5080",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-5080") & ((TRAINING & (f.params > 3.5e9)) | (INFERENCE & (f.params > 7.5e9))),
        severity="info",
        source=GUIDE_000,
        section="NVIDIA RTX 5080/A6000：平衡性能与预算 (30亿参数以下的模型训练和70亿参数以下的模型推理)",
        summary="Beyond guide-000's scope for the RTX 5080 (training ≤ 3B, inference ≤ 7B).",
    ),
    RuleMeta(
        id="value-a100-training-counts",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("a100", "a800")) & TRAINING & f.params.between(5e9, 35e9),
        severity="info",
        source=GUIDE_000,
        section="NVIDIA A100/A800 (70亿参数模型推荐使用4张A100/A800，130亿参数需要8张，而300亿参数模型则需要12张)",
        summary="Guide-000: 4 A100/A800 for 7B, 8 for 13B, 12 for 30B training; best return for 7B–30B models.",
    ),
    RuleMeta(
        id="value-h100-large-training",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("h100", "h800", "h200")) & TRAINING & (f.params >= 30e9),
        severity="info",
        source=GUIDE_000,
        section="NVIDIA H100/H800 (尤其适合需要分布式训练超大规模模型(如300亿参数以上)的场景)",
        summary="Guide-000: the H100 class suits distributed training of models above 30B.",
    ),
    RuleMeta(
        id="value-a6000-memory",
        topic="value",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-a6000") & (INFERENCE | FINE_TUNING),
        severity="info",
        source=GUIDE_000,
        section="NVIDIA RTX 5080/A6000：平衡性能与预算 (A6000…二手市场…15000元左右)",
        refs=("ga102-wp",),
        as_of="2025-06-16",
        summary="Guide-000: the A6000's 48 GB at about ¥15,000 used suits memory-heavy work where compute matters less.",
    ),
)
