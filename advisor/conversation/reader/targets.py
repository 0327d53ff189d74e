"""Serving targets a question states, in any order and wording: time to first token ("TTFT under 1 s", "1.5s TTFT",
"首字延迟 800 毫秒以内"), time per output token ("TPOT ≤ 50 ms", "45 ms/token", "每个 token 间隔不超过 30 毫秒"), a
per-user speed ("each should see at least 20 tokens/s", "no slower than 40 t/s each", "保证每人 25 token/s 以上",
read as TPOT = 1000 / speed ms), an end-to-end time ("the whole reply within 10 s", "端到端 5 秒以内") and a total
throughput ("5000 tokens/s in total", "总吞吐不低于 3000 tokens/s").

Reading is in two steps, so that a wording is not one pattern of its own:

1. *Quantities*: every number with a time unit (ms, s, 毫秒, 秒) or a rate unit (tokens/s, tok/s, t/s, tps,
   tokens per second, 个 token 每秒, "每秒 30 个 token", 字/秒, words per second) is found; nothing else is a
   candidate, so "8k context", "50 users" or "$50k" never are.
2. *Roles*: each quantity takes its role from the words of its own clause (the text between , ; 。 and the like):
   the cue words before it since the previous quantity, or the cue just after it ("2 s TTFT", "28 tok/s each",
   "700 ms for the first token"). A time is TTFT, TPOT or end to end by its cue (a TTFT or TPOT cue wins over a
   plain "latency"/"延迟": "首 token 延迟"); a time without a cue is no target ("it took 500 ms"). A rate is per user
   ("per user", "each", "every", "每路", "每人", "人均", …) or total ("in total", "aggregate", "combined", "总", "合计",
   …), the nearer cue deciding; a rate with neither but a target word ("at least", "no slower than", "≥", "should",
   "feel like", "至少", "不低于", "以上", "保证", …) or asked about in a yes/no question ("能跑 20 tokens/s 吗",
   "will it give me 15 tokens per second?": the verdict is judged against the speed asked) is per user up to
   PER_USER_MAX_TOKENS_PER_S and total above it; a bare rate ("20 tokens/s is what we need to beat") and a
   measured one ("we currently get 15 tok/s", "只有 10 tokens/s") are no target.

Words per second are tokens at 4/3 tokens per word (OpenAI, "What are tokens and how to count them": 1 token ≈ 3/4
of an English word; https://help.openai.com/en/articles/4936856, retrieved 2026-12-05); a Chinese 字 is read as one
token, as "首字" means the first token. The words read are kept (`latency_text`, `e2e_text`, `throughput_text`),
so the answer can quote them; percentile words ("p95 TTFT") stay in the quote and the analysis judges the median.
"""

from __future__ import annotations

import re
from bisect import bisect_right

import msgspec

from advisor.conversation.reader.cues import words
from advisor.conversation.reader.numbers import DIGITS, to_number
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import CN_NUM, EN_WORD_NUM, Text

# A bare rate above this is a total, not one user's speed: one stream decodes at most memory bandwidth / weight
# bytes per second, 8 TB/s (the catalog's fastest memory: GB200, GB300, MI355X) / 16 GB (an 8B model in BF16)
# = 500 tokens/s, the fastest single stream the catalog's cards reach on a model commonly served to many users.
PER_USER_MAX_TOKENS_PER_S = 500.0
TOKENS_PER_WORD = 4 / 3  # OpenAI: 1 token ≈ 3/4 of a word (module docstring)

