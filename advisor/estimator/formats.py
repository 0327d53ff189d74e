"""Weight and KV-cache storage formats: how many bits each tensor really takes.

Every weight tensor comes from :func:`knowledge.params.linear_layers`; this module only decides the bits per
weight of each tensor under a format and shards them over tensor/pipeline parallelism. Sources (ids in
``knowledge/data/sources/memory.yaml``):

* GGUF block sizes (``ggml-common.h``: Q4_0 = 18 B / 32 weights = 4.5 bpw, Q8_0 = 34 B / 32 = 8.5, Q2_K = 84 B /
  256 = 2.625, Q3_K = 110/256 = 3.4375, Q4_K = 144/256 = 4.5, Q5_K = 176/256 = 5.5, Q6_K = 210/256 = 6.5625) and
  the k-quant mixes of ``llama_tensor_get_type`` (``src/llama-quant.cpp``): output.weight in Q6_K, more bits for
  attn_v / ffn_down on the ``use_more_bits`` layers, norms and router kept in F32 [llamacpp-quant, llamacpp-ggml-common].
* GPTQ (AutoGPTQ packing): int4 weights, per group of 128 one fp16 scale and one packed 4-bit zero, an int32
  ``g_idx`` per input row; embeddings and lm_head stay 16-bit [gptq-paper, autogptq-qlinear].
* AWQ (GEMM packing): int4, per group of 128 one fp16 scale and one packed 4-bit zero [awq-paper].
* bitsandbytes NF4 with double quantisation: 4 + 8/64 + 32/(64·256) = 4.127 bits [qlora-paper];
  LLM.int8: int8 + one fp32 scale per output row [llm-int8-paper]; transformers keeps lm_head unquantised.
* FP8 (DeepSeek-V3 style fine-grained): e4m3 + one fp32 scale per 128×128 block; embeddings/lm_head 16-bit
  [deepseek-v3-report].
* MXFP4 (OCP Microscaling: FP4 e2m1 elements, one 8-bit E8M0 scale per block of 32 = 4.25 bits): gpt-oss stores
  only the MoE experts this way; attention, router, embedding and lm_head stay bf16 (its config.json
  `quantization_config.modules_to_not_convert`).
* INT4 routed experts (``int4-experts``; Kimi K2 Thinking's native format): compressed-tensors ``pack-quantized``,
  symmetric int4 (eight values packed per int32) with one bf16 scale per group of 32 = 4 + 16/32 = 4.5 bits, and
  no zero point; attention, shared experts, the dense MLP, router, embedding and lm_head stay bf16 (its config.json
  ``quantization_config.ignore``) [kimi-k2-thinking-quant].
* NVFP4 (FP4 e2m1, one FP8 e4m3 scale per 16 values = 4.5 bits, plus a per-tensor fp32 scale): NVIDIA ModelOpt
  checkpoints quantise the linear layers; embeddings and lm_head stay 16-bit.
* GGUF i-quants (``block_iq*`` sizes: IQ1_S 50 B, IQ1_M 56, IQ2_XXS 66, IQ2_XS 74, IQ2_S 82, IQ3_XXS 98, IQ3_S 110,
  IQ4_XS 136 per 256 weights; IQ4_NL 18 per 32) with the per-tensor rules of ``llama_tensor_get_type_impl``
  (importance matrix assumed, as IQ1/IQ2/IQ3_XXS require), and ``mxfp4_moe`` (experts MXFP4, the rest Q8_0)
  [llamacpp-quant, llamacpp-ggml-common]. Dynamic low-bit mixes (Unsloth "UD-" files) set per-tensor types by a
  recipe that is not a published rule: their exact size comes from the file's header (knowledge.weight_files).
"""

from __future__ import annotations

from functools import lru_cache

from knowledge.errors import InputError
from knowledge.params import Linear, cached_per_spec, linear_layers, param_counts
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

QUANTISED_GROUPS = frozenset({"attention", "mlp", "experts", "shared_experts"})

