"""One deterministic turn: read the message, then answer, ask the one blocking question, or say what was wrong.

`respond` drives the turn over the slot state of `advisor.conversation.dialog.machine` (merging, defaults, the tools),
and hands every reply to `advisor.conversation.render.compose` (or `catalog_answers` for questions that need no model).
`DialogDriver` is the deterministic driver a `Conversation` runs, with the same `run(conversation, text)` shape as
the LLM agent's driver.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING

from advisor.analysis.claims import claim_findings, premise_findings
from advisor.analysis.evaluate import analyse
from advisor.conversation.dialog import catalog_answers, fit_answers, policy, readback
from advisor.conversation.dialog.analysis_request import analysis_request, named_configs
from advisor.conversation.dialog.machine import (
    BLOCKING,
    Change,
    DialogState,
    accept_default,
    build_constraints,
    build_workload,
    default_catalog,
    merge,
    missing_blocking,
    next_question,
    reset,
)
from advisor.conversation.reader import ranges
from advisor.conversation.reader.extract import Slots, extract
from advisor.conversation.reader.hant import simplified
from advisor.conversation.reader.intent import (
    Question,
    asks,
    asks_feasible,
    asks_runs_and_users,
    asks_time_and_cost,
    engines_compared,
    implies_inference,
    rate_period,
    reference_method,
    tp_degrees_compared,
    training_frameworks_compared,
)
from advisor.conversation.reader.lang import lang_asked
from advisor.conversation.reader.numbers import to_number
from advisor.conversation.reader.request import Request, act_of, asks_monthly, job_summary, read_request
from advisor.conversation.reader.spec_claims import match_spec_claim
from advisor.conversation.reader.turn import (
    CODING,
    ambiguity,
    ambiguity_question,
    asks_which_model,
    bare_count,
    drop_ambiguous,
    keep_job,
    models_referred,
    read_intent,
    read_references,
)
from advisor.conversation.reader.variants import read_variants
from advisor.conversation.render import compose
from advisor.conversation.turn import Step, Turn
from knowledge.api_prices import provider_named
from knowledge.errors import AdvisorError
from knowledge.messages import t
from knowledge.structs import dump, fields, replace

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from advisor.conversation.session import Conversation
    from advisor.workload import Workload
    from knowledge.catalog import Catalog


class DialogDriver:
    """Answers a Conversation deterministically; same `run(conversation, text)` shape as the agent driver."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        self._catalog = catalog

    @property
    def catalog(self) -> Catalog:
        return self._catalog if self._catalog is not None else default_catalog()

    def run(self, conversation: Conversation, text: str) -> Iterator[Step | Turn]:
        lang = conversation.lang if conversation.lang in ("zh", "en") else "en"
        yield from respond(conversation.state, text, lang, self.catalog)


# a speed word beside two formats compared ("how much throughput do I lose going from FP8 to BF16?"): their speeds
_SPEED_WORDS = re.compile(r"throughput|tokens?/s|tok/s|faster|slower|speed|latency|lose|gain|吞吐|速度|快|慢|延迟")


def respond(state: DialogState, text: str, lang: str, catalog: Catalog,
            reading: Request | None = None) -> Iterator[Step | Turn]:
    """One deterministic turn over `state` (mutated only when the turn succeeds); each Turn carries the typed
    request of the message (`extra["request"]`, `ask --json`'s `request`). `reading`: the LLM reader's validated
    request, laid over the offline slots (`reader.overlay.overlay`); its act decides the intent."""
    read: dict[str, object] = {"reading": reading} if reading is not None else {}
    text = simplified(text or "")  # "兩張4090", "預算二十萬": Taiwan and Hong Kong users read as the lexicon is written
    asked = lang_asked(text)  # "and in Chinese?", "说英文": the last question again, answered in that language
    again = state.act_text if asked is not None and asked[1] else ""
    source = _repeat(state, again, lang, catalog, read) if again else _respond(state, text, lang, catalog, read)
    text = again or text
    for item in source:
        if isinstance(item, Turn) and "slots" in read:
            now = read["slots"]
            assert isinstance(now, Slots)
            try:
                typed = read_request(text, now, state, str(read["intent"]), lang, job_summary(state, lang), catalog)
                if reading is not None:  # the model's reading: its act, reader and the readers' disagreements
                    typed = replace(typed, act=reading.act, act_from=reading.act_from, reader="llm",
                                    note="; ".join(n for n in (reading.note, str(read.get("diffs") or "")) if n))
                item.extra["request"] = typed.to_json()
                # the act's own answer first; a kept act ("at 64 users" after "which is cheaper per token?") is
                # answered for the question it keeps
                kept = state.act_text if state.act_text and state.act_text != text else ""
                policy.apply(item.extra["request"], item, catalog, lang, (kept + "\n" + text).strip())
                readback.add_loose_note(item.extra["request"], item, text, lang)  # "a few hundred": 300 (200–500)
            except Exception:
                log.exception("typed request not built")
        yield item


