"""Which market a Chinese question is sized for (issue 27; DESIGN: China-market cards matter, every answer states its
assumptions). A Chinese question that says nothing about where it runs is sized for mainland China and says so
in its assumptions; one that places the deployment outside mainland China by name is sized for the global market;
a country named only as the author of a rule ("美国禁令下…国内") does not move it."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.constraints import region_from_places
from advisor.conversation.session import Conversation


@pytest.mark.parametrize(("text", "region"), [
    ("我们在新加坡机房部署 Qwen2.5-72B，需要几张卡？", "global"),
    ("在美国的数据中心跑 Llama-3.1-70B 推理需要几张卡？", "global"),
    ("部署在日本，Qwen3-32B 要几张 L40S", "global"),
    ("欧洲客户要跑 DeepSeek-V3，推荐什么配置", "global"),
    ("美国禁令下，国内跑 Qwen2.5-72B 需要几张卡？", None),  # not moved abroad; "国内" then reads as cn
    ("北京机房部署 Qwen2.5-72B", "cn"),
    ("美国对 H20 的出口管制是什么时候开始的", None),
    ("Qwen2.5-72B 推理需要几张卡？", None),
])
def test_places_name_the_market(text: str, region: str | None) -> None:
    assert region_from_places(text.lower()) == region


def test_a_chinese_question_placed_abroad_is_sized_for_the_global_market() -> None:
    out = Conversation(lang="zh").respond("我们在新加坡机房部署 Qwen2.5-72B，需要几张卡？")
    assert "海外/不限" in out.answer.split("\n\n")[1]
    assert not any("按中国大陆计算" in a for a in out.contract().assumptions)


def test_a_chinese_question_silent_on_region_says_it_assumed_mainland_china() -> None:
    out = Conversation(lang="zh").respond("Qwen2.5-72B 推理需要几张卡？")
    assert "中国大陆" in out.answer.split("\n\n")[1]
    assert any("未说明部署地区：按中国大陆计算" in a for a in out.contract().assumptions)


def test_china_market_alternatives_offered_are_sold_new_today() -> None:
    """Every China-market alternative the catalog names for a restricted card, where it is itself buyable in
    China, is a part sold new today (not an end-of-life or used-only one) with a dated China-market status."""
    from advisor.conversation.dialog.machine import default_catalog

    cat = default_catalog()
    for g in cat.gpus:
        ch = g.china
        if ch is None:
            continue
        for sub in dict.fromkeys([*(ch.substitutes or []), *([ch.china_substitute] if ch.china_substitute else [])]):
            s = cat.gpu(sub)
            if s.china.status in ("available", "china_variant"):
                assert s.availability == "sold" and s.china.as_of is not None, (g.id, sub, s.availability)


def test_the_rtx_5090_china_alternative_is_the_24_gb_v2() -> None:
    """Since 2025-08-12 China's RTX 5090 is the 5090 D V2: 24 GB on 384 bits at 28 Gbps = 1,344 GB/s by hand."""
    out = Conversation(lang="zh").respond("5090 国内能买吗？")
    assert "GeForce RTX 5090 D V2（中国特供版，截至 2025-08-12）" in out.answer
    from advisor.conversation.dialog.machine import default_catalog

    v2 = default_catalog().gpu("rtx-5090d-v2")
    assert v2.memory_bytes == 24 * 2**30 and v2.bandwidth_bytes_per_s == 384 * 28e9 / 8
