"""The 2025–26 models (issue 27): catalog size, published counts, aliases, new architectures and their memory.

Independent references: the makers' published counts (model cards, the Gemma 3 report), gpt-oss's model card
("runs on a single 80 GB GPU", MXFP4 experts at 4.25 bits), and hand arithmetic from the config values.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.estimator.formats import weight_bytes
from advisor.estimator.kv_cache import kv_cache_bytes, linear_state_bytes
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.hf_config import spec_from_hf_config
from knowledge.params import param_counts

CATALOG = load_catalog()
GIB = 2**30
FAMILY_FIXTURES = Path(__file__).parent / "data" / "configs"


def test_catalog_has_at_least_100_models_and_the_issue_list():
    assert len(CATALOG.models) >= 100
    for name in ("gpt-oss 120b", "gpt-oss-20b", "llama 3.2 1b", "llama 3.2 3b", "llama 3.3 70b", "llama4 scout",
                 "llama 4 maverick", "gemma 3 1b", "gemma 3 4b", "gemma 3 12b", "gemma 3 27b", "qwen2.5 0.5b",
                 "qwen2.5 3b", "qwen2.5 coder 32b", "qwq 32b", "qwen3 0.6b", "qwen3 14b", "qwen3 235b",
                 "qwen3-next", "qwen3 coder 480b", "deepseek v3.1", "deepseek v3.2", "deepseek r1 0528",
                 "r1 distill llama 8b", "r1 distill llama 70b", "kimi k2", "glm 4.5", "glm 4.5 air", "glm 4.6",
                 "minimax m2", "mistral small 3.1", "mistral large 2", "phi 4", "phi 4 mini"):
        assert CATALOG.model(name) is not None, name


@pytest.mark.parametrize("alias,model_id", [
    ("gemma 3 27b", "gemma-3-27b"), ("gemma-2-27b", "gemma-2-27b"), ("qwen3 4b", "qwen3-4b"),
    ("qwen2.5 3b", "qwen2.5-3b"), ("llama 3.3 70b", "llama-3.3-70b"), ("llama 3.1 70b", "llama-3.1-70b"),
    ("deepseek v3.1", "deepseek-v3.1"), ("deepseek v3", "deepseek-v3"), ("kimi k2", "kimi-k2"),
    ("glm 4.5 air", "glm-4.5-air"), ("gpt-oss 120b", "gpt-oss-120b"),
])
def test_aliases_stay_within_their_generation(alias, model_id):
    assert CATALOG.model(alias).id == model_id


def test_no_alias_names_two_models():
    seen: dict[str, str] = {}
    for m in CATALOG.models:
        for name in {m.id.lower(), m.name.lower(), *(a.lower() for a in m.aliases)}:
            assert seen.setdefault(name, m.id) == m.id, f"'{name}' names {seen[name]} and {m.id}"


def test_no_alias_crosses_a_generation():
    """An alias naming another generation's model (gemma 3 on a Gemma-2 entry, qwen3 on Qwen2.5) is refused."""
    marks = {"gemma-2": ("gemma 3", "gemma3", "gemma-3"), "gemma-3": ("gemma 2", "gemma2", "gemma-2"),
             "qwen2.5": ("qwen3",), "qwen3": ("qwen2.5",), "llama-3.1": ("3.3", "3.2"), "llama-3-": ("3.1", "3.3")}
    for m in CATALOG.models:
        for prefix, foreign in marks.items():
            if m.id.startswith(prefix):
                for alias in m.aliases:
                    assert not any(f in alias.lower() for f in foreign), (m.id, alias)


NEW = [m for m in CATALOG.models if any(s.endswith("-cfg") for s in m.cite["architecture"])]


