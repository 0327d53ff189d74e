"""Read a Hugging Face `config.json` into a :class:`~knowledge.schemas.ModelSpec`.

Families and the key names they use (HF `transformers` configuration classes, plus THUDM's ChatGLM format):

| model_type | keys read (first present wins) |
|---|---|
| llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, yi, baichuan, phi3, gemma2, glm | hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim, intermediate_size, vocab_size, max_position_embeddings (baichuan: model_max_length) |
| mixtral | num_local_experts, num_experts_per_tok (intermediate_size is per expert) |
| qwen3_moe | num_experts, num_experts_per_tok, moe_intermediate_size (every layer MoE: decoder_sparse_step 1, mlp_only_layers []) |
| deepseek_v2, deepseek_v3 | n_routed_experts, n_shared_experts, num_experts_per_tok, moe_intermediate_size, first_k_dense_replace, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim |
| glm_moe_dsa (GLM-5), glm4_moe_lite (GLM-4.7-Flash) | as deepseek_v3 (MLA + MoE); glm_moe_dsa also index_n_heads, index_head_dim (one indexer per layer: `indexer_types` all "full") |
| qwen3_5, qwen3_5_moe (and their `_text` configs) | as qwen3_next: layer_types / full_attention_interval, linear_* keys; the MoE one num_experts, moe_intermediate_size (also its intermediate_size when absent), shared_expert_intermediate_size |
| any | rope_theta, else `rope_parameters.rope_theta` (transformers 5) |
| chatglm | num_layers, multi_query_group_num, kv_channels, ffn_hidden_size, padded_vocab_size, seq_length, add_qkv_bias, rope_ratio |
| gpt2 | n_embd, n_layer, n_head, n_inner (None: 4·n_embd), n_positions |
| opt | ffn_dim, word_embed_proj_dim (must equal hidden_size), enable_bias |
| bloom | n_embed / hidden_size, n_layer, n_head, seq_length (none in most configs: 2048, BLOOM's training length) |

A key that is missing or malformed raises :class:`~knowledge.errors.InputError` naming the key and the
model type. Defaults are those of the `transformers` configuration class (e.g. `tie_word_embeddings` is false
for Llama-family configs and true for Gemma-2, GPT-2, OPT and BLOOM; `num_key_value_heads` defaults to the head
count); each default that was used is listed in the spec's `notes`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, overload

from knowledge.errors import InputError
from knowledge.hf_families import (
    LAYERNORM_FAMILIES,
    NEW_LLAMA_LIKE,
    TEXT_WRAPPERS,
    generic_refusal,
    layernorm_family,
    new_family,
)
from knowledge.schemas import Block, ModelSpec
from knowledge.structs import StructError

USER_CONFIG_SOURCE = "user-config-json"

_LLAMA_LIKE = {"llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "yi", "baichuan", "phi3", "gemma2", "glm",
               "deepseek_v2", "deepseek_v3"} | (NEW_LLAMA_LIKE - {"mistral3"})
_DEEPSEEK = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa", "glm4_moe_lite")
SUPPORTED = tuple(sorted(_LLAMA_LIKE | LAYERNORM_FAMILIES | {"chatglm", "gpt2", "opt", "bloom"}))

_BLOCK: dict[str, Block] = {"chatglm": "chatglm", "glm": "chatglm", "deepseek_v2": "deepseek", "deepseek_v3": "deepseek",
          "deepseek_v32": "deepseek", "kimi_k2": "deepseek", "glm_moe_dsa": "deepseek", "glm4_moe_lite": "deepseek",
          "gemma2": "gemma2", "phi3": "phi3", "gpt2": "gpt", "opt": "opt", "bloom": "bloom"}
_ARCH_TO_TYPE = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "MixtralForCausalLM": "mixtral",
    "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3", "Qwen3MoeForCausalLM": "qwen3_moe",
    "DeepseekV3ForCausalLM": "deepseek_v3", "DeepseekV2ForCausalLM": "deepseek_v2", "Gemma2ForCausalLM": "gemma2",
    "Phi3ForCausalLM": "phi3", "ChatGLMModel": "chatglm", "ChatGLMForConditionalGeneration": "chatglm",
    "GlmForCausalLM": "glm", "GPT2LMHeadModel": "gpt2", "OPTForCausalLM": "opt", "BloomForCausalLM": "bloom",
    "BaichuanForCausalLM": "baichuan", "GptOssForCausalLM": "gpt_oss", "Llama4ForConditionalGeneration": "llama4",
    "Llama4ForCausalLM": "llama4", "Gemma3ForCausalLM": "gemma3", "Gemma3ForConditionalGeneration": "gemma3",
    "Qwen3NextForCausalLM": "qwen3_next", "Glm4MoeForCausalLM": "glm4_moe", "DeepseekV32ForCausalLM": "deepseek_v32",
    "MiniMaxM2ForCausalLM": "minimax_m2", "GPTNeoXForCausalLM": "gpt_neox", "FalconForCausalLM": "falcon",
    "PhiForCausalLM": "phi", "Starcoder2ForCausalLM": "starcoder2", "Olmo2ForCausalLM": "olmo2",
    "InternLM2ForCausalLM": "internlm2", "Qwen2MoeForCausalLM": "qwen2_moe", "CohereForCausalLM": "cohere",
    "GlmMoeDsaForCausalLM": "glm_moe_dsa", "Glm4MoeLiteForCausalLM": "glm4_moe_lite",
}
# transformers' default for tie_word_embeddings per configuration class
_TIE_DEFAULT = {"gemma2": True, "gemma3": True, "gpt2": True, "opt": True, "bloom": True}
_DTYPES = {"float32": "float32", "fp32": "float32", "float": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
           "float16": "float16", "fp16": "float16", "half": "float16"}
_MISSING = object()


class ConfigReader:
    """Typed access to config keys; every failure names the key and the model type."""

    def __init__(self, config: dict[str, Any], model_type: str) -> None:
        self.c = config
        self.t = model_type
        self.defaults: list[str] = []

    def _err(self, message: str, key: str) -> InputError:
        return InputError(f"config.json ({self.t}): {message}", field=key)

    def raw(self, *keys: str, default: Any = _MISSING) -> Any:
        for key in keys:
            if key in self.c and self.c[key] is not None:
                return self.c[key]
        if default is _MISSING:
            shown = " or ".join(f"'{k}'" for k in keys)
            raise self._err(f"missing key {shown}", keys[0])
        self.defaults.append(f"{keys[0]}={default!r} (default)")
        return default

    @overload
    def int(self, *keys: str, default: None, positive: bool = True) -> int | None: ...

    @overload
    def int(self, *keys: str, default: int = ..., positive: bool = True) -> int: ...

    def int(self, *keys: str, default: Any = _MISSING, positive: bool = True) -> int | None:
        """The first of `keys` present, an integer (positive, or non-negative); `default=None`: None when absent."""
        value = self.raw(*keys, default=default)
        if value is None:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
            raise self._err(f"'{keys[0]}' must be an integer, got {value!r}", keys[0])
        if (positive and value <= 0) or value < 0:
            raise self._err(f"'{keys[0]}' must be {'positive' if positive else 'non-negative'}, got {value!r}", keys[0])
        return int(value)

    def bool(self, *keys: str, default: Any = _MISSING) -> bool:
        value = self.raw(*keys, default=default)
        if not isinstance(value, bool):
            raise self._err(f"'{keys[0]}' must be true or false, got {value!r}", keys[0])
        return value

    def float(self, *keys: str, default: Any = _MISSING) -> float | None:
        value = self.raw(*keys, default=default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise self._err(f"'{keys[0]}' must be a positive number, got {value!r}", keys[0])
        return float(value)


def _model_type(config: dict[str, Any]) -> str:
    mt = config.get("model_type")
    if mt is None:
        archs = config.get("architectures") or []
        mt = next((_ARCH_TO_TYPE[a] for a in archs if a in _ARCH_TO_TYPE), None)
        if mt is None:
            raise InputError("config.json: missing key 'model_type' (and no known 'architectures' entry)",
                             field="model_type", accepted=", ".join(SUPPORTED))
    if not isinstance(mt, str):
        raise InputError(f"config.json: 'model_type' must be a string, got {mt!r}", field="model_type")
    return mt


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return slug or "custom"


def _dtype(r: ConfigReader) -> str:
    quant = r.c.get("quantization_config")
    if isinstance(quant, dict) and str(quant.get("quant_method", "")).lower() in ("fp8", "mxfp4"):
        return str(quant["quant_method"]).lower()
    if isinstance(quant, dict) and _int4_experts(quant):
        return "int4-experts"
    value = r.c.get("torch_dtype", r.c.get("dtype"))
    if value is None:
        default = "float32" if r.t == "gpt2" else "bfloat16"
        r.defaults.append(f"torch_dtype={default!r} (absent)")
        return default
    if not isinstance(value, str) or value.lower() not in _DTYPES:
        raise InputError(f"config.json ({r.t}): 'torch_dtype' must be one of {', '.join(sorted(set(_DTYPES)))}, "
                         f"got {value!r}", field="torch_dtype")
    return _DTYPES[value.lower()]


def _int4_experts(quant: dict[str, Any]) -> bool:
    """Kimi K2 Thinking's release format: compressed-tensors int4 weights whose `ignore` list keeps attention and
    the shared experts out, so only the routed experts are 4-bit (the rest stays in torch_dtype)."""
    if str(quant.get("quant_method", "")).lower() != "compressed-tensors":
        return False
    groups = quant.get("config_groups") or {}
    weights = [g.get("weights") or {} for g in groups.values() if isinstance(g, dict)]
    ignore = " ".join(str(x) for x in quant.get("ignore") or [])
    return bool(weights) and all(w.get("num_bits") == 4 and w.get("type") == "int" for w in weights) \
        and "self_attn" in ignore and "shared_experts" in ignore


def _rope_theta(r: ConfigReader) -> float | None:
    """`rope_theta`, or the one in transformers 5's `rope_parameters` ({"rope_theta": …}) when the key is absent."""
    params = r.c.get("rope_parameters")
    if "rope_theta" not in r.c and isinstance(params, dict) and "rope_theta" in params:
        return ConfigReader(params, r.t).float("rope_theta")
    return r.float("rope_theta", default=10000.0)


