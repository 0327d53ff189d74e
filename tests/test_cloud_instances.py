"""A cloud named as the host is answered in its instances: the size that holds the lead's cards with each model copy
inside one instance, named first when the instance is what was asked ("which EC2 instance?")."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation
from knowledge.cloud_offers import load_cloud_offers

OFFERS = load_cloud_offers()


def turn(text: str, lang: str = "en"):  # type: ignore[no-untyped-def]
    return Conversation(driver="deterministic", lang=lang).respond(text)


@pytest.mark.parametrize("gpu, count, group, instance, n", [
    ("l40s", 2, 2, "g6e.12xlarge", 1),   # one TP-2 copy: a 4-card instance, not two 1-card ones
    ("l40s", 2, 1, "g6e.xlarge", 2),     # two single-card copies: two 1-card instances
    ("l40s", 4, 4, "g6e.12xlarge", 1),
    ("l40s", 6, 2, "g6e.12xlarge", 2),   # three TP-2 copies: 8 cards either way, then the smaller instances
    ("l40s", 16, 16, "g6e.48xlarge", 2),  # a copy larger than every size spans the largest
    ("h200-sxm", 16, 8, "p5en.48xlarge", 2),  # the size AWS sells on demand (p5e: Capacity Blocks only)
    ("h100-sxm", 1, 1, "p5.48xlarge", 1),  # AWS lists H100 only by eight
    ("l4", 5, 1, "g6.2xlarge", 5),
])
def test_the_instance_holds_each_copy_and_rents_fewest_cards(gpu: str, count: int, group: int, instance: str,
                                                             n: int) -> None:
    offer, got = OFFERS.instances_for("AWS", gpu, count, group)  # type: ignore[misc]
    assert (offer.instance, got) == (instance, n)
    assert got * offer.gpus >= count
    # no other listed size with room for each copy rents fewer cards
    for o in OFFERS.of("AWS"):
        if o.gpu == gpu and o.gpus >= group:
            copies = -(-count // group)
            assert -(-copies // (o.gpus // group)) * o.gpus >= got * offer.gpus


def test_a_card_the_cloud_does_not_list_has_no_instance() -> None:
    assert OFFERS.instances_for("AWS", "rtx-4090", 2, 2) is None
    assert OFFERS.instances_for("Lambda", "h100-sxm", 8, 8) is None


@pytest.mark.parametrize("text, lang", [
    ("Which EC2 instance should I use to serve Qwen2.5-32B to 10 users?", "en"),
    ("What AWS instance type would you pick to host Llama-3.1-8B for 20 users?", "en"),
    ("We'll host Llama-3.1-8B on AWS for 20 users. Which instance?", "en"),
    ("部署 Qwen2.5-32B 给 10 个人用，选哪个 AWS 实例？", "zh"),
    ("gonna spin up some GPU boxes on amazon for a Mistral-7B chatbot, ~15 people, what should I grab?", "en"),
    ("Which g6e size would run Gemma-3-27B for a team of 12?", "en"),
    ("在亚马逊云上部署 Qwen3-32B 给 20 个人用，选什么机器？", "zh"),
])
def test_which_instance_is_answered_with_the_instance_first(text: str, lang: str) -> None:
    """"Which EC2 instance?" had been read without the cloud (4× RTX 4090 to buy), and "on AWS" led with a purchase
    of cards and a server; the first sentence now names the instance that holds the lead's cards."""
    t = turn(text, lang)
    first = t.answer.split("\n")[0]
    lead = next((o for o in t.options if "recommended" in o["labels"]), t.options[0])
    sizes = {o.instance: o for o in OFFERS.of("AWS") if o.gpu == lead["gpu"]}
    assert sizes, lead["gpu"]
    m = re.search(r"(\d+)(?:× | 台 )(\S+?)[ （(]", first)
    assert m and m.group(2) in sizes, first
    assert int(m.group(1)) * sizes[m.group(2)].gpus >= lead["count"], first
    assert first.startswith("On AWS" if lang == "en" else "在 AWS 上"), first
    assert "to buy" not in first and "采购" not in first, first
    # said once on the first screen: the assumed line names the cloud, not the instances again
    assert t.answer.split("<details>")[0].count(m.group(2)) == 1, t.answer[:800]