@pytest.mark.parametrize("model", NEW, ids=[m.id for m in NEW])
def test_new_models_match_their_published_count(model):
    """Exact where exact; within 0.5 % of a rounded figure, or up to 1 % when the file states why (MTP layers left
    out, a card that truncates); the size in the name (nominal) within 10 %."""
    total = param_counts(model).total
    assert model.published_params
    ratio = total / model.published_params - 1
    if model.published_params_exact:
        assert total == model.published_params
    elif model.published_params_nominal:
        assert abs(ratio) < 0.10
    elif abs(ratio) > 0.005:
        assert abs(ratio) < 0.01 and any(w in (model.notes + model.published_params_text).lower()
                                         for w in ("round", "truncat", "mtp")), model.id


@pytest.mark.parametrize("model_id,non_embedding", [
    # Gemma 3 technical report, Table 1 (millions, text model): 1B 698, 4B 3,209, 12B 10,759, 27B 25,600
    ("gemma-3-1b", 698e6), ("gemma-3-4b", 3209e6), ("gemma-3-12b", 10759e6), ("gemma-3-27b", 25600e6),
])
def test_gemma3_non_embedding_counts_match_the_report(model_id, non_embedding):
    assert param_counts(CATALOG.model(model_id)).non_embedding == pytest.approx(non_embedding, abs=0.5e6)


def test_gpt_oss_counts_match_the_card():
    # card table: 116.83B total / 5.13B active, 20.91B / 3.61B; active counts leave out the embedding
    for model_id, total, active in (("gpt-oss-120b", 116.83e9, 5.13e9), ("gpt-oss-20b", 20.91e9, 3.61e9)):
        c = param_counts(CATALOG.model(model_id))
        assert c.total == pytest.approx(total, abs=0.005e9)
        assert c.active - c.embedding == pytest.approx(active, abs=0.005e9)


def test_gpt_oss_120b_mxfp4_weights_fit_one_h100():
    m = CATALOG.model("gpt-oss-120b")
    assert m.native_dtype == "mxfp4"
    experts = 36 * 128 * (2880 * 5760 + 2880 * 2880)  # gate_up and down weights per expert, by hand
    w = weight_bytes(m, "mxfp4")
    assert w > experts * 4.25 / 8  # the bf16 rest comes on top
    assert 61 * GIB * 0.99 <= w <= 65 * GIB
    kv = kv_cache_bytes(m, 32768)
    # half the layers slide over 128 tokens: 18 full × 32768 + 18 × 128 tokens × 2 × 8 heads × 64 × 2 bytes
    assert kv == (18 * 32768 + 18 * 128) * 2 * 8 * 64 * 2
    assert w + kv + 4 * GIB < 80 * GIB


def test_gemma3_keeps_full_kv_only_on_global_layers():
    m = CATALOG.model("gemma-3-27b")
    per = 2 * 16 * 128 * 2
    # 62 layers, every 6th global: 10 global, 52 local with a 1024-token window
    assert kv_cache_bytes(m, 32768) == (10 * 32768 + 52 * 1024) * per


def test_llama4_chunked_layers_and_interleaved_moe():
    scout, maverick = CATALOG.model("llama-4-scout"), CATALOG.model("llama-4-maverick")
    assert scout.moe_layers == 48 and maverick.moe_layers == 24
    assert kv_cache_bytes(scout, 100_000) == (12 * 100_000 + 36 * 8192) * 2 * 8 * 128 * 2


def test_qwen3_next_state_is_fixed_and_only_full_layers_cache():
    m = CATALOG.model("qwen3-next-80b-a3b")
    assert m.linear_layers == 36 and m.global_layers == 12
    state = linear_state_bytes(m)
    # conv: (2·16·128 + 32·128) × 3, recurrent: 32 × 128 × 128, bf16, 36 layers
    assert state == 36 * ((2 * 16 * 128 + 32 * 128) * 3 + 32 * 128 * 128) * 2
    kv = kv_cache_bytes(m, 8192) - state
    assert kv == 12 * 8192 * 2 * 2 * 256 * 2
    assert kv_cache_bytes(m, 65536) - kv_cache_bytes(m, 8192) == 12 * (65536 - 8192) * 2 * 2 * 256 * 2


