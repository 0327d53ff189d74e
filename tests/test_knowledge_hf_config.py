"""config.json parsing: published configs give exactly the catalog's architecture; bad configs give clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.hf_config import load_hf_config, spec_from_hf_config
from knowledge.params import param_counts
from knowledge.structs import dump

CONFIGS = Path(__file__).parent / "data" / "hf_configs"
VERBATIM = {"llama-2-7b", "llama-2-13b", "llama-2-70b", "qwen2.5-7b", "qwen2.5-32b", "qwen2.5-72b", "llama-3.1-8b",
            "llama-3.1-70b", "llama-3.1-405b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
            "deepseek-v3", "deepseek-r1", "mixtral-8x7b", "mixtral-8x22b", "deepseek-r1-distill-qwen-32b", "qwen2.5-14b"}
# fields that describe the catalog entry rather than the architecture
NOT_ARCH = {"id", "name", "aliases", "family", "hf_repo", "hf_repo_chat", "published_params", "published_params_exact",
            "published_params_buffers", "published_non_embedding_params", "published_active_params",
            "published_params_text", "config_verbatim", "notes", "cite", "default_context", "quantized",
            "published_active_scope", "published_params_nominal", "pretrain_tokens", "pretrain_gpu_hours", "pretrain_gpu"}


def _fixture(model_id: str) -> dict:
    return json.loads((CONFIGS / f"{model_id}.json").read_text())


@pytest.mark.parametrize("model_id", sorted(p.stem for p in CONFIGS.glob("*.json")))
def test_config_json_gives_the_catalog_architecture(model_id):
    catalog_spec = load_catalog().model(model_id)
    parsed = spec_from_hf_config(_fixture(model_id), id=model_id)
    assert dump(parsed, exclude=NOT_ARCH) == dump(catalog_spec, exclude=NOT_ARCH)
    assert param_counts(parsed).total == param_counts(catalog_spec).total


def test_every_catalog_model_with_a_verbatim_config_has_a_fixture():
    verbatim = {m.id for m in load_catalog().models if m.config_verbatim}
    assert verbatim <= {p.stem for p in CONFIGS.glob("*.json")}
    assert VERBATIM <= verbatim


def test_load_from_file_and_directory(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(_fixture("qwen2.5-7b")))
    assert load_hf_config(tmp_path).num_kv_heads == 4
    assert load_hf_config(tmp_path / "config.json", id="mine").id == "mine"


def test_id_and_name_from_name_or_path():
    cfg = dict(_fixture("llama-2-7b"), _name_or_path="meta-llama/Llama-2-7b-hf")
    spec = spec_from_hf_config(cfg)
    assert spec.id == "llama-2-7b-hf" and spec.name == "Llama-2-7b-hf"
    cfg.pop("_name_or_path")
    assert spec_from_hf_config(cfg).id == "custom-llama"


def test_defaults_are_recorded_in_notes():
    cfg = _fixture("llama-2-7b")
    cfg.pop("rope_theta", None)
    spec = spec_from_hf_config(cfg)
    assert "rope_theta=10000.0 (default)" in spec.notes


def test_qwen_sliding_window_ignored_unless_enabled():
    cfg = _fixture("qwen2.5-7b")
    assert spec_from_hf_config(cfg).sliding_window is None
    cfg["use_sliding_window"] = True
    assert spec_from_hf_config(cfg).sliding_window == 131072


def test_opt_and_bloom_key_names():
    opt = {"model_type": "opt", "hidden_size": 12288, "num_hidden_layers": 96, "num_attention_heads": 96,
           "ffn_dim": 49152, "vocab_size": 50272, "max_position_embeddings": 2048, "word_embed_proj_dim": 12288,
           "torch_dtype": "float16"}
    spec = spec_from_hf_config(opt, id="opt-175b")
    cat = load_catalog().model("opt-175b")
    assert dump(spec, exclude=NOT_ARCH) == dump(cat, exclude=NOT_ARCH)
    bloom = {"model_type": "bloom", "n_embed": 14336, "n_layer": 70, "num_attention_heads": 112, "vocab_size": 250880,
             "torch_dtype": "bfloat16"}
    spec = spec_from_hf_config(bloom, id="bloom-176b")
    assert param_counts(spec).total == 176_247_271_424  # the BLOOM model card's exact count


def test_glm4_chatglm_format():
    cfg = {"model_type": "chatglm", "hidden_size": 4096, "num_layers": 40, "num_attention_heads": 32,
           "multi_query_attention": True, "multi_query_group_num": 2, "kv_channels": 128, "ffn_hidden_size": 13696,
           "padded_vocab_size": 151552, "seq_length": 131072, "add_qkv_bias": True, "rope_ratio": 500,
           "torch_dtype": "bfloat16"}
    spec = spec_from_hf_config(cfg, id="glm-4-9b")
    assert dump(spec, exclude=NOT_ARCH) == dump(load_catalog().model("glm-4-9b"), exclude=NOT_ARCH)


@pytest.mark.parametrize("mutate,expected", [
    (lambda c: c.pop("hidden_size"), "missing key 'hidden_size'"),
    (lambda c: c.update(num_attention_heads="32"), "'num_attention_heads' must be an integer"),
    (lambda c: c.update(num_hidden_layers=0), "'num_hidden_layers' must be positive"),
    (lambda c: c.update(num_key_value_heads=5), "num_attention_heads must be a multiple of num_kv_heads"),
    (lambda c: c.update(torch_dtype="int3"), "'torch_dtype' must be one of"),
    (lambda c: c.update(model_type="mamba"), "model_type 'mamba' is not supported"),
    (lambda c: c.pop("model_type"), "missing key 'intermediate_size'"),  # falls back to architectures
    (lambda c: (c.pop("model_type"), c.pop("architectures")), "missing key 'model_type'"),
])
def test_malformed_config_names_the_key(mutate, expected):
    cfg = _fixture("llama-2-7b")
    mutate(cfg)
    if expected.startswith("missing key 'intermediate_size'"):
        cfg.pop("intermediate_size")
    with pytest.raises(InputError) as info:
        spec_from_hf_config(cfg)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_not_a_json_object_or_file(tmp_path):
    with pytest.raises(InputError, match="expected a JSON object"):
        spec_from_hf_config([1, 2])  # type: ignore[arg-type]
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_hf_config(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_hf_config(tmp_path / "missing.json")
