"""The China-built 48 GB RTX 4090 (魔改 4090 48G) is a card of its own: "RTX 4090 48G 魔改版能跑 70B 吗" had been answered
with "目录里没有“RTX 4090 48G”这张卡". It is the RTX 4090's AD102 die (same PCI device ID 10de:2684) with 24 × 2 GB
GDDR6X on a re-built clamshell board, so its memory is twice the 4090's and its compute is the 4090's; a bare "4090" stays
the 24 GB card and "4090D" the RTX 4090 D.

Hand arithmetic for the fit: Llama-3.3-70B's 70.6e9 parameters at 4 bits are 70.6e9 × 0.5 B = 32.9 GiB before any scales,
embeddings or KV cache, already over the 24 GiB × 0.9 = 21.6 GiB an engine uses of one 24 GB card; the advisor's full
count (40.6 GiB with KV cache and runtime) is under the 48 GiB × 0.9 = 43.2 GiB of one 48 GB card.
"""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog
from knowledge.schemas import source_reliability
from rules.engine import evaluate
from rules.facts import ConfigFacts
from rules.gpus import family_of

CAT = load_catalog()
GIB = 2**30
MOD = "rtx-4090-48g"


def _first_card(text: str, lang: str) -> tuple[str, int | None]:
    s = extract(text.lower(), CAT, lang=lang)
    mentions = ([s.existing] if s.existing else []) + list(s.candidates)
    assert mentions, (text, s.unknown_gpus)
    return mentions[0].gpu, mentions[0].count


def turn(text: str, lang: str):  # type: ignore[no-untyped-def]
    return Conversation(driver="deterministic", lang=lang).respond(text)


@pytest.mark.parametrize(("text", "lang", "gpu"), [
    ("4090 48G", "zh", MOD),
    ("4090 48g", "zh", MOD),
    ("RTX 4090 48GB", "en", MOD),
    ("4090 48GB 魔改", "zh", MOD),
    ("魔改 4090", "zh", MOD),
    ("4090 魔改版 48G", "zh", MOD),
    ("48G的4090 能跑 70B 吗", "zh", MOD),
    ("a modded 4090 48GB", "en", MOD),
    ("4090", "zh", "rtx-4090"),
    ("RTX 4090", "en", "rtx-4090"),
    ("4090 24G", "zh", "rtx-4090"),
    ("4090D", "zh", "rtx-4090d"),
    ("RTX 4090 D", "en", "rtx-4090d"),
])
def test_the_reader_tells_the_48g_mod_from_the_4090_and_the_4090d(text: str, lang: str, gpu: str) -> None:
    assert _first_card(text, lang)[0] == gpu


@pytest.mark.parametrize(("name", "gpu"), [
    ("4090 48G", MOD), ("RTX 4090 48GB", MOD), ("4090 48GB 魔改", MOD), ("魔改 4090", MOD), ("4090 魔改版 48G", MOD),
    ("GeForce RTX 4090 48GB (modded, 魔改)", MOD), ("4090", "rtx-4090"), ("RTX 4090", "rtx-4090"), ("4090D", "rtx-4090d"),
])
def test_the_catalog_resolves_the_names(name: str, gpu: str) -> None:
    found = CAT.find_gpu(name)
    assert found is not None and found.id == gpu, (name, found and found.id)


@pytest.mark.parametrize(("text", "lang", "gpu"), [
    ("两张 4090 48G 跑 Qwen2.5-72B AWQ，20 个人用", "zh", MOD),  # two of the 48 GB cards
    ("two 4090 48GB for Qwen2.5-72B", "en", MOD),
    ("two 4090 48GB in total for Qwen2.5-32B", "en", "rtx-4090"),  # the sum over two 24 GB cards, said as such
    ("two 4090s with 48GB in total for Qwen2.5-32B", "en", "rtx-4090"),
])
def test_a_count_with_48g_is_the_mod_unless_the_size_is_said_as_a_total(text: str, lang: str, gpu: str) -> None:
    assert _first_card(text, lang) == (gpu, 2)


def test_the_mod_has_twice_the_4090s_memory_and_the_same_die() -> None:
    base, mod = CAT.gpu("rtx-4090"), CAT.gpu(MOD)
    assert mod.modded and not base.modded
    assert mod.memory_bytes == 2 * base.memory_bytes == 48 * GIB
    assert mod.memory_type == base.memory_type == "GDDR6X"
    for field in ("bandwidth_bytes_per_s", "bf16_dense_flops", "fp16_acc_dense_flops", "fp8_dense_flops",
                  "fp8_fp16_acc_dense_flops", "int8_dense_ops", "fp32_flops", "tdp_w", "pcie_gen"):
        assert getattr(mod, field) == getattr(base, field), field
    assert (mod.architecture, mod.supports_bf16, mod.supports_fp8, mod.link_kind) == ("ada", True, True, "none")
    assert mod.bf16_dense_flops != CAT.gpu("rtx-4090d").bf16_dense_flops  # the 4090's 128 SMs, not the 4090 D's 114