# --- 1. quantities ----------------------------------------------------------------------------------------------------
_DIGIT_NUM = rf"(?<![a-z.\d])(?:{DIGITS})"  # not the "100" of "h100s" nor the "5" of "2.5"
_NUM = rf"(?:{_DIGIT_NUM}|{CN_NUM}|{EN_WORD_NUM}|half an?|半)"
_MULT = r"(?P<mult>k|千|万)?"
_TOK = r"(?:tokens?|toks?|tkns?|tk|t|词元)"
_PER_SEC = r"(?:/\s*(?:s|sec|second)|\s*(?:per|an?|each|every)\s+sec(?:ond)?|\s*/\s*秒|\s*每秒)(?![a-z])"
_RATE = re.compile(
    rf"(?P<num>{_NUM})\s*{_MULT}\s*(?P<plus>\+)?\s*(?:个\s*)?(?:(?:output|generated|new)\s+)?"  # "500 output tokens/s"
    rf"(?:(?P<tok>{_TOK}){_PER_SEC}|(?P<tps>tps)(?![a-z])|(?P<word>words?){_PER_SEC}|(?P<zi>字)\s*(?:/|每)\s*秒)"
    # "每秒至少 40 个 token", "每秒钟输出 30 个字"
    rf"|每秒钟?(?P<pre>[^\d,;.，；。！？!?a-z]{{0,8}}?)"  # "每秒至少", "每秒能看到": a few words, no number
    rf"(?P<num2>{_NUM})\s*(?P<mult2>k|千|万)?\s*(?:个\s*)?(?P<tok2>tokens?|token|词元|字)")
_TIME = re.compile(rf"(?P<num>{_NUM})\s*(?P<unit>ms|msec|millis(?:econds?)?|毫秒|s|secs?|seconds?|秒钟?)(?![a-z])")
_SCALE = {"k": 1e3, "千": 1e3, "万": 1e4}

# --- 2. roles -------------------------------------------------------------------------------------------------------
_CLAUSE_END = re.compile(r"[,;，；。！？!?\n]|\.(?=\s|$)|(?<![a-z])(?:but|while|whereas|although)(?![a-z])")
_TTFT = words(zh=r"首\s*(?:个\s*)?(?:token|tokens|字|包|词元|响应?)|第一个\s*(?:token|字)|开始\s*(?:输出|出字|返回|响应|生成)",
              en=r"ttft|time[- ]to[- ]first[- ](?:token|byte|word|chunk)|first[- ](?:tokens?|words?|bytes?|chunks?|"
                 r"response|output)|initial (?:token|response)|start(?:s|ing)? (?:to )?(?:stream(?:ing)?|respond(?:ing)?|"
                 r"reply(?:ing)?|answer(?:ing)?|generat(?:e|ing)|output(?:ting)?)|begin(?:s|ning)? (?:to )?"
                 r"(?:stream(?:ing)?|respond(?:ing)?|generat(?:e|ing))")
_TPOT = words(zh=r"每\s*(?:一\s*)?(?:个\s*)?(?:输出\s*)?(?:token|词元|字)|(?:token|词元|字)\s*(?:之间的?)?\s*(?:生成|输出)?\s*间隔|"
                 r"出字间隔|输出间隔|生成间隔|tpot|itl|/\s*(?:output\s*)?token",  # "/token" after a unit: "45 ms/token"
              en=r"tpot|itl|inter[- ]token(?:[- ]latency)?|between (?:two |consecutive |each )?tokens|"
                 r"per[- ](?:output[- ]|generated[- ])?token|(?:each|every) (?:output |new |generated )?token|"
                 r"time per (?:output )?token|token[- ]to[- ]token|tokens? every")
_E2E = words(zh=r"端到端|响应时间|响应延迟|请求延迟|整体延迟|总延迟|延迟|时延|耗时|整[个条次]?(?:回答|回复|响应|请求)|完整(?:的)?(?:回答|回复)|"
                r"(?:回答|回复|生成)完|完成",
             en=r"e2e|end[- ]to[- ]end|latency|response[- ]times?|round[- ]trip|(?:whole|full|complete|entire|total) "
                r"(?:replies|reply|answers?|responses?|requests?|generations?|outputs?)|complete answers?|"
                r"(?:to |should |must )?(?:finish|complete|respond|answer|reply|done)(?:ed|s)?")
_PER_USER = words(zh=r"每一?路|每一?个?人|每位(?:用户)?|每一?个?用户|每一?个?请求|每一?条|每一?个?会话|每一?个?并发|单路|单个?用户|"
                     r"单个?请求|单条|人均|每个?坐席|/\s*(?:user|request|stream)",  # "20 tok/s/user"
                  en=r"per[- ](?:users?|requests?|streams?|sequences?|sessions?|persons?|person|clients?|seats?|heads?|"
                     r"conversations?|chats?|connections?)|each|every|everyone|everybody|"
                     r"individual(?:ly)?|(?:a |any )?single (?:user|stream|request|session)")
