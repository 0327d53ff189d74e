"""The guides' scenario tables, keyed on the workload (kind "workload").

Guide-003 part 5 has three tiers, each with a demand profile (inference/fine-tuning size, training size,
concurrency, data, memory) and a basic and an advanced single-server configuration with a price. A
workload falls into the smallest tier that covers both its model size and its concurrency; training
from scratch uses the tiers' training sizes. Band edges sit halfway to the next common model size
(14B → 14.5e9, 30–32B → 34.5e9, 70–72B → 80e9; training 0.2B → 0.5e9, 2B → 3e9, 7B → 10e9).

Guide-000's model-size table gives minimum configurations per size row (7B, 13B, 70B, 130B, 300B+) and its
sections (1B–10B, 10B–100B, 100B+) recommended configurations; a workload maps to the nearest row.
The recommender compares its options with these and explains differences with sizing findings.
"""

from __future__ import annotations

from rules.common import GUIDE_000, GUIDE_003, WORKLOAD
from rules.conditions import Cond, f
from rules.meta import RuleMeta

_SERVE_OR_TUNE: Cond = f.task.one_of("inference", "lora", "qlora", "freeze", "full")
_PRETRAIN: Cond = f.task == "pretrain"
_TIERS = "part 5 (五、不同使用场景下推荐GPU配置方案)"
_TABLE = "模型规模与GPU配置的精准匹配策略: 模型规模 / 训练最低配置 / 微调最低配置 / 推理最低配置 / 推荐生产级配置 table"


# size bands (parameters) and concurrency bands of the three tiers; see the module docstring
_S1, _S2, _S3 = 16e9, 34.5e9, 80e9
_C1, _C2, _C3 = 5, 20, 200
_T1, _T2, _T3 = 0.5e9, 3e9, 10e9

_TIER_PERSONAL: Cond = (_SERVE_OR_TUNE & (f.params <= _S1) & (f.concurrency <= _C1)) | (_PRETRAIN & (f.params <= _T1))
_TIER_SMALL: Cond = (
    _SERVE_OR_TUNE
    & ((f.params.between(_S1, _S2) & (f.concurrency <= _C2)) | ((f.params <= _S1) & f.concurrency.between(_C1, _C2)))
) | (_PRETRAIN & f.params.between(_T1, _T2))
_TIER_LARGE: Cond = (
    _SERVE_OR_TUNE
    & ((f.params.between(_S2, _S3) & (f.concurrency <= _C3)) | ((f.params <= _S2) & f.concurrency.between(_C2, _C3)))
) | (_PRETRAIN & f.params.between(_T2, _T3))
_TIER_BEYOND: Cond = (_SERVE_OR_TUNE & ((f.params > _S3) | (f.concurrency > _C3))) | (_PRETRAIN & (f.params > _T3))


RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="tier-personal",
        topic="scenario",
        applies_to=WORKLOAD,
        when=_TIER_PERSONAL,
        severity="info",
        source=GUIDE_003,
        section=_TIERS + ": 个人学习、小型科研团队",
        summary="Guide-003 tier 1 (personal / small lab): 7B–14B serving or fine-tuning, ~0.2B training, 1–5 users.",
    ),
    RuleMeta(
        id="tier-small-team",
        topic="scenario",
        applies_to=WORKLOAD,
        when=_TIER_SMALL,
        severity="info",
        source=GUIDE_003,
        section=_TIERS + ": 中小型科研团队、初创公司",
        summary="Guide-003 tier 2 (small team / startup): 14B–30B serving or fine-tuning, ~2B training, 5–20 users.",
    ),
    RuleMeta(
        id="tier-large-team",
        topic="scenario",
        applies_to=WORKLOAD,
        when=_TIER_LARGE,
        severity="info",
        source=GUIDE_003,
        section=_TIERS + ": 大型科研团队、中大型公司",
        summary="Guide-003 tier 3 (large team / company): 70B serving or fine-tuning, ~7B training, 5–200 users.",
    ),
    RuleMeta(
        id="tier-beyond",
        topic="scenario",
        applies_to=WORKLOAD,
        when=_TIER_BEYOND,
        severity="info",
        source=GUIDE_003,
        section=_TIERS,
        refs=(GUIDE_000,),
        summary="Beyond guide-003's largest tier (70B serving, 7B training, 200 users): multi-GPU data-centre territory.",
    ),
    # --- guide-000's model-size table, row by row, with the section's recommended configurations -------------
    RuleMeta(
        id="size-table-7b",
        topic="scenario",
        applies_to=WORKLOAD,
        when=(f.params >= 1e9) & (f.params <= 10e9),
        severity="info",
        source=GUIDE_000,
        section=_TABLE + ", 7B row; 十亿级模型(1B-10B)",
        summary="Guide-000 7B row: train 2× RTX 4090, fine-tune 1× 4090, infer 1× RTX 4080, production A6000 or 2× 4090.",
    ),
    RuleMeta(
        id="size-table-13b",
        topic="scenario",
        applies_to=WORKLOAD,
        when=f.params.between(10e9, 30e9),
        severity="info",
        source=GUIDE_000,
        section=_TABLE + ", 13B row; 百亿级模型(10B-100B)",
        summary="Guide-000 13B row: train 4× RTX 4090, fine-tune 2×, infer 1× 4090 (8-bit), production A100 40GB or 2× 5090 D.",
    ),
    RuleMeta(
        id="size-table-70b",
        topic="scenario",
        applies_to=WORKLOAD,
        when=f.params.between(30e9, 100e9),
        severity="info",
        source=GUIDE_000,
        section=_TABLE + ", 70B row; 百亿级模型(10B-100B)",
        summary="Guide-000 70B row: train 8× A100 80GB, fine-tune 4×, infer 1× A100 80GB (4-bit), production 8× A100/H100.",
    ),
    RuleMeta(
        id="size-table-130b",
        topic="scenario",
        applies_to=WORKLOAD,
        when=f.params.between(100e9, 200e9),
        severity="info",
        source=GUIDE_000,
        section=_TABLE + ", 130B row; 千亿级模型(100B+)",
        summary="Guide-000 130B row: train 16× A100 80GB, fine-tune 8×, infer 2× A100 80GB (4-bit), production 16× H100.",
    ),
    RuleMeta(
        id="size-table-300b",
        topic="scenario",
        applies_to=WORKLOAD,
        when=f.params > 200e9,
        severity="info",
        source=GUIDE_000,
        section=_TABLE + ", 300B+ row; 千亿级模型(100B+)",
        summary="Guide-000 300B+ row: train 32× H100, fine-tune 16×, infer 8× H100 (quantised), production 256× H100 + IB.",
    ),
)
