"""推荐结果自身的中文句子 (the catalog's "recommend" section; keys and placeholders of `recommend_en.py`, same
order). Edit the words, never the keys or fields."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    "recommend.list_sep": "、",
    "recommend.end": "。",
    "recommend.headroom": "每卡显存至少留出 {headroom:.0%} 余量才算“装得下”（vLLM 这类只占用 90% 显存的引擎本身即留出该余量）",
    "recommend.prices": "价格以 {currency} 计：取目录中每张卡最新的带日期价格（只有另一币种时按带日期的汇率换算），加上按指南分档估算的整机其余部分；TCO 按默认年限、满负荷计算",
    "recommend.per_node": "每台服务器最多 {n} 张卡",
    "recommend.layouts": "推理部署的并行方式：取服务器内能装下权重和所分担用户 KV 缓存的最小张量并行组，其余卡上复制为独立副本（副本数不超过用户数）；只有单个副本超出单台服务器时才跨服务器做流水线并行",
    "recommend.default_tokens": "训练时间按默认 token 量估算（预训练每参数 20 token，微调 1 亿 token）：请给出实际数据量以得到准确估计",
    "recommend.used": "按要求使用二手卡：有二手价的按带日期的二手价计算",
    "recommend.new": "按新卡价格计算（企业采购）{eol}",
    "recommend.new.eol": "；{names} 已停产（目录中最新价格为二手价），按二手价计算",
    "recommend.reasoning_context": "每条序列上下文按 {context} tokens：{model} 是推理模型，回答很长（采用该模型的默认值，而不是 {default}）",
    "recommend.compact_lead": "按原精度（{own}）需要 {n}× {gpu}、分在 {servers} 台服务器上；改用 {fmt} 一台服务器就能装下且花费不更多，因此首选它（指定精度即按所说精度计算）",
    "recommend.quantised_lead": "所选显卡无法以原精度用更少的卡运行该模型，因此首选 4-bit 量化配置",
    "recommend.market.cn": "中国大陆地区：只推荐国内可买到新卡的型号（未纳入：{names}）",
    "recommend.market.global": "中国大陆以外地区：不推荐专供中国市场的型号（未纳入：{names}）",
    "recommend.deadline": "未给出期限：优先选择 {days:g} 天内能完成训练的配置（可指定期限）",
    "recommend.deadline_out_of_reach": "所试配置都无法在默认的 {days:g} 天内完成：列出所试最快的配置及各自所需时间",
    "recommend.stack": "软件栈：优先 CUDA 或 ROCm（vLLM、SGLang 原生支持的平台）；其他软件栈的卡（Gaudi SynapseAI、中国以外的昇腾 CANN、作为多用户服务器的 Apple Metal）只有在总拥有成本比满足同样目标的最便宜 CUDA/ROCm 方案低至少 {pct} 时才作为首选（经验判断：多一套软件栈需要移植和验证的时间）",
    "recommend.stack.kept": "；{count}× {gpu}（{stack}）便宜 {gap:.0%}，未达到该幅度，因此首选 {lead_count}× {lead}",
    "recommend.stack.cheaper": "；{count}× {gpu}（{stack}）比 {alt_count}× {alt} 便宜 {gap:.0%}，因此作为首选",
    "recommend.stack.alone": "；没有满足目标的 CUDA/ROCm 方案，因此首选 {count}× {gpu}（{stack}）",
    "recommend.interactive": "默认交互目标：每位用户每秒至少 {tps:.0f} 个 token（每 token ≤ {ms:.0f} ms，MLPerf 推理基准 Llama 2 70B 交互场景的标准）",
    "recommend.interactive.met": "。",
    "recommend.interactive.unmet": "；目录中有价格、在本地区可买到新卡的配置都达不到，以下方案按显存选型，速度见表。",
    "recommend.offload": "一张 {gpu} 即使 4-bit 也放不下 {model}：卸载方案把 -ngl {ngl} 层放在显卡上，{cpu_layers} 层放在系统内存（{ram:.1f} GiB），约 {tps:.1f} tokens/s（按 {host} 估算）",
    "recommend.host.hedt": "高端台式机/工作站",
    "recommend.host.workstation": "工作站",
    "recommend.host.server": "服务器单路",
    "recommend.host.desktop": "台式机",
    "recommend.host.assumed": "（假设值）",
    "recommend.host.stated": "您给的 ",
}