def _repeat(state: DialogState, asked: str, lang: str, catalog: Catalog,
            read: dict[str, object]) -> Iterator[Step | Turn]:
    """The last question (`asked`, its words) answered again in the language now asked: the job as it stands with
    the act it was asked for (nothing of it merged twice: "double the users" is not doubled again) and the same next
    question; a blocking question asked again; else the question read again (a catalog answer, the models a card
    runs)."""
    working = copy.deepcopy(state)
    if state.answered and state.slots.model is not None:
        slots = extract(asked, catalog, lang=lang, training=state.slots.training)  # what it asks, for the answer
        if working.pending in working.asked:
            working.asked.remove(working.pending)
        working.pending = None
        read.update(slots=slots, intent=state.intent)
        yield from _answer(state, working, asked, state.intent, lang, catalog, notes=[], slots=slots, changes=[])
    elif state.pending in BLOCKING:
        yield from _ask(state.pending, state, working, lang, catalog, notes=[], slots=Slots(), changes=[])
    else:
        yield from _respond(state, asked, lang, catalog, read)


def _respond(state: DialogState, text: str, lang: str, catalog: Catalog,
             read: dict[str, object]) -> Iterator[Step | Turn]:
    text = text or ""
    if not text.strip():
        yield compose.simple_turn("empty", lang, state, pending_question=True)
        return
    slots = extract(text, catalog, pending=state.pending, lang=lang, training=state.slots.training)
    _tokens_not_size(slots, state)
    bare_count(text, slots, state)  # "what about 512?" after a run on 256 A100s: 512 of them
    intent = read_intent(text, slots, state)
    if slots.model is None and slots.size_params is None and (slots.candidates or slots.existing) and \
            act_of(intent, text, slots) in ("legality", "market"):
        intent = "market"  # "Can a company in Shanghai legally buy H100s?": the card's status, not a sizing
    elif slots.model is None and slots.size_params is None and (slots.candidates or slots.existing) and \
            state.slots.model is None and act_of(intent, text, slots) == "rent_vs_buy":
        intent = "how_much"  # "is renting 8 H100s cheaper than buying them?": the cards priced both ways, no job
    elif slots.model is None and slots.size_params is None and len(slots.candidates) + bool(slots.existing) == 1 \
            and state.slots.model is None and asks("value", text):
        intent = "market"  # "Is the A100 still worth buying?": its value per dollar, no job (catalog_answers)
    reading = read.get("reading")
    if isinstance(reading, Request):  # the LLM reader's request: its values over the offline ones, its act
        # start-up: `gpu-advisor ask` never loads advisor.conversation.reader.overlay
        from advisor.conversation.reader.overlay import intent_of, overlay

        diffs = overlay(slots, reading)
        read["diffs"] = "; ".join(diffs)
        intent = intent_of(reading.act)
    if intent == "explain" and state.answered and slots.model is None:
        keep_job(slots)  # "why does each extra user cost so much?": the job stays as it was
    models_referred(text, slots, state)
    if len(slots.models) >= 2:
        intent = "compare"  # two models named in one question (or the pair referred to): both are answered
    elif slots.gpu_count_to:
        intent = "compare"  # "GPUs from 256 to 512": the run at both counts (evaluate.count_said), side by side
    follow = _catalog_follow_up(state, text, slots, intent, lang, catalog)
    if follow is not None:  # "8卡H100多少钱" → "换成 H20 呢" / "and with 3 years of power?": the price asked again
        slots, intent, text = follow
    read.update(slots=slots, intent=intent)
    notes: list[str] = []  # keys of fixed sentences, rendered by compose
    if slots.truncated:
        notes.append("truncated")
    if slots.injection:
        notes.append("injection")
    if slots.out_of_range and not slots.reset:  # what was read and the limit (a price question too: "at $5/kWh");
        yield compose.simple_turn("", lang, state, notes=notes, show_state=True, kind="input_error",  # nothing else
                                  text=ranges.reply(slots.out_of_range, lang))  # of this message is taken
        return
    if (yield from _without_workload(state, text, slots, intent, lang, catalog)):
        return
    if slots.reset:
        reset(state)
        yield compose.simple_turn("reset", lang, state)
        return

    working = copy.deepcopy(state)
    if slots.default and working.pending:
        accept_default(working, working.pending, lang)
        working.pending = None
    elif slots.default and working.slots.model is None:
        accept_default(working, "model", lang)

    # a question about the previous answer with nothing new in it ("why that much?", "这个配置要多少钱？", "how many
    # users can that setup serve?"): the last workload answered again for this question
    if state.answered and slots.empty and state.slots.model is not None and asks("cheapest", text):
        intent = "which"  # "cheaper option?" after a recommendation: the cheapest configuration of the same job
    elif (state.answered and slots.empty and intent == "what_if" and state.slots.model is not None
          and (any(asks(q, text) for q in _FIGURES) or _FIGURE_WORDS.search(text.lower()))):
        intent = "feasibility"  # "P99 首字延迟呢？", "and the TTFT?": a figure of the job answered, asked as a question of it
        if state.slots.concurrency is None and int(state.last_workload.get("load_users") or 0) > 1:
            slots.concurrency = int(state.last_workload["load_users"])  # at the load the last answer gave ("at most 158")
    about_previous = state.answered > 0 and (intent == "explain" or (
        intent in ("how_much", "how_long", "how_many", "feasibility", "which") and (slots.refers_previous or slots.question_words)))
    if slots.empty and not slots.default and not (slots.advice and state.slots.model is None) and not about_previous:
        if slots.greeting:
            body = "greeting"
        elif slots.thanks:
            body = "thanks"
        elif slots.injection:
            body = ""
        else:  # ("answer in English please" with no question before it: said it will)
            body = "lang_switched" if slots.answer_lang else "nonsense"
        yield compose.simple_turn(body, lang, state, notes=notes, pending_question=True, show_state=True)
        return

    unsure = ambiguity(text, slots)
    if unsure is not None:  # "70B or 8B", "8k 还是 32k": one question, the rest of the message kept
        yield _ask_ambiguous(state, working, slots, unsure, lang)
        return
    asked = text
    if intent == "what_if" and state.answered and state.act_text and (
            state.intent in _KEPT_ACTS or (state.intent == "feasibility" and _TTFT_ASKED.search(state.act_text.lower()))):
        # "需要多少显存" → "那 128k 呢": still the memory; "首字延迟多少" → "如果上下文是 32k 呢": still the first token
        intent, asked = state.intent, state.act_text + "\n" + text
        if intent == "compare":  # the typed request's act is the comparison kept (its verdict leads, dialog.policy)
            read["intent"] = intent
    working.act_text = state.act_text if asked is not text else text
    read_references(working, slots, intent)
    if intent == "how_many" and not (slots.candidates or slots.existing or slots.gpu_count) and not asks("users", text) \
            and not any(asks(q, text) for q in _FIGURES if q != "speed" or not (slots.tpot_ms or slots.min_tokens_per_s)) \
            and len(working.slots.candidates) == 1 and working.slots.existing is None:
        # (a speed said as the target, "几张卡才能保证每路 20 token/s", is what the count is for, not a figure asked)
        working.slots.candidates[0].count = None  # "买 H20 跑 R1" → "要几台": the count of that card is the question
    changes = merge(working, slots)
    working.intent = intent
    if working.pending and working.pending not in BLOCKING:
        answered_pending = _slot_known(working.slots, working.pending)
        if not answered_pending and working.pending not in working.asked:
            working.asked.append(working.pending)
    working.pending = None

    blocking = missing_blocking(working, implies_inference(intent, working.slots, text))
    if blocking == "model" and asks_which_model(text) and (
            working.slots.existing or working.slots.candidates or working.slots.device or working.slots.capacity):
        # "what can I run on my 4090?": the models that fit
        yield _committed(state, working, fit_answers.model_fit(working, text, lang, catalog))
        return
    if blocking == "model" and working.slots.budget and working.slots.task == "pretrain" and (
            asks_which_model(text) or fit_answers.HOW_BIG.search(text)):
        # "$500k, the biggest model we can train in a month?"
        yield _committed(state, working, fit_answers.budget_train(working, lang, catalog))
        return
    if blocking == "model" and asks_which_model(text) and working.slots.budget:
        # "一两万的预算，能跑什么模型？": what the budget buys
        yield _committed(state, working, fit_answers.budget_fit(working, text, lang, catalog))
        return
    if blocking == "model" and CODING.search(text) and slots.size_params is None and not slots.unknown_model:
        # "a coding assistant for 20 developers": the coding default, said in the answer, not the general one asked
        accept_default(working, "model", lang, coding=True)
        slots.model, slots.model_assumed = working.slots.model, working.slots.model_assumed
        blocking = None
    if blocking == "model" and engines_compared(text) and slots.size_params is None and not slots.unknown_model:
        # "Ollama 和 vLLM 哪个快": the engines compared on the default model, said in the answer, not a question
        accept_default(working, "model", lang)
        slots.model, slots.model_assumed = working.slots.model, working.slots.model_assumed
        blocking = missing_blocking(working, implies_inference(intent, working.slots, text))
    if blocking:
        yield from _ask(blocking, state, working, lang, catalog, notes=notes, slots=slots, changes=changes)
        return
    yield from _answer(state, working, asked, intent, lang, catalog, notes=notes, slots=slots, changes=changes)


