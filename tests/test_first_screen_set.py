"""The first-screen test set (tests/conversations/first_screen/*.yaml, issue 13), run through the deterministic dialog.

Each turn may state:

    intent:    the recognised intent (advisor.conversation.reader.intent.INTENTS), also `ask --json`'s `intent`
    verdict:   yes / no / with_changes (feasibility questions; every other intent has none)
    kind:      question / input_error / ... (Turn.extra["kind"])
    checks:    values computed HERE, independently of the estimator, that the first two sentences (or with
               `in: screen` the whole first screen) must show; see `_band` for each kind and its tolerance
    region / excluded / excluded_vendor / same_config / examples / contains: what the reading must have done

Every answer to a feasibility, how-many, how-long or how-much question must also carry its deciding number (the
Number the lead names in Turn.extra["deciding"]) in its first two sentences, and every first screen is at most
20 lines (benchmarks/bench_first_screen.py prints the distribution).

Independent references used by the checks:
- weights = published parameter count x bits / 8 (model cards); quantised formats (AWQ/GPTQ group 128, INT8/FP8)
  add up to a 16-bit scale and zero per group of 128 (+0.25 bit) and may keep the embeddings (vocab x hidden,
  twice when untied, from config.json) in 16 bits: the band runs from all-quantised to that.
- KV cache = 2 (K and V) x layers x KV heads x head size x 2 bytes (BF16) per token (MLA models: layers x
  (kv_lora_rank + rope head size) x 2 bytes), from the model's config.json facts in the catalog.
- need per GPU in [ (weights + KV) / n , (weights + KV) / n x 1.04 + 2.6 GiB ]: the upper allowance is activations,
  CUDA context and CUDA graphs (about 1-2.5 GiB per GPU for vLLM).
- usable memory = card GiB x 0.9 (vLLM's default gpu_memory_utilization, docs.vllm.ai engine arguments); a card
  sold as "N GB" has N GiB of memory.
- decode tokens/s per user <= n x memory bandwidth / (weights + KV of all users) (memory-bound roofline), and at
  least 0.15 of it.
- training FLOPs = k x parameters x tokens, k in [6, 8] for full training (6ND, Kaplan et al. 2020; 8 with full
  recomputation) and [4, 8] for LoRA (no weight gradients of the frozen weights); time at MFU 0.18-0.6 of the
  catalog's dense BF16 peak (and 90 % goodput at the slow end).
- prices: count x a dated price of that card in the catalog, in the currency asked or converted at 6.8-7.4 CNY/USD.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.conversation.grounding import gate as grounding
from advisor.conversation.reader.intent import INTENTS, NUMBERED
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog
from knowledge.structs import dump

HERE = Path(__file__).parent / "conversations" / "first_screen"
CAT = load_catalog()
GIB = 2**30
BITS = {16: (15.9, 16.6), 8: (7.95, 8.8), 4: (4.0, 4.8)}
VLLM_UTIL = 0.9
RUNTIME_GIB = 2.6
CNY_PER_USD = (6.8, 7.4)


def _load() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path in sorted(HERE.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        out += [(path.stem, doc["lang"], conv) for conv in doc["conversations"]]
    return out


CASES = _load()


# -- independent arithmetic -------------------------------------------------------------------------------------
def _kv_per_token(m: Any, ctx: int = 0) -> float:
    """Bytes of BF16 KV cache per token of a `ctx`-token sequence (all layers); layers with a sliding window of W
    tokens (config.json `sliding_window`) cache at most W + 1 of them."""
    if m.kv_lora_rank:
        return m.num_layers * (m.kv_lora_rank + (m.qk_rope_head_dim or 0)) * 2
    head = m.head_dim or m.hidden_size // m.num_attention_heads
    per_layer = 2 * (m.num_kv_heads or m.num_attention_heads) * head * 2
    if not (m.sliding_window and ctx > m.sliding_window + 1):
        return m.num_layers * per_layer
    windowed = m.num_layers if m.sliding_window_layers == "all" else m.num_layers // 2  # "alternate"
    cached = windowed * (m.sliding_window + 1) / ctx + (m.num_layers - windowed)
    return cached * per_layer


def _weights(m: Any, bits: int) -> tuple[float, float]:
    """(low, high) weight bytes: every parameter at `bits`, up to the quantised layers at `bits` + a 16-bit scale
    and zero per group of 128 (+0.25 bit) with the embeddings (vocab x hidden, twice when untied) kept in 16 bits."""
    lo_bits, hi_bits = BITS[bits]
    p = m.published_params
    if bits == 16:
        return p * lo_bits / 8, p * hi_bits / 8
    emb = m.vocab_size * m.hidden_size * (1 if m.tie_word_embeddings else 2)
    return p * lo_bits / 8, max(p * hi_bits / 8, (p - emb) * (bits + 0.25) / 8 + emb * 2)


def _job(c: dict[str, Any]) -> tuple[float, float, float]:
    """(weights low, weights high, KV) in GiB for the case's model, bits, context and users."""
    m = CAT.model(c["model"])
    ctx = c.get("ctx") or m.default_context or 4096
    kv = _kv_per_token(m, ctx) * ctx * c.get("users", 1) / GIB
    w_lo, w_hi = _weights(m, c["bits"])
    return w_lo / GIB, w_hi / GIB, kv