# bits of one stored value of each ggml block type (block bytes × 8 / block weights)
GGML_TYPE_BITS: dict[str, float] = {
    "F32": 32.0, "F16": 16.0, "BF16": 16.0,
    "Q4_0": 18 * 8 / 32, "Q4_1": 20 * 8 / 32, "Q5_0": 22 * 8 / 32, "Q5_1": 24 * 8 / 32, "Q8_0": 34 * 8 / 32,
    "IQ4_NL": 18 * 8 / 32,
    "Q2_K": 84 * 8 / 256, "Q3_K": 110 * 8 / 256, "Q4_K": 144 * 8 / 256, "Q5_K": 176 * 8 / 256,
    "Q6_K": 210 * 8 / 256,
    # i-quants (ggml-common.h block_iq*: bytes per 256-weight super-block; IQ4_NL per 32)
    "IQ1_S": 50 * 8 / 256, "IQ1_M": 56 * 8 / 256, "IQ2_XXS": 66 * 8 / 256, "IQ2_XS": 74 * 8 / 256,
    "IQ2_S": 82 * 8 / 256, "IQ3_XXS": 98 * 8 / 256, "IQ3_S": 110 * 8 / 256, "IQ4_XS": 136 * 8 / 256,
    "MXFP4": 17 * 8 / 32,  # block_mxfp4: one E8M0 scale byte + 16 bytes of 32 FP4 values
}
QK_K = 256  # super-block of the k-quants: rows whose length is not a multiple fall back to a legacy type
_K_FALLBACK = {"Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0",
               **dict.fromkeys(("IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_XS"), "IQ4_NL")}

# GGUF file types -> their default tensor type (llama_model_quantize_impl)
GGUF_BASE: dict[str, str] = {
    "q8_0": "Q8_0", "q6_k": "Q6_K", "q5_k_m": "Q5_K", "q4_k_m": "Q4_K", "q4_0": "Q4_0", "q3_k_m": "Q3_K",
    "q2_k": "Q2_K",
    # i-quant file types -> default tensor type (llama_ftype_get_default_type); they need an importance matrix
    "iq1_s": "IQ1_S", "iq1_m": "IQ1_M", "iq2_xxs": "IQ2_XXS", "iq2_xs": "IQ2_XS", "iq2_s": "IQ2_XS", "iq2_m": "IQ2_S",
    "iq3_xxs": "IQ3_XXS", "iq3_s": "IQ3_S", "iq3_m": "IQ3_S", "iq4_xs": "IQ4_XS", "iq4_nl": "IQ4_NL",
    "mxfp4_moe": "MXFP4",  # LLAMA_FTYPE_MOSTLY_MXFP4_MOE: expert tensors MXFP4, every other tensor Q8_0
}
_IQ_LOW = frozenset({"iq2_xxs", "iq2_xs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"})  # the 1-2 bit branch of the rules

GPTQ_GROUP = 128
AWQ_GROUP = 128
NF4_BLOCK = 64
NF4_DQ_BLOCK = 256
FP8_BLOCK = 128
MX_BLOCK = 32  # MXFP4: one E8M0 scale per 32 FP4 values
CT_INT4_GROUP = 32  # Kimi K2 Thinking: compressed-tensors int4, one bf16 scale per 32 weights (symmetric)
NVFP4_BLOCK = 16  # NVFP4: one FP8 scale per 16 FP4 values


# checkpoints published at 4 bits whose GGUF files keep that format, which llama.cpp runs natively: gpt-oss's MXFP4
# experts (ggml-org/gpt-oss-20b-GGUF and -120b-GGUF), so llama.cpp or a home machine runs them as released
NATIVE_GGUF = ("mxfp4",)

# the short names answers and tables show ("GGUF Q4_K_M"); FormatInfo.label is the long description
FORMAT_NAMES = {
    "fp32": "FP32", "bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int8": "INT8", "int4": "INT4",
    "gptq-int4": "GPTQ INT4", "gptq-int8": "GPTQ INT8", "awq-int4": "AWQ INT4", "nf4": "NF4 (bitsandbytes)",
    "bnb-int8": "bitsandbytes INT8", "q8_0": "GGUF Q8_0", "q6_k": "GGUF Q6_K", "q5_k_m": "GGUF Q5_K_M",
    "q4_k_m": "GGUF Q4_K_M", "q4_0": "GGUF Q4_0", "q3_k_m": "GGUF Q3_K_M", "q2_k": "GGUF Q2_K",
    "mxfp4": "MXFP4", "nvfp4": "NVFP4", "int4-experts": "INT4 experts + BF16",
}


