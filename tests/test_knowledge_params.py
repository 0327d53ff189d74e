"""Parameter counts computed from the architecture against the published counts.

Exact where an exact count is public (HF safetensors totals, model cards, checkpoint printouts); within 1 %
where only a rounded figure is public; MoE active counts within the precision the publisher stated
(one unit in the last digit: "3.3B" means ±0.1B, "37B" ±1B) or 1 %, whichever is larger.
"""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from knowledge.params import linear_layers, param_counts

CATALOG = load_catalog()
MODELS = sorted(CATALOG.models, key=lambda m: m.id)


def _stated_unit(value: int) -> int:
    digits = str(int(value))
    return 10 ** (len(digits) - len(digits.rstrip("0")))


@pytest.mark.parametrize("model_id,expected", [
    ("llama-2-7b", 6_738_415_616), ("llama-3-8b", 8_030_261_248), ("qwen2.5-7b", 7_615_616_512),
    ("llama-2-13b", 13_015_864_320), ("llama-2-70b", 68_976_648_192), ("qwen3-32b", 32_762_123_264),
    ("bloom-176b", 176_247_271_424), ("chatglm3-6b", 6_243_584_000), ("glm-4-9b", 9_399_951_360),
    ("yi-34b", 34_388_917_248), ("gpt2", 124_439_808),
])
def test_issue_and_reference_exact_counts(model_id, expected):
    assert param_counts(CATALOG.model(model_id)).total == expected


@pytest.mark.parametrize("model", MODELS, ids=[m.id for m in MODELS])
def test_total_matches_published(model):
    assert model.published_params, f"{model.id}: no published count to check against"
    total = param_counts(model).total
    published = model.published_params - model.published_params_buffers
    if model.published_params_exact:
        assert total == published
    elif model.published_params_nominal:
        # only the size in the name is public ("13B"): the count must round to within 10 % of it
        assert abs(total / published - 1) < 0.10
    else:
        assert total == pytest.approx(published, rel=0.01)


def test_exact_counts_cover_the_reference_safetensors_totals():
    exact = {m.id for m in CATALOG.models if m.published_params_exact}
    assert {"llama-2-7b", "llama-3-8b", "llama-3.1-8b", "qwen2.5-7b", "qwen3-32b",
            "deepseek-r1-distill-qwen-32b", "gpt2", "bloom-176b"} <= exact
    assert len(exact) >= 12


@pytest.mark.parametrize("model", [m for m in MODELS if m.is_moe], ids=[m.id for m in MODELS if m.is_moe])
def test_moe_total_and_active(model):
    counts = param_counts(model)
    assert counts.active < counts.total
    assert model.published_active_params
    tolerance = max(0.01 * model.published_active_params, _stated_unit(model.published_active_params))
    # what the publisher's active count leaves out (gpt-oss: the embedding; GLM-4.5: embedding and output head)
    left_out = {"all": 0, "no_embedding": counts.embedding,
                "no_embedding_no_head": counts.embedding + counts.by_group.get("lm_head", 0)}
    active = counts.active - left_out[model.published_active_scope]
    assert abs(active - model.published_active_params) <= tolerance


def test_moe_counts_by_hand():
    # Mixtral-8x7B: "46.7B total, 12.9B per token" (Mistral AI); routed experts are 2 of 8 active
    m = CATALOG.model("mixtral-8x7b")
    c = param_counts(m)
    expert = 3 * 4096 * 14336
    assert c.by_group["experts"] == 32 * 8 * expert
    assert c.total - c.active == 32 * 6 * expert
    # DeepSeek-V3: 3 dense layers, 58 MoE layers with 256 routed (8 active) + 1 shared expert of width 2048
    d = param_counts(CATALOG.model("deepseek-v3"))
    assert d.by_group["experts"] == 58 * 256 * 3 * 7168 * 2048
    assert d.by_group["shared_experts"] == 58 * 3 * 7168 * 2048
    assert d.total == pytest.approx(671e9, rel=0.001)


def test_dense_models_active_equals_total():
    for m in MODELS:
        if not m.is_moe:
            assert param_counts(m).active == param_counts(m).total


def test_gemma2_non_embedding_matches_paper():
    # Gemma 2 report Table 2 gives exact non-embedding counts
    for model_id, non_embedding in (("gemma-2-9b", 8_324_201_984), ("gemma-2-27b", 26_047_480_320)):
        assert param_counts(CATALOG.model(model_id)).non_embedding == non_embedding


def test_linear_layers_sum_to_total():
    for m in MODELS:
        assert sum(layer.params for layer in linear_layers(m)) == param_counts(m).total
