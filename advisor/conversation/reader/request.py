"""The typed request: what one message asks, read into one record that the policy, the analysis and `ask --json`
read (DESIGN.md, "Both read a message into one typed request").

    Request(act="which", subjects=(Subject(kind="model", id="qwen2.5-72b", text="Qwen2.5-72B"),),
            job=(Value(name="concurrency", value=50, provenance="stated", text="50 users"),
                 Value(name="context", value=8192, provenance="stated", text="8k context"),
                 Value(name="weights", value="bf16", provenance="default"), …),
            limits=(…), hardware=(…), claims=(…), unknown=(…))

* `act` — the question's kind (ACTS). The dialog's intent decides the common ones; this module refines it into
  legality (is it allowed / export control), market (can it be bought, availability), rent_vs_buy (renting is
  asked about), capability ("what can you do?").
* `job` — the workload as the turn computes it, each value with its provenance: `stated` (typed in this message,
  with the words it came from, or in an earlier message: `earlier`), `inferred` (implied by the question, e.g.
  serving from "how many users can it serve"), `default` (the dialog's default, said in the answer).
* `hardware` — every card named with its role: owned, candidate, excluded, compared (a comparison of two or more
  named cards); a card the catalog lacks has `gpu` None and `known` False.
* `limits` — budget (money + currency), deadline, region (stated or assumed from the language), exclusions.

`read_request` builds it from the extractor's slots and the dialog state after the turn; the LLM reader
(`advisor.conversation.reader.llm`) fills the same record and is checked by `validate`.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any, Literal

from advisor.conversation.dialog.machine import DialogState, build_constraints, build_workload, default_weights, merge
from advisor.conversation.reader import loose
from advisor.conversation.reader.cues import words
from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.intent import TOKEN_COST, from_cue
from advisor.conversation.reader.loose import Loose
from advisor.conversation.reader.quantity import Quantity, quantities
from advisor.conversation.reader.turn import keep_job, read_intent, read_references
from advisor.conversation.reader.usage import HOURS_PER_MONTH
from advisor.estimator.calibration import load_economics
from advisor.workload import CHAT_OUTPUT_TOKENS, DEFAULT_CONTEXT
from knowledge.errors import AdvisorError
from knowledge.structs import Frozen, dump, replace
from knowledge.structs import validate as validate_struct

if TYPE_CHECKING:
    from advisor.conversation.reader.slots import Slots
    from knowledge.catalog import Catalog

ACTS = ("feasibility", "how_many", "how_long", "how_much", "which", "compare", "market", "legality", "rent_vs_buy",
        "claim", "explain", "what_if", "capability", "other")
Act = Literal["feasibility", "how_many", "how_long", "how_much", "which", "compare", "market", "legality",
              "rent_vs_buy", "claim", "explain", "what_if", "capability", "other"]
Provenance = Literal["stated", "inferred", "default"]
Role = Literal["owned", "candidate", "excluded", "compared"]


class Value(Frozen):
    """One value of the job or the limits, with where it came from and the words it was read from."""

    name: str
    value: float | int | str | bool
    unit: str = ""
    provenance: Provenance = "stated"
    text: str = ""  # the user's words ("" for defaults)
    earlier: bool = False  # stated in an earlier message of the conversation
    low: float | None = None  # a loosely said amount ("a few hundred users"): the range its words cover
    high: float | None = None


class Subject(Frozen):
    """A model or card the question is about; `id` None when the catalog lacks it (`known` False)."""

    kind: Literal["model", "gpu"]
    id: str | None = None
    text: str = ""
    known: bool = True


class Hardware(Frozen):
    """A card named with its role and the count said (None: not said)."""

    gpu: str | None
    role: Role
    count: int | None = None
    text: str = ""
    known: bool = True
    provenance: Provenance = "stated"  # "inferred": a count said loosely ("a dozen GPUs", "一两张卡")


class ClaimRead(Frozen):
    """A figure quoted from a guide or someone else, to be checked."""

    text: str
    value: float
    unit: str


class Request(Frozen):
    """What one message asks (see the module doc)."""

    act: Act
    lang: Literal["zh", "en"] = "en"
    subjects: tuple[Subject, ...] = ()
    job: tuple[Value, ...] = ()
    limits: tuple[Value, ...] = ()
    hardware: tuple[Hardware, ...] = ()
    claims: tuple[ClaimRead, ...] = ()
    unknown: tuple[str, ...] = ()  # names the catalog lacks, said first in the answer
    excluded_vendors: tuple[str, ...] = ()
    engine_family: Literal["server", "llama.cpp"] = "server"  # a home user with one consumer card: llama.cpp-style
    reader: Literal["offline", "llm"] = "offline"
    # where the act came from: "cue" (a cue word or phrase of the message: "how long", "几张", "why", "rent", "vs",
    # a quoted claim, two named models), "shape" (no cue: guessed from the job's shape), "model" (the LLM's reading)
    act_from: Literal["cue", "shape", "model"] = "cue"
    note: str = ""

    def value(self, name: str) -> Value | None:
        """The job or limit value called `name` (None when absent)."""
        return next((v for v in (*self.job, *self.limits) if v.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return dump(self, json=True)


# --- the act -----------------------------------------------------------------------------------------------------
_LEGAL = words(zh=r"合法|合规|违法|违规|出口管制|禁运|禁售|许可证|被禁|制裁|受限|实体清单|能不能进口|能进口",
               en=r"legal(?:ly)?|illegal|allowed|permitted|export[\s-]*control(?:led|s)?|export rules?|banned?|"
                  r"sanction(?:s|ed)?|licen[cs]e|compliance|restricted")
_MARKET_WORDS = words(zh=r"还能买|买得到|能买到|有货|缺货|在售|停售|替代|现在能买|采购得到|渠道",
                      en=r"still (?:buy|sold|get|available)|available|availability|in stock|buy (?:one|it|them)|"
                         r"alternatives?|instead")
_RENT = words(zh=r"租|租用|租赁|云上|云服务器|按小时|按量|每小时|算力租|云 gpu|云gpu|每\s*(?:gpu|卡|张卡)\s*(?:每)?\s*小时",
              en=r"rent(?:ing|al|ed)?|lease|per hour|hourly|cloud|on[\s-]demand|spot|runpod|lambda|vast\.ai|aws|gcp|"
                 r"azure|coreweave")
_MONTHLY = words(zh=r"每月|每个月|一个月|月成本|月费用|每月成本", en=r"monthly|per month|a month|each month|every month|/\s*mo(?:nth)?(?![a-z])")
_POWER = words(zh=r"电费|电力|功耗|耗电", en=r"electricity|power bill|power cost|energy")
_TAG_QUESTION = re.compile(r"(?:right|correct|true|isn'?t it|is that so|am i right)\s*[?？]|对吧|对吗|是吗|没错吧|是真的吗|对不对|"
                           r"真的[^，。；？?]{0,40}吗|(?:is it|does it|do they|is that) really|really only|really just|"
                           r"(?:只要|只需|才|不过)[^，。；？?]{0,30}吧\s*[?？]|是不是[^，。；？?]{0,30}[?？]|不是吗")
_CLAIM_SUBJECT = re.compile(r"kv[\s-]*cache|kv 缓存|moe|experts?|专家|显存|memory|vram|only (?:need|take)|只要|只需")
_BUY = words(zh=r"买|购买|采购|自建", en=r"buy(?:ing)?|purchas\w*|own")


def asks_monthly(text: str) -> bool:
    """Whether money is asked by the month ("monthly rent cost", "每月多少钱")."""
    return bool(_MONTHLY.search((text or "").lower()))


def act_of(intent: str, text: str, slots: Slots) -> str:
    """The act of the question from the dialog's intent and the words of the message."""
    s = (text or "").lower()
    if intent == "capabilities":
        return "capability"
    if intent in ("claim", "explain", "what_if", "compare"):
        return intent
    if _TAG_QUESTION.search(s) and _CLAIM_SUBJECT.search(s):
        return "claim"  # "MoE models only need memory for their active experts, right?"
    rent = bool(_RENT.search(s)) or slots.buy_or_rent == "rent"
    # "monthly cost of running 405B on H100s", "每个月要花多少": a running cost a month is the rental against owning
    rent = rent or (intent == "how_much" and bool(_MONTHLY.search(s)) and not _POWER.search(s))
    # "cheapest way to serve … give me $/month": the month's cost of the configuration chosen
    rent = rent or (intent == "which" and bool(re.search(r"[$¥]\s*/\s*mo|per\s+month\s+cost|每月(?:多少钱|成本|费用)", s)))
    # "what would it cost to pre-train a 1B model on 100B tokens on 8× H100?": a training job's cost is its GPU-hours
    # priced by the hour (and against buying the cards), not the cards' purchase price alone; cards the person already
    # has, or a purchase said, keep the purchase answer
    rent = rent or (intent == "how_much" and slots.training and slots.existing is None and not _BUY.search(s)
                    and bool(re.search(r"cost|spend|多少钱|花多少|费用|成本", s)))
    per_token = bool(TOKEN_COST.search(s)) and not _BUY.search(s)  # "租 4090 每百万 token 成本": the token's cost
    # "$40k a month to rent H100s: how many users?": what it buys; a batch job rented by the hour: the job's own cost
    spend = ((slots.budget_monthly or slots.rent_cap_hour) and not _BUY.search(s)) or (
        (slots.job_requests or slots.job_tokens) and not _BUY.search(s))
    if rent and not per_token and not spend and intent in ("how_much", "which", "other", "how_long", "how_many",
                                                           "feasibility") and (
            _BUY.search(s) or intent == "how_much" or re.search(r"多少钱|cost|price|贵|便宜|cheap|划算|合算|值得|worth|makes? sense", s)
            or (slots.rent_rate is not None and re.search(r"bill|spend|费用|月租|花多少|" + _MONTHLY.pattern, s))):
        return "rent_vs_buy"
    if intent == "market" or (_MARKET_WORDS.search(s) and (slots.candidates or slots.existing or slots.excluded)
                              and slots.model is None):
        return "legality" if _LEGAL.search(s) else "market"
    if _LEGAL.search(s) and (slots.candidates or slots.existing):
        return "legality"
    if intent in ACTS:
        return intent
    return "other"