class FormatInfo(Value):
    name: str
    bits: float  # bits per quantised weight, scales/zeros included (GGUF mixes: see bits_per_weight)
    family: str  # "float", "weight-only", "bnb", "gguf"
    label: str


FORMATS: dict[str, FormatInfo] = {
    "fp32": FormatInfo("fp32", 32.0, "float", "FP32"),
    "bf16": FormatInfo("bf16", 16.0, "float", "BF16"),
    "fp16": FormatInfo("fp16", 16.0, "float", "FP16"),
    "fp8": FormatInfo("fp8", 8.0 + 32 / FP8_BLOCK**2, "weight-only", "FP8 e4m3, 128×128 block scales"),
    "int8": FormatInfo("int8", 8.0, "weight-only", "INT8 weight-only, per-channel fp16 scale"),
    "int4": FormatInfo("int4", 4.0 + 20 / 128, "weight-only", "INT4 weight-only, group 128 (scale+zero)"),
    "gptq-int4": FormatInfo("gptq-int4", 4.0 + (16 + 4) / GPTQ_GROUP, "weight-only", "GPTQ 4-bit, group 128"),
    "gptq-int8": FormatInfo("gptq-int8", 8.0 + (16 + 8) / GPTQ_GROUP, "weight-only", "GPTQ 8-bit, group 128"),
    "awq-int4": FormatInfo("awq-int4", 4.0 + (16 + 4) / AWQ_GROUP, "weight-only", "AWQ 4-bit, group 128"),
    "nf4": FormatInfo("nf4", 4.0 + 8 / NF4_BLOCK + 32 / (NF4_BLOCK * NF4_DQ_BLOCK), "bnb",
                      "bitsandbytes NF4, double quantisation"),
    "bnb-4bit": FormatInfo("bnb-4bit", 4.0 + 32 / NF4_BLOCK, "bnb",
                           "bitsandbytes 4-bit defaults (FP4, fp32 absmax per 64, no double quantisation)"),
    "bnb-int8": FormatInfo("bnb-int8", 8.0, "bnb", "bitsandbytes LLM.int8"),
    **{k: FormatInfo(k, GGML_TYPE_BITS[v], "gguf", f"GGUF {k.upper()}") for k, v in GGUF_BASE.items()},
    "mxfp4": FormatInfo("mxfp4", 4.0 + 8 / MX_BLOCK, "weight-only",
                        "MXFP4 MoE experts (E8M0 scale per 32), the rest bf16"),
    "nvfp4": FormatInfo("nvfp4", 4.0 + 8 / NVFP4_BLOCK, "weight-only", "NVFP4 (FP8 scale per 16)"),
    "int4-experts": FormatInfo("int4-experts", 4.0 + 16 / CT_INT4_GROUP, "weight-only",
                               "INT4 routed experts (compressed-tensors, bf16 scale per 32), the rest BF16"),
}
# formats that quantise only these groups (the rest stays 16-bit)
ONLY_GROUPS: dict[str, frozenset[str]] = {"mxfp4": frozenset({"experts"}), "int4-experts": frozenset({"experts"})}

# the tensor-core precision a format's matmuls can run at natively; elsewhere its weights are dequantised to 16-bit
# on the fly (weight-only: smaller and faster to read, no compute speed-up). FP8: Ada, Hopper, Blackwell, CDNA3+
# (GpuSpec.supports_fp8); FP4 (MXFP4/NVFP4): Blackwell, the parts whose datasheets give an FP4 figure (fp4_dense_flops).
NATIVE_COMPUTE: dict[str, str] = {"fp8": "fp8", "mxfp4": "fp4", "nvfp4": "fp4"}

KV_BITS: dict[str, int] = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4}


def check_format(fmt: str) -> FormatInfo:
    try:
        return FORMATS[fmt.lower()]
    except KeyError:
        raise InputError(f"unknown weight format '{fmt}'", field="weights", accepted=", ".join(FORMATS)) from None


def native_compute(fmt: str, gpu: GpuSpec) -> str | None:
    """"fp8" or "fp4" when `gpu` runs `fmt`'s matmuls on tensor cores of that precision, else None (weight-only)."""
    kind = NATIVE_COMPUTE.get(check_format(fmt).name)
    if kind == "fp8" and gpu.supports_fp8 and gpu.fp8_dense_flops:
        return "fp8"
    if kind == "fp4" and gpu.fp4_dense_flops:
        return "fp4"
    return None