def _tokens_not_size(slots: Slots, state: DialogState) -> None:
    """"5亿呢" after a training question sized in tokens ("数据1亿token"): the new amount of data, not a model of
    5亿 parameters standing in for the one being trained."""
    said = slots.model_text or ""
    if (state.answered and state.slots.model and state.slots.train_tokens and slots.size_params and slots.model_assumed
            and re.fullmatch(r"[\d.一二两三四五六七八九十百千]+\s*(?:千亿|百亿|十亿|亿)", said.strip())):
        slots.train_tokens, slots.size_params = slots.size_params, None
        slots.model, slots.model_text, slots.model_assumed = None, None, ""


# "does speculative decoding help?", "with EAGLE / MTP / a draft model", "投机解码能快多少": the load with and without it
_SPECULATION = re.compile(r"speculative|spec(?:ulative)?[\s-]*decod\w*|draft[\s-]*model|(?<![a-z])(?:eagle-?\d?|medusa|mtp)(?![a-z])|"
                          r"multi[\s-]*token[\s-]*predict\w*|投机|推测解码|草稿模型")

LONG_CONTEXT = 8192  # a context said from here up, with a first-token time asked and no prompt: the ladder answers


def _ttft_at_long_context(text: str, slots: Slots, workload: Workload) -> bool:
    """"What TTFT will I get … at 32k context?": a first-token time asked beside a long context said this turn, with
    no prompt length (a chat turn's 215 tokens would answer something else than the long prompts the context is for),
    no first-token target, no load ladder and no users asked (those lead with the load): the TTFT by prompt length up
    to that context answers it."""
    return (bool(_TTFT_ASKED.search(text.lower())) and not asks("users", text) and slots.ttft_ms is None
            and (slots.context or 0) >= LONG_CONTEXT and slots.prompt_tokens is None and workload.prompt_tokens is None
            and not slots.load_ladder)