def _need(c: dict[str, Any], n: int | None = None) -> tuple[float, float]:
    w_lo, w_hi, kv = _job(c)
    n = n or c.get("gpus", 1)
    return (w_lo + kv) / n, (w_hi + kv) / n * 1.04 + RUNTIME_GIB


def _usable(gpu_id: str, frac: float = VLLM_UTIL) -> float:
    return CAT.gpu(gpu_id).memory_bytes / GIB * frac


# -- reading the answer -----------------------------------------------------------------------------------------
_NUM = r"(\d[\d,]*(?:\.\d+)?)"
_UNITS = {
    "GiB": _NUM + r"\s*GiB", "GB": _NUM + r"\s*GB(?!/)", "GB/s": _NUM + r"\s*GB/s", "days": _NUM + r"\s*(?:days|天)",
    "per_user": _NUM + r"\s*tokens/s per user|每路\s*" + _NUM + r"\s*tokens/s",
    "money": r"[$¥]" + _NUM, "TFLOPS": _NUM + r"\s*TFLOPS", "count": r"(\d+)×", "most": r"at most (\d+)|最多可同时服务 (\d+)",
}
_GPU_NAMES = sorted(((g.name, g.id) for g in CAT.gpus), key=lambda x: -len(x[0]))


_SHORTER = {"days": ((_NUM + r"\s*(?:hours|小时)", 24.0), (_NUM + r"\s*(?:min|分钟)(?![a-z])", 1440.0))}


def _values(text: str, unit: str) -> list[float]:
    """Every figure in `unit` shown in `text`; a run under a day, shown in hours or minutes, counts in days."""
    out = []
    for pattern, per in ((_UNITS[unit], 1.0), *_SHORTER.get(unit, ())):
        for m in re.finditer(pattern, text):
            raw = next(g for g in m.groups() if g is not None)
            if per != 1.0 and re.match(r"\s*(?:GPU|卡)", text[m.end():]) or "GPU-hours" in m.group(0):
                continue
            out.append(float(raw.replace(",", "")) / per)
    return out


def _config(text: str) -> tuple[int, str] | None:
    """The first "N× <catalog GPU name>" in `text`."""
    for m in re.finditer(r"(\d+)×\s*", text):
        rest = text[m.end():]
        for name, gid in _GPU_NAMES:
            if rest.startswith(name):
                return int(m.group(1)), gid
    return None


