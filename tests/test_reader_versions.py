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


@pytest.mark.parametrize(("text", "lang", "says"), [
    ("Is Stable Diffusion XL fine on a 4060 Ti 16GB?", "en", "is not a language model"),
    ("What GPU do I need for Whisper large-v3?", "en", "is not a language model"),
    ("FLUX.1 dev 用 4090 跑得动吗", "zh", "不是大语言模型"),
    ("SDXL 在 3060 12G 上能跑吗", "zh", "不是大语言模型"),
])
def test_an_image_or_speech_model_is_said_to_be_out_of_scope_first(text: str, lang: str, says: str) -> None:
    from advisor.conversation.session import Conversation

    first = Conversation(lang=lang).respond(text).answer.split("\n")[0]
    assert says in first, first


@pytest.mark.parametrize("text", ["推荐一个能在 3090 上跑的最强模型", "4090 上能跑的最好的模型是哪个"])
def test_the_strongest_model_for_a_card_is_the_models_that_fit(text: str) -> None:
    from advisor.conversation.session import Conversation

    first = Conversation(lang="zh").respond(text).answer.split("\n")[0]
    assert "能跑的最大模型" in first, first


@pytest.mark.parametrize("text", ["Ministral 3 8B on a 3060?", "Nemotron 3 Super 120B on 2 H100",
                                  "Nemotron 3 Ultra 500B 需要几张 H200"])
def test_a_named_model_the_catalog_lacks_gets_no_stand_in_of_its_size(text: str) -> None:
    s = extract(text, load_catalog())
    assert s.model is None and s.unknown_model, (s.model, s.unknown_model)