# "how does TTFT change with prompt length?", "首字延迟随输入长度怎么变": the load at a ladder of prompt lengths
_TTFT_LADDER = re.compile(
    r"(?:ttft|first[\s-]token|latency)[^?.!。？]{0,40}?(?:change|grow|scale|vary|varies|depend|increase|go(?:es)? up)"
    r"[^?.!。？]{0,30}?(?:prompt|input|context)|(?:prompt|input)[\s-]*(?:length|size)s?[^?.!。？]{0,40}?"
    r"(?:ttft|first[\s-]token)|(?:longer|bigger) (?:prompts?|inputs?)[^?.!。？]{0,30}?(?:ttft|first[\s-]token)|"
    r"(?:ttft|first[\s-]token)[^?.!。？]{0,30}?(?:longer|bigger|larger) (?:prompts?|inputs?)|"
    r"(?:首字|首\s*token|首个\s*token)(?:延迟)?[^?。？]{0,12}?(?:随|跟着|和)[^?。？]{0,8}?(?:输入|提示词|上下文)|"
    r"(?:输入|提示词|prompt)\s*(?:越长|长度|从短到长)[^?。？]{0,16}?(?:首字|首\s*token|首个\s*token)")
# "does chunked prefill help TTFT?", "分块预填充有用吗": the load with and without it
_CHUNKED = re.compile(r"chunked[\s-]*prefill|prefill[\s-]*chunk\w*|分块预填充|分块\s*prefill|chunked\s*预填充")
# "what's the TTFT", "time to first token", "首字延迟多少": the first-token time asked (a bound on it is a target)
# "how much memory … and is X enough?": the total is asked beside the verdict
_HOW_MUCH_MEMORY = re.compile(r"(?:要|需要|得|占)?多少(?:显存|内存|gb|g)|显存(?:要|需要)多少|how\s+much\s+(?:vram|memory|gpu\s+memory)|"
                              r"how\s+many\s+(?:gb|gib)")