def test_deepseek_v32_caches_the_indexer_key():
    v3, v32 = CATALOG.model("deepseek-v3.1"), CATALOG.model("deepseek-v3.2")
    extra = kv_cache_bytes(v32, 1000) - kv_cache_bytes(v3, 1000)
    assert extra == round(61 * 1000 * 128 * (1 + 4 / 128))


def test_internlm2_family_fixture():
    spec = spec_from_hf_config(json.loads((FAMILY_FIXTURES / "mlc--internlm2_5_7b.json").read_text()))
    # embedding + head 2 × 92544 × 4096; 32 layers of q, k, v, o (8 KV heads × 128) and a 14336-wide SwiGLU
    layer = 4096 * 4096 * 2 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096
    assert param_counts(spec).total == 2 * 92544 * 4096 + 32 * layer + 4096


def test_layernorm_families_from_minimal_configs():
    neox = spec_from_hf_config({"model_type": "gpt_neox", "hidden_size": 64, "num_hidden_layers": 2,
                                "num_attention_heads": 4, "intermediate_size": 256, "vocab_size": 100,
                                "max_position_embeddings": 128})
    layer = 4 * (64 * 64 + 64) + (64 * 256 + 256) + (256 * 64 + 64) + 2 * 2 * 64
    assert param_counts(neox).total == 2 * 100 * 64 + 2 * layer + 2 * 64
    phi2 = spec_from_hf_config({"model_type": "phi", "hidden_size": 2560, "num_hidden_layers": 32,
                                "num_attention_heads": 32, "intermediate_size": 10240, "vocab_size": 51200,
                                "max_position_embeddings": 2048})
    assert param_counts(phi2).total == 2_779_683_840  # microsoft/phi-2's published count


@pytest.mark.parametrize("config,missing", [
    ({"model_type": "mamba2", "hidden_size": 8}, "state-space"),
    ({"model_type": "newarch", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
      "intermediate_size": 8, "vocab_size": 8, "num_local_experts": 4}, "mixture-of-experts"),
    ({"model_type": "newarch", "hidden_size": 8}, "'num_hidden_layers'"),
])
def test_unknown_families_are_refused_naming_the_piece(config, missing):
    with pytest.raises(InputError, match=missing):
        spec_from_hf_config(config)


def test_generic_reader_reads_a_plain_decoder_and_says_so():
    cfg = {"model_type": "newarch", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
           "max_position_embeddings": 8192}
    spec = spec_from_hf_config(cfg)
    assert param_counts(spec).total == 8_030_261_248  # Llama-3-8B's shape, its exact HF count
    assert "standard decoder" in spec.notes


def test_gpt_neox_family_fixture():
    spec = spec_from_hf_config(json.loads((FAMILY_FIXTURES / "mlc--redpajama_3b_v1.json").read_text()))
    h, ffn, vocab = 2560, 10240, 50432
    # fused qkv + dense with biases, a 4h GELU MLP with biases, two LayerNorms (weight + bias) per layer
    layer = 3 * (h * h + h) + (h * h + h) + (h * ffn + ffn) + (ffn * h + h) + 2 * 2 * h
    assert param_counts(spec).total == 2 * vocab * h + 32 * layer + 2 * h  # untied embed_out
    assert param_counts(spec).total == pytest.approx(2.8e9, rel=0.01)  # "RedPajama-INCITE-3B, 2.8B parameters"


def test_falcon_40b_from_its_real_config():
    """tiiuae/falcon-40b-instruct's config.json (new decoder architecture: 128 query heads in 8 KV groups of 64-wide
    heads, two LayerNorms per layer, no biases, a 4h GELU MLP, the head tied to the embeddings)."""
    spec = spec_from_hf_config(json.loads((FAMILY_FIXTURES / "tt-metal--falcon_40b_instruct.json").read_text()))
    h, d, vocab = 8192, 64, 65024
    layer = h * (128 + 2 * 8) * d + h * h + 2 * h * 4 * h + 2 * 2 * h  # fused qkv, dense, MLP, ln_attn + ln_mlp
    assert spec.num_kv_heads == 8 and spec.num_layers == 60
    assert param_counts(spec).total == 60 * layer + vocab * h + 2 * h  # 41,303,293,952
    # the Hub lists "41.8B params" for falcon-40b: its checkpoint stores lm_head.weight beside the tied embeddings
    assert (param_counts(spec).total + vocab * h) / 1e9 == pytest.approx(41.8, abs=0.05)


