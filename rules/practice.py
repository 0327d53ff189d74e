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
        en="Memory first (guide-000): the {count} cards together can hold this job only if it is sharded across "
           "them; as laid out it needs {per_gpu_gib:.1f} GiB per GPU against {memory_gib:.1f} GiB. Use tensor "
           "parallelism for serving or ZeRO-3/FSDP for training.",
        zh="显存容量优先（指南 000）：{count} 张卡的聚合显存只有在切分后才能容纳该任务；按当前布局每卡需要 "
           "{per_gpu_gib:.1f} GiB，而单卡只有 {memory_gib:.1f} GiB。推理请用张量并行，训练请用 ZeRO-3/FSDP。",
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
        en="Interconnect (guide-000): multi-GPU training benefits from NVLink, and the {gpu} has none, so gradients "
           "and parameters travel over PCIe. Prefer data parallelism with ZeRO-1/2 over tensor parallelism, and "
           "expect scaling below linear.",
        zh="通信带宽优化（指南 000）：多卡训练适合 NVLink 等高带宽互联，而 {gpu} 不支持，梯度和参数只能经 PCIe 传输。"
           "优先使用数据并行加 ZeRO-1/2，而非张量并行，并预期扩展效率低于线性。",
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
        en="Training across {nodes} nodes over plain Ethernet: guide-000 calls InfiniBand the gold standard between "
           "machines, and without it gradient synchronisation dominates the step time. Use InfiniBand or RoCE, or "
           "fit the job into one node.",
        zh="在 {nodes} 台机器间通过普通以太网训练：指南（000）认为 InfiniBand 是多机互联的黄金标准，没有它时梯度同步会"
           "占据大部分步时。请使用 InfiniBand 或 RoCE，或将任务放进单台机器。",
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
        en="Guide-000: for small jobs (8 GPUs or fewer) prefer one machine with several GPUs to avoid network "
           "bottlenecks; these {count} GPUs over {nodes} nodes would fit one 8-GPU server.",
        zh="指南（000）：小规模任务（8 卡及以下）优先考虑单机多卡，避免网络瓶颈；这 {count} 张卡分布在 {nodes} 台机器上，"
           "可以放进一台 8 卡服务器。",
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
        en="Precision (guide-000): train with FP16/BF16 mixed precision (FP8 where the card supports it). Pure FP32 "
           "doubles weight and activation memory against 16-bit and runs off the tensor-core fast path.",
        zh="精度权衡（指南 000）：训练请使用 FP16/BF16 混合精度（显卡支持时可用 FP8）。纯 FP32 的权重与激活显存是 16 位"
           "的两倍，且无法走张量核心的快速路径。",
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
        en="Precision (guide-000): inference can use INT8/FP8 or even 4-bit weights. Serving at {precision} leaves "
           "{headroom_ratio:.0%} of the {gpu}'s memory free; 8-bit weights halve the weight memory, 4-bit quarters "
           "it, at some quality cost.",
        zh="精度权衡（指南 000）：推理可采用 INT8/FP8 甚至 4-bit 量化。以 {precision} 部署时 {gpu} 只剩 "
           "{headroom_ratio:.0%} 的显存余量；8 位权重可将权重显存减半，4 位减至四分之一，但会有一定精度损失。",
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
        en="Energy (guide-000): long-running inference should use energy-efficient GPUs such as the L40S or T4, and "
           "the guide puts the H100's efficiency at about twice the RTX 4090's. These {count} cards draw "
           "{power_w:,.0f} W at full load, a running cost over the service life.",
        zh="能效比考量（指南 000）：长期运行的推理任务应选择 L40S 或 T4 等高能效 GPU，指南称 H100 的能效约为 RTX 4090 "
           "的两倍。这 {count} 张卡满载功耗 {power_w:,.0f} W，在使用期内是持续的电费成本。",
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
        en="Guide-000: cloud services suit fluctuating load (no upfront cost, no idle hardware, no obsolescence "
           "risk). Compare renting at your real utilisation before buying.",
        zh="指南（000）：云服务适合波动负载（无前期投入、无闲置硬件、无技术过时风险）。购买前请按实际利用率比较租用成本。",
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
        en="Guide-000: a fixed, steady load usually costs less on an owned cluster than on on-demand cloud; compare "
           "the break-even utilisation of buying against this rental.",
        zh="指南（000）：固定负载自建集群通常比按需租用云服务的 TCO 更低；请比较购买与租用的盈亏平衡利用率。",
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
        en="Guide-000: AI hardware has an average life of 3–4 years and consumer cards keep less residual value; a "
           "{tco_years:g}-year TCO should include a refresh or a low residual value.",
        zh="指南（000）：AI 硬件迭代快，平均生命周期为 3–4 年，消费级显卡残值率更低；{tco_years:g} 年的 TCO 应计入"
           "一次更新换代或较低的残值。",
        alternative="tco_years=4",
    ),
)