# ("how long to prefill a 100k prompt?", "预填充要多久": the prompt's processing is what the first token waits for)
_TTFT_ASKED = re.compile(r"ttft|time[\s-]to[\s-]first[\s-]token|first[\s-]token|首字|首\s*token|首个\s*token|"
                         r"(?<![a-z])pre-?fill(?:ing|s|ed)?(?![a-z])|预填充|预填")
# "vLLM or TensorRT-LLM, which has more throughput?" with no load said: the engines at their full load
_THROUGHPUT_WORD = re.compile(r"throughput|吞吐|tokens?/s in total|total tokens?/s|aggregate|合计")
# the utilisation named ("what MFU?", "算力利用率能到多少"), not a per-GPU rate in other words: the answer opens with it
_MFU_WORD = re.compile(r"(?<![a-z])(?:mfu|hfu)(?![a-z])|flops utili[sz]ation|算力利用率")
# the figures a follow-up with nothing new may ask of the job answered ("TTFT 呢？", "and the p99?", "吞吐呢"): the
# questions of reader.intent, and words for a speed or with speculation
_FIGURES: tuple[Question, ...] = ("speed", "p99", "e2e", "rps", "users", "full_load", "fits", "token_cost", "batch", "mfu",
                                  "global_batch", "power")
_FIGURE_WORDS = re.compile(r"吞吐|每路速度|速度呢|延迟|时延|tokens?/s|tok/s|per[\s-]user speed|" + _SPECULATION.pattern)
# the acts a follow-up that only changes the job ("那 32k 呢", "换成四张呢") answers again: the memory asked, the
# users served, the training time; other acts (feasibility, which) are what a what-if answers anyway
_KEPT_ACTS = ("explain", "how_many", "how_long", "how_much", "compare")  # "给个报价" → "换成 H20 呢": still the price;
# "H100 vs MI300X, cheaper per token?" → "at 64 concurrent users": still the comparison


def _without_workload(state: DialogState, text: str, slots: Slots, intent: str, lang: str,
                      catalog: Catalog) -> Generator[Step | Turn, None, bool]:
    """The replies that need no workload: a negative amount, "what can you do?", and claims or market questions
    about cards with no model known. Returns whether it answered the turn."""
    if slots.negative:  # "-5 张 H100": bad input, said in one line; the conversation goes on unchanged
        yield compose.simple_turn("", lang, state, show_state=True, kind="input_error",
                                  text=compose.negative_line(slots.negative, lang))
        return True
    if slots.bad_rate:  # "$-3/hour", "0 元/小时": a rental price must be above zero, said in one line
        yield compose.simple_turn("", lang, state, show_state=True, kind="input_error",
                                  text=t("answer.bad_rate", lang, typed=slots.bad_rate))
        return True
    if intent == "capabilities":  # "what can you do?": said with three examples; nothing is changed
        yield catalog_answers.capabilities_turn(state, lang)
        return True
    if slots.model is None and slots.size_params is None and slots.claim is not None and intent == "claim" and (
            slots.candidates or slots.existing) and state.slots.model is None:
        # "someone said the 4090 has 48 GB": the catalog answers
        yield from catalog_answers.respond(intent, text, slots, state, lang, catalog)
        return True
    named = ([slots.existing] if slots.existing else []) + list(slots.candidates)
    rented = slots.rent_cap_hour or (slots.budget if slots.budget_monthly else None)
    if slots.model is None and slots.size_params is None and state.slots.model is None and rented \
            and len(named) == 1 and _COUNT_ASKED.search(text.lower()):  # "$30k a month: how many H100s 24/7?"
        region = slots.region or ("cn" if lang == "zh" else "global")
        yield catalog_answers.rented_cards_turn(catalog.gpu(named[0].gpu), rented, bool(slots.rent_cap_hour),
                                                slots.currency or ("CNY" if region == "cn" or lang == "zh" else "USD"),
                                                region, slots, state, lang)
        return True
    if slots.model is None and slots.size_params is None and state.slots.model is None and slots.budget \
            and len(named) == 1 and _COUNT_ASKED.search(text.lower()):  # "30w预算能配几张4090": how many it buys
        region = slots.region or ("cn" if lang == "zh" else "global")
        yield catalog_answers.budget_cards_turn(catalog.gpu(named[0].gpu), slots.budget, slots.currency or (
            "CNY" if region == "cn" or lang == "zh" else "USD"), region, state, lang)
        return True
    if slots.model is None and slots.size_params is None and slots.claim is None:
        quoted = match_spec_claim(text.replace(slots.unknown_model or "\0", " "), [m.gpu for m in named_configs(slots)])
        if quoted is None and state.slots.model is None and intent in ("market", "compare", "claim", "how_much") and (
                slots.candidates or slots.existing):
            yield from catalog_answers.respond(intent, text, slots, state, lang, catalog)
            if intent in ("market", "how_much"):  # kept for a follow-up that changes the card or the cost asked
                named = ([slots.existing] if slots.existing else []) + list(slots.candidates)
                state.intent, state.act_text = intent, text
                state.focus_gpu = named[0].gpu
                state.catalog_count = next((m.count for m in named if m.count), None) or slots.gpu_count or 1
            return True
        if quoted is not None:  # "指南说 4090 的 FP16 是 82.6 TFLOPS，对吗？": check it; the workload is untouched
            steps: list[Step] = []
            findings = claim_findings(quoted, steps)
            yield from steps
            yield compose.guide_claim_turn(quoted, findings, state, lang, catalog)
            return True
    return False


