"""Guide-000's optimisation principles ("硬件配置的优化原则") and its TCO advice, as rules.

Memory first (aggregate memory must hold parameters, optimizer states and activations), interconnect for
multi-GPU training (NVLink in the node, InfiniBand between nodes; prefer one machine up to 8 GPUs),
precision trade-offs (mixed precision for training, INT8/FP8/4-bit for inference), energy efficiency for
always-on inference (L40S, T4), cloud for fluctuating load and owned clusters for steady load, and a 3–4
year hardware life.
"""

from __future__ import annotations

from rules.common import BUY, CONFIG, GUIDE_000, INFERENCE, NOT_DATACENTER, TRAINING
from rules.conditions import f
from rules.meta import RuleMeta

_PRINCIPLES = "模型规模与GPU配置的精准匹配策略: 硬件配置的优化原则"
_TCO = "经济维度：总体拥有成本(TCO)的全面计算"

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="practice-memory-first",
        topic="practice",
        applies_to=CONFIG,
        when=(f.fits == False) & (f.fits_sharded == True),  # noqa: E712
        severity="warn",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 显存容量优先 (确保单卡或多卡聚合显存能容纳模型参数、优化器状态和激活值)",
        summary="Memory first: the cards' aggregate memory holds the job only if it is sharded across them.",
        alternative="shard: tp or zero=3",
    ),
    RuleMeta(
        id="practice-interconnect-pcie",
        topic="practice",
        applies_to=CONFIG,
        when=TRAINING & (f.gpus_per_node >= 2) & (f.nvlink == False),  # noqa: E712
        severity="info",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 通信带宽优化 (多卡训练时选择NVLink或InfiniBand等高带宽互联)",
        summary="Multi-GPU training without NVLink: gradients travel over PCIe; prefer layouts light on communication.",
    ),
    RuleMeta(
        id="practice-interconnect-multi-node",
        topic="practice",
        applies_to=CONFIG,
        when=TRAINING & (f.nodes > 1) & (f.network == "ethernet"),
        severity="warn",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 通信带宽优化; 技术维度 (InfiniBand则是多机互联的黄金标准)",
        refs=("stas-net",),
        summary="Multi-node training over plain Ethernet: gradient synchronisation dominates; use InfiniBand/RoCE.",
        alternative="network=infiniband",
    ),
    RuleMeta(
        id="practice-single-node-first",
        topic="practice",
        applies_to=CONFIG,
        when=(f.nodes > 1) & (f.count <= 8),
        severity="info",
        source=GUIDE_000,
        section="技术维度: 小规模训练(如8卡以下)可优先考虑单机多卡配置避免网络瓶颈",
        summary="Eight GPUs or fewer: prefer one multi-GPU machine to avoid a network bottleneck.",
        alternative="nodes=1",
    ),
    RuleMeta(
        id="practice-precision-training",
        topic="practice",
        applies_to=CONFIG,
        when=TRAINING & (f.precision == "fp32"),
        severity="warn",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 精度权衡 (训练使用FP16/FP8混合精度)",
        summary="Training in FP32: use BF16/FP16 (or FP8) mixed precision.",
        alternative="precision=bf16",
    ),
    RuleMeta(
        id="practice-quantize-inference",
        topic="practice",
        applies_to=CONFIG,
        when=INFERENCE & (f.precision.one_of("fp32", "bf16", "fp16")) & (f.fits == True) & (f.headroom_ratio < 0.10),  # noqa: E712
        severity="info",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 精度权衡 (推理采用INT8/FP8甚至4-bit量化)",
        summary="Tight 16-bit inference: INT8/FP8 or 4-bit weights free memory for the KV cache.",
        alternative="precision=fp8",
    ),
    RuleMeta(
        id="practice-energy-always-on",
        topic="practice",
        applies_to=CONFIG,
        when=INFERENCE & (f.always_on == True) & NOT_DATACENTER,  # noqa: E712
        severity="info",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 能效比考量 (长期运行的推理任务应选择高能效GPU如L40S或T4); " + _TCO + ": 能源消耗",
        summary="Always-on inference: energy efficiency matters; the guide suggests L40S or T4.",
        alternative="l40s",
    ),
    RuleMeta(
        id="practice-cloud-fluctuating",
        topic="practice",
        applies_to=CONFIG,
        when=(f.load_pattern == "fluctuating") & BUY,
        severity="info",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 弹性扩展 (云服务适合波动负载，固定负载可考虑自建集群获得更好TCO)",
        summary="Fluctuating load: cloud capacity avoids idle owned hardware.",
        alternative="acquisition=rent",
    ),
    RuleMeta(
        id="practice-own-steady",
        topic="practice",
        applies_to=CONFIG,
        when=(f.load_pattern == "steady") & (f.acquisition == "rent"),
        severity="info",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 弹性扩展 (云服务适合波动负载，固定负载可考虑自建集群获得更好TCO)",
        summary="Steady load: an owned cluster usually gives a better TCO than on-demand cloud.",
        alternative="acquisition=buy",
    ),
    RuleMeta(
        id="practice-hardware-lifecycle",
        topic="practice",
        applies_to=CONFIG,
        when=(f.tco_years > 4) & BUY,
        severity="info",
        source=GUIDE_000,
        section=_TCO + ": 折旧周期 (AI硬件技术迭代快，平均生命周期为3-4年)",
        summary="TCO horizon beyond 4 years: AI hardware lasts 3–4 years on average.",
        alternative="tco_years=4",
    ),
)
