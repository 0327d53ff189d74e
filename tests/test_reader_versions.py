"""A version typed after a catalog name that has none ("Mistral Large 3" against the catalog's "mistral large" alias of
Mistral Large 2) is an unknown model, said first; the same name without a version, or with the catalog's version,
or followed by a count, keeps the catalog model."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog


@pytest.mark.parametrize("text", [
    "Will Mistral Large 3 fit on 4x MI300X?",
    "mistral large 3 一张 H200 够吗",
    "How much VRAM for Mistral-Large-4 inference?",
])
def test_a_newer_version_is_unknown_not_a_stand_in(text: str) -> None:
    s = extract(text, load_catalog())
    assert s.model is None, s.model
    assert s.unknown_model is not None and s.unknown_model.lower().replace("-", " ").startswith("mistral large "), \
        s.unknown_model


@pytest.mark.parametrize("text", [
    "Mistral Large on 4 A100",
    "Mistral Large 2 on 2 H100",
    "serve mistral large to 3 users on 4 A100",
    "mistral large 4 张 A100 能跑吗",
])
def test_the_catalog_version_or_a_count_keeps_the_model(text: str) -> None:
    assert extract(text, load_catalog()).model == "mistral-large-2"


@pytest.mark.parametrize("text", ["Is the H100 still worth buying in 2026 or should I get B200?",
                                  "2026 年还值得买 H100 吗？"])
def test_a_year_is_not_a_spec_figure(text: str) -> None:
    from advisor.conversation.reader.spec_claims import match_spec_claim

    assert match_spec_claim(text, ["h100-sxm", "b200"]) is None