_KEPT_FROM_FOLLOW_UP = ("buy_or_rent", "condition", "usage_hours_month", "usage_per_gpu", "usage_text", "usage_share",
                       "horizon_months", "horizon_text", "region", "currency", "electricity", "out_of_range")
_COUNT_ASKED = re.compile(r"how many|几张|多少张|几块|多少块|几台|多少台|几卡|多少卡")
_OF_THEM = re.compile(r"(\d+|two|three|four|five|six|eight|ten|sixteen)\s+of\s+(?:them|those|these)")


def _catalog_follow_up(state: DialogState, text: str, slots: Slots, intent: str, lang: str,
                       catalog: Catalog) -> tuple[Slots, str, str] | None:
    """A follow-up to a catalog-only price or market answer that names no model: the same question again with the
    card it names (at the count asked before, "换成 H20 呢") or, naming none, the card asked before with what it adds
    ("and with 3 years of power?", "一年电费呢"); the earlier question's words are read after the new ones. None when
    the last answer was not one, or the message names a model or a size."""
    if not (state.catalog_count and state.act_text and state.intent in ("how_much", "market") and state.slots.model is None):
        return None
    if slots.model is not None or slots.size_params is not None or slots.unknown_model or intent not in (
            "what_if", "other", "how_much", "market"):
        return None
    asked = text + "\n" + state.act_text
    again = intent if intent in ("how_much", "market") else state.intent
    if slots.candidates or slots.existing:
        named = ([slots.existing] if slots.existing else []) + list(slots.candidates)
        if not any(m.count for m in named) and not slots.gpu_count:
            slots.gpu_count = state.catalog_count
        return slots, again, asked
    prev = extract(state.act_text, catalog, lang=lang)
    prev.candidates = [m for m in prev.candidates if m.gpu == state.focus_gpu] or prev.candidates[:1]
    if not prev.candidates:
        return None
    of_them = _OF_THEM.search(text.lower())  # "and 4 of them?": the count said now
    count = slots.gpu_count or (int(n) if of_them and (n := to_number(of_them.group(1))) and 1 <= n <= 4096
                                else state.catalog_count)
    prev.existing, prev.gpu_count = None, count
    for name in _KEPT_FROM_FOLLOW_UP:  # "what about renting for 6 months", "and if we buy used": said now, kept
        if getattr(slots, name) is not None:
            setattr(prev, name, getattr(slots, name))
    if slots.usage_hours_month is not None:  # hours said now replace a share said before
        prev.usage_share = slots.usage_share
    for m in prev.candidates:
        m.count = count
    return prev, again, asked


def _ask(blocking: str, state: DialogState, working: DialogState, lang: str, catalog: Catalog, *, notes: list[str],
         slots: Slots, changes: list[Change]) -> Iterator[Step | Turn]:
    """The blocking question, after correcting the premise at once ("4090 over NVLink")."""
    working.pending = blocking
    if blocking not in working.asked:
        working.asked.append(blocking)
    q_steps: list[Step] = []
    premise = premise_findings(named_configs(working.slots), bool(working.slots.wants_nvlink), catalog,
                               q_steps)  # "4090 over NVLink": corrected at once
    yield from q_steps
    turn = compose.question_turn(blocking, working, lang, catalog, notes=notes, slots=slots, changes=changes,
                                 findings=premise)
    _commit(state, working)
    yield turn


