"""Model specs built in tests from published config.json values (each with its source), for memory validation.

Kept beside the tests (not in the catalog) because they exist only as validation references.
"""

from __future__ import annotations

from knowledge.schemas import ModelSpec


def octocoder() -> ModelSpec:
    """bigcode/octocoder (StarCoder fine-tune): GPTBigCode, 15.5B, multi-query attention.

    config.json: n_embd 6144, n_layer 40, n_head 48, multi_query true (1 KV head), n_inner 24576, vocab 49152,
    n_positions 8192, tied lm_head; LayerNorm + biases, GeLU MLP, learned positions
    (https://huggingface.co/bigcode/octocoder/blob/main/config.json; the same values appear in StarCoder conversion
    defaults, e.g. Cerebras' modelzoo HF converter).
    """
    return ModelSpec(id="octocoder", name="OctoCoder 15.5B", family="starcoder", model_type="gpt_bigcode", block="gpt",
                     hidden_size=6144, num_layers=40, num_attention_heads=48, num_kv_heads=1, head_dim=128,
                     intermediate_size=24576, vocab_size=49152, tie_word_embeddings=True, max_context=8192,
                     hidden_act="gelu_pytorch_tanh", gated_mlp=False, attention_bias=True,
                     position_embedding="learned", cite={"architecture": ["octocoder-config"]})


def codellama_34b() -> ModelSpec:
    """codellama/CodeLlama-34b-Instruct-hf config.json: hidden 8192, 48 layers, 64 heads, 8 KV heads,
    intermediate 22016, vocab 32000, max_position_embeddings 16384."""
    return ModelSpec(id="codellama-34b", name="CodeLlama-34B", family="llama", model_type="llama",
                     hidden_size=8192, num_layers=48, num_attention_heads=64, num_kv_heads=8, head_dim=128,
                     intermediate_size=22016, vocab_size=32000, max_context=16384,
                     cite={"architecture": ["codellama-34b-config"]})


def gpt_like(h: int = 4096, a: int = 32, layers: int = 4, vocab: int = 50257) -> ModelSpec:
    """A GPT-3-style block (LayerNorm, 4h GeLU MLP, MHA, dropout) — Korthikanti et al.'s setting."""
    return ModelSpec(id=f"gpt-like-{h}", name="GPT-like", family="gpt", model_type="gpt2", block="gpt",
                     hidden_size=h, num_layers=layers, num_attention_heads=a, num_kv_heads=a, head_dim=h // a,
                     intermediate_size=4 * h, vocab_size=vocab, max_context=2048, gated_mlp=False,
                     attention_bias=True, hidden_act="gelu", position_embedding="learned",
                     cite={"architecture": ["korthikanti-2022"]})


def llama_like(h: int = 4096, layers: int = 32, heads: int = 32, kv: int = 32, ffn: int = 11008,
               vocab: int = 32000, **extra) -> ModelSpec:
    return ModelSpec(id=f"llama-like-{h}-{layers}-{heads}-{kv}", name="Llama-like", family="llama",
                     model_type="llama", hidden_size=h, num_layers=layers, num_attention_heads=heads,
                     num_kv_heads=kv, head_dim=h // heads, intermediate_size=ffn, vocab_size=vocab,
                     max_context=131072, cite={"architecture": ["llama-2-7b-config"]}, **extra)


def bloomz_7b1() -> ModelSpec:
    """bigscience/bloomz-7b1 config.json: hidden 4096, n_layer 30, n_head 32, vocab 250880, tied embeddings,
    ALiBi, LayerNorm + biases, 4h GeLU MLP (https://huggingface.co/bigscience/bloomz-7b1/blob/main/config.json)."""
    return ModelSpec(id="bloomz-7b1", name="BLOOMZ-7b1", family="bloom", model_type="bloom", block="bloom",
                     hidden_size=4096, num_layers=30, num_attention_heads=32, num_kv_heads=32, head_dim=128,
                     intermediate_size=16384, vocab_size=250880, tie_word_embeddings=True, max_context=2048,
                     hidden_act="gelu", gated_mlp=False, attention_bias=True, position_embedding="alibi",
                     native_dtype="float16", cite={"architecture": ["bloomz-7b1-config"]})