_TOTAL = words(zh=r"总|合计|一共|整体|集群|整个系统|全部用户|所有用户|加起来",
               en=r"total|in total|aggregate|combined|overall|altogether|in sum|summed|across|system[- ]wide|"
                  r"cluster[- ]wide|whole (?:service|system|cluster|deployment|fleet)|all (?:users|streams|requests) "
                  r"(?:together|combined)")
_TARGET_WORD = words(zh=r"至少|不低于|不少于|不慢于|不小于|以上|起|保证|确保|要求|需要|要|达到|目标|希望|得|≥|>=?|输出|生成",
                     en=r"at least|minimum|min|no less than|not less than|no slower than|not slower than|not below|"
                        r"never below|or more|or better|or faster|over|above|should|must|needs?|want|wants|requires?|"
                        r"required|target|aim|goal|guarantee|ensure|feel(?:s)? like|expect|throughput|at|[≥>]=?|\+|"
                        r"within|keep(?:ing)?|stay(?:ing)?|"  # "how many users within 25 tokens/s?"
                        # an output rate stated ("output 1000 tokens/s", "an output of 2000 tok/s"): a requirement
                        r"outputs?(?: speed| rate)?(?: of)?|generat(?:e|es|ion|ing)(?: speed| rate)?")
# ("现在才 10 token/s" is measured; "几张卡才能保证每路 20 token/s" is a condition, a target)
_MEASURED = words(zh=r"目前|现在|实测|测得|测出|上次|之前|以前|跑出|跑了|只有|才(?![能可行够会])",
                  en=r"currently|right now|at the moment|today|last time|measured|benchmarked|was|were|took|"
                     r"(?:we|i) (?:get|got|see|saw)|(?:we|i)(?:'re| are| am|'m) (?:getting|seeing)")
# a yes/no question about reaching a speed ("能跑 20 tokens/s 吗", "will 2x 3090 give me 15 tokens per second?",
# "can it do 30 tok/s"): the speed asked about is the one the verdict is judged against
_AUX = r"(?:can|could|will|would|does|do|is|are|should)"  # a yes/no question's first word
_ASKED = words(zh=r"能(?:不能)?|可以|可不可以|能否|是否|够不够|达得到|达不到|跑得到|做得到",
               en=rf"{_AUX}\b.{{0,40}}?\b(?:run|do|get|give|reach|hit|achieve|manage|deliver|sustain|push|generate|"
                  r"produce|output|serve|make)s?")
_QUESTION_START = re.compile(rf"\s*(?:and |so |but |then )?{_AUX}\b")  # a question without its "?"
_QUESTION_END = re.compile(r"\s*(?:吗|么|嘛|呢|没有|不)?\s*[?？]|\s*(?:吗|么|嘛)(?![\w])")
# what may stand between a quantity and the cue after it: "700ms for the first token", "30 tok/s to every one"
_FILLER = re.compile(r"^[\s/:]*(?:(?:for|to|of|the|our|a|an|in|on|at|per|max(?:imum)?|min(?:imum)?|or less|or more|"
                     r"before|until|till|p\d\d|的|给|让|以?[内下]|之内)\s*)*$")
_AFTER = 24  # characters after a quantity searched for its cue


class _Quantity(msgspec.Struct, frozen=True):
    """A number with a time unit (`seconds`) or a rate unit (`tokens_per_s`) at [start, end) of the text."""
    start: int
    end: int
    seconds: float | None = None
    tokens_per_s: float | None = None
    hedged: bool = False  # the unit itself says "at least": "30+ tok/s", "每秒至少 40 个 token"


def _number(text: str) -> float | None:
    text = text.strip()
    if text in ("半", "half a", "half an"):
        return 0.5
    return to_number(text)


