"""Slot extraction: the workload a person describes in Chinese or English free text, without a model.

`extract(text, catalog)` is pure: it reads the text and the catalog and returns :class:`Slots` — only what
the text says, each field None/empty when not mentioned. The dialog merges turns and applies defaults.

Order matters, because one phrase must feed one slot: guide claims ("文章说 … 28GB") first, then model
names and GPU names (from the catalog's ids, names and aliases, longest match first), token amounts
("2B tokens"), money ("20万", "$50k"), context ("8k 上下文"), concurrency ("50 并发", "QPS 10"), deadlines,
bare model sizes ("70B", "700亿"), GPU counts ("四张卡"), precisions, task and region. Each match is blanked
out of the working text so later patterns do not see it again.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from advisor.conversation import reading
from advisor.conversation.numbers import (
    BIG_SCALE,
    DIGITS,
    cn_int,  # noqa: F401 (read from here by callers of the extractor)
    names_other_slot,
    to_number,
    with_scale,
)
from advisor.conversation.numbers import read as read_number
from advisor.conversation.ranges import OutOfRange, check

MAX_CHARS = 4000  # longer messages are cut (the dialog says so)

# ---------------------------------------------------------------------------------------------------------------
# numbers in words and digits
# ---------------------------------------------------------------------------------------------------------------
# each number pattern starts with a look-behind, so a long run of digits is tried from one position only
# (without it, "9" * 4000 backtracks quadratically in every pattern that begins with a number)
CN_NUM = r"(?<![零〇一二两俩三四五六七八九十百千])[零〇一二两俩三四五六七八九十百千]+"
NUM = rf"(?:{DIGITS}|{CN_NUM})"
EN_WORD_NUM = r"(?:a couple of|pair of|an|a|one|single|two|dual|three|four|five|six|seven|eight|nine|ten|eleven|twelve|sixteen|twenty|thirty|forty|fifty)"

_SCALE = {"k": 1e3, "thousand": 1e3, "千": 1e3, "w": 1e4, "万": 1e4, "十万": 1e5, "百万": 1e6, "m": 1e6,
          "mn": 1e6, "million": 1e6, "千万": 1e7, "亿": 1e8, "b": 1e9, "bn": 1e9, "billion": 1e9, "十亿": 1e9,
          "百亿": 1e10, "千亿": 1e11, "万亿": 1e12, "t": 1e12, "trillion": 1e12, "": 1.0, None: 1.0}


def scaled(num: str, unit: str | None) -> float | None:
    value = to_number(num)
    if value is None:
        return None
    return value * _SCALE.get((unit or "").strip().lower(), 1.0)


# ---------------------------------------------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------------------------------------------
class GpuMention(BaseModel):
    """A GPU the user named, resolved to a catalog id, with the count they said (None: not said)."""

    model_config = ConfigDict(extra="forbid")
    gpu: str
    count: int | None = None
    text: str = ""
    assumed: str = ""  # e.g. "A100 taken as the 80 GB SXM4 card" when the name was ambiguous


class Claim(BaseModel):
    """A memory figure quoted from a guide or article, to be checked ("文章说 70B 4bit 只要 28GB")."""

    model_config = ConfigDict(extra="forbid")
    text: str
    value: float
    unit: str  # as typed: "GB", "G", "GiB", "TB"
    bytes_if_gb: float  # value read as decimal GB (1e9)
    bytes_if_gib: float  # value read as GiB (2^30)


class Slots(BaseModel):
    """What one message says about the workload. None / empty means "not mentioned"."""

    model_config = ConfigDict(extra="forbid")
    model: str | None = None  # catalog id
    model_text: str | None = None  # as typed
    model_assumed: str = ""  # why this catalog model stands for what was said ("70B" -> llama-3.1-70b)
    size_params: float | None = None  # a bare size ("70B", "700亿") when no model was named
    unknown_model: str | None = None  # looked like a model name but is not in the catalog
    task: str | None = None  # a Workload task
    task_generic: str | None = None  # "finetune" or "train" when the method was not said
    weights: str | None = None
    kv: str | None = None
    context: int | None = None
    batch: int | None = None
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    concurrency: int | None = None
    concurrency_avg: int | None = None
    qps: float | None = None
    budget: float | None = None
    currency: str | None = None
    region: str | None = None
    existing: GpuMention | None = None
    candidates: list[GpuMention] = []
    gpu_count: int | None = None
    unknown_gpus: list[str] = []
    train_tokens: float | None = None
    deadline_s: float | None = None
    tco_years: int | None = None
    claim: Claim | None = None
    engine: str | None = None
    lora_rank: int | None = None
    zero: int | None = None
    buy_or_rent: str | None = None
    condition: str | None = None  # "used" when second-hand cards are asked for
    offload: bool | None = None  # llama.cpp layer offload asked for ("加内存卸载", "offload to RAM", "-ngl")
    wants_nvlink: bool | None = None  # the plan joins the cards over NVLink ("两张 4090 用 NVLink 桥接"); False: "no NVLink"
    excluded: list[str] = []  # cards ruled out ("国内买不到 A100", "not H20", "除了 4090"): never candidates
    excluded_vendors: list[str] = []  # "no NVIDIA" / "不要英伟达": every card of that vendor ruled out
    capacity: Claim | None = None  # a card's memory typed without a card name ("28GB 显存够吗", "my card has 24 GB")
    negative: str | None = None  # a count or amount typed with a minus sign ("-5 张 H100"): bad input, not 5
    # intents
    default: bool = False
    reset: bool = False
    injection: bool = False
    greeting: bool = False
    thanks: bool = False
    question_words: bool = False  # the message asks something ("?", "吗", "how", ...)
    advice: bool = False  # asks for hardware advice without saying for what ("帮我推荐显卡", "which GPU should I buy")
    truncated: bool = False
    gib_question: bool = False  # asks whether a card's "GB" is GB or GiB
    refers_previous: bool = False  # "that setup / 这个配置 / 刚才那个": the configuration of the previous answer
    out_of_range: list[OutOfRange] = []  # numbers read but outside what can be sized (ranges.reply answers)

    def workload_fields(self) -> dict[str, Any]:
        """The non-empty workload slots (everything except intents), for merging and for tests."""
        intents = {"default", "reset", "injection", "greeting", "thanks", "question_words", "truncated", "advice",
                   "gib_question", "refers_previous", "negative", "out_of_range"}
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            if name in intents:
                continue
            value = getattr(self, name)
            if value is None or value == [] or value == "":
                continue
            out[name] = value
        return out

    @property
    def empty(self) -> bool:
        return not self.workload_fields()


# ---------------------------------------------------------------------------------------------------------------
# catalog indexes (built once per catalog object)
# ---------------------------------------------------------------------------------------------------------------
_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[\u4e00-\u9fff]+")
_SEP = r"[\s\-_/:]*"
_OPTIONAL_GPU_WORDS = {"nvidia", "geforce", "rtx", "tesla", "amd", "instinct", "huawei", "radeon", "gen", "generation"}
_MEMORY_TOKEN = re.compile(r"^\d+(?:gb|g|gib)$")
_DROPPABLE = {"pcie", "sxm", "sxm2", "sxm4", "sxm5", "generation", "gen", "gb", "g"}
_MODEL_SUFFIX = r"(?:" + _SEP + r"(?:instruct|chat|hf|base|it|preview|awq|gptq|gguf|int4|int8|fp8))*"
# a precision word at the end of a model name ("Llama-3.1-70B FP8", "Qwen2.5-72B-Instruct-AWQ") names the weights
# format: the model match stops before it so the precision patterns still read it
_MODEL_PRECISION_SUFFIX = re.compile(_SEP + r"(?:awq|gptq|gguf|int4|int8|fp8)(?![a-z0-9])")
_DISTILL = re.compile(r"蒸馏|distill")
_SIZE_ONLY = re.compile(r"^\d+(?:\.\d+)?\s*[bm]$")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def _token_pattern(tokens: list[str], optional: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    parts: list[str] = []
    for tok in tokens:
        if tok == "gb":
            piece = r"g(?:i?b)?"
        elif tok == "b" and parts:
            piece = r"b"
        else:
            piece = re.escape(tok)
        if tok in optional:
            parts.append(rf"(?:{piece}{_SEP})?")
        else:
            parts.append(piece + _SEP)
    body = "".join(parts)
    if body.endswith(_SEP):
        body = body[: -len(_SEP)]
    return body


def _items(collection: Any) -> list[Any]:
    if collection is None:
        return []
    if isinstance(collection, dict):
        return list(collection.values())
    return list(collection)


@dataclass
class _Index:
    models: list[tuple[re.Pattern[str], str, int]] = field(default_factory=list)  # (pattern, id, alias length)
    gpus: list[tuple[re.Pattern[str], str, int, bool]] = field(default_factory=list)  # (..., bare number)
    gpu_ambiguous: dict[str, list[str]] = field(default_factory=dict)  # form -> ids, for "A100"
    model_params: dict[str, tuple[float, float, str]] = field(default_factory=dict)  # id -> (total, active, family)


_INDEX_CACHE: dict[int, tuple[Any, _Index]] = {}


def _model_forms(spec: Any) -> set[str]:
    forms = {spec.id, spec.name, *getattr(spec, "aliases", ())}
    repo = getattr(spec, "hf_repo", None)
    if repo:
        forms.add(repo.split("/")[-1])
    out = set()
    for form in forms:
        form = unicodedata.normalize("NFKC", str(form)).lower().strip()
        if not form or _SIZE_ONLY.match(form):
            continue
        # drop bracketed remarks: "GPT-2 XL (1.5B)" -> "gpt-2 xl"
        form = re.sub(r"\(.*?\)", "", form).strip()
        if len(form) < 3 and not re.search(r"[\u4e00-\u9fff]", form):
            continue
        out.add(form)
    return out


def _gpu_forms(spec: Any) -> dict[str, bool]:
    """Spellings of one GPU -> whether the spelling is ambiguous-prone (derived by dropping trailing words)."""
    base = {spec.id, spec.name, *getattr(spec, "aliases", ())}
    forms: dict[str, bool] = {}
    for form in base:
        form = unicodedata.normalize("NFKC", str(form)).lower().strip()
        form = re.sub(r"\(.*?\)", " ", form).strip()
        if form:
            forms[form] = False
    # derived: the name without trailing form factor / memory words ("a100 80gb sxm4" -> "a100 80gb" -> "a100")
    toks = [t for t in _tokens(spec.name) if t not in _OPTIONAL_GPU_WORDS]
    while len(toks) > 1:
        if toks[-1] in ("gb", "g", "gib") and len(toks) > 2 and toks[-2].isdigit():
            toks = toks[:-2]  # memory size: "80 gb"
        elif toks[-1].isdigit() and len(toks) > 2 and toks[-2] in _DROPPABLE:
            toks = toks[:-2]  # form factor with generation: "sxm 4"
        elif toks[-1] in _DROPPABLE:
            toks = toks[:-1]
        else:
            break
        forms.setdefault(" ".join(toks), True)
    return forms


def build_index(catalog: Any) -> _Index:
    """Regexes for every model and GPU spelling in the catalog; cached per catalog object."""
    cached = _INDEX_CACHE.get(id(catalog))
    if cached and cached[0] is catalog:
        return cached[1]
    index = _Index()
    for spec in _items(getattr(catalog, "models", None)):
        for form in _model_forms(spec):
            toks = _tokens(form)
            if not toks:
                continue
            body = _token_pattern(toks)
            pattern = re.compile(rf"(?<![a-z0-9.]){body}{_MODEL_SUFFIX}(?![a-z0-9])")
            index.models.append((pattern, spec.id, len(form)))
        total, active = _param_counts(spec)
        index.model_params[spec.id] = (total, active, str(getattr(spec, "family", "")).lower())
    form_owners: dict[str, list[str]] = {}
    derived_forms: dict[str, bool] = {}
    for spec in _items(getattr(catalog, "gpus", None)):
        for form, derived in _gpu_forms(spec).items():
            key = " ".join(t for t in _tokens(form) if t not in _OPTIONAL_GPU_WORDS)
            if not key:
                continue
            owners = form_owners.setdefault(key, [])
            if spec.id not in owners:
                owners.append(spec.id)
            derived_forms[key] = derived_forms.get(key, True) and derived
    segment = {spec.id: getattr(spec, "segment", "") for spec in _items(getattr(catalog, "gpus", None))}
    for key, owners in form_owners.items():
        toks = key.split()
        bare_number = len(toks) == 1 and toks[0].isdigit()
        if bare_number and (len(toks[0]) < 4 or any(segment.get(o) != "consumer" for o in owners)):
            continue  # "6000" alone is not the RTX 6000 Ada; bare numbers only for GeForce cards
        optional_prefix = rf"(?:(?:nvidia|geforce|rtx|tesla|amd|instinct|radeon|huawei|英伟达|昇腾){_SEP})*"
        pattern = re.compile(rf"(?<![a-z0-9]){optional_prefix}{_token_pattern(toks)}(?:s|'s)?(?![a-z0-9])")
        if len(owners) > 1:
            index.gpu_ambiguous[key] = owners
        index.gpus.append((pattern, owners[0], len(key), bare_number))
    index.models.sort(key=lambda item: -item[2])
    index.gpus.sort(key=lambda item: -item[2])
    _INDEX_CACHE[id(catalog)] = (catalog, index)
    return index


def _param_counts(spec: Any) -> tuple[float, float]:
    try:
        from knowledge.params import param_counts

        counts = param_counts(spec)
        return float(counts.total), float(counts.active)
    except Exception:  # noqa: BLE001 - a spec the counter cannot read is simply not a size candidate
        published = getattr(spec, "published_params", None) or 0
        return float(published), float(getattr(spec, "published_active_params", None) or published)


def _nominal_size(model_id: str) -> float | None:
    """The size a model is called by, from its id: "qwen2.5-14b" -> 14e9 (not its exact 14.77e9 parameters);
    None for ids without one ("mixtral-8x7b" is not "7B", MoE "qwen3-30b-a3b" is "30B")."""
    import re as _re

    if _re.search(r"\d+x\d+b", model_id):
        return None
    m = _re.search(r"(?<![\d.])(\d+(?:\.\d+)?)b(?![a-z0-9])", model_id)
    return float(m.group(1)) * 1e9 if m else None


# preference when a bare size or "family + size" stands for a catalog model (newest common open models first)
REPRESENTATIVE_ORDER = ("qwen2.5-", "llama-3.1-", "qwen3-", "llama-3-", "llama-2-", "mistral-", "gemma-2-",
                        "yi-", "glm-", "baichuan", "chatglm", "deepseek", "mixtral", "phi-", "gpt")
FAMILY_WORDS = {"llama": "llama", "羊驼": "llama", "qwen": "qwen", "千问": "qwen", "通义千问": "qwen",
                "deepseek": "deepseek", "mistral": "mistral", "mixtral": "mixtral", "gemma": "gemma", "yi": "yi",
                "glm": "glm", "chatglm": "chatglm", "baichuan": "baichuan", "百川": "baichuan", "phi": "phi",
                "gpt": "gpt"}


def representative_model(catalog: Any, params: float, family: str | None = None) -> tuple[str | None, float]:
    """The catalog model standing for "a {params} model": the preferred family within 10 % of the size, else the
    closest by log ratio. Returns (id, relative error)."""
    index = build_index(catalog)
    best: tuple[tuple[float, int, float], str] | None = None
    for model_id, (total, _active, fam) in index.model_params.items():
        if total <= 0:
            continue
        if family and family not in model_id and family not in fam:
            continue
        nominal = _nominal_size(model_id)
        err = abs(math.log((nominal or total) / params))
        rank = next((i for i, prefix in enumerate(REPRESENTATIVE_ORDER) if model_id.startswith(prefix)),
                    len(REPRESENTATIVE_ORDER))
        bucket = 0 if err < math.log(1.005) else 1 if err < math.log(1.1) else 2
        key = (bucket, rank if bucket < 2 else 0, err)
        if best is None or key < best[0]:
            best = (key, model_id)
    if best is None:
        return None, math.inf
    total = index.model_params[best[1]][0]
    return best[1], abs(total / params - 1.0)


# ---------------------------------------------------------------------------------------------------------------
# the working text: normalised, lower-cased, with consumed spans blanked
# ---------------------------------------------------------------------------------------------------------------
_LONG_DIGITS = re.compile(r"\d{25,}")


class _Text:
    def __init__(self, text: str) -> None:
        text = _LONG_DIGITS.sub(lambda m: " " * len(m.group(0)), text)  # no quantity has 25 digits
        self.original = _normalise_keep_case(text)
        self.s = self.original.lower()
        if len(self.s) != len(self.original):  # rare case-folding that changes length: show lower case
            self.original = self.s

    def consume(self, start: int, end: int) -> None:
        self.s = self.s[:start] + " " * (end - start) + self.s[end:]

    def finditer(self, pattern: re.Pattern[str] | str) -> list[re.Match[str]]:
        rx = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)
        return list(rx.finditer(self.s))

    def take(self, pattern: re.Pattern[str] | str) -> list[re.Match[str]]:
        found = self.finditer(pattern)
        for m in found:
            self.consume(m.start(), m.end())
        return found


def _normalise_keep_case(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return text.replace("×", " x ").replace("✕", " x ").replace("～", "~").replace("‐", "-").replace("–", "-")


def normalise(text: str) -> str:
    return _normalise_keep_case(text).lower()


# ---------------------------------------------------------------------------------------------------------------
# patterns
# ---------------------------------------------------------------------------------------------------------------
INJECTION = re.compile(
    r"ignore (?:all |any |the )?(?:your |previous |prior |above |earlier )*(?:instructions|rules|prompts?|directions)"
    r"|disregard (?:all |your |previous |the )*(?:instructions|rules)|system prompt|developer mode|jailbreak"
    r"|you are now|act as (?:an? )?(?:unrestricted|evil|different)|reveal (?:your|the) (?:prompt|instructions)"
    r"|print (?:your|the) (?:prompt|instructions|system)|rm -rf|drop table|delete (?:all|the|every|files?|database)"
    r"|call a tool|run (?:a |this )?(?:shell|command)|execute (?:a |this )?(?:command|code|shell)|api key|\bdan\b"
    r"|忽略(?:之前|以上|上面|前面|你的|所有|全部)*(?:的)?(?:指令|指示|提示|规则|设定|要求)|系统提示|提示词|越狱|开发者模式"
    r"|删除(?:所有|全部)?(?:文件|数据)|执行(?:命令|代码|脚本)|你现在是|扮演"
)
_CLAIM_MARKER = re.compile(
    r"文章|教程|指南|攻略|博客|帖子|网上|视频|有人|别人|据说|听说|号称|宣称|说是|看到|"
    r"\bguide\b|\barticle\b|\bblog\b|\bpost\b|\btutorial\b|\bvideo\b|someone|they say|i read|i saw|"
    r"\bclaims?\b|\bsays?\b|\bsaid\b|according to"
)
_MEM_AMOUNT = re.compile(rf"({DIGITS})\s*(gib|gb|g|tb)(?![a-z0-9])(?:\s*(?:显存|内存|vram|of vram|memory|ram))?")
_TOKENS_AMOUNT = re.compile(
    rf"(?P<num>{NUM})\s*(?P<unit>万亿|千亿|百亿|十亿|亿|千万|百万|万|trillion|billion|million|thousand|bn|[kmbt])?"
    r"\s*(?:个\s*)?(?:tokens?|词元|token数)(?![a-z])"
)
_PROMPT_WORDS = re.compile(r"(?:输入|提示词?|prompt|input|上文)[^,.;，。；]{0,12}$")
_OUTPUT_WORDS = re.compile(r"(?:输出|生成|回答|回复|output|generat\w*|completion|response)[^,.;，。；]{0,12}$")
_CONTEXT_WORDS = r"(?:上下文(?:长度|窗口)?|序列长度|序列|seq(?:uence)?(?:[\s_-]*len(?:gth)?)?(?![a-z])|context(?:\s*(?:length|window|len))?|ctx|max[\s_-]*model[\s_-]*len|窗口)"
_CTX_VALUE = rf"(?P<num>{with_scale(DIGITS, BIG_SCALE)}|{with_scale(CN_NUM, BIG_SCALE)})\s*(?P<k>k|千|m)?(?:\s*tokens?)?"
_CONTEXT_AFTER = re.compile(_CONTEXT_WORDS + r"\s*(?:改成|改为|换成|设为|设成|调到|是|为|of|is|=|:|to|at|达到|要|需要|到)?\s*(?:about\s*|约\s*)?" + _CTX_VALUE + r"(?![a-z0-9])")
_CONTEXT_BEFORE = re.compile(_CTX_VALUE + r"\s*(?:的|tokens?\s*(?:of\s*)?)?\s*" + _CONTEXT_WORDS)
_BARE_K = re.compile(r"(?<![\d.$¥￥a-z])(1|2|4|8|16|32|64|128|256|512)\s*k(?![a-z0-9])(?!\s*(?:usd|rmb|cny|元|美元|dollars|\$))")
_MONEY = [
    # ¥200k, ￥ 50 万, $50k, $1.5m
    re.compile(rf"(?P<cur>[¥￥$])\s*(?P<num>{DIGITS})\s*(?P<unit>万|千|k|w|m|mn|million|thousand)?(?![a-z])"),
    # 50k usd, 50 thousand dollars, 20万元, 20万 人民币, 1.5 million rmb
    re.compile(rf"(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万|千|k|w|m|mn|million|thousand)?\s*(?P<cur>usd|us\$|dollars?|美元|美金|rmb|cny|元|块钱|块|人民币)(?![a-z])"),
]
_BUDGET_BARE = re.compile(
    rf"(?:预算|budget|花费|不超过|控制在|spend|afford)\D{{0,12}}?(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万|千|k|w|m|mn|million|thousand)?(?![a-z0-9])"
)
_WAN_AMOUNT = re.compile(rf"(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万)(?!\s*(?:tokens?|参数|并发|用户|条|字|次|个|人|卡))")
_CONCURRENCY = [
    re.compile(rf"(?P<num>{with_scale(NUM)})\s*(?:个|路|人)?\s*(?:并发|并发数|并发量|同时在线|人同时|路并发|个用户|位用户|用户|人在线)"),
    re.compile(rf"(?P<num>{with_scale(NUM)})\s*(?:个人(?!学习|开发|研究|电脑|工作站|使用)|名用户|名员工|位同事|人使用|人用)"),
    re.compile(rf"(?:并发|并发数|并发量|同时在线)\s*(?:数|量)?\s*(?:改成|改为|换成|是|为|:|到|达到|约|大概)?\s*(?P<num>{with_scale(NUM)})"),
    re.compile(rf"(?P<num>{with_scale(DIGITS)}|{EN_WORD_NUM})\s*(?:concurrent\s*)?(?:users|user|sessions|requests|streams|clients|concurrent|simultaneous|people)"),
    re.compile(rf"(?P<num>{DIGITS})\s*(?:concurrency|concurrent requests)(?![a-z])"),  # "at 64 concurrency"
    re.compile(rf"(?:concurrency|concurrent users|parallel requests|batch size)\s*(?:of|is|=|:|to|at|around|about)?\s*(?P<num>{DIGITS})"),
]
_PEAK = re.compile(rf"(?:高峰|峰值|peak|最多|最高|up to|max(?:imum)?)\s*(?:期|时|时段|of|is|at|:)?\s*(?P<num>{DIGITS})")
_AVERAGE = re.compile(rf"(?:平时|平均|日常|通常|usually|normally|average|avg|typically)\s*(?:of|is|:|约|大概)?\s*(?P<num>{DIGITS})")
_QPS = [
    re.compile(rf"(?:qps|rps)\s*(?:of|is|=|:|约|为|是|达到|大概)?\s*(?P<num>{DIGITS})"),
    re.compile(rf"(?P<num>{DIGITS})\s*(?:qps|rps|requests?\s*(?:per|/)\s*(?:second|s|sec)|req/s|个?请求\s*/\s*秒|每秒请求)"),
    re.compile(rf"每秒\s*(?P<num>{NUM})\s*(?:个)?\s*(?:请求|次)"),
]
_DEADLINE = re.compile(
    rf"(?P<num>{NUM}|{EN_WORD_NUM}|半)\s*(?:个\s*)?(?P<unit>weeks?|days?|hours?|hrs?|months?|周|星期|礼拜|天|日|小时|月)"
)
_DEADLINE_CONTEXT = re.compile(r"within|in\s*$|by|under|less than|done|finish|complete|deadline|内|以内|之内|完成|搞定|跑完|训练完|要在|必须|需要在|期限|$")
_TCO_YEARS = re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:-|\s)?\s*(?:years?|yr|年)(?:\s*(?:tco|total cost|总拥有成本|成本|折旧))?")
_SIZE = re.compile(
    rf"(?<![a-z0-9.])(?P<num>{DIGITS})\s*(?P<unit>b|bn|billion|m|million)(?![a-z0-9])(?!\s*(?:tokens?|词元|token|参数的?\s*数据|usd|dollars|美元|元|rmb|cny))"
    rf"|(?P<cnnum>{NUM})\s*(?P<cnunit>千亿|百亿|十亿|亿)\s*(?:参数|规模|级|的)?(?!\s*(?:tokens?|词元|token|元|人民币|条|字))"
)
_GPU_WORDS = r"(?:张|块|片)?\s*(?:卡|显卡|gpu|gpus|cards?|graphics cards?|accelerators?)"
_GPU_COUNT = [
    re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:张|块|片)\s*(?:卡|显卡|gpu)?"),
    re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:个|台)?\s*(?:卡|显卡|gpu|gpus|cards?|graphics cards?|accelerators?)(?![a-z])"),
    re.compile(r"(?P<word>单卡|双卡|single gpu|single card|one gpu|one card)"),
]
_PRECISION: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![a-z0-9])q8_0(?![a-z0-9])"), "q8_0"),
    (re.compile(r"(?<![a-z0-9])q6_k(?:_[sml])?(?![a-z0-9])"), "q6_k"),
    (re.compile(r"(?<![a-z0-9])q5_k(?:_[ms])?(?![a-z0-9])"), "q5_k_m"),
    (re.compile(r"(?<![a-z0-9])q4_k(?:_[ms])?(?![a-z0-9])|q4km"), "q4_k_m"),
    (re.compile(r"(?<![a-z0-9])q4_0(?![a-z0-9])"), "q4_0"),
    (re.compile(r"(?<![a-z0-9])q3_k(?:_[sml])?(?![a-z0-9])"), "q3_k_m"),
    (re.compile(r"(?<![a-z0-9])q2_k(?![a-z0-9])"), "q2_k"),
    (re.compile(r"gptq[\s\-_]*(?:int)?8|8[\s\-_]*bit[\s\-_]*gptq"), "gptq-int8"),
    (re.compile(r"gptq"), "gptq-int4"),
    (re.compile(r"(?<![a-z])awq"), "awq-int4"),
    (re.compile(r"(?<![a-z0-9])nf4|bnb[\s\-_]*4|bitsandbytes[\s\-_]*4|load_in_4bit"), "nf4"),
    (re.compile(r"bnb[\s\-_]*(?:int)?8|bitsandbytes[\s\-_]*8|load_in_8bit|llm\.int8"), "bnb-int8"),
    (re.compile(r"(?<![a-z0-9])fp8|e4m3|8[\s\-_]*位浮点"), "fp8"),
    (re.compile(r"(?<![a-z0-9])(?:int8|w8a8|w8a16)(?![a-z0-9])|(?<![\d.])8[\s\-_]*(?:bits?|位)(?![a-z])|八位|8比特"), "int8"),
    (re.compile(r"(?<![a-z0-9])(?:int4|w4a16|w4a8)(?![a-z0-9])|(?<![\d.])4[\s\-_]*(?:bits?|位)(?![a-z])|四位|4比特"), "int4"),
    (re.compile(r"(?<![a-z0-9])bf16(?![a-z0-9])|bfloat16"), "bf16"),
    (re.compile(r"(?<![a-z0-9])fp16(?![a-z0-9])|float16|半精度|(?<![\d.])16[\s\-_]*(?:bits?|位)(?![a-z])"), "fp16"),
    (re.compile(r"(?<![a-z0-9])fp32(?![a-z0-9])|float32|单精度|全精度|(?<![\d.])32[\s\-_]*(?:bits?|位)(?![a-z])"), "fp32"),
]
_KV_FORMAT = re.compile(
    r"kv[\s\-_]*(?:cache|缓存)?\s*(?:用|使用|in|at|as|=|:|改成|换成)?\s*(?P<a>fp8|int8|int4|fp16|bf16)"
    r"|(?P<b>fp8|int8|int4|fp16|bf16)\s*(?:的)?\s*kv"
)
_TASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"q[\s\-_]*lora"), "qlora"),
    (re.compile(r"(?<![a-z])lora|(?<![a-z])peft|adapter"), "lora"),
    (re.compile(r"全参|全量|全参数|full[\s\-_]*(?:parameter[\s\-_]*)?(?:fine[\s\-_]*tun\w*|finetun\w*|ft|sft)|full[\s\-_]*parameter"), "full"),
    (re.compile(r"冻结|freeze"), "freeze"),
    (re.compile(r"预训练|从头训练|从零训练|从零开始训练|从头开始训练|pre[\s\-_]*train\w*|from scratch|继续预训练|continued pretrain\w*"), "pretrain"),
]
_FINETUNE = re.compile(r"微调|精调|fine[\s\-_]*tun\w*|finetun\w*|(?<![a-z])sft(?![a-z])|instruction[\s\-_]*tun\w*|指令微调|调优")
_TRAIN = re.compile(r"训练|(?<![a-z])train(?:ing|ed)?(?![a-z])")
_INFER = re.compile(
    r"推理|部署|上线|服务化|在线服务|提供服务|跑(?!完)|客服|机器人|聊天|对话|问答|生成|api服务|"
    r"inference|serv(?:e|ing|er for)|deploy\w*|host\w*|(?<![a-z])run(?:ning)?(?![a-z])|chatbot|chat bot|assistant|\brag\b"
)
_REGION_CN = re.compile(r"国内|中国|大陆|境内|内地|国产|(?<![a-z])china(?![a-z])|mainland|(?<![a-z])prc(?![a-z])|in cn(?![a-z])|chinese market")
_REGION_GLOBAL = re.compile(r"海外|国外|境外|overseas|outside china|(?<![a-z])global(?![a-z])|(?<![a-z])usa?(?![a-z])|united states|europe|(?<![a-z])eu(?![a-z])|international")
_ENGINES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"vllm"), "vllm"),
    (re.compile(r"llama\.cpp|llamacpp|ollama|lm studio|gguf"), "llama.cpp"),
    (re.compile(r"sglang"), "sglang"),
    (re.compile(r"tensorrt[\s\-_]*llm|trt[\s\-_]*llm"), "trtllm"),
    (re.compile(r"deepspeed"), "deepspeed"),
    (re.compile(r"megatron"), "megatron"),
    (re.compile(r"transformers|hugging ?face"), "transformers"),
]
_ZERO = re.compile(r"zero[\s\-_]*(?:stage)?[\s\-_]*(?P<n>[0-3])(?![0-9])")
_LORA_RANK = re.compile(r"(?:rank|秩|r)\s*(?:=|:|of|为|是)?\s*(?P<n>\d{1,4})(?![0-9])")
_BATCH = re.compile(rf"(?:batch[\s\-_]*size|micro[\s\-_]*batch|批大小|批量大小|batch)\s*(?:=|:|of|为|是)?\s*(?P<n>{DIGITS})")
_BUY = re.compile(r"买卡|购买|采购|自建|买(?!不)|(?<![a-z])buy(?:ing)?(?![a-z])|purchase|on[\s-]*prem")
_RENT = re.compile(r"租(?:用|赁|云|卡)?|云上|上云|云服务|(?<![a-z])rent(?:al|ing)?(?![a-z])|cloud|lease")
_DEFAULT = re.compile(
    r"^\s*(?:(?:就|都|全|全部|用|按|使用)?\s*默认(?:值|的|吧|就行|就好|即可|配置)?|你(?:来)?定|随便|都行|无所谓|"
    r"(?:use\s+)?(?:the\s+)?defaults?(?:\s+(?:is|are)\s+fine)?|(?:any|whatever)(?:\s+is fine)?|don'?t know|不知道|"
    r"no idea|not sure|你看着办|go with (?:the )?defaults?|ok|okay|好的|可以|行|没问题|sure|fine)\s*[.!。！~]*\s*$"
)
_RESET = re.compile(r"^\s*(?:重新开始|重来|清空|换个问题|新问题|从头再来|start over|reset|new question|clear|restart)\s*[.!。！]*\s*$")
_GREETING = re.compile(r"^\s*(?:你好|您好|嗨|哈喽|在吗|hi|hello|hey|good (?:morning|afternoon|evening))\s*[,.!。！~，]*\s*$")
_THANKS = re.compile(r"^\s*(?:谢谢|多谢|感谢|thanks|thank you|thx|ty)\s*(?:你|您|a lot|so much)?\s*[.!。！~]*\s*$")
_QUESTION = re.compile(r"[?？]|吗|呢|么|多少|怎么|如何|哪|什么|能不能|够不够|可不可以|是否|\bhow\b|\bwhat\b|\bwhich\b|\bcan\b|\bshould\b|\bis it\b|\bwould\b|\benough\b")
_ADVICE = re.compile(r"显卡|gpu|算力|硬件|服务器|配置|推荐|选卡|买卡|大模型|(?<![a-z])(?:llm|hardware|graphics card|recommend\w*|which card|what card|server)(?![a-z])")
_OWN = re.compile(r"(?:只有|现有|已有|我们有|我有|手上有|手头有|手里有|已经有|拥有|自有|有)(?!没)|(?<![a-z])(?:have|has|own|owns|got|our|my|existing|already)(?![a-z])|i've|we've")
_NOT_OWN = re.compile(r"没有|没|不是|don'?t have|do not have|no longer|(?<![a-z])sell(?![a-z])|(?<![a-z])rent|租|买|buy|quote|报价|compare|对比|比较|vs|versus|或者|还是|or(?![a-z])|would|worth")
_SELLING = re.compile(r"卖|销售|报价|供货|出售|可提供|能提供|提供|(?<![a-z])(?:sell|sells|selling|quote|quoting|offer|offers|stock|carry|resell)(?![a-z])")
_CLAUSE = re.compile(r"[,.;!?，。；！？\n]|(?<![a-z])and(?![a-z])|但是|不过|\bbut\b|想|want|plan")


def _clause_before(s: str, start: int) -> str:
    cut = 0
    for m in _CLAUSE.finditer(s, 0, start):
        cut = m.end()
    return s[cut:start]


def _int(value: float | None) -> int | None:
    return None if value is None else round(value)


# ---------------------------------------------------------------------------------------------------------------
# extraction
# ---------------------------------------------------------------------------------------------------------------
def extract(text: str, catalog: Any = None, *, pending: str | None = None, lang: str = "en") -> Slots:
    """Everything `text` says about the workload. `pending` is the slot the last question asked for, so a bare
    answer ("32k", "50", "int4") fills it. `lang` picks the currency of a bare budget (zh: CNY, en: USD)."""
    slots = Slots()
    raw = text or ""
    if len(raw) > MAX_CHARS:
        raw, slots.truncated = raw[:MAX_CHARS], True
    t = _Text(raw)
    s0 = t.s
    injected = INJECTION.search(s0)
    slots.injection = bool(injected)
    if injected:  # nothing from the injected sentence onwards feeds a slot
        for hit in list(INJECTION.finditer(s0)):
            t.consume(*reading.injected_span(t.s, hit.start()))
        s0 = t.s
    slots.reset = bool(_RESET.match(s0))
    slots.default = bool(_DEFAULT.match(s0)) or bool(re.search(r"(?:用|按|都|全部|就)默认|默认(?:就|即可|吧)|use (?:the )?defaults?|defaults? (?:for|is|are) fine|go with (?:the )?defaults?", s0))
    slots.greeting = bool(_GREETING.match(s0))
    slots.thanks = bool(_THANKS.match(s0))
    slots.question_words = bool(_QUESTION.search(s0))
    slots.advice = bool(_ADVICE.search(s0))

    slots.gib_question = reading.asks_gb_or_gib(s0)
    slots.refers_previous = reading.refers_to_previous(s0)
    slots.negative = reading.negative_amount(s0)
    if slots.negative:  # "-5 张 H100" is bad input, not five cards: the number is not read as a count
        at = t.s.find(slots.negative)
        t.consume(at, at + len(slots.negative))
    slots.excluded_vendors = reading.excluded_vendors(s0)
    if catalog is not None:
        _claims(t, slots)
        _models(t, slots, catalog)
        _gpus(t, slots, catalog)
    else:
        _claims(t, slots)
    _capacity(t, slots)
    _token_amounts(t, slots)
    _money(t, slots, lang)
    _context(t, slots)
    _concurrency(t, slots)
    _deadline_and_years(t, slots)
    _sizes(t, slots, catalog)
    _gpu_count(t, slots)
    _precision(t, slots)
    _task(t, slots)
    _misc(t, slots)
    if pending:
        _bare_answer(t, slots, pending, lang)
    return slots


def _claims(t: _Text, slots: Slots) -> None:
    marker = _CLAIM_MARKER.search(t.s)
    if not marker:
        return
    for m in _MEM_AMOUNT.finditer(t.s, marker.start()):
        value = float(m.group(1).replace(",", ""))
        unit = m.group(2)
        if re.search(r"(?:(?<![a-z])[a-z]{1,3}\d{2,4}|\d{4}\s*(?:ti|super|d)?)\s*$", t.s[max(0, m.start() - 12):m.start()]):
            continue  # part of a card's name ("A100 40GB PCIe 的带宽…"), not the stated figure
        factor = 1e3 if unit == "tb" else 1.0
        slots.claim = Claim(text=t.original[max(0, marker.start()):m.end()].strip(), value=value,
                            unit={"gib": "GiB", "gb": "GB", "g": "GB", "tb": "TB"}[unit],
                            bytes_if_gb=value * factor * 1e9, bytes_if_gib=value * factor * 2**30)
        t.consume(m.start(), m.end())
        return


_CAPACITY_AFTER = re.compile(r"\s*(?:的)?\s*(?:显存|vram|of vram|gpu memory|memory|video memory|graphics memory|"
                             r"(?:gpu|graphics )?cards?(?![a-z])|gpus?(?![a-z])|显卡|的卡|卡(?!\s*[x×]))")
_CAPACITY_BEFORE = re.compile(r"(?:显存|vram|card(?: has| with| of)?|gpu(?: has| with)?|卡|只有|标的|标称|标着|写着|has|have|with|是|为|of)"
                              r"\s*(?:only\s*)?$")
_NOT_CAPACITY = re.compile(r"\s*(?:的)?\s*(?:ram|内存|system memory|cpu memory|disk|硬盘|ssd|nvme|data|数据|file|文件|download|下载)")


def _capacity(t: _Text, slots: Slots) -> None:
    """A GPU's memory typed without a card ("28GB 显存够吗", "my card has 24 GB"): the capacity to check against.
    Amounts of system RAM, disk or data are not capacities; a quoted claim is read by `_claims` first."""
    if slots.claim is not None or slots.candidates or slots.existing:
        return  # a card named in the message has its memory in the catalog
    for m in _MEM_AMOUNT.finditer(t.s):
        value = float(m.group(1).replace(",", ""))
        unit = m.group(2)
        after = t.s[m.end():m.end() + 24]
        if unit == "tb" or not 1 <= value <= 1024 or _NOT_CAPACITY.match(after):
            continue
        if not (_CAPACITY_AFTER.match(t.s[m.start(2) + len(unit):]) or "显存" in m.group(0) or "vram" in m.group(0)
                or "memory" in m.group(0) or _CAPACITY_BEFORE.search(t.s[max(0, m.start() - 16):m.start()])):
            continue
        slots.capacity = Claim(text=t.original[m.start():m.end()].strip(), value=value,
                               unit={"gib": "GiB", "gb": "GB", "g": "GB"}[unit],
                               bytes_if_gb=value * 1e9, bytes_if_gib=value * 2**30)
        t.consume(m.start(), m.end())
        return


def _models(t: _Text, slots: Slots, catalog: Any) -> None:
    index = build_index(catalog)
    hits: list[tuple[int, int, str]] = []
    for pattern, model_id, _n in index.models:
        for m in pattern.finditer(t.s):
            hits.append((m.start(), m.end(), model_id))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    taken_end = -1
    for start, end, model_id in hits:
        if start < taken_end:
            continue
        suffix = _MODEL_PRECISION_SUFFIX.search(t.s, start, end)
        if suffix:
            end = suffix.start()
        if slots.model is None:
            slots.model = model_id
            slots.model_text = t.original[start:end].strip()
        taken_end = end
        t.consume(start, end)
    if slots.model is not None and "distill" not in slots.model and _DISTILL.search(t.s):
        # "DeepSeek-R1 蒸馏版 32B" / "R1 distill 7B": the distilled model of that size, not the 671B original
        size = _SIZE.search(t.s)
        if size and size.group("num"):
            value = float(size.group("num").replace(",", "")) * (1e9 if size.group("unit") in ("b", "bn", "billion") else 1e6)
            model_id, err = representative_model(catalog, value, "distill")
            if model_id and err < 0.25:
                slots.model = model_id
                slots.model_text = t.original[min(h[0] for h in hits):size.end()].strip()
                slots.model_assumed = "family+size"
                t.consume(size.start(), size.end())
    if slots.model is None:
        # "llama 70b", "qwen 14b", "千问 72B": family word + size -> the family's model of that size
        fam = re.search(r"(?P<fam>llama|羊驼|通义千问|千问|qwen|deepseek|mistral|mixtral|gemma|chatglm|glm|baichuan|百川|yi|phi)"
                        rf"[\s\-_]*(?:\d+\.\d+[\s\-_]*|\d+[\s\-_]+)?(?:模型)?[\s\-_]*(?P<num>{DIGITS})\s*(?P<unit>b|亿)(?![a-z0-9])", t.s)
        if fam:
            params = float(fam.group("num").replace(",", "")) * (1e9 if fam.group("unit") == "b" else 1e8)
            model_id, err = representative_model(catalog, params, FAMILY_WORDS.get(fam.group("fam")))
            if model_id and err < 0.25:
                slots.model = model_id
                slots.model_text = t.original[fam.start():fam.end()].strip()
                slots.model_assumed = "family+size"
                t.consume(fam.start(), fam.end())
                return
        # something that looks like a model name but is not in the catalog
        unknown = re.search(r"(?<![a-z])(?:llama|qwen|deepseek|mistral|mixtral|gemma|glm|baichuan|gpt|claude|falcon|bloom|opt|"
                            r"internlm|minicpm|kimi|ernie|文心|grok)[\w.\-]*", t.s)
        if unknown and len(unknown.group(0)) > 3:
            slots.unknown_model = t.original[unknown.start():unknown.end()]


def _gpus(t: _Text, slots: Slots, catalog: Any) -> None:
    index = build_index(catalog)
    hits: list[tuple[int, int, str, bool, str]] = []
    for pattern, gpu_id, _n, bare in index.gpus:
        for m in pattern.finditer(t.s):
            hits.append((m.start(), m.end(), gpu_id, bare, _gpu_key(m.group(0))))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    taken_end = -1
    mentions: list[tuple[GpuMention, bool]] = []
    for start, end, gpu_id, bare, key in hits:
        if start < taken_end:
            continue
        after = t.s[end:end + 12]
        if bare and re.match(r"\s*(?:元|块|rmb|cny|usd|美元|万|k\b|w\b|tokens?|b\b|亿|年|天|小时|mhz|w\b|瓦|gb|g\b)", after):
            continue  # "4090 元" is money, not a card
        taken_end = end
        assumed = ""
        owners = index.gpu_ambiguous.get(key)
        if owners is None and key.endswith(" s"):  # "H100s": the plural of the ambiguous "H100", not its PCIe card
            plural_of = index.gpu_ambiguous.get(key[:-2])
            if plural_of and gpu_id in plural_of:
                key, owners = key[:-2], plural_of
        if owners and len(owners) > 1:
            gpu_id, assumed = _resolve_ambiguous(catalog, key, owners)
        count, c_start, c_end = _count_near(t.s, start, end)
        span_start, span_end = min(start, c_start), max(end, c_end)
        if reading.excluded_here(t.s, start, end):  # "国内买不到 A100", "not H20", "除了 4090": ruled out
            if gpu_id not in slots.excluded:
                slots.excluded.append(gpu_id)
            t.consume(span_start, span_end)
            continue
        clause = _clause_before(t.s, start)
        owned = bool(_OWN.search(clause)) and not _NOT_OWN.search(clause)
        mentions.append((GpuMention(gpu=gpu_id, count=count, text=t.original[span_start:span_end].strip(),
                                    assumed=assumed), owned))
        t.consume(span_start, span_end)
    selling = bool(_SELLING.search(t.s))
    for mention, owned in mentions:
        if owned and not selling and slots.existing is None:
            slots.existing = mention
            continue
        if slots.existing is not None and slots.existing.gpu == mention.gpu:
            if slots.existing.count is None:
                slots.existing.count = mention.count
            continue
        same = next((c for c in slots.candidates if c.gpu == mention.gpu), None)
        if same is None:
            slots.candidates.append(mention)
        elif same.count is None:
            same.count = mention.count  # "RTX 4090 有 24GB … 一张 4090 够吗": the count comes later
    # GPU-looking words that are not in the catalog ("RTX 9090", "H300")
    for m in re.finditer(r"(?<![a-z0-9])(?:rtx\s*\d{4}\s*(?:ti|super|d)?|[ahlbv]\d{2,3}[a-z]?|mi\d{3}x?|gtx\s*\d{3,4})(?![a-z0-9])", t.s):
        word = t.original[m.start():m.end()].strip()
        if re.fullmatch(r"[bm]\d+", m.group(0)):  # "b1", "m2" are not GPUs
            continue
        slots.unknown_gpus.append(word)
        t.consume(m.start(), m.end())


def _gpu_key(matched: str) -> str:
    return " ".join(tok for tok in _tokens(matched) if tok not in _OPTIONAL_GPU_WORDS and tok not in ("英伟达", "昇腾"))


def _resolve_ambiguous(catalog: Any, key: str, owners: list[str]) -> tuple[str, str]:
    """"A100" names several cards: the catalog's own alias resolution decides; otherwise the first listed."""
    spec = catalog.find_gpu(key) if hasattr(catalog, "find_gpu") else None
    if spec is None:
        spec = next(g for g in _items(catalog.gpus) if g.id == owners[0])
    return spec.id, f"{key.upper()} = {spec.name}"