def _llama_like(r: ConfigReader) -> dict[str, Any]:
    t = r.t
    h = r.int("hidden_size")
    nh = r.int("num_attention_heads")
    out: dict[str, Any] = {
        "hidden_size": h,
        "num_layers": r.int("num_hidden_layers"),
        "num_attention_heads": nh,
        "num_kv_heads": r.int("num_key_value_heads", default=nh),
        # Qwen3.5 MoE configs carry no dense width (every layer has experts): the expert width stands in
        "intermediate_size": r.int("intermediate_size", "moe_intermediate_size") if t == "qwen3_5_moe"
        else r.int("intermediate_size"),
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", default=_TIE_DEFAULT.get(t, False)),
        "max_context": r.int("max_position_embeddings", "model_max_length", "seq_length"),
        "hidden_act": r.raw("hidden_act", "hidden_activation", default="silu"),
        "rope_theta": _rope_theta(r),
    }
    head_dim = r.int("head_dim", default=None) if "head_dim" in r.c and r.c["head_dim"] is not None else None
    if head_dim is None and t == "gemma3":
        head_dim = r.int("head_dim", default=256)  # Gemma3TextConfig's default
    if head_dim is None:
        if h % nh:
            raise InputError(f"config.json ({t}): hidden_size {h} is not divisible by num_attention_heads {nh}; "
                             "give 'head_dim'", field="head_dim")
        head_dim = h // nh
    out["head_dim"] = head_dim
    out["attention_bias"] = True if t == "qwen2" else r.bool("attention_bias", default=t == "glm")
    out["qk_norm"] = t in ("qwen3", "qwen3_moe", "qwen3_next", "qwen3_5", "qwen3_5_moe")
    out["norms_per_layer"] = 4 if t == "gemma2" else 2
    if t == "baichuan" and "rope_theta" not in r.c and h >= 5120:
        out["position_embedding"] = "alibi"  # Baichuan2-13B uses ALiBi; the 7B model uses RoPE
        out["rope_theta"] = None
    # sliding-window attention
    window = r.c.get("sliding_window")
    if window is not None and t in ("qwen2", "qwen3", "qwen3_moe") and not r.c.get("use_sliding_window", False):
        window = None  # Qwen configs carry a window but use_sliding_window=false
    if window is not None and t in ("mistral", "mixtral", "phi3", "gemma2", "qwen2", "qwen3", "qwen3_moe"):
        out["sliding_window"] = r.int("sliding_window")
        out["sliding_window_layers"] = "alternate" if t == "gemma2" else "all"
    # MoE
    if t == "mixtral":
        out.update(n_routed_experts=r.int("num_local_experts"), experts_per_token=r.int("num_experts_per_tok"),
                   moe_intermediate_size=out["intermediate_size"])
    elif t == "qwen3_moe":
        if r.c.get("decoder_sparse_step", 1) != 1 or r.c.get("mlp_only_layers"):
            raise InputError("config.json (qwen3_moe): only configs with every layer MoE are supported "
                             "('decoder_sparse_step' 1, 'mlp_only_layers' [])", field="decoder_sparse_step")
        out.update(n_routed_experts=r.int("num_experts"), experts_per_token=r.int("num_experts_per_tok"),
                   moe_intermediate_size=r.int("moe_intermediate_size"))
    elif t in _DEEPSEEK:
        if r.c.get("moe_layer_freq", 1) != 1:
            raise InputError(f"config.json ({t}): only 'moe_layer_freq' 1 is supported", field="moe_layer_freq")
        out.update(n_routed_experts=r.int("n_routed_experts"), n_shared_experts=r.int("n_shared_experts", default=0, positive=False),
                   experts_per_token=r.int("num_experts_per_tok"), moe_intermediate_size=r.int("moe_intermediate_size"),
                   first_k_dense=r.int("first_k_dense_replace", default=0, positive=False))
        out.update(q_lora_rank=r.int("q_lora_rank", default=None), kv_lora_rank=r.int("kv_lora_rank"),
                   qk_nope_head_dim=r.int("qk_nope_head_dim"), qk_rope_head_dim=r.int("qk_rope_head_dim"),
                   v_head_dim=r.int("v_head_dim"))
        out["num_kv_heads"] = nh  # MLA: every head has its own (decompressed) K and V
        out["head_dim"] = h // nh
    if t in NEW_LLAMA_LIKE:
        new_family(r, out)
    return out