def _band(c: dict[str, Any], text: str) -> tuple[str, float, float]:
    """(unit, low, high) the answer must show for one check; `text` is where it is looked for."""
    kind = c["kind"]
    cfg = _config(text)
    if kind == "weights":
        w_lo, w_hi, _ = _job(c)
        return "GiB", w_lo - 0.05, w_hi + 0.05
    if kind == "need":
        lo, hi = _need(c)
        return "GiB", lo - 0.05, hi
    if kind == "usable":
        u = _usable(c["gpu"], c.get("frac", VLLM_UTIL))
        return "GiB", u - 0.06, u + 0.06
    if kind == "usable_of":
        return "GiB", c["gib"] * VLLM_UTIL - 0.06, c["gib"] * VLLM_UTIL + 0.06
    if kind == "shortfall":  # the card: as given, else the catalog GPU the lead names (the previous answer's)
        lo, hi = _need(c)
        u = _usable(c.get("gpu") or next(gid for name, gid in _GPU_NAMES if name in text))
        return "GiB", max(lo - u, 0.0) - 0.1, hi - u + 0.1
    if kind == "gb_of_gib":
        gb = c["gib"] * GIB / 1e9
        return "GB", gb - 0.06, gb + 0.06
    if kind in ("fits_lead", "at_least_weights"):
        assert cfg is not None, f"no 'N× GPU' configuration in {text!r}"
        n, gid = cfg
        if kind == "at_least_weights":  # a configuration holds at least its share of the weights
            return "GiB", _job(c)[0] / n - 0.05, 1e9
        said = re.search(r"INT4|AWQ|GPTQ|4-bit|Q4|INT8|FP8", text.split("\n")[0])  # a quantised path, as the lead says
        if said:
            c = {**c, "bits": 8 if said.group(0) in ("INT8", "FP8") else 4}
        lo, hi = _need(c, n)
        assert n * _usable(gid) >= lo * n - 0.1, f"{n}× {gid} cannot hold {lo * n:.1f} GiB"
        return "GiB", lo - 0.05, hi
    if kind == "count":
        w_lo, w_hi, kv = _job(c)
        u = _usable(c["gpu"])
        n_min = math.ceil((w_lo + kv) / u)
        n_max = 2 ** math.ceil(math.log2(max(1, math.ceil((w_hi + kv) * 1.04 / (u - RUNTIME_GIB)))))
        return "count", n_min, n_max
    if kind == "decode":
        w_lo, _, kv = _job(c)
        n = c.get("count", 1)
        roof = n * CAT.gpu(c["gpu"]).bandwidth_bytes_per_s / ((w_lo + kv) * GIB)
        return "per_user", 0.15 * roof, 1.02 * roof
    if kind == "days":
        m, g = CAT.model(c["model"]), CAT.gpu(c["gpu"])
        k_lo, k_hi = (6, 8) if c["method"] == "full" else (4, 8)
        flops = m.published_params * float(c["tokens"])
        rate = c["count"] * g.bf16_dense_flops
        return "days", k_lo * flops / (rate * 0.6) / 86400 - 0.05, k_hi * flops / (rate * 0.18 * 0.9) / 86400 + 0.05
    if kind == "sequences":
        w_lo, w_hi, _ = _job(c)
        seq = _kv_per_token(CAT.model(c["model"]), c["ctx"]) * c["ctx"] / GIB
        total = c["count"] * _usable(c["gpu"])
        return "most", math.floor((total - c["count"] * RUNTIME_GIB - w_hi * 1.04) / seq), math.floor((total - w_lo) / seq)
    if kind == "catalog":
        g = CAT.gpu(c["gpu"])
        value, unit = {"memory_gib": (g.memory_bytes / GIB, "GiB"), "bandwidth_gbs": (g.bandwidth_bytes_per_s / 1e9, "GB/s"),
                       "bf16_tflops": (g.bf16_dense_flops / 1e12, "TFLOPS")}[c["field"]]
        return unit, value * 0.995 - 0.5, value * 1.005 + 0.5
    raise AssertionError(f"unknown check kind {kind}")