def _count_near(s: str, start: int, end: int) -> tuple[int | None, int, int]:
    before = s[max(0, start - 16):start]
    m = re.search(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:x|\*|张|块|台|片|卡|个|枚)?\s*(?:张|块)?\s*(?:卡\s*)?(?:的\s*)?$", before)
    if m:
        value = to_number(m.group("num"))
        if value is not None and 1 <= value <= 4096 and not re.search(r"\d\s*$", before[:m.start("num")]):
            return int(value), start - (len(before) - m.start()), end
    after = s[end:end + 16]
    m = re.match(rf"(?:s|'s)?\s*(?:x|\*)\s*(?P<num>\d+)|\s*(?P<num2>{NUM})\s*(?:张|块|片)", after)
    if m:
        value = to_number(m.group("num") or m.group("num2"))
        if value is not None and 1 <= value <= 4096:
            return int(value), start, end + m.end()
    return None, start, end


def _token_amounts(t: _Text, slots: Slots) -> None:
    for m in t.finditer(_TOKENS_AMOUNT):
        value = scaled(m.group("num"), m.group("unit"))
        if value is None or value <= 0:
            continue
        before = t.s[max(0, m.start() - 24):m.start()]
        slot = ("output_tokens" if _OUTPUT_WORDS.search(before) else "prompt_tokens" if _PROMPT_WORDS.search(before)
                else None)
        if slot is None and (re.search(_CONTEXT_WORDS + r"[^,.;，。；]{0,8}$", before)
                             or re.match(r"\s*(?:of\s*)?" + _CONTEXT_WORDS, t.s[m.end():])):
            continue  # "context of 8192 tokens": the context pattern reads it
        if slot is None and value < 1e6:
            continue
        slot = slot or "train_tokens"
        wrong = check(slot, value)
        if wrong is not None:
            slots.out_of_range.append(wrong)
        elif slot == "train_tokens":
            slots.train_tokens = value
        else:
            setattr(slots, slot, _int(value))
        t.consume(m.start(), m.end())