# --- provenance of the job's values ------------------------------------------------------------------------------
_DIMENSION = {"context": "tokens", "prompt_tokens": "tokens", "output_tokens": "tokens", "train_tokens": "tokens",
              "concurrency": "users", "headcount": "users", "budget": "money", "deadline_days": "days"}
_WORDS = {  # where a stated word value was typed: the first cue of that value found in the message
    "task": {"inference": r"推理|部署|服务|serv\w*|inference|deploy\w*|chat|host\w*|run",
             "lora": r"lora|微调|fine[\s-]*tun\w*", "qlora": r"qlora", "full": r"全参|全量|full",
             "pretrain": r"预训练|pre[\s-]*train\w*|from scratch", "freeze": r"冻结|freeze"},
    "weights": {"": r"int4|int8|fp8|fp4|nf4|4[\s-]*bit|8[\s-]*bit|awq|gptq|gguf|q4\w*|q8\w*|bf16|fp16|fp32|mxfp4|"
                    r"nvfp4|半精度|量化"},
}


def _span(text: str, name: str, value: Any, found: list[Quantity]) -> str:
    """The user's words for a stated value: an amount of the right dimension and value, or the cue word."""
    dim = _DIMENSION.get(name)
    if dim and isinstance(value, int | float):
        for q in found:
            if q.dimension == dim and abs(q.value - float(value)) <= 0.03 * abs(float(value)) + 1:
                return q.text
        for q in found:
            if q.dimension in (dim, "count") and (abs(q.value - float(value)) <= 0.03 * abs(float(value)) + 1
                                                  or abs(q.value * 1.024 - float(value)) < 1):
                return q.text
    cues = _WORDS.get(name)
    if cues:
        pattern = cues.get(str(value)) or cues.get("")
        m = re.search(pattern, text, re.I) if pattern else None
        if m:
            return m.group(0)
    return ""


