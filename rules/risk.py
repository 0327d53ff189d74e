"""Risks the guides name: modded and used cards, consumer cards in clusters and in 24/7 duty, power.

Guide-003 ranks the modded 2080 Ti 22G first for value "but with some risk", and prefers A100/H100 in
clusters because of transfer losses and stability; guide-000 notes the RTX 5090's 575 W, that data-centre
cards are built for 7×24 operation, and points to the second-hand market for the 4090 and A6000.
"""

from __future__ import annotations

from rules.common import CONFIG, CONSUMER, GUIDE_000, GUIDE_003, NOT_DATACENTER
from rules.conditions import f
from rules.meta import RuleMeta

_VALUE_CONCLUSIONS = "part 3 (三), 显卡性价比对比-重要结论"
_WEEK_S = 7 * 86_400  # a training run longer than a week counts as sustained duty

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="risk-modded-card",
        topic="risk",
        applies_to=CONFIG,
        when=f.modded == True,  # noqa: E712 - builds a condition
        severity="warn",
        source=GUIDE_003,
        section=_VALUE_CONCLUSIONS + ": 2080ti 22G魔改版（约2400元）性价比超越4080，但使用有一定风险",
        refs=("hwbr-2080ti-mod",),
        summary="Modded 2080 Ti 22G: no warranty, stability depends on the rework, drivers not validated.",
        en="The {gpu} is a community memory mod (the 11 GB of GDDR6 replaced by 22 GB on the original board). "
           "Guide-003 ranks it first for value (about ¥2,400, undated) but calls it risky: no NVIDIA or board-partner "
           "warranty, stability depends on the rework and on cooling the memory, and drivers and vBIOS are not "
           "validated for it. Burn in every card under sustained load before relying on it.",
        zh="{gpu} 是社区魔改显存版本（原板将 11 GB GDDR6 更换为 22 GB）。指南（003）将其性价比排在第一（约 "
           "¥2,400，未注明日期），但指出使用有一定风险：没有英伟达或板卡厂商保修，稳定性取决于改装工艺和显存散热，"
           "驱动与 vBIOS 未针对其验证。投入使用前请对每张卡做长时间满载测试。",
        alternative="rtx-3090",
    ),
    RuleMeta(
        id="risk-used-card",
        topic="risk",
        applies_to=CONFIG,
        when=f.used == True,  # noqa: E712
        severity="warn",
        source=GUIDE_000,
        section="NVIDIA RTX 4090：经久不衰的性价比王者 (特别是在二手市场); RTX 5080/A6000 (二手 ~15000元)",
        as_of="2025-06-16",
        summary="Used cards: little or no warranty and an unknown duty history (mining, 24/7 training).",
        en="Used cards: the guides point to the second-hand market (RTX 4090; A6000 at about ¥15,000 used, as of "
           "2025-06). Expect little or no transferable warranty and an unknown duty history (mining, 24/7 "
           "training): test memory and thermals under load, check fans and thermal pads, and budget a spare.",
        zh="二手卡：指南提到二手市场（RTX 4090；A6000 二手约 ¥15,000，截至 2025-06）。通常没有或无法转移保修，"
           "使用经历不明（挖矿、7×24 训练）：请做满载显存与温度测试，检查风扇和导热垫，并预留备用卡。",
    ),
    RuleMeta(
        id="risk-consumer-multi-node",
        topic="risk",
        applies_to=CONFIG,
        when=CONSUMER & (f.nodes > 1),
        severity="warn",
        source=GUIDE_003,
        section=_VALUE_CONCLUSIONS + ": 在集群环境下，考虑到数据传输损耗和集群运行稳定性，A100/H100仍是首选",
        summary="Consumer cards across nodes: transfer losses and stability make A100/H100-class cards preferable.",
        en="{count} consumer cards across {nodes} nodes: guide-003 notes that in a cluster, data-transfer losses and "
           "stability make data-centre cards (A100/H100, or their market versions in China) the first choice. "
           "Expect lower scaling efficiency and more interruptions than the single-card value suggests.",
        zh="{count} 张消费级显卡分布在 {nodes} 台机器上：指南（003）指出，在集群环境下考虑到数据传输损耗和集群运行"
           "稳定性，数据中心卡（A100/H100，国内为其合规版本）仍是首选。扩展效率与稳定性会低于单卡性价比所显示的水平。",
    ),
    RuleMeta(
        id="risk-geforce-datacenter-licence",
        topic="risk",
        applies_to=CONFIG,
        when=CONSUMER & (f.nodes > 1),
        severity="info",
        source="rules-geforce-license",
        section="section 2.1.3 No Datacenter Deployment",
        summary="The GeForce driver licence excludes data-centre deployment; check before building a GeForce cluster.",
        en="NVIDIA's GeForce driver licence (section 2.1.3) excludes data-centre deployment, except blockchain "
           "processing. A multi-node {gpu} cluster hosted in a data centre may fall under that clause: check "
           "before building one (not legal advice).",
        zh="英伟达 GeForce 驱动许可（第 2.1.3 条）不允许在数据中心部署（区块链处理除外）。放在数据中心的多机 {gpu} "
           "集群可能受此条款约束，搭建前请确认（非法律意见）。",
    ),
    RuleMeta(
        id="risk-575w-card",
        topic="risk",
        applies_to=CONFIG,
        when=NOT_DATACENTER & (f.tdp_w >= 575),
        severity="warn",
        source=GUIDE_000,
        section="NVIDIA RTX 5090/5090D：消费级显卡的性能巅峰 (尽管TDP达575W)",
        refs=("rules-toms-5090-psu",),
        summary="575 W cards: at least a 1,000 W PSU per card system, transients near 660 W, 12V-2x6 cabling, cooling.",
        en="The {gpu} draws {tdp_w:.0f} W (transients reach about 659 W); NVIDIA recommends at least a 1,000 W power "
           "supply for a system with one. Plan an ATX 3.x supply with a fully seated native 12V-2x6 cable, strong "
           "case airflow and space between cards; the GPUs alone draw {power_w:,.0f} W here ({count} × {tdp_w:.0f} W).",
        zh="{gpu} 功耗 {tdp_w:.0f} W（瞬时峰值约 659 W）；英伟达建议单卡系统至少配 1,000 W 电源。请选用 ATX 3.x "
           "电源并完全插紧原生 12V-2x6 线缆，保证机箱风道和卡间距；此配置仅显卡就需 {power_w:,.0f} W（{count} × {tdp_w:.0f} W）。",
    ),
    RuleMeta(
        id="risk-workstation-power",
        topic="risk",
        applies_to=CONFIG,
        when=NOT_DATACENTER & (f.node_gpu_power_w >= 1400),
        severity="warn",
        source=GUIDE_000,
        section="NVIDIA RTX 4090：经久不衰的性价比王者 (不需要特殊的服务器电源和散热系统，普通工作站即可搭载)",
        summary="Four or more high-power consumer cards in one box (≥ 1.4 kW of GPU power) need server-class power and cooling.",
        en="{gpus_per_node} × {gpu} in one machine draw {node_gpu_power_w:,.0f} W for the GPUs alone. Guide-000's "
           "'an ordinary workstation is enough' holds for one card, not this: plan server power supplies (two or "
           "redundant), a dedicated circuit and blower or rack cooling.",
        zh="单机 {gpus_per_node} 张 {gpu} 仅显卡功耗就达 {node_gpu_power_w:,.0f} W。指南（000）“普通工作站即可搭载”"
           "只适用于单卡：请规划服务器电源（双路或冗余）、专用供电回路以及涡轮或机架散热。",
    ),
    RuleMeta(
        id="risk-consumer-24x7",
        topic="risk",
        applies_to=CONFIG,
        when=CONSUMER & ((f.always_on == True) | (f.train_wall_s > _WEEK_S)),  # noqa: E712
        severity="info",
        source=GUIDE_000,
        section="经济维度：总体拥有成本(TCO)的全面计算 (运维成本：专业卡设计为7×24小时运行，故障率低于消费卡)",
        summary="Long or around-the-clock duty on consumer cards: higher failure rates than data-centre cards.",
        en="Sustained duty on consumer cards: guide-000 notes that data-centre cards are designed for 7×24 operation "
           "with lower failure rates, and A100/H100 systems support hot maintenance and redundant power. Keep "
           "spares, checkpoint often and watch temperatures.",
        zh="消费级显卡长时间满载运行：指南（000）指出专业卡按 7×24 小时运行设计，故障率低于消费卡，A100/H100 "
           "系统支持热维护和冗余电源。请准备备用卡、频繁保存检查点并监控温度。",
    ),
)