def _money(t: _Text, slots: Slots, lang: str) -> None:
    found: list[tuple[float, str]] = []
    for rx in _MONEY:
        for m in t.take(rx):
            value = scaled(m.group("num"), m.group("unit"))
            cur = m.group("cur")
            currency = "USD" if cur in ("$", "usd", "us$", "dollar", "dollars", "美元", "美金") else "CNY"
            if value:
                found.append((value, currency))
    if not found:
        for m in t.finditer(_BUDGET_BARE):
            unit = m.group("unit")
            value = scaled(m.group("num"), unit)
            if not value or value < 100:
                continue
            t.consume(m.start(), m.end())
            currency = "CNY" if unit in ("万", "千万", "百万", "十万", "w") or lang == "zh" else "USD"
            found.append((value, currency))
    if not found:
        for m in t.finditer(_WAN_AMOUNT):
            if names_other_slot(t.s, m.start()):  # "上下文 2000万", "并发 20万": read by their own slots
                continue
            t.consume(m.start(), m.end())
            value = scaled(m.group("num"), m.group("unit"))
            if value:
                found.append((value, "CNY"))
    if found:
        budget, currency = max(found)  # "50 万以内" with a second figure: the cap is the largest
        wrong = check("budget", budget)
        if wrong is None:
            slots.budget, slots.currency = budget, currency
        else:
            slots.out_of_range.append(wrong)