@pytest.mark.parametrize("text, instance, billed", [
    ("How much would it cost to host Llama-3.1-8B on AWS for 20 users?", "g6.12xlarge", "4 GPUs billed"),
    ("Is it cheaper to rent or buy 8 L40S for a year?", "g6e.xlarge", ""),  # no layout said: single cards
    ("Serve Llama-3.1-70B on AWS with 8 L40S, is renting or buying cheaper over a year?", "g6e.48xlarge", ""),
])
def test_a_rental_is_priced_at_the_instance_size_that_holds_the_layout(text: str, instance: str, billed: str) -> None:
    """2 L4 in TP 2 had been priced at the 1-card g6.2xlarge's rate, which cannot hold a TP-2 copy; the listing and
    the rent-or-buy verdict now both rent the 4-card size, its idle cards billed."""
    answer = turn(text).answer
    renting = next(p for p in answer.split("\n\n") if p.startswith("**Renting**"))
    verdict = next(p for p in answer.split("\n\n") if p.startswith("**Buying is cheaper") or p.startswith("**Renting is"))
    assert f"AWS ({instance}, us-east-1)" in renting and f"AWS ({instance}, us-east-1)" in verdict, answer[:1500]
    assert billed in renting
    others = [o.instance for o in OFFERS.of("AWS") if o.instance != instance]
    assert not any(f"AWS ({o}," in renting for o in others), renting


@pytest.mark.parametrize("text, lang", [
    ("老板让我在亚马逊云上搭个 Qwen3-32B，大概二十来个人用，租啥机器划算？", "zh"),
    ("Which instance is the most cost-effective to rent on AWS for Llama-3.1-8B with 20 users?", "en"),
])
def test_which_rental_is_cheaper_is_answered_with_the_rental(text: str, lang: str) -> None:
    """"租啥机器划算" asks which rental is the better value: it had opened with "buying is cheaper", a comparison no
    one asked for; the rental at the cloud named leads."""
    first = turn(text, lang).answer.split("\n")[0]
    assert first.startswith("**租用**" if lang == "zh" else "**Renting**"), first
    assert "AWS (" in first, first


@pytest.mark.parametrize("text, lang", [
    ("在 AWS 上跑 Qwen3-32B 给 20 人用，租还是买划算？", "zh"),
    ("Serve Llama-3.1-8B to 20 users on AWS - rent or buy?", "en"),
])
def test_rent_or_buy_on_a_cloud_compares_that_clouds_cards(text: str, lang: str) -> None:
    """Renting on AWS weighed against buying: the verdict leads, at AWS's price for a card AWS rents (it had sized
    RTX 5090 D V2 cards, which AWS does not rent, and said AWS had no quote for them)."""
    t = turn(text, lang)
    verdict = t.answer.split("\n")[0]
    assert verdict.startswith(("**买更便宜**", "**租更便宜**", "**Buying is cheaper**", "**Renting is cheaper**")), verdict
    assert "AWS (" in verdict, verdict
    lead = next((o for o in t.options if "recommended" in o["labels"]), t.options[0])
    assert lead["gpu"] in OFFERS.cards_of("AWS"), lead["gpu"]


def test_rent_or_buy_of_named_cards_on_a_cloud_rents_them_there() -> None:
    verdict = turn("Is it cheaper to rent 2 L40S on AWS or to buy them?").answer.split("\n")[0]
    assert verdict.startswith("**Buying is cheaper**") and "2× NVIDIA L40S" in verdict, verdict
    assert "at AWS (g6e." in verdict, verdict


def test_a_purchase_question_without_a_cloud_is_unchanged() -> None:
    first = turn("Serve Qwen2.5-32B to 10 users, which GPUs should we buy?").answer.split("\n")[0]
    assert first.startswith("I recommend") and "to buy" in first, first
