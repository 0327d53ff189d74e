"""Short, people-facing titles of the rules, in English and Chinese, for tables, legends and finding headers.

A finding shows its title where space is short (a table cell, a chart legend, the side panel's finding list); the
rule id stays in the details for whoever wants to look the rule up (`gpu-advisor rules show <id>`). A rule without
an entry here gets the first clause of its English summary (`rule_title`), never its id.
"""

from __future__ import annotations

import re

TITLES: dict[str, tuple[str, str]] = {
    "sizing-does-not-fit": ("Does not fit in memory", "显存放不下"),
    "sizing-low-headroom": ("Little memory to spare", "显存余量不足"),
    "sizing-kv-dominates": ("KV cache dominates memory", "KV 缓存占大头"),
    "sizing-pcie-tensor-parallel": ("Tensor parallel over PCIe", "PCIe 上做张量并行"),
    "sizing-tp-spans-nodes": ("Tensor parallel across nodes", "张量并行跨节点"),
    "sizing-tp-heads": ("TP size vs attention heads", "张量并行数与注意力头不匹配"),
    "sizing-offload-ram-short": ("Not enough CPU RAM for offload", "卸载所需内存不足"),
    "sizing-offload-ram-tight": ("Offload nearly fills CPU RAM", "卸载几乎占满内存"),
    "sizing-deadline-missed": ("Misses the deadline", "赶不上工期"),
    "sizing-deadline-tight": ("Close to the deadline", "工期很紧"),
    "sizing-over-budget": ("Over budget", "超出预算"),
    "sizing-over-power": ("Over the power limit", "超出功率上限"),
    "sizing-throughput-short": ("Below the throughput target", "吞吐达不到目标"),
    "sizing-latency-short": ("Above the latency target", "延迟超出目标"),
    "sizing-context-over-model": ("Context beyond the model's limit", "上下文超出模型上限"),
    "sizing-layer-offload-slow": ("Layers in system RAM slow decoding", "部分层放在内存，生成变慢"),
    "sizing-guide-config-short": ("Guide's configuration does not fit", "指南推荐的配置放不下"),
    "sizing-guide-config-tight": ("Guide's configuration is tight", "指南推荐的配置很紧"),
    "market-cn-restricted-2022": ("Export-restricted in China (A100/H100)", "对华出口受限（A100/H100）"),
    "market-cn-restricted-2023": ("Export-restricted in China (A800/H800/L40)", "对华出口受限（A800/H800/L40）"),
    "market-cn-4090-restricted": ("RTX 4090 restricted in China", "RTX 4090 在国内受限"),
    "market-cn-5090-not-sold": ("RTX 5090 not sold in China", "RTX 5090 国内不销售"),
    "market-cn-restricted-threshold": ("Above the export thresholds", "超出出口管制阈值"),
    "market-cn-h20-licence": ("H20 needs a licence", "H20 需要许可"),
    "market-cn-h200-reported": ("H200 in China: reported approval", "H200 对华：据报已获批"),
    "market-cn-l20": ("L20: China-market card", "L20：国内特供"),
    "market-cn-4090d": ("RTX 4090 D: China-market card", "RTX 4090 D：国内特供"),
    "market-cn-5090d": ("RTX 5090 D: China-market card", "RTX 5090 D：国内特供"),
    "market-cn-restricted-in-hand": ("Restricted cards already in hand", "已有的受限显卡"),
    "cap-bf16-needs-ampere": ("No BF16 before Ampere", "Ampere 之前不支持 BF16"),
    "cap-fp8-training": ("FP8 training needs Ada or newer", "FP8 训练需要 Ada 及以上"),
    "cap-fp8-weight-only": ("FP8 is weight-only here", "此卡 FP8 仅压缩权重"),
    "cap-fp8-unsupported": ("No FP8 on Volta", "Volta 不支持 FP8"),
    "cap-bf16-serving-pre-ampere": ("No BF16 serving on this card", "此卡无法以 BF16 部署"),
    "cap-awq-needs-turing": ("AWQ needs Turing or newer", "AWQ 需要 Turing 及以上"),
    "cap-fa2-training": ("No FlashAttention-2 for training", "训练用不了 FlashAttention-2"),
    "cap-fa2-inference": ("No FlashAttention-2 for serving", "推理用不了 FlashAttention-2"),
    "cap-no-nvlink": ("This card has no NVLink", "此卡没有 NVLink"),
    "cap-cann-engines": ("Ascend runs CANN engines, not CUDA ones", "昇腾只跑 CANN 生态的引擎"),
    "cap-fp4-weight-only": ("FP4 runs natively only on Blackwell / CDNA 4", "FP4 仅在 Blackwell/CDNA 4 上原生计算"),
    "cap-machine-no-tp": ("No tensor parallelism across machines", "多台一体机之间不做张量并行"),
    "cap-machine-not-a-card": ("A unified-memory machine is a whole computer", "统一内存一体机是整机，不是显卡"),
    "cap-metal-engines": ("Apple silicon: llama.cpp and MLX only", "Apple 芯片只跑 llama.cpp 和 MLX"),
    "cap-metal-stack": ("Apple silicon serves with llama.cpp or MLX", "Apple 芯片用 llama.cpp/MLX 部署"),
    "market-cn-blackwell-dc": ("Blackwell data-centre GPUs in China", "Blackwell 数据中心卡在国内"),
    "market-cn-rtx-pro-6000": ("RTX PRO 6000 in China", "RTX PRO 6000 在国内"),
    "cap-3090-nvlink-bridge": ("RTX 3090 pairs can use NVLink", "两张 3090 可用 NVLink 桥"),
    "cap-3090-nvlink-pairs": ("NVLink joins 3090 pairs only", "3090 NVLink 只能两两相连"),
    "cap-a10-t4-training": ("A10/T4 weak for training", "A10/T4 训练偏弱"),
    "cap-a10-t4-inference": ("A10/T4 for inference", "A10/T4 用于推理"),
    "cap-old-arch-software": ("Older GPU: software gaps", "老架构：软件支持有缺口"),
    "cap-non-cuda-stack": ("Non-CUDA software stack", "非 CUDA 软件栈"),
    "risk-modded-card": ("Modded card: no warranty", "魔改卡：无保修"),
    "risk-used-card": ("Used card risk", "二手卡风险"),
    "risk-consumer-multi-node": ("Consumer cards across nodes", "消费级卡跨节点"),
    "risk-geforce-datacenter-licence": ("GeForce licence excludes data centres", "GeForce 许可不含数据中心"),
    "risk-575w-card": ("High-power card: power and cooling", "高功耗显卡：供电与散热"),
    "risk-workstation-power": ("Power and cooling for a many-card box", "多卡整机的供电与散热"),
    "risk-consumer-24x7": ("Consumer cards running day and night", "消费级卡全天候运行"),
    "sub-4090-3090-inference": ("RTX 3090 can stand in for a 4090", "推理可用 3090 代替 4090"),
    "sub-4090-3090-training": ("3090 ≈ 4090 only in memory", "3090 ≈ 4090 仅限显存"),
    "sub-4090-3090-fp8": ("No FP8 on the RTX 3090", "3090 不支持 FP8"),
    "sub-3090-4090": ("RTX 3090 vs 4090", "3090 与 4090 对比"),
    "sub-3090-4090d-cn": ("In China: RTX 4090 D", "国内：RTX 4090 D"),
    "sub-a100-a800-cn": ("A800 for China is dated advice", "国内用 A800 的建议已过时"),
    "sub-l40-l20-cn": ("In China: L20 for L40/L40S", "国内：L20 代替 L40/L40S"),
    "sub-h100-h800-cn": ("H800 for China is dated advice", "国内用 H800 的建议已过时"),
    "sub-5090-5090d-cn": ("In China: RTX 5090 D", "国内：RTX 5090 D"),
    "sub-china-variant-outside-cn": ("China variant outside China", "国内特供版用于海外"),
    "value-rank-rtx-2080ti-22g": ("Guide value rank: first of five", "指南性价比排名：第一"),
    "value-rank-rtx-4080": ("Guide value rank: second of five", "指南性价比排名：第二"),
    "value-rank-rtx-3090": ("Guide value rank: third of five", "指南性价比排名：第三"),
    "value-rank-rtx-4090": ("Guide value rank: fourth of five", "指南性价比排名：第四"),
    "value-rank-rtx-2080ti": ("Guide value rank: fifth of five", "指南性价比排名：第五"),
    "value-cluster-prefers-datacenter": ("Clusters favour data-centre cards", "集群宜用数据中心卡"),
    "value-4090-training": ("RTX 4090 for training", "4090 用于训练"),
    "value-4090-inference": ("RTX 4090 for inference", "4090 用于推理"),
    "value-3090-training": ("RTX 3090 for training", "3090 用于训练"),
    "value-scope-4090": ("Beyond the guide's RTX 4090 scope", "超出指南中 4090 的适用范围"),
    "value-scope-5090": ("Beyond the guide's RTX 5090 scope", "超出指南中 5090 的适用范围"),
    "value-scope-5080": ("Beyond the guide's RTX 5080 scope", "超出指南中 5080 的适用范围"),
    "value-a100-training-counts": ("Guide's A100 training counts", "指南的 A100 训练卡数"),
    "value-h100-large-training": ("H100 class for large training", "大模型训练用 H100 级"),
    "value-a6000-memory": ("A6000 for memory-heavy work", "A6000 适合吃显存的任务"),
    "tier-personal": ("Guide tier: personal / small lab", "指南档位：个人/小实验室"),
    "tier-small-team": ("Guide tier: small team", "指南档位：小团队"),
    "tier-large-team": ("Guide tier: large team", "指南档位：大型团队"),
    "tier-beyond": ("Beyond the guide's largest tier", "超出指南最高档位"),
    "size-table-7b": ("Guide size table: 7B", "指南规模表：7B"),
    "size-table-13b": ("Guide size table: 13B", "指南规模表：13B"),
    "size-table-70b": ("Guide size table: 70B", "指南规模表：70B"),
    "size-table-130b": ("Guide size table: 130B", "指南规模表：130B"),
    "size-table-300b": ("Guide size table: 300B+", "指南规模表：300B+"),
    "practice-memory-first": ("Memory first", "先看显存"),
    "practice-interconnect-pcie": ("Training over PCIe", "经 PCIe 训练"),
    "practice-interconnect-multi-node": ("Multi-node over Ethernet", "多节点走以太网"),
    "practice-single-node-first": ("Prefer one machine", "优先单机"),
    "practice-precision-training": ("Use mixed precision", "使用混合精度"),
    "practice-quantize-inference": ("Quantise to free memory", "量化以腾出显存"),
    "practice-energy-always-on": ("Energy for always-on serving", "常开推理看能效"),
    "practice-cloud-fluctuating": ("Fluctuating load: cloud", "负载波动：上云"),
    "practice-own-steady": ("Steady load: own hardware", "负载稳定：自建"),
    "practice-hardware-lifecycle": ("Hardware lifecycle", "硬件使用寿命"),
    "claim-wrong-figure": ("Guide figure is wrong", "指南数字有误"),
    "claim-wrong-statement": ("Guide statement is wrong", "指南说法有误"),
    "claim-dated": ("Guide statement is dated", "指南说法已过时"),
    "claim-right": ("Guide statement checks out", "指南说法正确"),
}