def _context(t: _Text, slots: Slots) -> None:
    for rx in (_CONTEXT_AFTER, _CONTEXT_BEFORE):
        m = rx.search(t.s)
        if m:
            value = read_number(m.group("num")) or 0.0
            k = m.group("k")
            value *= 1024 if k in ("k", "千") else (1024 * 1024 if k == "m" else 1)
            wrong = check("context", value)
            if wrong is None:
                slots.context = int(value)
            if wrong is None or value > wrong.hi:  # a small number beside "context" may be something else
                slots.out_of_range += [wrong] if wrong else []
                t.consume(m.start(), m.end())
                return
    m = _BARE_K.search(t.s)
    if m:
        slots.context = int(m.group(1)) * 1024
        t.consume(m.start(), m.end())


def _concurrency(t: _Text, slots: Slots) -> None:
    for rx in _QPS:
        m = rx.search(t.s)
        if m:
            v = to_number(m.group("num"))
            if v and v > 0:
                slots.qps = v
                t.consume(m.start(), m.end())
                break
    peak = _PEAK.search(t.s)
    avg = _AVERAGE.search(t.s)
    values: list[int] = []
    for rx in _CONCURRENCY:
        for m in t.take(rx):
            value = read_number(m.group("num"))
            wrong = check("concurrency", value) if value else None
            if value and wrong is None:
                values.append(int(value))
            elif wrong is not None:
                slots.out_of_range.append(wrong)
    if peak and (values or re.search(r"并发|concurren|users|用户", t.original.lower())):
        v = to_number(peak.group("num"))
        if v and 1 <= v <= 100_000:
            values.append(int(v))
            t.consume(peak.start(), peak.end())
    if avg and values:
        v = to_number(avg.group("num"))
        if v and 1 <= v <= 100_000 and int(v) in values:
            slots.concurrency_avg = int(v)
            t.consume(avg.start(), avg.end())
    if values:
        slots.concurrency = max(values)
        if slots.concurrency_avg is None and len(set(values)) > 1:
            slots.concurrency_avg = min(values)