def _job(text: str, now: Slots, merged: Slots, workload: dict[str, Any], intent: str) -> list[Value]:
    """The workload's values with their provenance (see the module doc)."""
    found = quantities(text)
    out: list[Value] = []
    workload = dict(workload)
    if workload.get("task") != "inference":
        workload.pop("concurrency", None)  # a training job has no users
        workload.pop("kv", None)
    if workload.get("task") not in ("lora", "qlora"):
        workload.pop("lora_rank", None)
    if workload.get("task") == "inference":
        workload.pop("zero", None)  # ZeRO is a training layout
    if workload.get("task") == "inference" and not workload.get("weights") and workload.get("model"):
        workload["weights"] = default_weights(str(workload["model"]))  # the checkpoint's own precision
    units = {"context": "tokens", "prompt_tokens": "tokens", "output_tokens": "tokens", "train_tokens": "tokens",
             "concurrency": "sequences", "lora_rank": "", "zero": ""}
    for name in ("model", "task", "weights", "kv", "context", "concurrency", "prompt_tokens", "output_tokens",
                 "train_tokens", "engine", "lora_rank", "zero"):
        value = workload.get(name)
        if value is None:
            continue
        said_now, said_before = getattr(now, name, None), getattr(merged, name, None)
        prov: Provenance
        if name == "concurrency" and merged.concurrency is None and merged.qps is None and merged.headcount:
            prov, words_ = "inferred", ""  # from the people who use the service (dialog.load.PEAK_SHARE)
        elif name == "concurrency" and merged.concurrency is None and merged.qps is None and merged.min_tokens_per_s:
            prov, words_ = "inferred", ""  # from a total throughput at the per-token target (dialog.machine)
        elif name == "concurrency" and said_now is None and now.qps is not None:
            prov = "inferred"  # from a request rate (Little's law)
            words_ = str(now.qps)
        elif name == "model" and said_now is not None and now.model_assumed == "coding":
            prov, words_ = "default", ""  # no model named for a coding use: the coding default (dialog.machine)
        elif name == "model" and said_now is not None and now.model_assumed in ("size", "closest", "default"):
            prov, words_ = "inferred", now.model_text or ""  # a bare size ("14B"): a representative model
        elif said_now is not None:
            prov, words_ = "stated", (now.model_text or "") if name == "model" else _span(text, name, said_now, found)
        elif name == "context" and said_before is None and merged.prompt_tokens and value != DEFAULT_CONTEXT and \
                value == merged.prompt_tokens + (merged.output_tokens or CHAT_OUTPUT_TOKENS):
            prov, words_ = "inferred", ""  # the prompt (and answer) lengths the person gave
        elif name == "concurrency" and said_before is None and merged.qps is not None:
            prov, words_ = "inferred", "" if now.qps is None else str(now.qps)  # from an earlier request rate
            out.append(Value(name=name, value=value, unit=units.get(name, ""), provenance=prov, text=words_,
                             earlier=now.qps is None))
            continue
        elif said_before is not None:
            out.append(Value(name=name, value=value, unit=units.get(name, ""), provenance="stated", earlier=True))
            continue
        elif name == "task" and (now.task_generic or merged.task_generic):
            prov, words_ = "inferred", ""  # "fine-tune" without a method: LoRA
        elif name == "task" and intent in ("feasibility", "how_many", "how_much", "compare", "what_if", "which"):
            prov, words_ = "inferred", ""  # the question's shape implies serving
        else:
            prov, words_ = "default", ""
        out.append(Value(name=name, value=value, unit=units.get(name, ""), provenance=prov, text=words_))
    if workload.get("task") == "inference" and merged.headcount and merged.concurrency is None and merged.qps is None:
        said = now.headcount is not None  # the people who use the service, that concurrency was inferred from
        out.append(Value(name="headcount", value=merged.headcount, unit="people", provenance="stated", earlier=not said,
                         text=_span(text, "headcount", merged.headcount, found) if said else ""))
    return out