def _chatglm(r: ConfigReader) -> dict[str, Any]:
    nh = r.int("num_attention_heads")
    mqa = r.bool("multi_query_attention", default=False)
    theta = 10000.0 * (r.float("rope_ratio", default=1.0) or 1.0)
    return {
        "hidden_size": r.int("hidden_size"),
        "num_layers": r.int("num_layers", "num_hidden_layers"),
        "num_attention_heads": nh,
        "num_kv_heads": r.int("multi_query_group_num") if mqa else nh,
        "head_dim": r.int("kv_channels"),
        "intermediate_size": r.int("ffn_hidden_size"),
        "vocab_size": r.int("padded_vocab_size", "vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", default=False),
        "max_context": r.int("seq_length", "max_position_embeddings"),
        "hidden_act": "silu",
        "attention_bias": r.bool("add_qkv_bias", default=False),
        "rope_theta": theta,
    }


def _gpt(r: ConfigReader) -> dict[str, Any]:
    t = r.t
    if t == "gpt2":
        h = r.int("n_embd", "hidden_size")
        nh = r.int("n_head", "num_attention_heads")
        inner = r.int("n_inner", default=4 * h)
        ctx = r.int("n_positions", "n_ctx")
        act = r.raw("activation_function", default="gelu_new")
        layers = r.int("n_layer", "num_hidden_layers")
    elif t == "opt":
        h = r.int("hidden_size")
        proj = r.int("word_embed_proj_dim", default=h)
        if proj != h:
            raise InputError(f"config.json (opt): 'word_embed_proj_dim' {proj} differs from hidden_size {h}; "
                             "projected embeddings (OPT-350m) are not supported", field="word_embed_proj_dim")
        if not r.bool("enable_bias", default=True) or not r.bool("do_layer_norm_before", default=True):
            raise InputError("config.json (opt): only 'enable_bias' true and 'do_layer_norm_before' true are supported",
                             field="enable_bias")
        nh = r.int("num_attention_heads")
        inner = r.int("ffn_dim")
        ctx = r.int("max_position_embeddings")
        act = r.raw("activation_function", default="relu")
        layers = r.int("num_hidden_layers")
    else:  # bloom
        h = r.int("n_embed", "hidden_size")
        nh = r.int("n_head", "num_attention_heads")
        inner = 4 * h
        ctx = r.int("seq_length", default=2048)
        act = "gelu"
        layers = r.int("n_layer", "num_hidden_layers")
    if h % nh:
        raise InputError(f"config.json ({t}): hidden size {h} is not divisible by the head count {nh}", field="n_head")
    return {
        "hidden_size": h, "num_layers": layers, "num_attention_heads": nh, "num_kv_heads": nh, "head_dim": h // nh,
        "intermediate_size": inner, "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", default=True), "max_context": ctx, "hidden_act": act,
        "gated_mlp": False, "attention_bias": True,
        "position_embedding": "alibi" if t == "bloom" else "learned",
    }