_UNIT_SECONDS = {"week": 7 * 86400, "weeks": 7 * 86400, "周": 7 * 86400, "星期": 7 * 86400, "礼拜": 7 * 86400,
                 "day": 86400, "days": 86400, "天": 86400, "日": 86400, "hour": 3600, "hours": 3600, "hr": 3600,
                 "hrs": 3600, "小时": 3600, "month": 30 * 86400, "months": 30 * 86400, "月": 30 * 86400}


def _deadline_and_years(t: _Text, slots: Slots) -> None:
    for m in t.finditer(_TCO_YEARS):
        value = 0.5 if m.group("num") == "半" else to_number(m.group("num"))
        if value and 1 <= value <= 15:
            slots.tco_years = int(value)
            t.consume(m.start(), m.end())
            break
    for m in t.finditer(_DEADLINE):
        before = t.s[max(0, m.start() - 14):m.start()]
        after = t.s[m.end():m.end() + 8]
        if re.search(r"每|per|a$|/\s*$", before) or re.match(r"\s*(?:的数据|of data)", after):
            continue
        if not (re.search(r"within|in|by|under|less than|done|finish|deadline|要在|必须|需要|期限|限", before)
                or re.match(r"\s*(?:内|以内|之内|完成|搞定|跑完|训练完|训完|的时间|deadline)", after)):
            continue
        num = m.group("num")
        value = 0.5 if num == "半" else to_number(num)
        if value is None:
            continue
        slots.deadline_s = value * _UNIT_SECONDS[m.group("unit")]
        t.consume(m.start(), m.end())
        break