def _answer(state: DialogState, working: DialogState, text: str, intent: str, lang: str, catalog: Catalog, *,
            notes: list[str], slots: Slots, changes: list[Change]) -> Iterator[Step | Turn]:
    """The workload and constraints the slots describe, evaluated with the tools, answered, then committed."""
    from advisor.conversation.dialog.compare import faster_asked  # start-up: with the answer, not the module

    try:
        workload, w_notes = build_workload(working)
        constraints, c_notes = build_constraints(working, lang)
    except AdvisorError as exc:
        yield compose.simple_turn("", lang, state, notes=notes, show_state=True, text=exc.localized(lang))
        return
    assert workload is not None
    steps: list[Step] = []
    request = analysis_request(working, workload, constraints, intent=intent,
                               asks_users=intent == "how_many" and asks("users", text),
                               asks_need=(intent == "explain" and asks("memory", text))
                               or (intent == "feasibility" and bool(_HOW_MUCH_MEMORY.search(text.lower()))),
                               # a per-token or per-user speed target read this turn, in whatever words, asks
                               # whether the speed meets it: the answer opens with the speed against it
                               asks_speed=not workload.is_training and (asks("speed", text) or slots.tpot_ms is not None
                                                                        or asks("full_load", text)
                                                                        or (intent == "compare" and faster_asked(text))
                                                                        or (slots.empty and state.answered > 0
                                                                            and bool(_FIGURE_WORDS.search(text.lower())))),
                               asks_train_speed=workload.is_training and (asks("speed", text) or asks("mfu", text)),
                               asks_mfu=workload.is_training and asks("mfu", text) and bool(_MFU_WORD.search(text.lower())),
                               # (a serving batch said, "batch 64 的吞吐量", is the load asked about, not the most)
                               asks_full_load=not workload.is_training and slots.batch is None and (
                                   asks("full_load", text) or (bool(engines_compared(text)) and slots.concurrency is None
                                                               and bool(_THROUGHPUT_WORD.search(text.lower())))),
                               asks_rps=not workload.is_training and asks("rps", text), rate_period_s=rate_period(text),
                               # "p95 TTFT under 2 s" is a target at that percentile (slots.ttft_pct), not a tail asked
                               asks_p99=not workload.is_training and asks("p99", text) and slots.ttft_pct is None,
                               # ("complete answers in under 15 s end to end" states a target: slots.e2e_ms)
                               asks_e2e=not workload.is_training and asks("e2e", text) and slots.e2e_ms is None,
                               asks_speculation=not workload.is_training and bool(_SPECULATION.search(text.lower())),
                               asks_chunked=not workload.is_training and bool(_CHUNKED.search(text.lower())),
                               # ("TTFT at 32k context?" with no prompt length: how it grows up to that context)
                               asks_ttft_ladder=not workload.is_training and (bool(_TTFT_LADDER.search(text.lower()))
                                                                              or _ttft_at_long_context(text, slots, workload)),
                               frameworks=training_frameworks_compared(text) if workload.is_training else (),
                               tp_compared=tp_degrees_compared(text) if workload.task == "inference" else (),
                               served_formats=workload.task == "inference" and (asks("speed", text) or faster_asked(text)
                                                                                or bool(_SPEED_WORDS.search(text.lower()))),
                               asks_ttft=not workload.is_training and bool(_TTFT_ASKED.search(text.lower()))
                               and slots.ttft_ms is None,
                               asks_plan=workload.is_training and asks("global_batch", text),
                               # "能不能全参微调 Qwen3-32B？要多久？": whether it fits, then the time
                               asks_fits=asks("fits", text) or (intent in ("how_long", "how_much")
                                                                 and asks_feasible(text))
                               or (intent == "how_many" and asks_runs_and_users(text)),
                               asks_oom=asks("oom", text),
                               asks_context=asks("context", text), asks_batch=asks("batch", text),
                               variants=read_variants(text),
                               asks_servers=asks("servers", text), asks_link=asks("link", text),
                               asks_fabric=workload.is_training and asks("fabric", text),
                               asks_kv_token=asks("kv_token", text),
                               asks_kv_capacity=not workload.is_training and asks("kv_capacity", text), asks_power=asks("power", text),
                               asks_launch=not workload.is_training and asks("launch", text),
                               asks_tokens_per_day=not workload.is_training and slots.tokens_per_day is None
                               and asks("tokens_per_day", text),
                               asks_token_cost=not workload.is_training and asks("token_cost", text),
                               asks_why_count=asks("why_count", text), asks_cheapest=asks("cheapest", text),
                               asks_minimum=asks("minimum", text),
                               # a provider named ("Groq or our own H100s?") asks the API comparison too
                               asks_api=not workload.is_training and (asks("api", text)
                                                                      or provider_named(text) is not None),
                               api_provider=provider_named(text) if not workload.is_training else None,
                               asks_monthly=asks_monthly(text),
                               asks_cost=workload.is_training and asks_time_and_cost(text),
                               engines=() if workload.is_training else engines_compared(text),
                               reference_method=reference_method(text) if workload.is_training else "")
    try:
        evaluation = analyse(request, catalog, steps)
    except AdvisorError as exc:  # the tools refused this combination: say why, keep what the user told us
        for step in steps:
            yield step
        working.pending = None
        _commit(state, working)
        yield compose.simple_turn("", lang, state, notes=notes, show_state=True, text=exc.localized(lang),
                                  kind="input_error")
        return
    for step in steps:
        yield step
    evaluation.assumptions = w_notes + c_notes + evaluation.assumptions
    # the user's question is how many users: its answer is no slot to ask for
    follow = next_question(working, answered=("concurrency",) if request.asks_users else ())
    working.pending = follow
    if follow and follow not in working.asked:
        working.asked.append(follow)
    turn = compose.answer_turn(evaluation, working, lang, catalog, notes=notes, slots=slots, changes=changes,
                               question=follow)
    turn.steps = list(steps)
    if len(slots.models) >= 2:  # "Qwen3-30B-A3B vs Qwen3-32B on a 4090": both models on the same cards, first
        yield from _compare_models(turn, slots, working, dump(workload, json=True), lang, catalog)
    working.answered += 1
    _commit(state, working)
    yield turn