def _limits(text: str, now: Slots, merged: Slots, constraints: dict[str, Any] | None, lang: str) -> list[Value]:
    found = quantities(text)
    out: list[Value] = []
    if merged.budget is not None:
        cur = merged.currency or ("CNY" if lang == "zh" else "USD")
        said = now.budget is not None
        out.append(Value(name="budget", value=merged.budget, unit=cur + (" per month" if merged.budget_monthly else ""),
                         provenance="stated", earlier=not said,
                         text=_span(text, "budget", merged.budget, found) if said else ""))
    if merged.rent_cap_hour is not None:  # "budget $2/hr": the most an hour for rented cards
        out.append(Value(name="budget", value=merged.rent_cap_hour, unit=f"{merged.currency or 'USD'} per hour",
                         provenance="stated", earlier=now.rent_cap_hour is None))
    if merged.deadline_s is not None:
        said = now.deadline_s is not None
        days = merged.deadline_s / 86400
        out.append(Value(name="deadline_days", value=days, unit="days", provenance="stated", earlier=not said,
                         text=_span(text, "deadline_days", days, found) if said else ""))
    region = (constraints or {}).get("region") or ("global" if constraints is not None else None)
    if region:
        if now.region is not None or merged.region is not None:
            out.append(Value(name="region", value=region, provenance="stated", earlier=now.region is None))
        else:
            out.append(Value(name="region", value=region, provenance="default" if lang != "zh" else "inferred",
                             text=""))  # a Chinese question with no place: mainland China, said in the answer
    for q in found:  # "assume 35% MFU", "MFU 按 40% 算": the efficiency the person states for training time
        near = text[max(0, q.span[0] - 24):q.span[1] + 16].lower() if q.dimension == "percent" else ""
        if near and re.search(r"mfu|model flops|利用率|算力利用|efficiency", near) and 0 < q.value <= 100 and not (
                now.usage_share is not None and q.text in (now.usage_text or "")):  # "利用率 60%" of a rental: the time used
            out.append(Value(name="mfu", value=q.value / 100, unit="fraction", provenance="stated", text=q.text))
            break
    buy_or_rent = now.buy_or_rent or merged.buy_or_rent  # a turn answered without a merge still counts
    if buy_or_rent:
        out.append(Value(name="buy_or_rent", value=buy_or_rent, provenance="stated", earlier=now.buy_or_rent is None))
    if merged.condition:
        out.append(Value(name="condition", value=merged.condition, provenance="stated"))
    use = now if now.usage_hours_month is not None else merged  # a turn answered without a merge still counts
    if use.usage_hours_month is not None:  # "8 hours a day": the hours a month each card (or the job) runs
        out.append(Value(name="usage_hours_month", value=round(use.usage_hours_month, 2),
                         unit="hours per GPU" if use.usage_per_gpu is not False else "GPU-hours",
                         provenance="stated", text=use.usage_text or "", earlier=use is not now))
        if use.usage_share is not None:  # "60% of the time": the share the hours came from, said back as such
            out.append(Value(name="usage_share", value=round(use.usage_share, 4), unit="fraction", provenance="stated",
                             text=use.usage_text or "", earlier=use is not now))
    vol = now if now.tokens_per_day is not None else merged
    if vol.tokens_per_day is not None:  # "1M tokens a day": the volume the cost per token is said for
        out.append(Value(name="tokens_per_day", value=round(vol.tokens_per_day), unit="tokens per day",
                         provenance="stated", earlier=vol is not now))
    rate = now if now.min_tokens_per_s is not None else merged
    if rate.min_tokens_per_s is not None:  # "5000 tokens/s in total": the recommender's total-throughput target
        out.append(Value(name="min_tokens_per_s", value=rate.min_tokens_per_s, unit="tokens/s", provenance="stated",
                         text=rate.throughput_text or "", earlier=rate is not now))
    out += _rent_rate_values(now, merged)
    power = now if now.electricity is not None else merged
    if power.electricity is not None:  # "$0.12/kWh", "电价 0.8 元/度": the tariff every power cost uses (unit: the
        p = power.electricity  # currency said, "EUR" for one the catalog lacks, none when none was said)
        out.append(Value(name="electricity_price", value=p.amount, unit=f"{p.currency or p.other or ''} per kWh".strip(),
                         provenance="stated" if p.currency or p.other else "inferred", text=p.text,
                         earlier=power is not now))
    hz = now if now.horizon_months is not None else merged
    if hz.horizon_months is not None:
        out.append(Value(name="horizon_months", value=hz.horizon_months, unit="months", provenance="stated",
                         text=hz.horizon_text or "", earlier=hz is not now))
    return out