def _sizes(t: _Text, slots: Slots, catalog: Any) -> None:
    for m in t.finditer(_SIZE):
        if m.group("num"):
            value = float(m.group("num").replace(",", ""))
            value *= 1e9 if m.group("unit") in ("b", "bn", "billion") else 1e6
        else:
            value = scaled(m.group("cnnum"), m.group("cnunit"))
        if not value or not 5e7 <= value <= 5e12:
            continue
        t.consume(m.start(), m.end())
        if slots.model is not None:
            continue
        slots.size_params = value
        if catalog is not None:
            model_id, err = representative_model(catalog, value)
            if model_id:
                slots.model = model_id
                slots.model_text = t.original[m.start():m.end()].strip()
                slots.model_assumed = "size" if err < 0.15 else "closest"
        return


def _gpu_count(t: _Text, slots: Slots) -> None:
    for rx in _GPU_COUNT:
        m = rx.search(t.s)
        if not m:
            continue
        if "word" in rx.groupindex and m.group("word"):
            value: float | None = 2.0 if m.group("word").startswith(("双", "dual")) else 1.0
        else:
            value = to_number(m.group("num"))
        if value and 1 <= value <= 4096:
            slots.gpu_count = int(value)
            t.consume(m.start(), m.end())
            return


def _precision(t: _Text, slots: Slots) -> None:
    kv = _KV_FORMAT.search(t.s)
    if kv:
        slots.kv = kv.group("a") or kv.group("b")
        t.consume(kv.start(), kv.end())
    for rx, fmt in _PRECISION:
        m = rx.search(t.s)
        if m:
            slots.weights = fmt
            t.consume(m.start(), m.end())
            return
    if re.search(r"量化|quantiz|quantis", t.s):
        slots.weights = "int4"  # "量化" alone: the common 4-bit case; the dialog states it as an assumption