def quantised_active_share(model: ModelSpec, fmt: str) -> float:
    """Share of the per-token matmul parameters stored in `fmt`'s quantised groups (MXFP4 in gpt-oss: the active
    experts only; the rest runs in 16-bit). Routed experts count k/E of their parameters."""
    groups = ONLY_GROUPS.get(check_format(fmt).name, QUANTISED_GROUPS)
    counts = param_counts(model)
    active: dict[str, float] = {}
    for g in ("attention", "mlp", "experts", "shared_experts"):
        value = float(counts.by_group.get(g, 0))
        if g == "experts" and model.n_routed_experts:
            value *= model.experts_per_token / model.n_routed_experts
        active[g] = value
    total = sum(active.values()) + counts.by_group.get("lm_head", 0)
    return sum(v for g, v in active.items() if g in groups) / total if total else 0.0


def kv_bits(kv: str) -> int:
    try:
        return KV_BITS[kv.lower()]
    except KeyError:
        raise InputError(f"unknown KV-cache format '{kv}'", field="kv", accepted=", ".join(KV_BITS)) from None


# --------------------------------------------------------------------------------------------------------------
# GGUF k-quant mixes (llama_tensor_get_type, llama.cpp src/llama-quant.cpp)

def _use_more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _gguf_role(layer: Linear) -> str:
    return {
        "embed_tokens": "token_embd", "lm_head": "output", "q_proj": "attn_q", "k_proj": "attn_k",
        "v_proj": "attn_v", "o_proj": "attn_output", "down_proj": "ffn_down", "fc_out": "ffn_down",
        "gate_proj": "ffn_gate", "up_proj": "ffn_up", "fc_in": "ffn_up", "router": "ffn_gate_inp",
        "kv_b_proj": "attn_v",  # llama.cpp treats attn_kv_b like attn_v (category_is_attn_v)
    }.get(layer.name, layer.name)


def _gguf_tensor_type(fmt: str, role: str, i: int, n: int, m: ModelSpec) -> str:
    """ggml type of one 2-D tensor (layer index i of n) under GGUF file type `fmt`."""
    base = GGUF_BASE[fmt]
    n_gqa = m.num_attention_heads // m.num_kv_heads
    experts8 = m.n_routed_experts == 8
    if role == "output":
        row = m.hidden_size
        if base == "Q8_0" or fmt == "mxfp4_moe" or row % (32 if base in ("Q4_0", "IQ4_NL") else QK_K):
            return "Q8_0"
        return "Q5_K" if fmt in _IQ_LOW or fmt == "iq3_xxs" else "Q6_K"
    if fmt.startswith("iq"):
        return _iquant_tensor_type(fmt, role, i, n, m)
    t = base
    if role == "attn_v":
        if fmt == "q2_k":
            t = "Q4_K" if n_gqa >= 4 else "Q3_K"
        elif fmt == "q3_k_m":
            t = "Q5_K" if i < 2 else "Q4_K"
        elif fmt in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            t = "Q6_K"
        if m.num_layers == 80 and t in ("Q3_K", "Q4_K"):  # LLM_TYPE_70B: attn_v is n_gqa× smaller, give it bits
            t = "Q5_K"
        if experts8:
            t = "Q8_0"
    elif role == "attn_k" and experts8:
        t = "Q8_0"
    elif role == "ffn_down":
        if fmt == "q2_k":
            t = "Q3_K"
        elif fmt == "q3_k_m":
            t = "Q5_K" if i < n // 16 else "Q4_K"
        elif fmt in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            t = "Q6_K"
    elif role == "attn_output":
        if experts8:
            if fmt in ("q2_k", "q3_k_m", "q4_k_m"):
                t = "Q5_K"
        elif fmt in ("q2_k", "q3_k_m"):
            t = {"q2_k": "Q3_K", "q3_k_m": "Q4_K"}[fmt]
    return t