def spec_from_hf_config(config: dict[str, Any], id: str | None = None, name: str | None = None) -> ModelSpec:
    """The architecture of a Hugging Face `config.json` (already parsed) as a ModelSpec.

    `id` defaults to a slug of `_name_or_path` (or "custom-<model_type>"). Raises InputError naming the missing
    or malformed key; model types outside `SUPPORTED` are refused with the accepted list."""
    if not isinstance(config, dict):
        raise InputError(f"config.json: expected a JSON object, got {type(config).__name__}", field="config")
    wrapper = config.get("model_type")
    generic = False
    if isinstance(config.get("text_config"), dict) and (wrapper in TEXT_WRAPPERS or wrapper not in SUPPORTED):
        inner = dict(config["text_config"])  # multimodal wrapper: the language model's config
        if wrapper in TEXT_WRAPPERS:
            inner["model_type"] = TEXT_WRAPPERS[wrapper]
        elif "model_type" in inner:
            inner["model_type"] = TEXT_WRAPPERS.get(inner["model_type"], inner["model_type"])
        inner.setdefault("_name_or_path", config.get("_name_or_path"))
        config = inner
    t = _model_type(config)
    t = TEXT_WRAPPERS.get(t, t)
    if t not in SUPPORTED:
        missing = generic_refusal(config)
        if missing is not None:
            reason = (f"lacks {missing}" if missing.startswith("the standard") else
                      f"is {missing}" if missing.startswith(("a ", "an ")) or "'" not in missing else f"has {missing}")
            raise InputError(f"config.json: model_type '{t}' is not supported: it {reason}, which the "
                             "parameter and memory model cannot size", field="model_type",
                             accepted=", ".join(SUPPORTED))
        generic = True
    r = ConfigReader(config, t)
    if generic or t in _LLAMA_LIKE:
        fields = _llama_like(r)
    elif t in LAYERNORM_FAMILIES:
        fields = layernorm_family(r)
    elif t == "chatglm":
        fields = _chatglm(r)
    else:
        fields = _gpt(r)
    fields["native_dtype"] = _dtype(r)
    origin = config.get("_name_or_path")
    label = name or (origin.rsplit("/", 1)[-1] if isinstance(origin, str) and origin else f"custom {t} model")
    spec_id = id or (_slug(label) if isinstance(origin, str) and origin else f"custom-{_slug(t)}")
    notes = "Parsed from config.json."
    if r.defaults:
        notes += " Defaults used: " + ", ".join(r.defaults) + "."
    try:
        if generic:
            notes += (f" model_type '{t}' is not one of the known families: read as a standard decoder-only model "
                      "(Llama layout: RMSNorm, gated MLP, no biases); check the count against a published one.")
        fields.setdefault("block", _BLOCK.get(t, "llama"))
        return ModelSpec(id=spec_id, name=label, family=t.split("_")[0], model_type=t, notes=notes,
                         cite={"architecture": [USER_CONFIG_SOURCE]}, **fields)
    except StructError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise InputError(f"config.json ({t}): inconsistent architecture: {loc}: {err['msg']}", field=loc) from None


