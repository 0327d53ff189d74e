"""Risks the guides name: modded and used cards, consumer cards in clusters and in 24/7 duty, power.

Guide-003 ranks the modded 2080 Ti 22G first for value "but with some risk", and prefers A100/H100 in
clusters because of transfer losses and stability; guide-000 notes the RTX 5090's 575 W, that data-centre
cards are built for 7×24 operation, and points to the second-hand market for the 4090 and A6000.
"""

from __future__ import annotations

from rules.common import CONFIG, CONSUMER, GUIDE_000, GUIDE_003, NOT_DATACENTER, TRAINING
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
        refs=("hwbr-2080ti-mod", "mod4090-48g-tomshw-2025-03"),
        summary="Modded cards (2080 Ti 22G, RTX 4090 48G): no warranty, stability depends on the rework, drivers not "
                "validated.",
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
    ),
    RuleMeta(
        id="risk-consumer-multi-node",
        topic="risk",
        applies_to=CONFIG,
        # data crosses the servers: training's gradients, or a serving pipeline over them (independent serving
        # replicas, one per server, exchange nothing)
        when=CONSUMER & (f.nodes > 1) & (TRAINING | (f.pp > 1)),
        severity="warn",
        source=GUIDE_003,
        section=_VALUE_CONCLUSIONS + ": 在集群环境下，考虑到数据传输损耗和集群运行稳定性，A100/H100仍是首选",
        summary="Consumer cards across nodes: transfer losses and stability make A100/H100-class cards preferable.",
    ),
    RuleMeta(
        id="risk-pcie-multi-node",
        topic="risk",
        applies_to=CONFIG,
        # one copy of the model split over servers of PCIe cards: every pipeline hand-over or gradient exchange
        # crosses the servers' network, with no switched fabric inside them either (independent replicas exempt)
        when=(f.segment == "datacenter") & (f.scale_up == False) & (f.nodes > 1) & (TRAINING | (f.pp > 1)),  # noqa: E712
        severity="warn",
        source=GUIDE_003,
        section=_VALUE_CONCLUSIONS + ": 在集群环境下，考虑到数据传输损耗和集群运行稳定性，A100/H100仍是首选",
        summary="PCIe cards with one model split across servers: prefer NVLink-switched baseboards for a cluster.",
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
    ),
)