def _task(t: _Text, slots: Slots) -> None:
    for rx, task in _TASKS:
        if rx.search(t.s):
            slots.task = task
            if task == "qlora" and slots.weights in ("int4", None):
                slots.weights = slots.weights  # keep; the dialog maps a generic 4-bit QLoRA base to nf4
            return
    if _FINETUNE.search(t.s):
        slots.task_generic = "finetune"
        return
    if _TRAIN.search(t.s):
        slots.task_generic = "train"
        return
    if (_INFER.search(t.s) or slots.concurrency or slots.qps or slots.claim is not None
            or (slots.weights and slots.weights.startswith("q"))):
        slots.task = "inference"


_USED = re.compile(r"二手|(?<![a-z])used (?:cards?|gpus?)|second[- ]hand|refurbished|翻新")
# llama.cpp layer offload to system RAM (not a trainer's optimizer/ZeRO offload, which the task words carry)
_OFFLOAD = re.compile(r"(?<!优化器)(?<!optimizer )(?<!zero-)(?<!zero )(?:内存卸载|卸载到(?:系统)?内存|(?<!不)卸载|(?:放|挪|分)(?:一部分|部分)?(?:层)?"
                      r"(?:到|进|在)(?:系统|cpu\s*)?内存|(?:cpu|partial|layer|ram)\s*offload(?:ing)?|offload(?:ing)?\s+"
                      r"(?:(?:some |the )?layers|to (?:the )?(?:cpu|ram|system (?:memory|ram)))|(?<![a-z])-?ngl(?![a-z])|"
                      r"n_gpu_layers|gpu[- ]layers)")