def _compare_models(turn: Turn, slots: Slots, working: DialogState, job: dict[str, object], lang: str,
                    catalog: Catalog) -> Iterator[Step]:
    """Lead `turn` with the two models compared on the card named (else the first model's lead configuration)."""
    # start-up: `gpu-advisor ask` never loads advisor.conversation.dialog.compare
    from advisor.conversation.dialog.compare import compare_models

    named = named_configs(working.slots)
    if named:
        gpu, count = named[0].gpu, named[0].count or 1
    elif turn.options:
        gpu, count = str(turn.options[0]["gpu"]), int(turn.options[0].get("count") or 1)
    else:
        return
    steps: list[Step] = []
    found = compare_models(slots.models, gpu, count, job, lang, catalog, steps)
    yield from steps
    if found is None:
        return
    text, book = found
    # the comparison is the answer; the first model's own sizing (at the job's format, often one that does not fit
    # the card, with its purchase line) would read as a second verdict, so it stays only in the details below
    cut = turn.answer.find("<details>")
    turn.answer = text + ("\n\n" + turn.answer[cut:] if cut >= 0 else "")
    turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
    turn.steps.extend(steps)
    turn.extra["intent"] = "compare"


def _ask_ambiguous(state: DialogState, working: DialogState, slots: Slots, unsure: tuple[str, list[str]],
                   lang: str) -> Turn:
    """Two values for one slot: the rest of the message merged, the slot asked (pending), nothing sized."""
    slot, values = unsure
    drop_ambiguous(slots, slot)
    merge(working, slots)
    working.pending = slot
    question = ambiguity_question(slot, values, lang)
    _commit(state, working)
    return Turn(answer=question, lang="zh" if lang == "zh" else "en", questions=[question],
                workload=job_summary(state, lang), extra={"kind": "question", "pending": slot, "ambiguous": values})


def _slot_known(s: Slots, slot: str) -> bool:
    return {
        "concurrency": s.concurrency is not None or s.qps is not None or s.headcount is not None
        or s.tokens_per_day is not None,
        "context": s.context is not None,
        "weights": s.weights is not None, "region": s.region is not None, "budget": s.budget is not None,
        "output_tokens": s.output_tokens is not None, "train_tokens": s.train_tokens is not None,
        "deadline": s.deadline_s is not None,
    }.get(slot, False)


def _commit(state: DialogState, working: DialogState) -> None:
    for name in fields(state):
        setattr(state, name, getattr(working, name))


def _committed(state: DialogState, working: DialogState, turn: Turn) -> Turn:
    """`turn`, once `working` is the conversation's state."""
    _commit(state, working)
    return turn