def _rates(s: str) -> list[_Quantity]:
    out = []
    for m in _RATE.finditer(s):
        pre = m.group("num2") is not None
        v = _number(m.group("num2") if pre else m.group("num"))
        if not v or v <= 0:
            continue
        v *= _SCALE.get(m.group("mult2") if pre else m.group("mult") or "", 1.0)
        if m.group("word"):
            v *= TOKENS_PER_WORD
        out.append(_Quantity(m.start(), m.end(), tokens_per_s=v, hedged=bool(m.group("plus") or (pre and _TARGET_WORD.search(m.group("pre"))))))
    return out


def _times(s: str) -> list[_Quantity]:
    out = []
    for m in _TIME.finditer(s):
        v = _number(m.group("num"))
        if v and v > 0:
            ms = m.group("unit") in ("ms", "msec", "毫秒") or m.group("unit").startswith("milli")
            out.append(_Quantity(m.start(), m.end(), seconds=v / 1000 if ms else v))
    return out


def _quantities(s: str) -> list[_Quantity]:
    """Rates first (so the "a second" of "20 tokens a second" is no time), then times, in text order."""
    rates = _rates(s)
    for q in rates:
        s = s[:q.start] + " " * (q.end - q.start) + s[q.end:]
    return sorted([*rates, *_times(s)], key=lambda q: q.start)


class _Cue(msgspec.Struct, frozen=True):
    start: int
    end: int
    distance: int  # characters between the cue and its quantity


def _cue(rx: re.Pattern[str], s: str, before: tuple[int, int], after: tuple[int, int]) -> _Cue | None:
    """The nearest match of `rx` in the span `before` a quantity (ending where it starts) or just `after` it (only
    filler words between)."""
    best: _Cue | None = None
    for m in rx.finditer(s, *before):
        if m.end() <= before[1]:
            best = _Cue(m.start(), m.end(), before[1] - m.end())  # the last one before is the nearest
    nxt = rx.search(s, *after)
    if nxt and _FILLER.match(s[after[0]:nxt.start()]) and (best is None or nxt.start() - after[0] <= best.distance):
        best = _Cue(nxt.start(), nxt.end(), nxt.start() - after[0])
    return best


class _Read(msgspec.Struct):
    """One target read: its value, the spans to blank and the words to quote."""
    value: float
    spans: list[tuple[int, int]]


def _clauses(s: str) -> list[tuple[int, int]]:
    """The clauses of `s` as [start, end) spans, between the separators of _CLAUSE_END."""
    cuts = [(m.start(), m.end()) for m in _CLAUSE_END.finditer(s)]
    starts = [0, *(b for _, b in cuts)]
    ends = [*(a for a, _ in cuts), len(s)]
    return list(zip(starts, ends, strict=True))


def _roles(s: str) -> dict[str, _Read]:
    """The first target of each role ("ttft", "tpot" from a latency, "speed", "e2e", "total") in `s`."""
    found: dict[str, _Read] = {}
    qs = _quantities(s)
    clauses = _clauses(s)
    measured: dict[int, bool] = {}
    for i, q in enumerate(qs):
        if len(found) == 5:
            break
        c = bisect_right(clauses, (q.start, len(s) + 1)) - 1  # the clause the quantity starts in
        lo, hi = clauses[c]
        before = (max(lo, qs[i - 1].end if i else 0), q.start)
        after = (q.end, min(hi, q.end + _AFTER, qs[i + 1].start if i + 1 < len(qs) else len(s)))
        if c not in measured:
            measured[c] = _MEASURED.search(s, lo, hi) is not None
        if measured[c]:
            continue
        role, cue = _role(q, s, before, after)
        if role is None or role in found:
            continue
        spans = [(q.start, q.end)] + ([(cue.start, cue.end)] if cue else [])
        if q.seconds is not None:
            found[role] = _Read(q.seconds * 1000, spans)
        elif q.tokens_per_s is not None:
            found[role] = _Read(q.tokens_per_s, spans)
    return found