def _rent_rate_values(now: Slots, merged: Slots) -> list[Value]:
    """The rental price the person states (per GPU-hour; an instance's price and its GPU count where that was said)
    and the provider they named, each with provenance "stated" (reader.rental)."""
    said = now if now.rent_rate is not None else merged
    r = said.rent_rate
    if r is None:
        return []
    earlier = said is not now
    out = []
    if r.amount is not None:
        out.append(Value(name="rent_rate", value=round(r.amount, 6), unit=f"{r.currency} per GPU-hour",
                         provenance="stated" if r.currency_said else "inferred", text=r.text, earlier=earlier))
    if r.instance_amount is not None:
        out.append(Value(name="rent_rate_instance", value=r.instance_amount, unit=f"{r.currency} per instance-hour",
                         provenance="stated", text=r.text, earlier=earlier))
        if r.gpus:
            out.append(Value(name="rent_rate_gpus", value=r.gpus, unit="GPUs per instance", provenance="stated",
                             text=r.text, earlier=earlier))
    if r.per_hours != 1.0:  # a price per day, week or month ("$1,500 per GPU per month"): the hours it covers
        out.append(Value(name="rent_rate_period_hours", value=round(r.per_hours, 4), unit="hours", provenance="stated",
                         text=r.text, earlier=earlier))
    if r.provider:
        out.append(Value(name="rent_provider", value=r.provider, provenance="stated", text=r.provider, earlier=earlier))
    return out


