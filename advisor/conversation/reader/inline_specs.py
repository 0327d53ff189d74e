"""Specs the user types instead of a catalog name ("a card with 96 GB at 1.8 TB/s", "一张 96G 显存、带宽 1.8TB/s 的卡"):
read from the text, used as given and said so in the answer's first lines (issue 27, "honesty about the rest").

A card given by its memory is sized by the memory estimate alone (advisor.conversation.render.firstscreen.memory_lead); with
its bandwidth the answer adds the decode ceiling of one sequence, the memory-bandwidth roofline

    tokens/s ≤ bandwidth / bytes read per token,   bytes per token = active weights + the sequence's KV cache

(every decode step reads the weights the token uses and its KV cache once; Williams et al. 2009, "Roofline"; for a
MoE model only the routed experts' share of the weights is read, the active parameters over the total)."""

from __future__ import annotations

import re
from typing import Any

from advisor.conversation.render.book import SRC_USER, Book
from knowledge.errors import AdvisorError, InputError
from knowledge.messages import t
from knowledge.params import param_counts

_BANDWIDTH = re.compile(r"(?<![\d.])(\d{1,5}(?:\.\d+)?)\s*(tb/s|tbps|tb每秒|gb/s|gbps)(?![a-z])")
_SCALE = {"tb/s": 1e12, "tbps": 1e12, "tb每秒": 1e12, "gb/s": 1e9, "gbps": 1e9}  # bytes/s (decimal, as sold)
SRC_ROOFLINE = "memory-bandwidth roofline: bandwidth / (active weight bytes + KV cache bytes) per decoded token"


def read_bandwidth(s: str) -> float | None:
    """A memory bandwidth typed beside an unnamed card ("at 1.8 TB/s", "带宽 1.8TB/s", "3350 GB/s"), in bytes/s.
    Link speeds are not memory bandwidths: a figure right after "nvlink", "pcie", "ib" or "网络" is left alone."""
    for m in _BANDWIDTH.finditer(s.lower()):
        before = s.lower()[max(0, m.start() - 14):m.start()]
        if re.search(r"nvlink|pcie|infiniband|\bib\b|roce|网络|互联|以太网|ethernet", before):
            continue
        value = float(m.group(1)) * _SCALE[m.group(2)]
        if 1e10 <= value <= 1e14:  # 10 GB/s to 100 TB/s: a memory system, not a typo
            return value
    return None


def card_lines(ev: Any, capacity: Any, bandwidth: float | None, book: Book, lang: str, named: str = "") -> list[str]:
    """The sentence saying the typed card's specs were taken as given, with the decode ceiling they imply; `named`:
    the card's own name when the user gave one the catalog lacks ("an MI450X with 432 GB")."""
    if capacity is None:
        return []
    return _card_lines(ev, capacity, bandwidth, book, lang, t("inline_card.named", lang, name=named) if named else "")


def _card_lines(ev: Any, capacity: Any, bandwidth: float | None, book: Book, lang: str, named: str) -> list[str]:
    cap = book.num("capacity you named", capacity.value, capacity.unit, SRC_USER, 0 if capacity.value >= 10 else 1)
    if bandwidth is None:
        n = getattr(ev, "split_count", 1)  # "two 24GB cards": the count said with them
        return [t("inline_card.memory.n", lang, named=named, cap=cap, n=n) if n > 1 else
                t("inline_card.memory", lang, named=named, cap=cap)]
    bw = book.num("memory bandwidth you named", bandwidth / 1e12, "TB/s", SRC_USER, 2 if bandwidth < 1e12 else 1)
    need = getattr(ev, "need", None)
    model = getattr(ev, "model", None)
    if need is None or model is None:
        return [t("inline_card.bandwidth", lang, named=named, cap=cap, bw=bw)]

    counts = param_counts(model)
    share = counts.active / counts.total if counts.total else 1.0
    per_token = need.per_gpu.weights * share + need.per_gpu.kv_cache
    rate = bandwidth / per_token.n  # bytes/s ÷ bytes per token
    ceiling = book.num("decode ceiling of one sequence on the card you described", rate, "tokens/s",
                       SRC_ROOFLINE, 0 if rate >= 10 else 1)
    read = book.gb("bytes read per decoded token (active weights + KV cache)", per_token)
    return [t("inline_card.ceiling", lang, named=named, cap=cap, bw=bw, ceiling=ceiling, read=read)]