def _check_price(c: dict[str, Any], text: str, lang: str, where: str) -> None:
    gid, n = c.get("gpu"), c.get("count")
    if gid is None:
        cfg = _config(text)
        assert cfg is not None, f"{where}: no configuration in {text!r}"
        n, gid = cfg
    shown = _values(text, "money")
    assert shown, f"{where}: no price in {text!r}"
    cands = []
    for p in CAT.gpu(gid).prices:
        if p.currency == c["currency"]:
            cands.append((n * p.amount * 0.99, n * p.amount * 1.01))
        elif c["currency"] == "CNY":
            cands.append((n * p.amount * CNY_PER_USD[0], n * p.amount * CNY_PER_USD[1]))
        else:
            cands.append((n * p.amount / CNY_PER_USD[1], n * p.amount / CNY_PER_USD[0]))
    assert any(lo <= v <= hi for v in shown for lo, hi in cands), f"{where}: {shown} not {n} × a catalog price of {gid}"
    assert ("¥" if c["currency"] == "CNY" else "$") in text, f"{where}: not in {c['currency']}"


def _check(c: dict[str, Any], lead: str, screen: str, lang: str, where: str) -> None:
    text = screen if c.get("in") == "screen" or c["kind"] == "decode" and "tokens/s" not in lead else lead
    kind = c["kind"]
    if kind == "price":
        return _check_price(c, text, lang, where)
    if kind == "china_date":
        assert CAT.gpu(c["gpu"]).china.as_of.isoformat() in text, f"{where}: market status date missing: {text!r}"
        return None
    if kind == "currency":
        assert c["symbol"] in text, f"{where}: no {c['symbol']} in {text!r}"
        return None
    if kind == "terms_sum":  # the first sentence: "X GiB per GPU = a GiB + b GiB + …"
        nums = _values(re.split(r"(?<=[.。])\s", text)[0], "GiB")
        assert len(nums) >= 3 and abs(nums[0] - sum(nums[1:])) <= 0.06 * len(nums), f"{where}: {nums} do not add up"
        return None
    if kind == "weights_share":
        cfg = _config(text)
        n = cfg[0] if cfg else 1
        w_lo, w_hi, _ = _job(c)
        term = re.search(r"(?:weights|权重)\s*" + _NUM + r"\s*GiB", text)
        assert term, f"{where}: no weights term in {text!r}"
        assert w_lo / n - 0.05 <= float(term.group(1)) <= w_hi / n + 0.05, f"{where}: weights {term.group(1)} GiB per GPU"
        return None
    unit, lo, hi = _band(c, text)
    shown = _values(text, unit)
    assert any(lo <= v <= hi for v in shown), f"{where}: {kind} expects {unit} in [{lo:.2f}, {hi:.2f}], shown {shown}: {text!r}"
    return None


def _shows(text: str, value: float) -> bool:
    """`value` appears in `text` as printed with 0-2 decimals (thousands separators allowed)."""
    nums = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]
    return any(abs(v - value) <= max(0.051, abs(value) * 0.005) for v in nums)


def _grounded(turn: Any, said: str, where: str) -> None:
    """Every number of the first screen is one the turn recorded (Turn.numbers) or the user typed."""
    pool = grounding.Pool.of([{"numbers": [dump(n) for n in turn.numbers]}], texts=[said])
    for n in turn.numbers:
        pool.add_text(f"{n.value!r} {n.unit}")
    report = grounding.check(fs.split_details(turn.answer)[0], pool)
    assert report.ok, f"{where}: first-screen numbers not in Turn.numbers: {[m.text for m in report.ungrounded]}"