def _rent_defaults(limits: list[Value], now: Slots, merged: Slots) -> list[Value]:
    """A rent-or-buy question without a stated usage or horizon: around the clock (730 h a month per card) over the
    cost horizon (the stated TCO years, else the TCO's default), each said as a default in the answer."""
    names = {v.name for v in limits}
    out = list(limits)
    if "usage_hours_month" not in names:
        out.append(Value(name="usage_hours_month", value=HOURS_PER_MONTH, unit="hours per GPU", provenance="default"))
    if "horizon_months" not in names:
        stated = now.tco_years or merged.tco_years
        years = stated or float(load_economics().default_years.value)
        out.append(Value(name="horizon_months", value=12 * years, unit="months",
                         provenance="stated" if stated else "default"))
    return out


def _loose_match(text: str, value: float) -> Loose | None:
    """The loosely said amount of `text` that `value` was read from ("a few hundred" → 300; "8k"-style binary
    token amounts within 2.4 %)."""
    return next((x for x in loose.find(text) if abs(x.value - value) <= 0.025 * abs(x.value) + 1e-9), None)


def _loosen(values: list[Value], text: str) -> list[Value]:
    """A value read from a loosely said amount is `inferred`, with the words and the range they cover."""
    out = []
    for v in values:
        x = (_loose_match(text, float(v.value)) if v.provenance == "stated" and not v.earlier
             and isinstance(v.value, int | float) and not isinstance(v.value, bool) else None)
        out.append(v if x is None else replace(v, provenance="inferred", text=x.text, low=x.low, high=x.high))
    return out


def _loosen_counts(hardware: list[Hardware], text: str) -> list[Hardware]:
    return [replace(h, provenance="inferred") if h.count is not None and _loose_match(text, h.count) else h
            for h in hardware]


def _hardware(now: Slots, merged: Slots, act: str) -> list[Hardware]:
    out: list[Hardware] = []
    src = now if (now.candidates or now.existing or now.excluded) else merged
    if src.existing is not None:
        out.append(Hardware(gpu=src.existing.gpu, role="owned", count=src.existing.count, text=src.existing.text))
    role: Role = "compared" if act == "compare" or len(src.candidates) >= 2 else "candidate"
    for c in src.candidates:
        out.append(Hardware(gpu=c.gpu, role=role, count=c.count, text=c.text))
    for gpu in merged.excluded:
        out.append(Hardware(gpu=gpu, role="excluded"))
    for word in now.unknown_gpus:
        out.append(Hardware(gpu=None, role="compared" if role == "compared" else "candidate", text=word, known=False))
    return out


_HOME = words(zh=r"个人|自己|家用|家里|在家|本地|笔记本|台式机|游戏本|ollama|gguf|lm ?studio",
              en=r"ollama|gguf|llama\.cpp|lm ?studio|at home|home (?:lab|use|pc|server)|my (?:pc|laptop|desktop|"
                 r"gaming)|hobby|personal|locally|laptops?|notebook gpu|mobile gpu")