def _iquant_tensor_type(fmt: str, role: str, i: int, n: int, m: ModelSpec) -> str:
    """ggml type of one tensor under an i-quant file type (llama_tensor_get_type_impl). An importance matrix is
    assumed where the type requires one (IQ1, IQ2, IQ3_XXS) and not elsewhere, as in llama.cpp's published
    Llama-3.1-8B table (tools/quantize/README.md)."""
    base = GGUF_BASE[fmt]
    n_gqa = m.num_attention_heads // m.num_kv_heads
    experts = m.n_routed_experts
    if role == "token_embd":
        if fmt in ("iq2_xxs", "iq2_xs", "iq1_s", "iq1_m"):
            return "Q2_K"
        return "IQ3_S" if fmt in ("iq2_s", "iq2_m", "iq3_xxs") else base
    if fmt in _IQ_LOW:
        if role == "attn_v":
            return "Q4_K" if n_gqa >= 4 or experts >= 4 else ("IQ3_S" if fmt in ("iq2_s", "iq2_m") else "Q2_K")
        if role == "attn_k" and experts == 8:
            return "Q4_K"
        if role == "ffn_down" and i < n // 8:
            return "IQ3_S" if fmt in ("iq2_s", "iq2_m") else "Q2_K"
        if role == "attn_output":
            if experts == 8:
                return "Q5_K"
            if fmt in ("iq1_s", "iq1_m"):
                return "IQ2_XXS"
            if fmt in ("iq2_s", "iq2_m"):
                return "IQ3_S"
        return base
    t = base
    if role == "attn_v":
        if fmt == "iq3_xxs":
            t = "Q4_K" if n_gqa >= 4 else "IQ3_XXS"
        elif (fmt == "iq3_s" and n_gqa >= 4) or fmt == "iq3_m":
            t = "Q4_K"
        elif fmt in ("iq4_nl", "iq4_xs") and n_gqa >= 4:
            t = "Q5_K"
        if m.num_layers == 80 and t in ("Q3_K", "Q4_K"):
            t = "Q5_K"
        if experts == 8:
            t = "Q8_0"
    elif role == "attn_k":
        t = "Q8_0" if experts == 8 else "IQ2_S" if fmt == "iq3_xxs" else base
    elif role == "attn_q" and fmt == "iq3_xxs":
        t = "IQ2_S"
    elif role == "ffn_down" and fmt == "iq3_m" and (i < n // 8 or (experts == 8 and _use_more_bits(i, n))):
        t = "Q4_K"
    elif role == "ffn_down" and fmt in ("iq4_nl", "iq4_xs") and i < n // 8:
        t = "Q5_K"  # without an importance matrix
    elif role == "attn_output":
        if experts == 8:
            t = "Q5_K" if fmt in ("iq3_xxs", "iq4_nl", "iq3_s", "iq3_m", "iq4_xs") else base
        elif fmt == "iq3_xxs":
            t = "IQ3_S"
        elif fmt == "iq3_m":
            t = "Q4_K"
    return t


def _gguf_bits(layer: Linear, fmt: str, m: ModelSpec, tied_output: bool) -> float:
    """Total bits of all `count` copies of one tensor in a GGUF file."""
    if layer.group == "norm" or layer.name in ("router", "sinks", "conv1d", "dt_bias_a_log") or layer.d_in == 1:
        return 32.0 * layer.params  # 1-D tensors, ffn_gate_inp and conv1d are not quantised (F32)
    if fmt == "mxfp4_moe":  # expert tensors MXFP4, everything else Q8_0 (llama_tensor_get_type_impl)
        t = "MXFP4" if layer.per_expert and layer.d_in % 32 == 0 else "Q8_0"
        return GGML_TYPE_BITS[t] * layer.d_in * layer.d_out * layer.count + 32.0 * layer.bias * layer.count
    if layer.group == "position":
        return 16.0 * layer.params  # position embeddings are not quantised
    role = _gguf_role(layer)
    if role == "token_embd" and tied_output:
        role = "output"  # no output.weight: token_embd takes its type
    row = layer.d_out if layer.group in ("embedding", "position") else layer.d_in
    n = m.num_layers
    first, present, copies = _layer_span(layer, m)
    weights_per_copy = layer.d_in * layer.d_out
    total = 0.0
    if present and role in ("attn_v", "ffn_down", "attn_k", "attn_output", "attn_q"):
        for i in range(first, first + present):
            t = _k_fallback(_gguf_tensor_type(fmt, role, i, n, m), row)
            total += GGML_TYPE_BITS[t] * weights_per_copy * copies
    else:
        t = _k_fallback(_gguf_tensor_type(fmt, role, 0, n, m), row)
        total = GGML_TYPE_BITS[t] * weights_per_copy * layer.count
    return total + 32.0 * layer.bias * layer.count


def _layer_span(layer: Linear, m: ModelSpec) -> tuple[int, int, int]:
    """(first layer index, number of layers, copies per layer) of a per-layer tensor; (0, 0, 0) otherwise."""
    if layer.per_expert:
        return m.first_k_dense, m.moe_layers, m.n_routed_experts
    if layer.group in ("shared_experts", "router"):
        return m.first_k_dense, m.moe_layers, 1
    if layer.group == "mlp" and m.is_moe:
        return 0, m.first_k_dense, 1
    if layer.count == m.num_layers:
        return 0, m.num_layers, 1
    return 0, 0, 0


def _k_fallback(t: str, row: int) -> str:
    if t in _K_FALLBACK and row % QK_K:
        return _K_FALLBACK[t]
    return t


# --------------------------------------------------------------------------------------------------------------

def group_bits(bits: int, group_size: int, zero_bits: int | None = None) -> float:
    """Bits per weight of group-wise integer quantisation: bits + (fp16 scale + packed zero) / group_size."""
    return bits + (16 + (bits if zero_bits is None else zero_bits)) / group_size


def tensor_bits(layer: Linear, fmt: str, m: ModelSpec, *, group_size: int | None = None) -> float:
    """Bits of all copies of `layer` stored in `fmt` (biases in 16-bit, or F32 in GGUF).

    `group_size` overrides the group of GPTQ/AWQ/int4 formats (default 128)."""
    info = check_format(fmt)
    if info.family == "gguf":
        return _gguf_bits(layer, info.name, m, tied_output=m.tie_word_embeddings)
    if info.family == "float":
        return (32.0 if info.name == "fp32" else 16.0) * layer.params
    high = 16.0  # tensors the quantisers leave alone: embeddings, lm_head, norms, router, biases
    if layer.group not in ONLY_GROUPS.get(info.name, QUANTISED_GROUPS):
        return high * layer.params
    w = layer.d_in * layer.d_out * layer.count
    bias = high * layer.bias * layer.count
    name = info.name
    if name == "int8":
        return w * 8.0 + 16.0 * layer.d_out * layer.count + bias  # per-output-channel fp16 scale
    if name == "bnb-int8":
        return w * 8.0 + 32.0 * layer.d_out * layer.count + bias  # SCB: fp32 absmax per output row
    bits = info.bits
    if group_size and name in ("gptq-int4", "gptq-int8", "awq-int4", "int4"):
        bits = group_bits(8 if name == "gptq-int8" else 4, group_size)
    if name.startswith("gptq"):
        return w * bits + 32.0 * layer.d_in * layer.count + bias  # + int32 g_idx per input row
    return w * bits + bias



def weight_bytes_by_group(model: ModelSpec, fmt: str, *, group_size: int | None = None) -> dict[str, int]:
    """Bytes of the whole model's weights in `fmt`, per parameter group (embedding, attention, mlp, experts, …)."""
    return dict(_weight_bytes_by_group(model, fmt, group_size))


@cached_per_spec
def _weight_bytes_by_group(model: ModelSpec, fmt: str, group_size: int | None) -> dict[str, int]:
    out: dict[str, float] = {}
    for layer in linear_layers(model):
        out[layer.group] = out.get(layer.group, 0.0) + tensor_bits(layer, fmt, model, group_size=group_size)
    return {g: round(b / 8) for g, b in out.items()}


def weight_bytes(model: ModelSpec, fmt: str, *, tp: int = 1, pp: int = 1, group_size: int | None = None,
                 attention_dp: bool = False) -> int:
    """Bytes of the weights on the most loaded GPU (all weights when tp = pp = 1).

    Each tensor's bits come from :func:`tensor_bits`: quantised formats keep embeddings, lm_head and norms in
    16-bit, GGUF mixes follow llama.cpp's per-tensor rules. Sharding is in :func:`shard_weight_bytes`.
    """
    groups = weight_bytes_by_group(model, fmt.lower(), group_size=group_size)
    if tp == 1 and pp == 1:
        return sum(groups.values())
    return shard_weight_bytes(model, groups, tp=tp, pp=pp, attention_dp=attention_dp)


def kv_heads_per_gpu(model: ModelSpec, tp: int) -> int:
    """KV heads held by one tensor-parallel rank: kv/tp, or 1 replicated head when tp > kv heads (vLLM)."""
    return max(1, model.num_kv_heads // tp)


def shard_weight_bytes(model: ModelSpec, groups: dict[str, int], *, tp: int, pp: int,
                       attention_dp: bool = False) -> int:
    """Per-GPU weight bytes under Megatron-style TP (column/row split of attention, MLP, experts, vocab-parallel
    embedding and lm_head; norms and router replicated; K/V projections replicated once TP exceeds the KV heads)
    and PP (⌈L/pp⌉ layers per stage; the embedding on the first stage, lm_head on the last; the larger end counts).
    `attention_dp` (attention data-parallel over the TP group): the routed experts are split tp ways and every GPU
    keeps the rest whole (attention, dense and shared-expert MLPs, embedding and output head: vLLM's DP ranks are
    replicas but for the expert layers [vllm-data-parallel]; SGLang may split the dense parts further, so this is
    the larger of the two).
    """
    if attention_dp and tp > 1:
        whole = {g: b for g, b in groups.items() if g != "experts"}
        experts = groups.get("experts", 0)
        stage = -(-model.num_layers // pp) / model.num_layers
        return shard_weight_bytes(model, whole, tp=1, pp=pp) + round(experts / tp * stage)
    per_layer_groups = ("attention", "mlp", "experts", "shared_experts", "router", "norm")
    layer_bytes = 0.0
    for g in per_layer_groups:
        b = groups.get(g, 0)
        if g in ("router", "norm"):
            layer_bytes += b
        elif g == "attention" and not model.is_mla and tp > model.num_kv_heads:
            # q and o split tp ways; k and v replicated: each rank keeps one KV head
            q = model.num_attention_heads * model.head_dim
            kv = model.num_kv_heads * model.head_dim
            kv_share = 2 * kv / (2 * q + 2 * kv)
            layer_bytes += b * (1 - kv_share) / tp + b * kv_share / model.num_kv_heads
        else:
            layer_bytes += b / tp
    stage_layers = -(-model.num_layers // pp) / model.num_layers
    ends = [groups.get("embedding", 0) + groups.get("position", 0), groups.get("lm_head", 0)]
    if pp == 1:
        end_bytes = sum(ends) / tp
    else:
        end_bytes = max(ends) / tp
    return round(layer_bytes * stage_layers + end_bytes)


@lru_cache(maxsize=1)
def _reference_model() -> ModelSpec:
    """Llama-2-7B's shape (the model llama.cpp's quantisation tables were first published for)."""
    return ModelSpec(id="llama-2-7b-shape", name="Llama-2-7B shape", family="llama", model_type="llama",
                     hidden_size=4096, num_layers=32, num_attention_heads=32, num_kv_heads=32, head_dim=128,
                     intermediate_size=11008, vocab_size=32000, max_context=4096, native_dtype="float16",
                     cite={"architecture": ["llamacpp-quant"]})


def bits_per_weight(fmt: str) -> float:
    """Bits per weight of `fmt`.

    Single-type formats: the storage rate of a quantised tensor, scales and zeros included (GPTQ/AWQ int4 g128:
    4 + 20/128 = 4.156; NF4 + double quant: 4.127; Q8_0 8.5; Q4_0 4.5; Q6_K 6.5625). GGUF k-quant *mixes*
    (q5_k_m, q4_k_m, q3_k_m, q2_k): the effective rate over all tensors of a Llama-2-7B-shaped model under
    llama.cpp's per-tensor rules (≈ 5.67, 4.84, 3.90, 3.00). For a given model use :func:`weight_bytes`.
    """
    info = check_format(fmt)
    if info.family == "gguf" and info.name in ("q5_k_m", "q4_k_m", "q3_k_m", "q2_k"):
        ref = _reference_model()
        return weight_bytes(ref, info.name) * 8 / param_counts(ref).total
    return info.bits


def effective_bits_per_weight(model: ModelSpec, fmt: str) -> float:
    """Whole-model bits per parameter: weight_bytes × 8 / total params."""
    return weight_bytes(model, fmt) * 8 / param_counts(model).total