MAX_CONFIG_BYTES = 4 * 2**20  # real config.json files are a few KB (DeepSeek-V3's is 1.7 KB)
MAX_JSON_DEPTH = 32  # nesting of arrays/objects; configs nest 2-3 levels (quantization_config, rope_scaling)
MAX_INT_DIGITS = 18  # config integers are sizes and counts; 10^18 is far above any


def load_hf_config(path: str | Path, id: str | None = None) -> ModelSpec:
    """Read `path` (a config.json file, or a directory holding one) and parse it with :func:`spec_from_hf_config`.
    The read is bounded (`MAX_CONFIG_BYTES`: a device such as /dev/zero is refused, not read forever) and so is
    the JSON (`parse_config_json`)."""
    p = Path(path)
    try:
        if p.is_dir():
            p = p / "config.json"
        with p.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read config file '{p}': {exc.strerror}", field="config") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise InputError(f"config file '{p}' is larger than {MAX_CONFIG_BYTES // 2**20} MiB", field="config",
                         accepted=f"a config.json of at most {MAX_CONFIG_BYTES // 2**20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"'{p}' is not UTF-8 text (byte {exc.start})", field="config",
                         accepted="a UTF-8 JSON file") from None
    return spec_from_hf_config(parse_config_json(text, str(p)), id=id)