_CONSUMER = re.compile(r"^(?:rtx-|gtx-)|^(?:rx-)")


def engine_family(text: str, merged: Slots, hardware: list[Hardware]) -> Literal["server", "llama.cpp"]:
    """"llama.cpp" for a person with one consumer card, a home budget or Ollama/GGUF words; else "server"."""
    s = (text or "").lower()
    if merged.task not in (None, "inference") or merged.task_generic is not None:
        return "server"  # training runs on the training stacks, whatever the card
    if merged.engine in ("llama.cpp", "ollama") or merged.offload or re.search(r"ollama|gguf|llama\.cpp", s):
        return "llama.cpp"
    owned = [h for h in hardware if h.role == "owned" and h.gpu]
    if owned and len(owned) == 1 and _CONSUMER.match(owned[0].gpu or "") and (owned[0].count or 1) == 1:
        return "llama.cpp"
    if _HOME.search(s) and (merged.concurrency or 1) <= 2:
        return "llama.cpp"
    return "server"


def read_request(text: str, now: Slots, state: DialogState, intent: str, lang: str,
                 workload: dict[str, Any] | None = None, catalog: Catalog | None = None) -> Request:
    """The typed request of one message (`now`: what it said; `state`: the conversation after the turn;
    `workload`: the workload and constraints the turn computed, as in `Turn.workload`)."""
    merged = state.slots
    act = act_of(intent, text, now)
    if act in ("what_if", "other", "feasibility", "how_much") and (merged.buy_or_rent or now.buy_or_rent) and (
            now.usage_hours_month is not None or now.horizon_months is not None):
        act = "rent_vs_buy"  # "what if we only use it 8 hours a day?" after a rent-or-buy answer: asked again (a
        # catalog-only one is asked again as its price question: how_much)
    elif act == "what_if" and now.buy_or_rent == "rent":
        act = "rent_vs_buy"  # "要是租呢" after a purchase: the same cards priced as a rental
    cue = act != intent or len(now.models) >= 2 or from_cue(text, now, follow_up=intent == "what_if")
    wl = dict((workload or {}).get("workload") or {})
    cons = (workload or {}).get("constraints")
    job = _job(text, now, merged, wl, intent) if wl else []
    hardware = _hardware(now, merged, act)
    subjects: list[Subject] = []
    if merged.model:
        subjects.append(Subject(kind="model", id=merged.model, text=now.model_text or ""))
    subjects += [Subject(kind="model", id=m, text=m) for m in now.models if m != merged.model]  # a comparison
    if now.unknown_model and not now.model:
        subjects.append(Subject(kind="model", id=None, text=now.unknown_model, known=False))
    for h in hardware:
        if h.role in ("candidate", "compared", "owned"):
            subjects.append(Subject(kind="gpu", id=h.gpu, text=h.text, known=h.known))
    claims = [ClaimRead(text=c.text, value=c.value, unit=c.unit) for c in (now.claim, now.capacity) if c is not None]
    if act == "claim" and not claims:  # "…only a couple of GB, right?": the amount put up for checking
        said = next((q for q in quantities(text) if q.dimension == "bytes"), None)
        if said is not None:
            claims.append(ClaimRead(text=said.text, value=said.value / 1e9, unit="GB"))
    unknown = list(([now.unknown_model] if now.unknown_model and not now.model else []) + list(now.unknown_gpus))
    limits = _loosen(_limits(text, now, merged, cons, lang), text)
    job = _loosen(job, text)
    hardware = _loosen_counts(hardware, text)
    if act == "rent_vs_buy":
        limits = _rent_defaults(limits, now, merged)
    return Request(act=act, lang=lang, subjects=tuple(subjects), job=tuple(job),  # type: ignore[arg-type]
                   limits=tuple(limits), hardware=tuple(hardware),
                   claims=tuple(claims), unknown=tuple(unknown), excluded_vendors=tuple(merged.excluded_vendors),
                   engine_family=engine_family(text, merged, hardware), act_from="cue" if cue else "shape")


