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
        en="Guide-003 tier 'personal study / small research team': inference and fine-tuning of 7B–14B, training "
           "around 0.2B, 1–5 concurrent users, GB-scale data, about 35 GB of GPU memory. Basic: 2× RTX 2080 Ti 22G, "
           "12th-gen Core i5, 64 GB RAM, 2 TB disk, about ¥14,000; advanced: 2× RTX 3090, 12th-gen Core i7, 64 GB, "
           "2 TB, about ¥14,000 (the guide's undated prices).",
        zh="指南（003）场景“个人学习、小型科研团队”：推理与微调 7B–14B，训练约 0.2B，并发 1–5，数据量 GB 级，显存需求"
           "约 35 GB。基础配置：2× RTX 2080 Ti 22G、12 代 i5、64 GB 内存、2 TB 硬盘，约 ¥14,000；进阶配置：2× RTX "
           "3090、12 代 i7、64 GB、2 TB，约 ¥14,000（指南价格，未注明日期）。",
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
        en="Guide-003 tier 'small research team / startup': inference and fine-tuning of 14B–30B, training around 2B, "
           "5–20 concurrent users, TB-scale data, about 80 GB of GPU memory. Basic: 4× RTX 2080 Ti 22G, Xeon W3, "
           "64 GB RAM, 2 TB, about ¥30,000; advanced: 4× RTX 3090, Xeon W5, 128 GB, 2 TB, about ¥47,000 (the guide's "
           "undated prices).",
        zh="指南（003）场景“中小型科研团队、初创公司”：推理与微调 14B–30B，训练约 2B，并发 5–20，数据量 TB 级，显存"
           "需求约 80 GB。基础配置：4× RTX 2080 Ti 22G、至强 W3、64 GB 内存、2 TB，约 ¥30,000；进阶配置：4× RTX "
           "3090、至强 W5、128 GB、2 TB，约 ¥47,000（指南价格，未注明日期）。",
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
        en="Guide-003 tier 'large research team / mid-to-large company': inference and fine-tuning of 70B, training "
           "around 7B, 5–200 concurrent users, 10 TB of data, about 140 GB of GPU memory. Basic: 4× L20, Xeon 6133, "
           "128 GB RAM, 10 TB, about ¥140,000; advanced: 4× A100 40G on an Intel C621 platform, 128 GB, 10 TB, about "
           "¥180,000 (the guide's undated prices).",
        zh="指南（003）场景“大型科研团队、中大型公司”：推理与微调 70B，训练约 7B，并发 5–200，数据量 10 TB，显存需求约 "
           "140 GB。基础配置：4× L20、至强 6133、128 GB 内存、10 TB，约 ¥140,000；进阶配置：4× A100 40G、Intel C621 "
           "平台、128 GB、10 TB，约 ¥180,000（指南价格，未注明日期）。",
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
        en="This workload is beyond guide-003's largest tier (70B inference/fine-tuning, 7B training, 200 concurrent "
           "users). Guide-000's 100B+ section points to multi-node H100-class clusters with InfiniBand (H800/A800 in "
           "China, now themselves restricted); size it from the memory and time estimates.",
        zh="该任务超出指南（003）最大场景（70B 推理/微调、7B 训练、200 并发）。指南（000）千亿级部分建议使用配备 "
           "InfiniBand 的多机 H100 级集群（国内为 H800/A800，二者现已受限）；请以显存与时间估算确定规模。",
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
        en="Guide-000's size table, row nearest to {params_b:.3g}B (the 7B row): "
           "training from 2× RTX 4090, fine-tuning from 1× RTX 4090, inference from "
           "1× RTX 4080, production 1× A6000 or 2× RTX 4090. Its 1B–10B section adds one RTX 4090 or 3090 for "
           "low-cost research and two 4090s 'over NVLink' or one A6000 for team development (the 4090 has no NVLink).",
        zh="指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（7B 行）："
           "训练最低 2× RTX 4090，微调最低 1× RTX 4090，推理最低 1× RTX 4080，生产级 1× "
           "A6000 或 2× RTX 4090。十亿级部分另建议：低成本研究用单张 4090 或 3090，团队开发用双 4090“NVLink”或单张 "
           "A6000（4090 并不支持 NVLink）。",
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
        en="Guide-000's size table, row nearest to {params_b:.3g}B (the 13B row): "
           "training from 4× RTX 4090, fine-tuning from 2× RTX 4090, inference from "
           "1× RTX 4090 at 8-bit, production 1× A100 40GB or 2× RTX 5090 D. Its 10B–100B section: 4–8× RTX 4090 or "
           "2–4× RTX 5090 D for academic research, 8× A100/A800 or 4× H100 for enterprise training, A100 80GB or "
           "L40S for production inference.",
        zh="指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（13B 行）："
           "训练最低 4× RTX 4090，微调最低 2× RTX 4090，推理最低 1× RTX 4090（8-bit），"
           "生产级 1× A100 40GB 或 2× RTX 5090 D。百亿级部分：学术研究用 4–8× RTX 4090 或 2–4× RTX 5090 D，企业训练用 "
           "8× A100/A800 或 4× H100，生产推理用 A100 80GB 或 L40S。",
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
        en="Guide-000's size table, row nearest to {params_b:.3g}B (the 70B row): "
           "training from 8× A100 80GB, fine-tuning from 4× A100 80GB, inference "
           "from 1× A100 80GB at 4-bit, production an 8× A100/H100 cluster. The section's '70B FP16 inference ≈ 70 GB' "
           "and '4-bit ≈ 28 GB' understate the weights (about 140 GB and 35 GB, before the KV cache).",
        zh="指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（70B 行）："
           "训练最低 8× A100 80GB，微调最低 4× A100 80GB，推理最低 1× A100 80GB（4-bit），"
           "生产级 8× A100/H100 集群。该部分“70B FP16 推理约 70 GB”“4-bit 约 28 GB”低估了权重（约 140 GB 与 35 GB，"
           "尚未计入 KV 缓存）。",
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
        en="Guide-000's size table, row nearest to {params_b:.3g}B (the 130B row): "
           "training from 16× A100 80GB, fine-tuning from 8× A100 80GB, inference "
           "from 2× A100 80GB at 4-bit, production a 16× H100 NVLink cluster. Its 100B+ section: 3D parallelism "
           "(tensor, pipeline, data) and 8–16 H100 inference servers or elastic cloud.",
        zh="指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（130B 行）："
           "训练最低 16× A100 80GB，微调最低 8× A100 80GB，推理最低 2× A100 80GB"
           "（4-bit），生产级 16× H100 NVLink 集群。千亿级部分：采用张量、流水线与数据并行结合的 3D 并行，推理用 8–16 "
           "张 H100 的服务器或弹性云服务。",
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
        en="Guide-000's size table, row nearest to {params_b:.3g}B (the 300B+ row): "
           "training from 32× H100, fine-tuning from 16× H100, inference from 8× "
           "H100 quantised, production 256× H100 with InfiniBand. Its 100B+ section notes that very large models "
           "may span nodes for inference, adding communication latency.",
        zh="指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（300B+ 行）："
           "训练最低 32× H100，微调最低 16× H100，推理最低 8× H100（量化），生产级 "
           "256× H100 + InfiniBand。千亿级部分提示：超大模型推理可能需要跨节点部署，会引入明显的通信延迟。",
    ),
)