# -- the tests --------------------------------------------------------------------------------------------------
def test_the_set_covers_what_the_issue_asks():
    turns = [(lang, t) for _, lang, conv in CASES for t in conv["turns"]]
    assert len(turns) >= 80
    zh = sum(1 for lang, _ in turns if lang == "zh")
    assert abs(zh - (len(turns) - zh)) <= len(turns) * 0.1, f"{zh} Chinese of {len(turns)}"
    assert sum(1 for _, _, conv in CASES if len(conv["turns"]) > 1) >= 12
    intents = {t.get("intent") for _, t in turns}
    assert set(INTENTS) - {"other"} <= intents, set(INTENTS) - intents
    verdicts = {t.get("verdict") for _, t in turns if t.get("intent") == "feasibility"}
    assert {"yes", "no", "with_changes"} <= verdicts
    assert sum(1 for _, t in turns if t.get("same_config")) >= 6
    assert sum(1 for _, t in turns if t.get("region") == "cn") >= 4
    assert sum(1 for _, t in turns if t.get("excluded") or t.get("excluded_vendor")) >= 4
    assert sum(1 for _, t in turns for c in t.get("checks", []) if c["kind"] == "gb_of_gib") >= 3
    assert len({conv["id"] for _, _, conv in CASES}) == len(CASES)
    assert all("intent" in t for _, t in turns), "every turn states its intent (null: no question answered)"


@pytest.mark.parametrize("stem, lang, conv", CASES, ids=[c[2]["id"] for c in CASES])
def test_first_screen(stem, lang, conv, monkeypatch):
    for name in ("OPENAI_API_KEY", "ADVISOR_MODEL", "ADVISOR_SETTINGS"):
        monkeypatch.delenv(name, raising=False)
    session = Conversation(driver="deterministic", lang=lang)
    previous: Any = None
    for i, t in enumerate(conv["turns"]):
        where = f"{conv['id']} turn {i + 1} ({t['say']!r})"
        turn = session.respond(t["say"])
        contract = turn.to_contract()
        screen = fs.split_details(turn.answer)[0]
        lead = fs.first_sentences(turn.answer, 2)
        if "kind" in t:
            assert turn.extra.get("kind") == t["kind"], f"{where}: kind {turn.extra.get('kind')}\n{turn.answer}"
        if "intent" in t:
            assert contract["intent"] == t["intent"], f"{where}: intent {contract['intent']}\n{screen}"
        if contract["intent"] == "feasibility" or "verdict" in t:
            assert contract["verdict"] == t.get("verdict"), f"{where}: verdict {contract['verdict']}\n{screen}"
        else:
            assert contract["verdict"] is None, where
        assert fs.first_screen_lines(turn.answer) <= 20, f"{where}: first screen too long\n{screen}"
        if contract["intent"] in NUMBERED:
            name = turn.extra.get("deciding")
            number = next((n for n in turn.numbers if n.name == name), None)
            assert number is not None, f"{where}: no deciding number ({name!r})"
            assert _shows(lead, number.value), f"{where}: deciding {name} = {number.value} not in {lead!r}"
        for c in t.get("checks", []):
            _check(c, lead, screen, lang, where)
        if turn.extra.get("kind") != "input_error":  # fixed one-line messages with their own examples
            _grounded(turn, t["say"], where)
        for word in t.get("contains", []):
            assert word.lower() in screen.lower(), f"{where}: {word!r} not in\n{screen}"
        if "region" in t:
            assert session.state.slots.region == t["region"], where
        option_gpus = {o["gpu"] for o in turn.options}
        for gid in t.get("excluded", []):
            assert gid not in option_gpus and gid not in lead, f"{where}: excluded {gid} offered"
        if "excluded_vendor" in t:
            assert all(CAT.gpu(g).vendor.lower() != t["excluded_vendor"] for g in option_gpus), where
        if t.get("same_config"):
            before = (previous.extra.get("top") or {}) if previous is not None else {}
            cfg = _config(lead)
            assert cfg is not None and before and cfg == (before["count"], before["gpu"]), \
                f"{where}: {cfg} is not the previous answer's {before}\n{lead}"
        if "examples" in t:
            asked = [ln for ln in screen.splitlines() if ln.startswith("- ") and ln.rstrip().endswith(("?", "？"))]
            assert len(asked) >= t["examples"], f"{where}: {asked}"
            cjk = [bool(re.search(r"[\u4e00-\u9fff]", q)) for q in asked]
            assert all(cjk) if lang == "zh" else not any(cjk), f"{where}: examples not in {lang}"
        previous = turn if turn.extra.get("top") else previous