def rule_title(rule_id: str, lang: str = "en") -> str:
    """The rule's short title in `lang` ("en"/"zh"); for a rule without one, the first clause of its English
    summary; for an id no rule has, a humanised id (dashes to spaces) — never the bare slug."""
    entry = TITLES.get(rule_id)
    if entry:
        return entry[1] if lang == "zh" else entry[0]
    try:
        from rules.meta import get_rule

        summary = get_rule(rule_id).summary
    except Exception:  # noqa: BLE001 - an unknown id (e.g. a test's) still gets words, not a slug
        return re.sub(r"[-_.]+", " ", str(rule_id)).strip().capitalize() or "?"
    head = re.split(r":\s|;\s|\.\s|\.$|\s\(", summary, maxsplit=1)[0].strip()
    return head[:60] or summary[:60]


_GUIDE_EN = re.compile(r"\b[Gg]uide[- ]?\d{3}(?:'s)?")
_GUIDE_ZH = re.compile(r"指南\s*[（(]\s*\d{3}\s*[)）]|指南\s?\d{3}")
_RULE_REF = re.compile(r"(?:\brule\s+|规则\s*)?`([a-z0-9]+(?:-[a-z0-9]+)+)`")


def plain_words(text: str) -> str:
    """Text for people without the catalog's internal guide numbers ("guide-000's" → "a published guide's")."""
    text = _GUIDE_ZH.sub("某份公开指南", text)
    return _GUIDE_EN.sub(lambda m: "a published guide's" if m.group(0).endswith("'s") else "a published guide", text)


def rule_ids_to_titles(text: str, lang: str) -> str:
    """A rule named by its id in `backticks` ("rule `risk-used-card`") shown by its title in `lang` instead."""
    from rules.meta import get_rule

    def title(m: re.Match[str]) -> str:
        try:
            get_rule(m.group(1))
        except Exception:  # noqa: BLE001 - not a rule id (a format name, a command): kept as written
            return m.group(0)
        return f"“{rule_title(m.group(1), lang)}”"

    return _RULE_REF.sub(title, text)


def for_people(text: str, lang: str) -> str:
    """A finding's message as people read it: rule ids by their titles, guide numbers in words."""
    return plain_words(rule_ids_to_titles(text, lang))
