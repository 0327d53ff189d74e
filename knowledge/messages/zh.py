"""中文文案 (the keys and placeholders of `en.py`, same order). Edit the words, never the keys or fields."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    # --- shared ---------------------------------------------------------------------------------------------
    "list.sep": "、",
    # --- prices: condition and source reliability ----------------------------------------------------------
    "price.condition.new": "新卡",
    "price.condition.used": "二手",
    "price.condition.street": "市场估价",
    "price.condition.street_estimate": "市场估价",
    "price.reliability.high": "高",
    "price.reliability.medium": "中",
    "price.reliability.low": "低",
    # the cost inputs advisor.estimator.cost names
    "cost_input.exchange rate": "汇率",
    "cost_input.electricity": "电价",
    "cost_input.PUE": "数据中心 PUE",
    # --- the quote (ui/quote.py) -----------------------------------------------------------------------------
    "quote.model": "模型 {model}",
    "quote.weights": "权重精度 {fmt}",
    "quote.kv": "KV 缓存 {fmt}",
    "quote.context": "{context:,} tokens 上下文",
    "quote.concurrency": "{n} 路并发",
    "quote.budget": "预算 {money}",
    "quote.region": "采购地区：{region}",
    "quote.used_accepted": "接受二手卡",
    "quote.owned_gpus": "{names}（已有）",
    "quote.compared_gpus": "比较的显卡：{names}",
    "quote.per_card": "{gpu} 单卡",
    "quote.train_days": "训练约 {days:,.1f} 天",
    "quote.speed_total": "，合计 {total:,.0f}",
    "quote.speed_each": "每位用户 {each:,.0f} tokens/s{tail}",
    "quote.tco_years": "{money} / {years} 年",
    "quote.nothing_to_buy": "无需购买",
    "quote.running_cost": "运行成本（电费和运维）{tco}",
    "quote.no_price": "目录中没有价格",
    "quote.with_servers": "（含 {n} 台服务器）",
    "quote.cards_only": "（仅显卡）",
    "quote.owned_suffix": "（已有）",
    "quote.used_suffix": "（二手）",
    "quote.config_owned": "{name}：{buy}；{tco}；{speed}。",
    "quote.config": "{name}：整机采购 {buy}；总拥有成本 {tco}；{speed}。",
    "quote.input.rest_of_system": "整机其余部分（{tier}）",
    "quote.generator_llm": "GPU Advisor（大模型 {model}）",
    "quote.generator_deterministic": "GPU Advisor（确定性模式）",
    "quote.date_range": "{first} 至 {last}",
    # --- gpu-advisor history (ui/commands/history.py) ------------------------------------------------------
    "history.usage": "用法：gpu-advisor history {action} ID",
    "history.no_store": "未配置对话存储（GPU_ADVISOR_DATABASE_URL=memory）",
    "history.not_found": "未找到：{what!r} 不是已保存的对话或报价",
    "history.cannot_write": "无法写入 {path}：{why}",
    "history.quotes": "报价: {n}",
    "history.conversations": "对话: {n}",
    "history.turns": "轮",
    "history.quote": "报价",
    "history.md_conversation": "- 对话: `{id}` ({source})",
    "history.md_updated": "- 更新于: {when}",
    "history.md_quote": "报价: `{id}`",
    "history.purged": "已删除 {days:g} 天前的记录：对话 {conversations}，轮次 {turns}，报价 {quotes}，过期事件 {events}",
}
