"""The NVIDIA A10G, AWS's variant of the A10 (EC2 G5), is a card of its own: "A10G" had been answered with "'A10G' is
not a GPU in the catalog". It shares the A10's 24 GB of GDDR6 at 600 GB/s but has lower tensor throughput (Baseten,
'NVIDIA A10 vs A10G for ML model inference': FP16 tensor 70 TF against the A10's 125), so a bare "A10" stays the A10.

Hand arithmetic for the fit: Llama-3.1-8B in BF16 is 8.03e9 × 2 B = 14.96 GiB of weights plus a 4096-token KV cache of
32 layers × 2 × 8 KV heads × 128 × 2 B × 4096 = 0.5 GiB, under the 24 GiB × 0.9 = 21.6 GiB an engine uses of one card.
"""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog
from knowledge.cloud_offers import load_cloud_offers

CAT = load_catalog()
GIB = 2**30


def turn(text: str, lang: str = "en"):  # type: ignore[no-untyped-def]
    return Conversation(driver="deterministic", lang=lang).respond(text)


@pytest.mark.parametrize("name, gpu_id", [
    ("A10G", "a10g"), ("a10g", "a10g"), ("AWS A10G", "a10g"), ("NVIDIA A10G", "a10g"), ("A10G 24G", "a10g"),
    ("A10", "a10"), ("NVIDIA A10", "a10"), ("Tesla A10", "a10"),
])
def test_the_catalog_tells_the_a10g_from_the_a10(name: str, gpu_id: str) -> None:
    assert CAT.gpu(name).id == gpu_id


@pytest.mark.parametrize("name, gpu_id, shown", [
    ("A10G", "a10g", "NVIDIA A10G"),
    ("a10g", "a10g", "NVIDIA A10G"),
    ("AWS A10G", "a10g", "NVIDIA A10G"),
    ("A10", "a10", "NVIDIA A10"),
])
def test_the_reader_resolves_the_card_named(name: str, gpu_id: str, shown: str) -> None:
    t = turn(f"Can I run Llama-3.1-8B on an {name}?")
    assert "not a GPU in the catalog" not in t.answer, t.answer[:400]
    assert t.options and t.options[0]["gpu"] == gpu_id, [o["gpu"] for o in t.options]
    head = t.answer.split("\n")[0]
    assert f"1× {shown} " in head, head
    if gpu_id == "a10":
        assert "A10G" not in head, head


@pytest.mark.parametrize("text", [
    "Can I run Qwen2.5-14B on a MacBook Pro 16G?",
    "gonna spin up some GPU boxes on amazon for a Mistral-7B chatbot, ~15 people, what should I grab?",
])
def test_the_article_a_is_not_the_a10g(text: str) -> None:
    """The reader derives short spellings from a card's name by dropping trailing memory words ("A100 80GB" ->
    "A100"); "NVIDIA A10G" reads as "A" + "10 G", which left the spelling "a" and made every "a" in a message an
    A10G. A derivation that would leave a name without its model number stops (reader.name_index._gpu_forms)."""
    t = turn(text)
    assert not any(c["gpu"] == "a10g" for c in t.workload["slots"].get("candidates") or []), t.workload["slots"]


def test_no_card_is_known_by_a_name_without_a_model_number() -> None:
    """Every spelling the reader derives from a card's name keeps a digit, or is one of the card's own spellings."""
    from advisor.conversation.reader.name_index import _gpu_forms

    for g in CAT.gpus:
        own = {g.id.lower(), g.name.lower(), *(a.lower() for a in g.aliases)}
        for form in _gpu_forms(g):
            assert any(ch.isdigit() for ch in form) or form in own, (g.id, form)


def test_the_a10g_has_the_a10s_memory_and_less_tensor_compute() -> None:
    a10, a10g = CAT.gpu("a10"), CAT.gpu("a10g")
    assert a10g.memory_bytes == a10.memory_bytes == 24 * GIB
    assert a10g.bandwidth_bytes_per_s == a10.bandwidth_bytes_per_s
    assert a10g.bf16_dense_flops == 70e12 < a10.bf16_dense_flops == 125e12  # Baseten: 70 TF against 125 TF
    assert a10g.tf32_dense_flops is not None and a10.tf32_dense_flops is not None
    assert a10g.tf32_dense_flops < a10.tf32_dense_flops
    assert (a10g.architecture, a10g.supports_bf16, a10g.supports_fp8, a10g.supports_flash_attention_2) == \
        ("ampere", True, False, True)
    assert a10g.nvlink == "none" and a10g.pcie_gen == 4


def test_every_a10g_figure_is_cited_and_the_card_is_rented_not_sold() -> None:
    g = CAT.gpu("a10g")
    for field in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_dense_flops", "tf32_dense_flops", "fp32_flops",
                  "tdp_w"):
        assert g.cite.get(field), field
        assert all(s in CAT.sources for s in g.cite[field]), field
    assert "baseten-a10-vs-a10g" in g.cite["bf16_dense_flops"]
    assert g.prices == () and "not sold" in g.unpriced
    aws = {c.provider: c.usd_per_hour for c in g.cloud}
    assert aws["AWS (g5.xlarge, us-east-1)"] == 1.006
    assert aws["AWS (g5.12xlarge, us-east-1)"] == pytest.approx(5.672 / 4)
    assert aws["AWS (g5.48xlarge, us-east-1)"] == pytest.approx(16.288 / 8)
    assert all(c.source in CAT.sources for c in g.cloud)


def test_aws_rents_the_a10g_as_g5_instances() -> None:
    offers = load_cloud_offers()
    assert {o.instance: o.gpus for o in offers.of("AWS") if o.gpu == "a10g"} == \
        {"g5.xlarge": 1, "g5.12xlarge": 4, "g5.48xlarge": 8}
    offer, n = offers.instances_for("AWS", "a10g", 2, 2)  # type: ignore[misc]
    assert (offer.instance, n) == ("g5.12xlarge", 1)  # one TP-2 copy: a 4-card instance, not two 1-card ones


@pytest.mark.parametrize("text, lang", [
    ("Can I run Llama-3.1-8B on an A10G?", "en"),
    ("A10G 能跑 Llama-3.1-8B 吗", "zh"),
])
def test_an_8b_model_in_bf16_fits_one_a10g(text: str, lang: str) -> None:
    t = turn(text, lang)
    lead = t.options[0]
    assert (lead["gpu"], lead["count"], lead["fits"]) == ("a10g", 1, True), lead
    assert lead["layout"]["weights"] == "bf16", lead["layout"]
    weights = 8.03e9 * 2 / GIB
    kv = 32 * 2 * 8 * 128 * 2 * 4096 / GIB
    assert weights + kv <= lead["per_gpu_bytes"]["total"] / GIB <= 24 * 0.9
    head = t.answer.split("\n")[0]
    assert head.startswith("**Yes" if lang == "en" else "**可以"), head
    assert "1× NVIDIA A10G" in head, head


def test_in_china_the_a10g_is_said_to_be_aws_only_and_its_row_shows_the_rent() -> None:
    """Bought in China the A10G is blocked as sold nowhere (rules.market market-cn-a10g-aws-only); its table row
    gives the dated G5 price per GPU-hour instead of "no price"."""
    body = turn("A10G 能跑 Qwen2.5-7B 吗", "zh").answer
    assert "A10G 仅 AWS 提供" in body.split("\n")[0], body.split("\n")[0]
    row = next(line for line in body.split("\n") if line.startswith("| 1× NVIDIA A10G"))
    assert "租用每 GPU 小时 $1.01" in row and "AWS" in row, row