def read(text: str, catalog: Catalog, lang: str = "en", state: DialogState | None = None) -> Request:
    """The offline reader alone: the typed request of `text` (after `state`'s conversation, if any) without
    answering it — the extractor, the intent, the merge and the workload the dialog would size."""
    working = copy.deepcopy(state) if state is not None else DialogState()
    now = extract(text, catalog, pending=working.pending, lang=lang)
    intent = read_intent(text, now, working)
    if intent == "explain" and working.answered and now.model is None:
        keep_job(now)
    read_references(working, now, intent)
    merge(working, now)
    return read_request(text, now, working, intent, lang, job_summary(working, lang), catalog)


def job_summary(state: DialogState, lang: str) -> dict[str, Any]:
    """The workload (every field, defaults included) and constraints the dialog would size from `state`."""
    summary: dict[str, Any] = {}
    try:
        workload, _ = build_workload(state)
        if workload is not None:
            summary["workload"] = dump(workload, json=True, exclude_none=True)
        constraints, _ = build_constraints(state, lang)
        summary["constraints"] = dump(constraints, json=True, exclude_defaults=True)
    except AdvisorError:
        pass
    return summary


def reconcile(model: Request, offline: Request) -> Request:
    """The LLM's reading checked against the offline reader's, by one rule: what the offline reader read from the
    message's own words wins where the two disagree — the act when it came from a cue word (`act_from` "cue"), the
    model when it was named as the catalog names it (stated, not a size's stand-in). Elsewhere the model's reading
    stands (an act guessed from the job's shape, values the offline reader missed). Each override is in the note."""
    notes = []
    act, act_from = model.act, "model"
    if offline.act_from == "cue" and offline.act not in ("other", model.act):
        notes.append(f"act: model {model.act}, offline {offline.act} (cue in the message) kept")
        act, act_from = offline.act, "cue"
    subjects = list(model.subjects)
    mine = next((s for s in offline.subjects if s.kind == "model" and s.known and s.id), None)
    stated = offline.value("model")
    theirs = next((i for i, s in enumerate(subjects) if s.kind == "model"), None)
    replaced = ""
    if mine is not None and stated is not None and stated.provenance == "stated":
        if theirs is None:
            subjects.insert(0, mine)
        elif subjects[theirs].id != mine.id:
            replaced = subjects[theirs].text or subjects[theirs].id or ""
            notes.append(f"model: model {replaced}, offline {mine.id} (named) kept")
            subjects[theirs] = mine
    return replace(model, act=act, act_from=act_from, subjects=tuple(subjects),
                   note="; ".join(n for n in (model.note, *notes) if n),
                   unknown=tuple(u for u in model.unknown if not replaced or u != replaced))


def validate(data: dict[str, Any], catalog: Catalog) -> Request:
    """A request from another reader (the LLM's structured answer) checked like the offline one: the record's types,
    catalog ids that exist (an id the catalog lacks becomes an unknown name, never a stand-in)."""
    req = validate_struct(Request, data)
    subjects = []
    unknown = list(req.unknown)
    for s in req.subjects:
        if s.id is not None:
            found = catalog.find_model(s.id) if s.kind == "model" else catalog.find_gpu(s.id)
            if found is None:
                unknown.append(s.text or s.id)
                s = Subject(kind=s.kind, id=None, text=s.text or s.id, known=False)
            else:
                s = Subject(kind=s.kind, id=found.id, text=s.text, known=True)
        subjects.append(s)
    hardware = []
    for h in req.hardware:
        spec = catalog.find_gpu(h.gpu) if h.gpu else None
        hardware.append(Hardware(gpu=spec.id if spec else None, role=h.role, count=h.count, text=h.text or (h.gpu or ""),
                                 known=spec is not None))
        if spec is None and h.gpu and (h.text or h.gpu) not in unknown:
            unknown.append(h.text or h.gpu)
    return replace(req, subjects=tuple(subjects), hardware=tuple(hardware), unknown=tuple(dict.fromkeys(unknown)))


__all__ = ["ACTS", "ClaimRead", "Hardware", "Request", "Subject", "Value", "act_of", "engine_family", "read",
           "read_request", "reconcile", "validate"]