# --- a model typed by its shape ("a 40-layer model with hidden 5120 and 8 KV heads") ---------------------------------
_N = r"(\d{1,6}(?:,\d{3})*)"
_SHAPE = {  # field: patterns, the number in group 1 (English "40-layer", "hidden 5120"; Chinese "40 层", "隐藏维度 5120")
    "num_hidden_layers": (rf"(?<![\d.]){_N}\s*[- ]?\s*(?:transformer\s+)?(?:layers?|层|个?\s*decoder\s*层)(?![a-z])",
                          rf"(?:num_hidden_layers|层数)\s*[=:：为是]?\s*{_N}"),
    "hidden_size": (rf"(?:hidden(?:[_ ]size)?|d_model|隐藏(?:层)?(?:维度|大小)|hidden\s*dim(?:ension)?)\s*(?:of|is|=|:|：|为|是)?\s*{_N}",
                    rf"{_N}\s*[- ]?\s*(?:hidden(?:[_ ]size)?|d_model)(?![a-z])"),
    "num_key_value_heads": (rf"(?<![\d.]){_N}\s*(?:个\s*)?(?:kv|key[- ]value)\s*[- ]?(?:heads?|头)",
                            rf"(?:num_key_value_heads|kv\s*heads?|kv\s*头(?:数)?)\s*(?:=|:|：|为|是|of)?\s*{_N}"),
    "num_attention_heads": (rf"(?<![\d.]){_N}\s*(?:个\s*)?(?:attention\s+|query\s+|注意力\s*)?(?:heads?|头)(?![a-z])",
                            rf"(?:num_attention_heads|attention\s+heads|注意力头(?:数)?)\s*(?:=|:|：|为|是|of)?\s*{_N}"),
    "intermediate_size": (rf"(?:intermediate(?:[_ ]size)?|ffn(?:[_ ]hidden)?(?:[_ ]size|\s*dim)?|mlp\s*(?:size|dim)|"
                          rf"中间层?(?:维度|大小)|ffn\s*维度)\s*(?:of|is|=|:|：|为|是)?\s*{_N}",),
    "vocab_size": (rf"(?:vocab(?:ulary)?(?:[_ ]size)?|词表(?:大小)?)\s*(?:of|is|=|:|：|为|是)?\s*{_N}",),
}
_SHAPE_RX = {k: [re.compile(p) for p in v] for k, v in _SHAPE.items()}
# what a typed shape leaves out, taken generously (an under-estimate of memory is worse than an over-estimate): the
# head size of Llama/Qwen-class models, an MLP 3.5× the hidden size (Llama-3-8B: 14336 / 4096), Qwen's 151,936-token
# vocabulary (the largest of the common ones below Gemma's 262k), untied embeddings, a 32k context
HEAD_DIM, MLP_RATIO, VOCAB, CONTEXT = 128, 3.5, 151_936, 32_768