def test_falcon_reader_from_a_minimal_config():
    falcon7b = spec_from_hf_config({"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32,
                                    "num_attention_heads": 71, "vocab_size": 65024, "multi_query": True,
                                    "parallel_attn": True, "bias": False})
    h = 4544
    layer = h * h + 2 * h * 64 + h * h + 2 * h * 4 * h + 2 * h  # q, one shared k/v head, dense, MLP, one LayerNorm
    assert falcon7b.num_kv_heads == 1
    assert param_counts(falcon7b).total == 65024 * h + 32 * layer + 2 * h  # tied head: 6,921,720,704
    assert param_counts(falcon7b).total == 6_921_720_704


def test_warm_catalog_builds_only_the_models_looked_up(tmp_path, monkeypatch):
    """Start-up does not grow with the model catalog: from a snapshot a model entry stays JSON text until used."""
    from knowledge import catalog, snapshot

    monkeypatch.setenv(snapshot.CACHE_ENV, str(tmp_path))
    monkeypatch.delenv(snapshot.NO_CACHE_ENV, raising=False)
    catalog.clear_cache()
    cold = catalog.load_catalog()  # validates the YAML and writes the snapshot
    catalog.clear_cache()
    warm = catalog.load_catalog()
    try:
        assert warm._models.built == {}
        assert warm.model("kimi k2") == cold.model("kimi-k2")
        assert set(warm._models.built) == {"kimi-k2"}
        assert warm.model_ids() == cold.model_ids() and len(warm._models.built) == 1
        assert warm.models == cold.models  # every entry, built on demand, equals the validated one
    finally:
        catalog.clear_cache()


def test_gpt_oss_120b_fits_one_h100_at_moderate_context_but_not_in_bf16():
    """The card: gpt-oss-120b runs on a single 80 GB GPU (MXFP4 experts). In BF16 (≈ 218 GiB) it cannot."""
    from advisor.estimator.memory import estimate_memory
    from advisor.workload import Workload

    m, h100 = CATALOG.model("gpt-oss-120b"), CATALOG.gpu("h100-sxm")
    native = estimate_memory(m, Workload(task="inference", context=32768, concurrency=4), h100)
    assert native.fits(h100) and 61 * GIB * 0.99 < native.per_gpu.weights.n < 65 * GIB
    bf16 = estimate_memory(m, Workload(task="inference", weights="bf16", context=32768), h100)
    assert not bf16.fits(h100) and bf16.per_gpu.weights.n == param_counts(m).total * 2


def test_phi_2_from_its_real_config():
    """microsoft/phi-2's config.json (transformers 4.42 format, as published on the Hugging Face Hub): a parallel
    block under one LayerNorm, fused-size q/k/v and dense with biases, a 4h gelu_new MLP with biases, an untied head
    with a bias. Microsoft's model card: "Phi-2 is a Transformer with 2.7 billion parameters"."""
    spec = spec_from_hf_config(json.loads((FAMILY_FIXTURES / "microsoft--phi-2.json").read_text()))
    h, ffn, vocab = 2560, 10240, 51200
    layer = 3 * (h * h + h) + (h * h + h) + (h * ffn + ffn) + (ffn * h + h) + 2 * h  # q,k,v; dense; fc1; fc2; one LN
    total = vocab * h + 32 * layer + 2 * h + (h * vocab + vocab)  # embeddings, layers, final LN, lm_head + bias
    assert spec.num_layers == 32 and spec.num_kv_heads == 32
    assert param_counts(spec).total == total == 2_779_683_840
    assert total / 1e9 == pytest.approx(2.7, abs=0.1)
