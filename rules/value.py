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
_RANKING_EN = "2080 Ti 22G > 4080 > 3090 > 4090 > 2080 Ti 11G"
_RANKING_ZH = "2080Ti 22G > 4080 > 3090 > 4090 > 2080Ti 11G"
_ORDINAL_EN = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
_ORDINAL_ZH = {1: "第一", 2: "第二", 3: "第三", 4: "第四", 5: "第五"}
_EXTRA_EN = {
    1: " It is also the riskiest (modded memory, no warranty).",
    2: " In a single-card setting guide-003 calls the 4080 (16 GB) the value king.",
    3: "",
    4: "",
    5: "",
}
_EXTRA_ZH = {
    1: "它同时风险最高（魔改显存、无保修）。",
    2: "指南认为单卡环境下 4080（16 GB）是性价比之王。",
    3: "",
    4: "",
    5: "",
}


def _rank_rule(rank: int, family: str) -> RuleMeta:
    return RuleMeta(
        id=f"value-rank-{family}",
        topic="value",
        applies_to=CONFIG,
        when=f.gpu_family == family,
        severity="info",
        source=GUIDE_003,
        section=_VALUE,
        summary=f"Guide-003's value ranking puts this card {_ORDINAL_EN[rank]} of five (single card, per CNY).",
        en=f"Guide-003's value ranking (performance per CNY, single card): {_RANKING_EN}; the {{gpu}} is "
           f"{_ORDINAL_EN[rank]} of five.{_EXTRA_EN[rank]} The ranking leaves out multi-card losses, stability and "
           "software support.",
        zh=f"指南（003）的性价比排名（单卡、每元性能）：{_RANKING_ZH}；{{gpu}} 排{_ORDINAL_ZH[rank]}。"
           f"{_EXTRA_ZH[rank]}该排名未考虑多卡损耗、运行稳定性与软件适配。",
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
        en="Training on {count} consumer or workstation cards: guide-003's value ranking is per single card and "
           "leaves out multi-card communication losses and stability; for clusters it prefers A100/H100-class "
           "cards (their market versions in China). Compare the estimated time, not the per-card value.",
        zh="用 {count} 张消费级或工作站显卡训练：指南（003）的性价比排名只针对单卡，未考虑多卡通信损耗与稳定性；"
           "在集群环境下它首选 A100/H100 级别的卡（国内为其合规版本）。请比较估算的训练时间，而非单卡性价比。",
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
        en="Guide-003 rates the 4090 weaker than the A100 for training, held back by its 24 GB and memory bandwidth "
           "(1,008 GB/s against up to 2,039 GB/s for the A100 80GB SXM; dense BF16 165 vs 312 TFLOPS). It also says a "
           "CNY buys about 1.5× the LLM training performance as an RTX 3090 than as a 4090.",
        zh="指南（003）认为 4090 的训练能力不如 A100，受限于 24 GB 显存和显存带宽（1,008 GB/s，A100 80GB SXM 最高 "
           "2,039 GB/s；稠密 BF16 为 165 对 312 TFLOPS）。指南还指出，按单位人民币可买到的大模型训练性能，3090 约是 "
           "4090 的 1.5 倍。",
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
        en="Guide-003 calls the 4090 strong at inference, stronger than the A100. That holds for low-precision "
           "compute (660 dense INT8 TOPS against the A100's 624), not for decode, which follows memory "
           "bandwidth: 1,008 GB/s against 1,555–2,039 GB/s on the A100; the A100 also has 40 or 80 GB.",
        zh="指南（003）认为 4090 推理性能很强，强于 A100。这在低精度算力上成立（稠密 INT8 660 对 "
           "624 TOPS），但解码速度取决于显存带宽：4090 为 1,008 GB/s，A100 为 1,555–2,039 GB/s，且 A100 有 40 或 80 GB 显存。",
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
        en="Guide-003 calls the 3090 a low-cost training option that falls well short of the A100 in practice "
           "because of its 24 GB and bandwidth. Its '60% of an A100' is generous: dense BF16 with FP32 accumulate "
           "is 71 against 312 TFLOPS (23%), bandwidth 936 against 1,555–2,039 GB/s.",
        zh="指南（003）认为 3090 是低成本训练选择，但受显存（24 GB）和带宽限制，实际与 A100 差距较大。“理论性能约为 "
           "A100 的 60%”偏高：FP32 累加的稠密 BF16 算力为 71 对 312 TFLOPS（约 23%），带宽 936 对 1,555–2,039 GB/s。",
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
        en="Guide-000 scopes the RTX 4090 to fine-tuning up to 13B, full training up to 7B and inference of 13B at "
           "8-bit (7B at 16-bit). This {params_b:.0f}B job is beyond that scope: the memory estimate and layout "
           "decide whether {count} × {gpu} is enough.",
        zh="指南（000）给 RTX 4090 的适用范围是：130 亿参数以下微调、70 亿参数以下全参训练、13B 的 8-bit 推理"
           "（或 7B 的 16-bit 推理）。本任务 {params_b:.0f}B 超出此范围：{count} × {gpu} 是否够用以显存估算和并行布局为准。",
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
        en="Guide-000 scopes the RTX 5090 and 5090 D to full fine-tuning below 7B and inference below 20B. This "
           "{params_b:.0f}B job is beyond that: rely on the memory estimate and layout for {count} × {gpu}.",
        zh="指南（000）给 RTX 5090/5090 D 的适用范围是：70 亿参数以下全参微调、200 亿参数以下推理。本任务 "
           "{params_b:.0f}B 超出此范围：{count} × {gpu} 是否够用以显存估算和并行布局为准。",
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
        en="Guide-000 scopes the RTX 5080 (16 GB) to training models up to 3B and inference up to 7B. This "
           "{params_b:.0f}B job is beyond that: rely on the memory estimate for {count} × {gpu}.",
        zh="指南（000）给 RTX 5080（16 GB）的适用范围是：30 亿参数以下训练、70 亿参数以下推理。本任务 "
           "{params_b:.0f}B 超出此范围，以显存估算为准。",
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
        en="Guide-000 calls the A100/A800 the best return for training 7B–30B models and recommends 4 cards for 7B, "
           "8 for 13B and 12 for 30B. This plan uses {count} for {params_b:.0f}B; the memory and time estimates "
           "decide.",
        zh="指南（000）认为 A100/A800 对 70 亿到 300 亿参数模型的训练投资回报最好，推荐 7B 用 4 张、13B 用 8 张、"
           "30B 用 12 张。本方案以 {count} 张训练 {params_b:.0f}B，以显存与时间估算为准。",
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
        en="Guide-000 recommends the H100 class for distributed training of models above 30B, like this "
           "{params_b:.0f}B job: NVLink within the node and InfiniBand between nodes carry the parallelism.",
        zh="指南（000）推荐 H100 级别的卡用于 300 亿参数以上模型的分布式训练，正如本任务（{params_b:.0f}B）："
           "机内靠 NVLink、机间靠 InfiniBand 支撑并行。",
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
        en="Guide-000 values the A6000 for its 48 GB at about ¥15,000 used (as of 2025-06): good for memory-heavy "
           "inference (large batches, multimodal models) where peak compute matters less. Its dense BF16 is 154.8 "
           "TFLOPS per the GA102 whitepaper; the guide's 77 TFLOPS understates it.",
        zh="指南（000）看重 A6000 的 48 GB 显存，二手约 ¥15,000（截至 2025-06）：适合大批量或多模态等显存需求大、"
           "对峰值算力要求不高的推理。按 GA102 白皮书其稠密 BF16 算力为 154.8 TFLOPS，指南的 77 TFLOPS 偏低。",
    ),
)