def _role(q: _Quantity, s: str, before: tuple[int, int], after: tuple[int, int]) -> tuple[str | None, _Cue | None]:
    if q.seconds is not None:  # a TTFT or TPOT cue, the nearer; else an end-to-end one; else no target
        cues = {k: c for k, rx in (("ttft", _TTFT), ("tpot", _TPOT)) if (c := _cue(rx, s, before, after))}
        if cues:
            role = min(cues, key=lambda k: cues[k].distance)
            return role, cues[role]
        c = _cue(_E2E, s, before, after)
        return ("e2e", c) if c else (None, None)
    per, total = _cue(_PER_USER, s, before, after), _cue(_TOTAL, s, before, after)
    if per and (total is None or per.distance <= total.distance):
        return "speed", per
    if total:
        return "total", total
    hedge = _cue(_TARGET_WORD, s, before, after)
    if hedge is None and not q.hedged:
        asked = _cue(_ASKED, s, before, after)
        question = _QUESTION_END.search(s, q.end, after[1] + 8) or _QUESTION_START.match(s, before[0])
        if asked is None or q.tokens_per_s is None or not question:
            return None, None
        hedge = asked
    return ("speed" if (q.tokens_per_s or 0.0) <= PER_USER_MAX_TOKENS_PER_S else "total"), hedge


# a percentile said with a latency target: "p95 TTFT", "TTFT p99 < 2 s", "95th percentile", "99 分位", "P90 首字延迟",
# "tail latency" / "尾延迟" (read as p95); p90 and p95 are judged at the simulation's p95, p99 and p99.9 at its p99
_PCT = re.compile(r"(?<![a-z\d])p\s?(?P<p>9[059](?:\.9)?)(?![\d])|(?P<q>9[059])(?:th|%|\s*(?:th\s*)?percentile|\s*分位)"
                  r"|百分之九十(?P<z>[五九])|(?P<tail>tail[- ]latenc|尾(?:部)?延迟|长尾)")
_PCT_REACH = 24  # characters on either side of the target's words that a percentile word may be in


def _percentile(s: str, spans: list[tuple[int, int]]) -> int | None:
    """95 or 99 when a percentile word stands beside the target's words (`spans`), else None (the median)."""
    lo, hi = max(0, min(a for a, _ in spans) - _PCT_REACH), max(b for _, b in spans) + _PCT_REACH
    m = _PCT.search(s, lo, min(len(s), hi))
    if m is None:
        return None
    digits = m.group("p") or m.group("q") or ("99" if m.group("z") == "九" else "95")  # "tail": 95
    return 99 if digits.startswith("99") else 95


def _quote(t: Text, spans: list[tuple[int, int]]) -> str:
    return t.quote(min(a for a, _ in spans), max(b for _, b in spans))


def read_serving_targets(t: Text, slots: Slots) -> None:
    """Every serving target `t` states, into `slots`: `ttft_ms`, `tpot_ms` (a stated per-token latency or
    1000 / a per-user speed, the stricter when both are said), `e2e_ms` and `min_tokens_per_s` (all users together),
    with the words read (`latency_text`, `e2e_text`, `throughput_text`). The quantities and their cues are blanked
    from `t`, so "20 tokens/s" is no amount of tokens and "2 s" no deadline for the readers after."""
    found = _roles(t.s)
    said: list[str] = []
    for role in ("ttft", "tpot", "speed"):
        if role in found:
            said.append(_quote(t, found[role].spans))
    if "ttft" in found:
        slots.ttft_ms = found["ttft"].value
        slots.ttft_pct = _percentile(t.s, found["ttft"].spans)
    tpots = [found["tpot"].value] if "tpot" in found else []
    if "speed" in found:
        tpots.append(1000 / found["speed"].value)
    if tpots:
        slots.tpot_ms = min(tpots)
    if said:
        slots.latency_text = "; ".join(said)
    if "e2e" in found:
        slots.e2e_ms, slots.e2e_text = found["e2e"].value, _quote(t, found["e2e"].spans)
    if "total" in found:
        slots.min_tokens_per_s, slots.throughput_text = found["total"].value, _quote(t, found["total"].spans)
    for read in found.values():
        for a, b in read.spans:
            t.consume(a, b)


__all__ = ["PER_USER_MAX_TOKENS_PER_S", "TOKENS_PER_WORD", "read_serving_targets"]
