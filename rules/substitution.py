"""Substitutions the guides make, and where they break.

Guide-003's recommendation tables say "RTX 4090 may be replaced by RTX 3090", "A100 by A800 (China)",
"L40 by L20 (China)"; guide-000 offers the H800 for the H100 and the 5090 D for the 5090 in China. The
equivalences hold for memory capacity, not for FP8, compute speed or power, and the China variants are
themselves dated (see `rules.market`). Figures quoted below come from the cited whitepapers and match the
GPU catalog (tests/test_rules_catalog.py checks them).
"""

from __future__ import annotations

from rules.common import CN, CONFIG, GLOBAL, GUIDE_000, GUIDE_003, INFERENCE, NOT_FP8, NOT_OWNED, TRAINING
from rules.conditions import f
from rules.meta import RuleMeta

_TABLE_NOTE = "part 4 (四), notes under the inference / pre-training / fine-tuning recommendation tables"

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="sub-4090-3090-inference",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-4090") & INFERENCE & NOT_FP8,
        severity="info",
        source=GUIDE_003,
        section=_TABLE_NOTE + ": 其中RTX 4090可等价替换为RTX 3090",
        refs=("ada-wp", "ga102-wp"),
        summary="For inference an RTX 3090 can stand in for an RTX 4090: same 24 GB, similar bandwidth, slower prefill.",
        en="The guides let an RTX 3090 replace the {gpu} (both 24 GB). For inference that mostly holds: decode "
           "speed follows memory bandwidth (936 vs 1,008 GB/s) and the 3090 draws 350 W instead of 450 W, but "
           "compute-bound prompt processing is slower (71 vs 165 TFLOPS dense BF16).",
        zh="指南允许用 RTX 3090 等价替换 {gpu}（均为 24 GB 显存）。推理场景基本成立：解码速度取决于显存带宽"
           "（936 对 1,008 GB/s），3090 功耗 350 W 而非 450 W；但计算密集的提示词处理（prefill）更慢"
           "（稠密 BF16 算力 71 对 165 TFLOPS）。",
        alternative="rtx-3090",
    ),
    RuleMeta(
        id="sub-4090-3090-training",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-4090") & TRAINING & NOT_FP8,
        severity="info",
        source=GUIDE_003,
        section=_TABLE_NOTE + ": 其中RTX 4090可等价替换为RTX 3090",
        refs=("ada-wp", "ga102-wp"),
        summary="The 4090 ≈ 3090 equivalence holds for memory, not for training speed (71 vs 165 TFLOPS dense BF16).",
        en="The guides' \"RTX 4090 ≈ RTX 3090\" holds for memory (24 GB each), not for training speed: the 3090 has "
           "71 TFLOPS dense BF16 against the 4090's 165, so compute-bound training takes about 2.3× as long. The "
           "3090 does have a 2-way NVLink bridge (112.5 GB/s) that the 4090 lacks.",
        zh="指南中“RTX 4090 可等价替换为 RTX 3090”只在显存上成立（均为 24 GB），训练速度上不成立：3090 稠密 BF16 "
           "算力 71 TFLOPS，4090 为 165 TFLOPS，计算密集的训练耗时约为 2.3 倍。3090 支持双卡 NVLink 桥接"
           "（112.5 GB/s），4090 不支持。",
        alternative="rtx-3090",
    ),
    RuleMeta(
        id="sub-4090-3090-fp8",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-4090", "rtx-4090d")) & (f.precision == "fp8"),
        severity="warn",
        source=GUIDE_003,
        section="part 1 (一), 3090 vs 4090显卡核心参数对比: RTX 4090 的第四代 Tensor Core 引入 FP8 支持",
        refs=("ada-wp", "rules-vllm-fp8"),
        summary="At FP8 the RTX 3090 cannot replace the RTX 4090: Ampere has no FP8 tensor cores.",
        en="At FP8 the guides' RTX 4090 → RTX 3090 substitution breaks: the 3090 (Ampere) has no FP8 tensor cores, "
           "so FP8 weights run there only as weight-only W8A16 (vLLM's FP8 Marlin path), without the FP8 compute "
           "speed-up. Keep the {gpu} for FP8 work.",
        zh="在 FP8 精度下，指南的“4090 可替换为 3090”不成立：3090（Ampere 架构）没有 FP8 张量核心，FP8 权重只能以"
           "仅权重量化（W8A16，vLLM 的 FP8 Marlin 路径）方式运行，得不到 FP8 计算加速。FP8 任务请保留 {gpu}。",
    ),
    RuleMeta(
        id="sub-3090-4090",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-3090") & GLOBAL,
        severity="info",
        source=GUIDE_003,
        section=_TABLE_NOTE + ": 其中RTX 4090可等价替换为RTX 3090",
        refs=("ada-wp", "ga102-wp"),
        summary="The guides treat RTX 3090 and 4090 as interchangeable; the 4090 is faster and has FP8 but no NVLink.",
        en="The guides treat the RTX 3090 and RTX 4090 as interchangeable (both 24 GB). A 4090 gives 165 instead of "
           "71 TFLOPS dense BF16 and FP8 support, but no NVLink bridge and 450 W instead of 350 W per card.",
        zh="指南将 RTX 3090 与 RTX 4090 视为可互换（均为 24 GB）。换成 4090 可获得 165（而非 71）TFLOPS 稠密 BF16 "
           "算力和 FP8 支持，但没有 NVLink 桥接，单卡功耗 450 W（而非 350 W）。",
        alternative="rtx-4090",
    ),
    RuleMeta(
        id="sub-3090-4090d-cn",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-3090") & CN,
        severity="info",
        source=GUIDE_003,
        section=_TABLE_NOTE + ": 其中RTX 4090可等价替换为RTX 3090",
        refs=("evertiq-4090d", "hmc-4090d", "ga102-wp", "sec-8k-2023"),
        as_of="2023-12-28",
        summary="In China the 4090 of the guides' 3090 ≈ 4090 pair is the RTX 4090 D.",
        en="The guides treat the RTX 3090 and RTX 4090 as interchangeable. In China the 4090 has been restricted "
           "since the 2023-10-17 rule; the market version is the RTX 4090 D (launched 2023-12-28; 24 GB, 147 TFLOPS "
           "dense BF16 vs the 3090's 71, FP8, 425 W, no NVLink).",
        zh="指南将 RTX 3090 与 RTX 4090 视为可互换。在国内，4090 自 2023-10-17 新规起受限；国内版本为 RTX 4090 D"
           "（2023-12-28 发布；24 GB，稠密 BF16 算力 147 TFLOPS，3090 为 71，支持 FP8，425 W，无 NVLink）。",
        alternative="rtx-4090d",
    ),
    RuleMeta(
        id="sub-a100-a800-cn",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "a100") & CN & NOT_OWNED,
        severity="warn",
        source=GUIDE_003,
        section=_TABLE_NOTE + ": 其中A100可替换为A800（国内特供）",
        refs=("aiwiki-a800", "tweakers-a800", "sec-8k-2023"),
        as_of="2023-10-17",
        summary="The guides' A100 → A800 substitution for China is dated: the A800 was restricted from 2023-10-17.",
        en="The guides replace the A100 with the A800 for China. That advice is dated: the A800 itself was restricted "
           "for export to China by the rule of 2023-10-17 (the A100 since 2022-10-07). The A800 matches the A100 in "
           "compute and memory; only NVLink drops from 600 to 400 GB/s.",
        zh="指南建议在国内用 A800 替换 A100。该建议已过时：A800 本身自 2023-10-17 新规起也被限制对华出口"
           "（A100 自 2022-10-07 起）。A800 的算力与显存与 A100 相同，仅 NVLink 带宽由 600 GB/s 降至 400 GB/s。",
        alternative="a800",
    ),
    RuleMeta(
        id="sub-l40-l20-cn",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("l40", "l40s")) & CN & NOT_OWNED,
        severity="info",
        source=GUIDE_003,
        section=_TABLE_NOTE + ": 其中L40可替换为L20（国内特供）",
        refs=("h20-l20-elecfans", "l40s-ds", "llmprof", "sec-8k-2023"),
        as_of="2023-10-17",
        summary="In China the L20 replaces the L40/L40S: same 48 GB and 864 GB/s, less compute.",
        en="The guides replace the L40 with the L20 for China (the L40 and L40S were restricted by the 2023-10-17 "
           "rule). The L20 keeps 48 GB and 864 GB/s, so decode speed is similar, but its dense BF16 is 119.5 TFLOPS "
           "against 181 (L40) and 362 (L40S): compute-bound work is slower.",
        zh="指南建议在国内用 L20 替换 L40（L40 与 L40S 自 2023-10-17 新规起受限）。L20 同为 48 GB、864 GB/s，"
           "解码速度相近；但稠密 BF16 算力为 119.5 TFLOPS，L40 为 181、L40S 为 362，计算密集的任务更慢。",
        alternative="l20",
    ),
    RuleMeta(
        id="sub-h100-h800-cn",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "h100") & CN & NOT_OWNED,
        severity="warn",
        source=GUIDE_000,
        section="NVIDIA H100/H800：大模型训练的巅峰之作 (中国市场推出了特供版H800)",
        refs=("aiwiki-h800", "sec-8k-2023", "h20-tweaktown", "h20-apr2025"),
        as_of="2025-04-09",
        summary="The guide's H100 → H800 substitution for China is dated; the H800 and then the H20 were restricted.",
        en="Guide-000 offers the H800 as the China version of the H100 (NVLink 400 instead of 900 GB/s). That is "
           "dated: the H800 was restricted by the 2023-10-17 rule, and its successor for the market, the H20 (96 GB, "
           "4.0 TB/s, 148 TFLOPS dense BF16), has needed an export licence since 2025-04-09.",
        zh="指南（000）给出 H800 作为 H100 的中国特供版（NVLink 由 900 降至 400 GB/s）。该信息已过时：H800 自 "
           "2023-10-17 新规起受限；其后续国内版本 H20（96 GB、4.0 TB/s、稠密 BF16 148 TFLOPS）自 2025-04-09 起"
           "也需要出口许可证。",
        alternative="h800",
    ),
    RuleMeta(
        id="sub-5090-5090d-cn",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-5090") & CN & NOT_OWNED,
        severity="info",
        source=GUIDE_000,
        section="NVIDIA RTX 5090/5090D：消费级显卡的性能巅峰 (针对中国市场…RTX 5090D)",
        refs=("toms-5090d", "dontleaveit-5090dv2"),
        as_of="2025-08-12",
        summary="In China the RTX 5090 D V2 (24 GB) replaces the RTX 5090; the 32 GB RTX 5090 D it replaced is gone.",
        en="For China the guide names the RTX 5090 D: same 32 GB and 1,792 GB/s, AI TOPS capped from 3,352 to "
           "2,375. Since 2025-08-12 the card sold is the RTX 5090 D V2 with 24 GB on a 384-bit bus (1,344 GB/s), "
           "so the memory estimate is checked against 24 GB.",
        zh="指南给出国内版本 RTX 5090 D：同为 32 GB、1,792 GB/s，AI TOPS 由 3,352 限制为 2,375。2025-08-12 起在售的"
           "是 RTX 5090 D V2：24 GB、384 位（1,344 GB/s），显存估算按 24 GB 核对。",
        alternative="rtx-5090d-v2",
    ),
    RuleMeta(
        id="sub-china-variant-outside-cn",
        topic="substitution",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("a800", "h800", "h20", "l20", "rtx-4090d", "rtx-5090d")) & GLOBAL,
        severity="info",
        source=GUIDE_003,
        section=_TABLE_NOTE,
        refs=("aiwiki-a800", "aiwiki-h800", "h20-tweaktown", "evertiq-4090d", "toms-5090d"),
        summary="A China-market variant outside China: the unrestricted original is usually the better buy.",
        en="The {gpu} is a China-market variant (cut interconnect or compute to pass the export rules). Outside "
           "China the original part is sold and is at least as capable for the same memory.",
        zh="{gpu} 是中国市场特供版本（为满足出口管制削减了互联或算力）。在中国以外可以买到原版，同等显存下性能不低于特供版。",
    ),
)