def test_every_figure_is_cited_and_the_yuan_price_is_marked_low_reliability() -> None:
    g = CAT.gpu(MOD)
    for field in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_dense_flops", "fp8_dense_flops", "int8_dense_ops",
                  "fp32_flops", "tdp_w", "form_factor"):
        assert g.cite.get(field), field
        assert all(s in CAT.sources for s in g.cite[field]), field
    assert "mod4090-48g-gpu-unlock" in g.cite["bf16_dense_flops"]  # the source that the die is the 4090's
    price = g.price("CNY")
    assert price is not None and price.kind == "street"
    assert source_reliability(CAT.source(price.source).kind) == "low"


def test_it_is_sold_in_china_and_no_4090_export_rule_blocks_it() -> None:
    g = CAT.gpu(MOD)
    assert g.china.status == "available"
    assert family_of(g.id) == family_of(g.name) == MOD
    cn = [f.rule_id for f in evaluate(ConfigFacts.from_gpu(g, region="cn"))]
    assert "market-cn-4090-restricted" not in cn and "risk-modded-card" in cn, cn


def test_a_stock_card_is_not_offered_its_mod_as_a_larger_size() -> None:
    assert MOD not in [g.id for g in CAT.memory_twins("rtx-4090")]
    head = turn("Can an RTX 4090 run Qwen2.5-14B?", "en").answer.split("\n")[0]
    assert "48GB" not in head, head


@pytest.mark.parametrize(("text", "lang", "yes", "no"), [
    ("Can one RTX 4090 48GB run Llama-3.3-70B AWQ INT4?", "en", "**Yes: 1× GeForce RTX 4090 48GB (modded, 魔改) fits**",
     None),
    ("一张 4090 48G 能跑 Llama-3.3-70B AWQ 吗", "zh", "**可以：1× GeForce RTX 4090 48GB (modded, 魔改) 放得下**", None),
    ("Can one RTX 4090 run Llama-3.3-70B AWQ INT4?", "en", None, "the GeForce RTX 4090 has 21.6 GiB usable"),
    ("一张 4090 能跑 Llama-3.3-70B AWQ 吗", "zh", None, "GeForce RTX 4090 可用 21.6 GiB"),
])
def test_a_70b_at_awq_int4_fits_one_48g_card_and_not_one_24g_4090(text: str, lang: str, yes: str | None,
                                                                   no: str | None) -> None:
    t = turn(text, lang)
    head = t.answer.split("\n")[0]
    assert "目录里没有" not in t.answer and "not a GPU in the catalog" not in t.answer, head
    if yes:
        assert head.startswith(yes), head
        assert t.options[0]["gpu"] == MOD and t.options[0]["count"] == 1 and t.options[0]["fits"], t.options[0]
    else:
        assert no is not None and no in head and "48GB" not in head, head
        one = next(o for o in t.options if o["gpu"] == "rtx-4090" and o["count"] == 1)
        assert not one["fits"], one


@pytest.mark.parametrize(("text", "lang", "label", "wrong"), [
    ("两张 4090 48G 跑 Qwen2.5-72B AWQ，20 个人用", "zh", "魔改卡", "二手卡"),
    ("Two modded 4090 48GB for Qwen2.5-72B AWQ, 20 users", "en", None, "used cards"),
])
def test_a_mod_is_labelled_a_mod_not_a_used_card(text: str, lang: str, label: str | None, wrong: str) -> None:
    """A memory mod is sold new (off NVIDIA's channel): the options table says so, not "used"."""
    body = Conversation(driver="deterministic", lang=lang).respond(text).answer
    rows = [line for line in body.split("\n") if line.startswith("| 2× GeForce RTX 4090 48GB") and "TCO" not in line]
    assert rows and not any(wrong in r for r in rows), rows
    assert label is None or any(label in r for r in rows), rows


def test_a_budget_buys_new_cards_not_a_memory_mod() -> None:
    """"The most memory a budget buys as new cards" leaves out a mod (no maker's warranty), whatever its price."""
    from advisor.analysis.budget_hardware import buyable_price

    mod = CAT.gpu("rtx-4090-48g")
    assert buyable_price(mod, "CNY", "cn", "new") is None
    body = Conversation(driver="deterministic", lang="zh").respond(
        "预算 50 万，想给 100 人的团队部署一个代码助手，推荐什么配置？").answer
    assert "魔改" not in body.split("\n")[0], body.split("\n")[0]
