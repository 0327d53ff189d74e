"""First sentences for acts that are not a plain sizing: "is this card still worth buying?" (a value verdict per
dollar against the newest card of its kind), checked by hand arithmetic on the catalog's printed specs and dated
prices; several paraphrases per act, English and Chinese (the last of each list was not used while writing the code)."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation


def first(lang: str, text: str) -> str:
    return Conversation(lang=lang).respond(text).answer.strip().split("\n\n")[0]


# hand arithmetic from the catalog's vendor figures and dated USD prices, per $1,000:
# A100 80GB SXM4: 80 GiB, 2039 GB/s, 312 TFLOPS BF16 dense at $11,500 (street, 2026-03-20)
#   -> 80/11.5 = 6.96 GiB, 2039/11.5 = 177.3 GB/s, 312/11.5 = 27.1 TFLOPS
# H100 SXM5: 80 GiB, 3350 GB/s, 989.4 TFLOPS at $27,500 (street, 2026-05-25) -> 2.91 GiB, 121.8 GB/s, 36.0 TFLOPS
# B300 (newest SXM card, 2025): 270 GiB, 7700 GB/s, 2250 TFLOPS at $53,000 (2026-12-04) -> 5.09, 145.3, 42.5
# RTX 3090 (end of life, used $700, 2026-06-29): 24 GiB, 936 GB/s, 71 TFLOPS -> 34.3 GiB, 1337 GB/s, 101.4 TFLOPS
# RTX 5090 (newest GeForce, $1,999 MSRP 2025-01-06): 32 GiB, 1792 GB/s, 209.5 TFLOPS -> 16.0 GiB, 896 GB/s, 104.8
@pytest.mark.parametrize(("lang", "text", "expect"), [
    ("en", "Is the H100 still worth buying in 2026?", ("**No", "$27,500", "2026-05-25", "B300", "2.9 GiB vs 5.1 GiB",
                                                       "36.0 TFLOPS vs 42.5 TFLOPS", "2022")),
    ("en", "Should I still buy a 3090?", ("**Only for memory and bandwidth", "$700", "used", "RTX 5090",
                                          "34.3 GiB vs 16.0 GiB", "101.4 TFLOPS vs 104.8 TFLOPS", "2020")),
    ("en", "Is the A100 worth it in 2026?", ("**Only for memory and bandwidth", "$11,500", "2026-03-20",
                                             "7.0 GiB vs 5.1 GiB", "177 GB/s vs 145 GB/s", "27.1 TFLOPS vs 42.5")),
    ("en", "Is a used 3090 a good buy these days?", ("**Only for memory", "$700", "1337 GB/s vs 896 GB/s")),
    ("zh", "A100 还值得买吗", ("**只在显存和带宽上更划算", "$11,500", "2026-03-20", "B300", "7.0 GiB 对 5.1 GiB",
                               "受限", "2023-10-17", "2020")),
    ("zh", "现在入手 4090 划算吗", ("**按每美元性价比，不值得", "$1,900", "2026-05-01", "RTX 5090")),
    ("zh", "H100 现在买还值不值得", ("不值得", "$27,500", "2.9 GiB 对 5.1 GiB", "36.0 TFLOPS 对 42.5 TFLOPS")),
])
def test_is_it_still_worth_buying_opens_with_a_value_verdict(lang: str, text: str, expect: tuple[str, ...]) -> None:
    head = first(lang, text)
    for part in expect:
        assert part in head, (part, head)


def test_the_newest_card_of_its_kind_says_so() -> None:
    head = first("en", "Is the RTX 5090 worth buying?")
    assert head.startswith("**It is the newest priced card of its kind"), head
    assert "16.0 GiB" in head  # 32 GiB / $1.999k


def test_renting_worth_it_is_still_rent_versus_buy() -> None:
    assert first("en", "Is renting H100s worth it?").startswith(("**Renting is cheaper", "**Buying is cheaper"))