_NVLINK = re.compile(r"nv\s*-?\s*link|nvl\s*桥|nvlink|桥接")
_NO_NVLINK = re.compile(r"(?:without|no|not|w/o|不用|不要|不需要|没有|无|不带|不走|不接)\s*(?:an?\s*|the\s*)?"
                        r"(?:nv\s*-?\s*link|桥接)")


def _misc(t: _Text, slots: Slots) -> None:
    s = t.s
    if _NO_NVLINK.search(s):
        slots.wants_nvlink = False
    elif _NVLINK.search(s):
        slots.wants_nvlink = True
    if _USED.search(s):
        slots.condition = "used"
    if _OFFLOAD.search(s):
        slots.offload = True
    place = reading.region_from_places(s)
    if place:
        slots.region = place
    elif _REGION_CN.search(s):
        slots.region = "cn"
    elif _REGION_GLOBAL.search(s):
        slots.region = "global"
    for rx, engine in _ENGINES:
        if rx.search(s):
            slots.engine = engine
            break
    m = _ZERO.search(s)
    if m:
        slots.zero = int(m.group("n"))
    if slots.task in ("lora", "qlora"):
        m = _LORA_RANK.search(s)
        if m and 1 <= int(m.group("n")) <= 4096:
            slots.lora_rank = int(m.group("n"))
    m = _BATCH.search(s)
    if m:
        v = to_number(m.group("n"))
        if v and 1 <= v <= 100_000:
            slots.batch = int(v)
    buy, rent = bool(_BUY.search(s)), bool(_RENT.search(s))
    if buy and rent:
        slots.buy_or_rent = "either"
    elif buy:
        slots.buy_or_rent = "buy"
    elif rent:
        slots.buy_or_rent = "rent"


_COUNTED = ("context", "concurrency", "output_tokens")  # bare answers read as counts, range-checked
_PENDING_NUMBER = re.compile(rf"^\s*(?:about|around|约|大概|大约)?\s*(?P<num>{NUM})\s*(?P<unit>k|千|万|w|m)?\s*(?:个|人|路|tokens?)?\s*[.。!！]?\s*$")


def _bare_answer(t: _Text, slots: Slots, pending: str, lang: str) -> None:
    """A short reply to the question just asked: "32k" for context, "50" for concurrency, "20万" for budget."""
    m = _PENDING_NUMBER.match(t.s)
    if not m:
        return
    num, unit = m.group("num"), m.group("unit")
    value = to_number(num)
    if pending in _COUNTED and value and (unit is None or pending != "concurrency"):
        value *= 1024 if unit in ("k", "千") and pending != "concurrency" else 1
        wrong = check(pending, value)  # 1e400 reads as inf: out of range, never int(inf)
        if wrong is not None:
            slots.out_of_range.append(wrong)
        elif getattr(slots, pending) is None:
            setattr(slots, pending, int(value))
        return
    if value is not None and not math.isfinite(value):
        return
    if pending == "budget" and slots.budget is None:
        value = scaled(num, unit)
        if value and check("budget", value) is not None:
            slots.out_of_range.append(check("budget", value))
        elif value:
            slots.budget = value
            slots.currency = slots.currency or ("CNY" if lang == "zh" or unit in ("万", "w") else "USD")
    elif pending == "gpu_count" and slots.gpu_count is None:
        value = to_number(num)
        if value and unit is None:
            slots.gpu_count = int(value)
    elif pending == "model" and slots.model is None:
        pass