def parse_config_json(text: str, name: str = "config.json") -> Any:
    """Strict JSON for a config file: nesting at most `MAX_JSON_DEPTH` deep (checked before parsing, so
    no RecursionError), no NaN/Infinity (neither the literals nor overflowing numbers such as 1e400), integers
    of at most `MAX_INT_DIGITS` digits. Every refusal is an InputError naming the file."""
    depth = _json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"'{name}' nests arrays/objects more than {MAX_JSON_DEPTH} levels deep", field="config",
                         accepted=f"JSON nested at most {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=lambda c: _not_finite(name, c),
                          parse_float=lambda t: _finite_float(name, t), parse_int=lambda t: _bounded_int(name, t))
    except json.JSONDecodeError as exc:
        raise InputError(f"'{name}' is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                         field="config") from None


def _json_depth(text: str) -> int:
    """Deepest bracket nesting outside strings (a linear scan; stops counting once past the limit)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _not_finite(name: str, constant: str) -> Any:
    raise InputError(f"'{name}' contains {constant}", field="config", accepted="finite numbers only")


def _finite_float(name: str, text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"'{name}': the number {text[:40]} is out of range", field="config",
                         accepted="finite numbers (below 1.8e308)")
    return value


def _bounded_int(name: str, text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise InputError(f"'{name}': an integer with {digits} digits is out of range", field="config",
                         accepted=f"integers of at most {MAX_INT_DIGITS} digits")
    return int(text)
