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
    ),
)