def read_model_shape(s: str) -> tuple[dict[str, int], list[str], list[tuple[int, int]]] | None:
    """The shape of a model the user describes instead of naming (lower-case text): (fields read, fields assumed,
    spans read). None unless both the layer count and the hidden size are given."""
    found: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for key in ("num_key_value_heads", "num_hidden_layers", "hidden_size", "intermediate_size", "vocab_size",
                "num_attention_heads"):
        for rx in _SHAPE_RX[key]:
            m = next((m for m in rx.finditer(s) if not any(a < m.end() and m.start() < b for a, b in spans)), None)
            if m:
                found[key] = int(m.group(1).replace(",", ""))
                spans.append((m.start(), m.end()))
                break
    if "num_hidden_layers" not in found or "hidden_size" not in found:
        return None
    if not (1 <= found["num_hidden_layers"] <= 1000 and 64 <= found["hidden_size"] <= 65536):
        return None
    assumed: list[str] = []
    if "num_attention_heads" not in found:
        found["num_attention_heads"] = max(1, found["hidden_size"] // HEAD_DIM)
        assumed.append("num_attention_heads")
    if "num_key_value_heads" not in found:
        found["num_key_value_heads"] = found["num_attention_heads"]  # no GQA said: every head keeps its K and V
        assumed.append("num_key_value_heads")
    if "intermediate_size" not in found:
        found["intermediate_size"] = round(found["hidden_size"] * MLP_RATIO / 256) * 256
        assumed.append("intermediate_size")
    if "vocab_size" not in found:
        found["vocab_size"] = VOCAB
        assumed.append("vocab_size")
    return found, assumed, spans


def user_model(shape: dict[str, int]) -> Any:
    """A ModelSpec for the typed shape, read as a standard decoder-only (Llama-layout) config.json; its id and name
    say it is the user's model and give the shape."""
    from knowledge.hf_config import spec_from_hf_config  # start-up: `gpu-advisor ask` never loads knowledge.hf_config

    heads, kv = shape["num_attention_heads"], shape["num_key_value_heads"]
    if kv > heads or heads % kv:
        raise InputError(f"{kv} KV heads do not divide {heads} attention heads", field="num_key_value_heads")
    config = {"model_type": "llama", "max_position_embeddings": CONTEXT, "tie_word_embeddings": False,
              "head_dim": shape["hidden_size"] // heads if shape["hidden_size"] % heads == 0 else HEAD_DIM, **shape}
    key = "-".join(str(shape[k]) for k in ("num_hidden_layers", "hidden_size", "num_attention_heads",
                                          "num_key_value_heads", "intermediate_size", "vocab_size"))
    name = (f"your model ({shape['num_hidden_layers']} layers, hidden {shape['hidden_size']}, {heads} heads, "
            f"{kv} KV heads)")
    return spec_from_hf_config(config, id=f"user-shape-{key}", name=name)


ASSUMED: dict[str, list[str]] = {}  # user-shape id -> the fields assumed when it was read (for the answer's line)


def read_user_model(s: str, catalog: Any) -> tuple[Any, list[tuple[int, int]]] | None:
    """The model typed by its shape in `s`, registered in `catalog` under its own id, with the spans read; None when
    no shape is typed or it is inconsistent (then nothing is read)."""
    read = read_model_shape(s)
    if read is None:
        return None
    shape, assumed, spans = read
    try:
        spec = user_model(shape)
    except (AdvisorError, ValueError):
        return None
    catalog.add_user_model(spec)
    ASSUMED[spec.id] = assumed
    return spec, spans


def model_lines(spec: Any, assumed: list[str], book: Book, lang: str) -> list[str]:
    """The sentence saying the model was sized from the shape typed, with its parameter count and what was assumed."""
    params = book.num(f"parameters of {spec.name}", param_counts(spec).total / 1e9, "B params",
                      "knowledge.params.param_counts of the shape you typed", 2 if param_counts(spec).total < 1e10 else 1,
                      suffix="B")
    src = "advisor.conversation.reader.inline_specs: default for a shape typed without it"
    hd = book.num("head size assumed", HEAD_DIM, "", src, 0, suffix="").strip()
    ratio = book.num("MLP width over hidden size assumed", MLP_RATIO, "×", src, 1, suffix="").strip()
    vocab = book.num("vocabulary assumed", VOCAB, "tokens", src, 0, suffix="")
    guess = t("list.sep", lang).join(t(f"inline_model.assumed.{k}", lang, hd=hd, ratio=ratio, vocab=vocab)
                                     for k in assumed)
    return [t("inline_model.sized", lang, params=params,
              assumed=t("inline_model.not_given", lang, guess=guess) if guess else "")]
