"""Renders the deterministic dialog's answers in Chinese or English.

Order of an answer: the recommendation (or the verdict on the user's own hardware) first, what changed
since the last turn, the computed numbers (memory breakdown, speed, cost), findings with rule ids and
sources, the check of a quoted guide claim, the assumptions, and the one question worth asking next.

Every number is printed through :class:`Book`, which records it as a :class:`Number` (name, value, unit,
source) on the Turn — the answer contains no number that is not in `Turn.numbers`.
GiB (2^30 bytes) for memory, GB (1e9 bytes) only where a quoted figure is compared, each labelled.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from advisor.conversation.dialog import (
    CONTEXT_STEP, DEFAULT_CONTEXT, DEFAULT_MODEL, Assumption, Change, ConfigResult, DialogState, Evaluation, default_catalog,
    default_weights, top_option, workload_summary_dict,
)
from advisor.conversation import firstscreen as fs
from advisor.conversation.extract import Slots
from advisor.conversation.lang import say
from advisor.conversation.turn import Number, Turn

GIB = 2**30
GB = 10**9

SRC_MEMORY = "advisor.estimator.memory.estimate_memory"
SRC_USER = "user input"
SRC_DEFAULT = "dialog default"


# ----------------------------------------------------------------------------------------------------------------
# numbers
# ----------------------------------------------------------------------------------------------------------------
class Book:
    """Formats numbers for the answer and records each one as a Number (deduplicated by name, value and unit)."""

    def __init__(self) -> None:
        self.numbers: list[Number] = []
        self._seen: set[tuple[str, float, str]] = set()

    def add(self, name: str, value: float, unit: str, source: str) -> None:
        unit = unit or "count"  # a dimensionless number (a ZeRO stage, a model number in a citation)
        key = (name, round(float(value), 9), unit)
        if key not in self._seen:
            self._seen.add(key)
            # fields already of the declared types: construct without validation (an answer records ~130 numbers)
            self.numbers.append(Number.model_construct(name=str(name), value=float(value), unit=str(unit),
                                                       source=str(source)))

    def num(self, name: str, value: float, unit: str, source: str, digits: int = 0, suffix: str | None = None) -> str:
        """`value` in `unit`, printed with `digits` decimals, followed by the unit (or `suffix`)."""
        self.add(name, value, unit, source)
        text = f"{value:,.{digits}f}" if abs(value) >= 100_000 else f"{value:.{digits}f}"
        label = unit if suffix is None else suffix
        return f"{text} {label}".rstrip() if label else text

    def gib(self, name: str, n_bytes: float, source: str = SRC_MEMORY, digits: int = 1) -> str:
        return self.num(name, n_bytes / GIB, "GiB", source, digits)

    def gb(self, name: str, n_bytes: float, source: str = SRC_MEMORY, digits: int = 1) -> str:
        return self.num(name, n_bytes / GB, "GB", source, digits)

    def count(self, name: str, value: int, unit: str, source: str) -> str:
        self.add(name, value, unit, source)
        return str(int(value))

    def money(self, name: str, amount: float, currency: str, source: str) -> str:
        self.add(name, amount, currency, source)
        symbol = "¥" if currency == "CNY" else "$"
        return f"{symbol}{amount:,.2f}" if abs(amount) < 100 else f"{symbol}{amount:,.0f}"

    def text(self, text: str, name: str, source: str) -> str:
        """Tool-provided text (a rule's message, its citation, a launch hint): every number in it is recorded
        with the unit printed after it, so the text can be shown unchanged."""
        for shown, number, unit in _numbers_in(text):
            self.add(f"{name}: {shown}", number, unit, source)
        return text

    def tokens(self, name: str, value: float, source: str, lang: str) -> str:
        """Token counts: 8192 -> "8192 tokens"; 2e9 -> "2 B tokens" / "20 亿 tokens"."""
        if value >= 1e9:
            if lang == "zh":
                return self.num(name, value / 1e8, "亿 tokens", source, _digits(value / 1e8))
            return self.num(name, value / 1e9, "B tokens", source, _digits(value / 1e9))
        if value >= 1e6:
            return self.num(name, value / 1e6, "M tokens", source, _digits(value / 1e6))
        return self.num(name, value, "tokens", source)


@lru_cache(maxsize=4096)
def _numbers_in(text: str) -> tuple[tuple[str, float, str], ...]:
    """(as printed, value, unit) of each number in `text`, read by the grounding gate's own parser (memoised:
    rule messages and citations repeat from turn to turn)."""
    from advisor.conversation.grounding import extract as find_numbers

    out = []
    for m in find_numbers(text):
        unit = text[m.start:m.end]
        digits = re.match(r"^[^\d]*[\d.,]+", unit)
        unit = unit[digits.end():].strip() if digits else ""
        dim = m.candidates[0].dim if m.candidates else ""
        if dim in ("CNY", "USD") and not unit:
            unit = dim
        elif dim == "gpus":
            unit = "GPUs"  # "4× L20": a GPU count
        out.append((m.text, float(m.number), unit))
    return tuple(out)


def _digits(x: float) -> int:
    return 0 if abs(x - round(x)) < 1e-9 else (1 if abs(x * 10 - round(x * 10)) < 1e-9 else 2)


# ----------------------------------------------------------------------------------------------------------------
# labels
# ----------------------------------------------------------------------------------------------------------------
TASK = {
    "inference": ("inference (serving)", "推理部署"), "lora": ("LoRA fine-tuning", "LoRA 微调"),
    "qlora": ("QLoRA fine-tuning", "QLoRA 微调"), "full": ("full fine-tuning", "全参微调"),
    "freeze": ("freeze-tuning", "冻结微调"), "pretrain": ("pre-training", "预训练"),
}
FORMAT = {
    "fp32": "FP32", "bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int8": "INT8", "int4": "INT4",
    "gptq-int4": "GPTQ INT4", "gptq-int8": "GPTQ INT8", "awq-int4": "AWQ INT4", "nf4": "NF4 (bitsandbytes)",
    "bnb-int8": "bitsandbytes INT8", "q8_0": "GGUF Q8_0", "q6_k": "GGUF Q6_K", "q5_k_m": "GGUF Q5_K_M",
    "q4_k_m": "GGUF Q4_K_M", "q4_0": "GGUF Q4_0", "q3_k_m": "GGUF Q3_K_M", "q2_k": "GGUF Q2_K",
}
SLOT_LABEL = {
    "model": ("model", "模型"), "task": ("task", "任务"), "weights": ("precision", "精度"),
    "kv": ("KV cache format", "KV 缓存格式"), "context": ("context", "上下文"), "concurrency": ("concurrency", "并发"),
    "qps": ("QPS", "QPS"), "budget": ("budget", "预算"), "currency": ("currency", "币种"), "region": ("region", "地区"),
    "existing": ("your GPUs", "现有显卡"), "candidates": ("GPUs compared", "候选显卡"),
    "gpu_count": ("GPU count", "卡数"), "train_tokens": ("training tokens", "训练 token 数"),
    "deadline_s": ("deadline", "期限"), "tco_years": ("TCO years", "TCO 年限"), "engine": ("engine", "推理/训练框架"),
    "batch": ("batch", "批大小"), "prompt_tokens": ("prompt length", "输入长度"),
    "output_tokens": ("output length", "输出长度"), "lora_rank": ("LoRA rank", "LoRA 秩"), "zero": ("ZeRO stage", "ZeRO 阶段"),
    "buy_or_rent": ("buy or rent", "买或租"),
}
PART = {
    "weights": ("weights", "权重"), "kv_cache": ("KV cache", "KV 缓存"), "activations": ("activations", "激活"),
    "gradients": ("gradients", "梯度"), "optimizer_states": ("optimizer states", "优化器状态"),
    "overhead": ("runtime overhead", "运行时开销"),
}
REGION = {"cn": ("mainland China", "中国大陆"), "global": ("outside China", "海外/不限")}
ROLE = {"existing": ("your", "现有"), "candidate": ("", ""), "fit": ("", ""), "recommended": ("", "")}


def pick(pair: tuple[str, str], lang: str) -> str:
    """The English or the Chinese half of an (en, zh) pair."""
    return pair[1] if lang == "zh" else pair[0]


def _task(task: str | None, lang: str) -> str:
    return pick(TASK.get(task or "inference", (task or "", task or "")), lang)


def _fmt(fmt: str | None, lang: str) -> str:
    return FORMAT.get(fmt or "bf16", (fmt or "").upper())


def _gpu_name(catalog: Any, gpu_id: str) -> str:
    spec = catalog.find_gpu(gpu_id) if hasattr(catalog, "find_gpu") else None
    return spec.name if spec is not None else gpu_id


def _model_name(catalog: Any, model_id: str | None) -> str:
    if model_id is None:
        return "?"
    spec = catalog.find_model(model_id) if hasattr(catalog, "find_model") else None
    return spec.name if spec is not None else model_id


def _slot_value(book: Book, slot: str, value: Any, lang: str, catalog: Any, prefix: str) -> str:
    """A slot value in words, with its numbers recorded."""
    if value is None:
        return "—" if lang == "en" else "未定"
    name = f"{prefix} {slot}"
    if slot == "model":
        return _model_name(catalog, value)
    if slot == "task":
        return _task(value, lang)
    if slot in ("weights", "kv"):
        return _fmt(value, lang)
    if slot in ("context", "prompt_tokens", "output_tokens"):
        return book.tokens(name, value, SRC_USER, lang)
    if slot == "train_tokens":
        return book.tokens(name, value, SRC_USER, lang)
    if slot == "concurrency":
        return book.num(name, value, "sequences", SRC_USER, suffix="" if lang == "zh" else "concurrent")
    if slot == "qps":
        return book.num(name, value, "requests/s", SRC_USER, _digits(value))
    if slot == "budget":
        return str(value)
    if slot == "region":
        return pick(REGION.get(value, (value, value)), lang)
    if slot == "existing":
        return _mention(book, value, lang, catalog, name)
    if slot == "candidates":
        return ", ".join(_mention(book, m, lang, catalog, f"{name} {i}") for i, m in enumerate(value))
    if slot == "deadline_s":
        return book.num(name, value / 86400, "days", SRC_USER, _digits(value / 86400), suffix="天" if lang == "zh" else "days")
    if slot in ("gpu_count", "batch", "lora_rank", "zero", "tco_years"):
        return book.count(name, value, {"gpu_count": "GPUs", "tco_years": "years"}.get(slot, ""), SRC_USER)
    return str(value)


def _mention(book: Book, mention: Any, lang: str, catalog: Any, name: str) -> str:
    gpu = _gpu_name(catalog, mention.gpu)
    if mention.count:
        return f"{book.count(name, mention.count, 'GPUs', SRC_USER)}× {gpu}"
    return gpu


# ----------------------------------------------------------------------------------------------------------------
# what is known, questions
# ----------------------------------------------------------------------------------------------------------------
def summary(state: DialogState, lang: str, catalog: Any, book: Book) -> str:
    s = state.slots
    parts: list[str] = []
    if s.model:
        parts.append(_model_name(catalog, s.model))
    if s.task or s.task_generic:
        parts.append(_task(s.task, lang) if s.task else ("微调" if lang == "zh" else "fine-tuning")
                     if s.task_generic == "finetune" else ("训练" if lang == "zh" else "training"))
    if s.weights:
        parts.append(_fmt(s.weights, lang))
    if s.context:
        label = "上下文 " if lang == "zh" else "context "
        parts.append(label + book.tokens("context", s.context, SRC_USER, lang))
    if s.concurrency:
        parts.append(book.num("concurrency", s.concurrency, "sequences", SRC_USER, suffix="并发" if lang == "zh" else "concurrent"))
    if s.train_tokens:
        parts.append(book.tokens("training tokens", s.train_tokens, SRC_USER, lang))
    if s.budget:
        parts.append(("预算 " if lang == "zh" else "budget ") + book.money("budget", s.budget, s.currency or "USD", SRC_USER))
    if s.region:
        parts.append(pick(REGION[s.region], lang))
    if s.existing:
        parts.append(("现有 " if lang == "zh" else "you have ") + _mention(book, s.existing, lang, catalog, "your GPUs"))
    if s.candidates:
        parts.append(("候选 " if lang == "zh" else "comparing ") + ", ".join(
            _mention(book, m, lang, catalog, f"candidate {i}") for i, m in enumerate(s.candidates)))
    if s.deadline_s:
        parts.append(("期限 " if lang == "zh" else "deadline ") + _slot_value(book, "deadline_s", s.deadline_s, lang, catalog, "deadline"))
    sep = "，" if lang == "zh" else ", "
    return sep.join(parts)


def question_text(slot: str | None, state: DialogState, lang: str, catalog: Any = None, book: Book | None = None) -> str:
    """The clarifying question for `slot`, with the default it would use."""
    book = book or Book()
    s = state.slots
    zh = lang == "zh"
    if slot == "model":
        default = _model_name(catalog, DEFAULT_MODEL) if catalog is not None else "Qwen2.5-7B"
        return (f"请问是哪个模型（或多大参数量）？例如 Qwen2.5-7B、Llama-3.1-70B、DeepSeek-R1。回复“默认”按 {default} 计算。"
                if zh else f"Which model (or what size)? For example Qwen2.5-7B, Llama-3.1-70B or DeepSeek-R1. "
                f"Reply \"default\" to use {default}.")
    if slot == "task":
        if s.task_generic == "train":
            return ("哪种训练：LoRA 微调（默认）、QLoRA、全参微调，还是从头预训练？" if zh else
                    "Which kind of training: LoRA fine-tuning (default), QLoRA, full fine-tuning, or pre-training from scratch?")
        name = _model_name(catalog, s.model) if catalog is not None and s.model else ("这个模型" if zh else "the model")
        return (f"{name} 用来做什么：推理部署（默认）、微调（LoRA / QLoRA / 全参）还是预训练？" if zh else
                f"What will you do with {name}: serve it (inference, the default), fine-tune it (LoRA / QLoRA / full) "
                "or pre-train it?")
    if slot == "concurrency":
        one = book.num("default concurrency", 1, "sequences", SRC_DEFAULT, suffix="")
        return (f"高峰时有多少并发请求（同时在线的用户）？默认按 {one} 路计算。" if zh else
                f"How many concurrent requests (users at the same time) at peak? Default: {one}.")
    if slot == "context" and (s.task or s.task_generic) not in (None, "inference"):
        ctx = book.tokens("default context", DEFAULT_CONTEXT, SRC_DEFAULT, lang)
        return (f"训练样本的序列长度是多少？默认 {ctx}。" if zh else
                f"What sequence length will the training samples have? Default: {ctx}.")
    if slot == "context":
        ctx = book.tokens("default context", DEFAULT_CONTEXT, SRC_DEFAULT, lang)
        return (f"每个请求的上下文长度（输入 + 输出）是多少？默认 {ctx}。" if zh else
                f"What context length per request (prompt + output)? Default: {ctx}.")
    if slot == "weights":
        native = default_weights(s.model).upper()
        options = [f for f in ("BF16", "FP8", "INT8") if f != native]
        return (f"权重用什么精度：{native}（默认，模型发布时的精度）、{'、'.join(options)}，还是 4-bit 量化（AWQ/GPTQ、GGUF Q4_K_M）？" if zh else
                f"Which precision for the weights: {native} (default, the checkpoint's own), {', '.join(options)}, "
                "or 4-bit (AWQ/GPTQ, GGUF Q4_K_M)?")
    if slot == "region":
        default = "中国大陆" if zh else "outside China"
        return (f"部署在哪里：中国大陆（只考虑国内可买到的卡）还是海外？默认：{default}。" if zh else
                f"Where will it run: mainland China (only cards sold there) or elsewhere? Default: {default}.")
    if slot == "budget":
        return ("预算大概多少（币种）？默认不设上限。" if zh else
                "Is there a budget (and currency)? Default: no limit.")
    if slot == "output_tokens":
        return ("平均每个请求输出多少 token？这会影响速度和成本估算。默认按常见对话长度。" if zh else
                "What is the average output length per request, in tokens? It sets the speed and cost figures. "
                "Default: a typical chat reply.")
    if slot == "train_tokens":
        return ("训练数据总共多少 token（数据量 × 轮数）？有了它才能估算训练时间。" if zh else
                "How many training tokens (dataset size × epochs)? With it I can estimate the training time.")
    if slot == "deadline":
        return ("训练需要在多长时间内完成？默认不设期限。" if zh else
                "By when must the training finish? Default: no deadline.")
    return ""


# ----------------------------------------------------------------------------------------------------------------
# turns
# ----------------------------------------------------------------------------------------------------------------
def render_note(key: str, book: Book, lang: str) -> str:
    """A fixed sentence from `lang.MESSAGES`, its numbers recorded."""
    if not key:
        return ""
    if key == "truncated":
        from advisor.conversation.extract import MAX_CHARS

        return say("truncated", lang, n=book.count("characters read", MAX_CHARS, "characters", "extract.MAX_CHARS"))
    if key == "greeting":
        return say("greeting", lang,
                   conc=book.count("example concurrency", 100, "sequences", "example question"),
                   ctx=book.num("example context", 8, "k tokens", "example question", suffix="k"),
                   budget=book.num("example budget", 50, "万 CNY", "example question", suffix="万") if lang == "zh"
                   else book.money("example budget", 500_000, "CNY", "example question"))
    if key == "reset":
        return say("reset", lang) + "\n\n" + render_note("greeting", book, lang)
    return say(key, lang)


def _notes_block(notes: list[str], book: Book, lang: str) -> str:
    return "\n".join(f"> {render_note(n, book, lang)}" for n in notes)


def _catalog_names(answer: str, book: Book) -> None:
    """Numbers inside catalog names shown in the answer ("GPT-2 XL (1.5B)", "H20 96GB") are the catalog's."""
    catalog = default_catalog()
    for spec in list(catalog.models) + list(catalog.gpus):
        if spec.name in answer and any(ch.isdigit() for ch in spec.name):
            book.text(spec.name, f"name {spec.id}", f"knowledge catalog: {spec.id}")


def finish_turn(answer: str, lang: str, state: DialogState, book: Book, **kw: Any) -> Turn:
    """The deterministic Turn of `answer`, with the numbers `book` recorded and the workload as understood."""
    _catalog_names(answer, book)
    return Turn(answer=answer.strip(), lang=lang if lang in ("zh", "en") else "en", mode="deterministic",  # type: ignore[arg-type]
                numbers=book.numbers, workload=workload_summary_dict(state), **kw)


def simple_turn(body: str, lang: str, state: DialogState, *, notes: list[str] | None = None,
                pending_question: bool = False, show_state: bool = False, catalog: Any = None, text: str = "",
                kind: str = "no_change") -> Turn:
    """A reply that changes nothing: empty, nonsense, greeting, injection, an error (`text`). `body` and `notes` are
    keys of fixed sentences; the pending question, if any, is asked again."""
    catalog = catalog if catalog is not None else default_catalog()
    book = Book()
    lines = [_notes_block(notes or [], book, lang), render_note(body, book, lang), text]
    question = question_text(state.pending, state, lang, catalog, book) if pending_question and state.pending else None
    if show_state:
        known = summary(state, lang, catalog, book)
        lines.append(say("kept", lang, summary=known) if known else say("nothing_yet", lang))
    questions: list[str] = []
    if question:
        lines.append(question)
        questions.append(question)
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=questions,
                 extra={"kind": kind, "pending": state.pending})


def guide_claim_turn(claim: Any, findings: list[Any], state: DialogState, lang: str, catalog: Any) -> Turn:
    """The answer to a quoted guide statement about a card (knowledge.guides claim): the verdict with the computed
    figure, the guide's own words and section, and the claims rule's finding. The conversation state is unchanged;
    a pending question is asked again."""
    book = Book()
    zh = lang == "zh"
    verdict = {"right": ("The guide's statement checks out", "指南的这个说法经核对无误"),
               "wrong": ("The guide's figure is wrong", "指南的这个说法有误"),
               "dated": ("The guide's statement is out of date", "指南的这个说法已过时")}.get(
                   claim.verdict, (claim.verdict, claim.verdict))
    explanation = (claim.explanation_zh or claim.explanation) if zh else claim.explanation
    quote = (f"指南原文（{claim.guide}，{claim.section}）：“{book.text(claim.quote, 'guide quote', claim.guide)}”" if zh
             else f"The guide ({claim.guide}, section {claim.section}) says: “"
                  f"{book.text(claim.quote, 'guide quote', claim.guide)}”")
    if findings:  # the claims rule words the correction (guide figure, computed figure, explanation) and cites it
        lines = [f"**{pick(verdict, lang)}。**" if zh else f"**{pick(verdict, lang)}.**", quote,
                 _rec_findings(findings, book, lang)]
    else:
        lines = [f"**{pick(verdict, lang)}**{'：' if zh else ': '}" + book.text(explanation, f"claim {claim.id}",
                                                                              f"knowledge.guides claim {claim.id}"), quote]
    questions: list[str] = []
    if state.pending:
        q = question_text(state.pending, state, lang, catalog, book)
        lines.append(q)
        questions.append(q)
    elif state.slots.model is None:
        lines.append("想算具体配置的话，告诉我模型和任务（推理、微调或训练）。" if zh else
                     "To size a configuration, tell me the model and the task (serving, fine-tuning or training).")
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=questions, findings=list(findings),
                 extra={"kind": "claim", "pending": state.pending, "claim_id": claim.id, "claim_verdict": claim.verdict})


def question_turn(slot: str, state: DialogState, lang: str, catalog: Any, *, notes: list[str], slots: Slots,
                  changes: list[Change], findings: list[Any] | None = None) -> Turn:
    """A blocking question; `findings` that correct the user's premise (NVLink on a card without it) come first."""
    book = Book()
    lines = [_notes_block(notes, book, lang)] + _unknown_lines(slots, lang, catalog)
    known = summary(state, lang, catalog, book)
    if known:
        lines.append(("已了解：" if lang == "zh" else "So far: ") + known + ("。" if lang == "zh" else "."))
    if findings:
        lines.append(_rec_findings(list(findings), book, lang, title=("**First, a correction:**", "**先更正一点：**")))
    q = question_text(slot, state, lang, catalog, book)
    lines.append(q)
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=[q], findings=list(findings or []),
                 extra={"kind": "question", "pending": slot, "blocking": True})


def _unknown_lines(slots: Slots, lang: str, catalog: Any) -> list[str]:
    out: list[str] = []
    if slots.unknown_model and slots.model is None:
        from knowledge.errors import UnknownModel

        try:
            catalog.model(slots.unknown_model)
        except UnknownModel as exc:
            out.append(exc.localized(lang))
        except Exception:  # noqa: BLE001
            pass
    for word in slots.unknown_gpus:
        out.append(f"目录里没有“{word}”这张卡，无法给出它的数据；可用 `gpu-advisor gpus` 查看支持的显卡。" if lang == "zh" else
                   f"'{word}' is not a GPU in the catalog, so I have no data for it (see `gpu-advisor gpus`).")
    if slots.model_assumed in ("size", "closest") and slots.size_params and slots.model:
        name = _model_name(catalog, slots.model)
        if lang == "zh":
            out.append(f"按 {name} 作为这个规模的代表模型计算（架构不同结果会有出入）。")
        else:
            out.append(f"I use {name} as the representative model of that size (other architectures differ somewhat).")
    return out


def answer_turn(ev: Evaluation, state: DialogState, lang: str, catalog: Any, *, notes: list[str], slots: Slots,
                changes: list[Change], question: str | None) -> Turn:
    if ev.recommendation is not None:
        return recommendation_turn(ev, state, lang, catalog, notes=notes, slots=slots, changes=changes,
                                   question=question)
    book = Book()
    zh = lang == "zh"
    w = ev.workload
    lines: list[str] = [_notes_block(notes, book, lang)]
    lines += [_headline(ev, book, lang)]
    lines += _unknown_lines(slots, lang, catalog)
    changed = _changes_block(changes, state, ev, book, lang, catalog)
    if changed:
        lines.append(changed)
    lines.append(_job_line(ev, book, lang))
    table = _configs_table(ev, book, lang)
    if table:
        lines.append(table)
    breakdown = _breakdown(ev, book, lang)
    if breakdown:
        lines.append(breakdown)
    if ev.claim is not None:
        lines.append(_claim_block(ev, book, lang))
    if ev.findings:
        lines.append(_findings_block(ev.findings, lang))
    assumptions = _assumptions_block(ev.assumptions, book, lang)
    if assumptions:
        lines.append(assumptions)
    if ev.unavailable:
        lines.append(("（速度、成本与规则检查模块尚未就绪，本回答只含显存计算。）" if zh else
                      "(Speed, cost and rule checks are not available in this build; this answer covers memory only.)"))
    questions: list[str] = []
    if question:
        q = question_text(question, state, lang, catalog, book)
        lines.append(("**接下来想确认：** " if zh else "**Next question:** ") + q)
        questions.append(q)
    top = _top(ev)
    state.focus_gpu = top.gpu.id if top is not None else state.focus_gpu
    state.last_numbers = _key_numbers(ev)
    memory_chart = _memory_chart(ev)
    extra: dict[str, Any] = {"kind": "answer", "pending": question, "changed": [c.slot for c in changes],
                             "verdict": _verdict(ev), "top": {"gpu": top.gpu.id, "count": top.count} if top else None,
                             "claim_verdict": ev.claim.verdict if ev.claim is not None else None,
                             "unavailable": list(ev.unavailable)}
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=questions,
                 findings=list(ev.findings), options=_options(ev), memory=memory_chart, extra=extra)


def _verdict(ev: Evaluation) -> str | None:
    """For the user's own configurations: "fits" / "does_not_fit" (one), "some_fit" / "none_fit" (several)."""
    users = [c for c in ev.configs if c.role in ("existing", "candidate")]
    if not users:
        return None
    if len(users) == 1:
        return "fits" if users[0].fits else "does_not_fit"
    return "some_fit" if any(c.fits for c in users) else "none_fit"


# -- pieces of an answer -------------------------------------------------------------------------------------------
def _top(ev: Evaluation) -> ConfigResult | None:
    fitting = [c for c in ev.configs if c.fits]
    if fitting:
        return fitting[0]
    return ev.configs[0] if ev.configs else None


def _cfg_name(c: ConfigResult, book: Book, lang: str) -> str:
    n = book.count(f"GPUs ({c.gpu.name})", c.count, "GPUs", "configuration evaluated")
    return f"{n}× {c.gpu.name}"


def _headline(ev: Evaluation, book: Book, lang: str) -> str:
    zh = lang == "zh"
    users = [c for c in ev.configs if c.role in ("existing", "candidate")]
    if users:
        fitting = [c for c in users if c.fits]
        if len(users) == 1:
            c = users[0]
            if c.memory is None:
                return (f"**{_cfg_name(c, book, lang)}：无法估算**（{c.error}）" if zh else
                        f"**{_cfg_name(c, book, lang)}: could not be estimated** ({c.error})")
            need = book.gib(f"memory per GPU on {c.gpu.name}", c.memory.per_gpu.total)
            cap = book.gib(f"usable memory of {c.gpu.name}", c.memory.usable_bytes(c.gpu), f"catalog: {c.gpu.id} memory_bytes × engine usable fraction")
            if c.fits:
                return (f"**可以：{_cfg_name(c, book, lang)} 放得下**（{c.layout}），每卡需要 {need}，可用 {cap}。" if zh else
                        f"**Yes: {_cfg_name(c, book, lang)} fits** ({c.layout}): {need} needed per GPU of {cap} usable.")
            return (f"**不够：{_cfg_name(c, book, lang)} 放不下**（{c.layout}），每卡需要 {need}，可用只有 {cap}。" if zh else
                    f"**No: {_cfg_name(c, book, lang)} does not fit** ({c.layout}): {need} needed per GPU, only {cap} usable.")
        if fitting:
            best = fitting[0]
            names = "、".join(_cfg_name(c, book, lang) for c in fitting) if zh else ", ".join(_cfg_name(c, book, lang) for c in fitting)
            return (f"**建议：{_cfg_name(best, book, lang)}**（{best.layout}）。放得下的配置：{names}。" if zh else
                    f"**Recommendation: {_cfg_name(best, book, lang)}** ({best.layout}). Configurations that fit: {names}.")
        return ("**所列配置都放不下**，见下表每卡显存需求。" if zh else
                "**None of these configurations fits**; see the memory per GPU below.")
    top = _top(ev)
    if top is None:
        need = book.gib("memory needed on one GPU", ev.need.per_gpu.total)
        return (f"**目录中没有 8 卡以内能放下的单机配置**；单卡需要 {need}。" if zh else
                f"**No single-node configuration in the catalog fits**; the job needs {need} on one GPU.")
    need = book.gib(f"memory per GPU on {top.gpu.name}", top.memory.per_gpu.total)
    return (f"**建议：{_cfg_name(top, book, lang)}**（{top.layout}），每卡需要 {need}。" if zh else
            f"**Recommendation: {_cfg_name(top, book, lang)}** ({top.layout}), {need} needed per GPU.")


def _job_line(ev: Evaluation, book: Book, lang: str) -> str:
    w = ev.workload
    zh = lang == "zh"
    params = book.num(f"parameters of {ev.model.name}", ev.need.params / 1e9, "B params", "knowledge.params.param_counts", 1,
                      suffix="B 参数" if zh else "B parameters")
    bits = [f"{ev.model.name}（{params}）" if zh else f"{ev.model.name} ({params})", _task(w.task, lang)]
    if w.task == "inference" or w.weights:
        bits.append(_fmt(w.weights or default_weights(w.model), lang))  # unset: the checkpoint's own precision
    ctx = book.tokens("context", w.context, SRC_USER if ev.constraints else SRC_DEFAULT, lang)
    if w.task == "inference":
        conc = book.num("concurrency", w.concurrency, "sequences", SRC_USER, suffix="")
        bits.append(f"{conc} 路 × {ctx}" if zh else f"{conc} × {ctx}")
    else:
        bits.append(("序列长度 " if zh else "sequence ") + ctx)
    if ev.need is not None and ev.need.per_gpu.total:  # "how much memory does it need?": the whole job, unsharded
        need = book.gib("total memory need (unsharded)", ev.need.per_gpu.total)
        bits.append(f"总显存需求（不分片）{need}" if zh else f"total memory need (unsharded) {need}")
    return ("**任务：** " if zh else "**Job:** ") + ("，".join(bits) if zh else ", ".join(bits))


def _configs_table(ev: Evaluation, book: Book, lang: str) -> str:
    if len(ev.configs) < 2 and not (ev.configs and ev.configs[0].role == "fit"):
        return ""
    zh = lang == "zh"
    head = ("| 配置 | 并行方式 | 每卡显存 | 可用显存 | 放得下 |\n|---|---|---|---|---|" if zh else
            "| configuration | layout | memory per GPU | usable | fits |\n|---|---|---|---|---|")
    rows = []
    for c in ev.configs:
        if c.memory is None:
            rows.append(f"| {_cfg_name(c, book, lang)} | — | — | — | {c.error} |")
            continue
        need = book.gib(f"memory per GPU on {c.gpu.name}", c.memory.per_gpu.total)
        cap = book.gib(f"usable memory of {c.gpu.name}", c.memory.usable_bytes(c.gpu), f"catalog: {c.gpu.id} memory_bytes × engine usable fraction")
        ok = ("是" if c.fits else "否") if zh else ("yes" if c.fits else "no")
        rows.append(f"| {_cfg_name(c, book, lang)} | {c.layout} | {need} | {cap} | {ok} |")
    return head + "\n" + "\n".join(rows)


def _breakdown(ev: Evaluation, book: Book, lang: str) -> str:
    top = _top(ev)
    mem = top.memory if top is not None and top.memory is not None else ev.need
    where = f"{_cfg_name(top, book, lang)}" if top is not None and top.memory is not None else ("单卡" if lang == "zh" else "one GPU")
    zh = lang == "zh"
    lines = [(f"**每卡显存明细**（{where}）：" if zh else f"**Memory per GPU** ({where}):")]
    for part, label in PART.items():
        value = getattr(mem.per_gpu, part)
        if value:
            lines.append(f"- {pick(label, lang)}: {book.gib(f'{part} per GPU', value)}")
    lines.append(f"- {'合计' if zh else 'total'}: {book.gib('total per GPU', mem.per_gpu.total)}")
    if mem.cpu.total:
        lines.append(f"- {'CPU 内存（卸载）' if zh else 'CPU RAM (offload)'}: {book.gib('CPU memory', mem.cpu.total)}")
    return "\n".join(lines)


def _claim_block(ev: Evaluation, book: Book, lang: str) -> str:
    ck = ev.claim
    assert ck is not None
    zh = lang == "zh"
    quoted = book.num("quoted figure", ck.claim.value, ck.claim.unit, SRC_USER, _digits(ck.claim.value))
    weights = book.gb("weights (claim check)", ck.weights_bytes)
    weights_gib = book.gib("weights (claim check)", ck.weights_bytes)
    kv = book.gib("KV cache (claim check)", ck.kv_bytes)
    ctx = book.tokens("claim check context", ck.context, SRC_DEFAULT, lang)
    total = book.gib("total on one GPU (claim check)", ck.total_bytes)
    fmt = _fmt(ck.fmt, lang)
    params = float(ev.need.params) if ev.need is not None and ev.need.params else 0.0
    fmt_note = ""
    if params and ck.fmt not in ("bf16", "fp16", "fp32"):
        # which format: its real bits per weight, against the plain figure (params × bits / 8) a guide computes
        bits = book.num("bits per weight (claim check)", ck.weights_bytes * 8 / params, "bits/weight", SRC_MEMORY, 2,
                        suffix="bit")
        nominal = {"int4": 4, "awq-int4": 4, "gptq-int4": 4, "nf4": 4, "q4_k_m": 4, "q4_0": 4, "fp8": 8, "int8": 8,
                   "q8_0": 8, "gptq-int8": 8, "bnb-int8": 8}.get(ck.fmt)
        if nominal:
            plain = book.gb("plain weights at nominal bits (claim check)", params * nominal / 8)
            fmt_note = (f"（{fmt} 实际平均每权重 {bits}：分组缩放因子，嵌入层和输出层保持 16-bit；按整 {nominal} bit 算是 {plain}）"
                        if zh else f" ({fmt} stores {bits} per weight on average: group scales, and the embedding and "
                        f"output layers stay 16-bit; at a flat {nominal} bits it would be {plain})")
    gc = ck.guide_claim
    cited = ""
    if gc is not None:
        cited = (f" 指南原文（{gc.guide}，{gc.section}）：“{book.text(gc.quote, 'guide quote', gc.guide)}”，核对结论：{ {'right': '正确', 'wrong': '有误', 'dated': '已过时'}.get(gc.verdict, gc.verdict)}，"
                 f"见规则检查 [{gc.id}]。" if zh else
                 f" The guide ({gc.guide}, section {gc.section}) says: “{book.text(gc.quote, 'guide quote', gc.guide)}”; "
                 f"checked verdict: {gc.verdict} (claim {gc.id}, see the findings).")
    if zh:
        verdict = {"too_low": "这个说法偏低：仅权重就超过了它",
                   "weights_only": "这个数字最多只够放权重，没算 KV 缓存和运行开销",
                   "plausible": "这个数字与计算大致相符"}[ck.verdict]
        return (f"**关于引用的说法（“{ck.claim.text}”）：** {verdict}。按 {fmt} 计算，{ev.model.name} 的权重为 "
                f"{weights}（{weights_gib}）{fmt_note}，再加上 {ctx} 上下文的 KV 缓存 {kv}，单卡合计 {total}（已计入运行开销）。{cited}")
    verdict = {"too_low": "the figure is too low: the weights alone exceed it",
               "weights_only": "the figure covers at most the weights, not the KV cache and runtime overhead",
               "plausible": "the figure is consistent with the computation"}[ck.verdict]
    return (f"**On the quoted claim (\"{ck.claim.text}\"):** {verdict}. In {fmt}, {ev.model.name}'s weights take "
            f"{weights} ({weights_gib}){fmt_note}; with the KV cache for {ctx} of context ({kv}) and runtime overhead, one GPU "
            f"needs {total}. Quoted: {quoted}.{cited}")


def _findings_block(findings: list[Any], lang: str) -> str:
    zh = lang == "zh"
    lines = ["**规则检查：**" if zh else "**Findings:**"]
    for f in findings:
        src = f" — {f.source}" if getattr(f, "source", "") else ""
        lines.append(f"- [{f.rule_id}] ({f.severity}) {f.text(lang)}{src}")
    return "\n".join(lines)


def _assumptions_block(assumptions: list[Assumption], book: Book, lang: str) -> str:
    if not assumptions:
        return ""
    lines = ["**假设：**" if lang == "zh" else "**Assumptions:**"]
    for a in assumptions:
        values = {}
        for key, (value, unit, source) in a.numbers.items():
            if unit == "tokens":
                values[key] = book.tokens(f"assumed {key}", value, source, lang)
            else:
                values[key] = book.num(f"assumed {key}", value, unit, source, _digits(value),
                                       suffix="" if unit in ("sequences",) else None)
        lines.append("- " + (a.zh if lang == "zh" else a.en).format(**values))
    return "\n".join(lines)


def _changes_block(changes: list[Change], state: DialogState, ev: Evaluation, book: Book, lang: str, catalog: Any) -> str:
    if not changes or not state.answered:
        return ""
    zh = lang == "zh"
    parts = []
    for ch in changes:
        if ch.slot not in SLOT_LABEL:
            continue
        if ch.old is None and ch.slot in ("weights", "context", "concurrency", "task", "region"):
            old = _effective(ch.slot, ev, book, lang, catalog)
        else:
            old = _slot_value(book, ch.slot, ch.old, lang, catalog, "previous")
        new = _slot_value(book, ch.slot, ch.new, lang, catalog, "new")
        if ch.slot == "budget":  # an amount in the currency it is priced in ("$400,000"), not the bare float
            cur = ev.constraints.currency
            old = book.money("previous budget", ch.old, cur, "previous turn") if ch.old else old
            new = book.money("new budget", ch.new, cur, SRC_USER) if ch.new else new
        if not old.strip():
            old = "无（全目录搜索）" if zh else "none (whole catalog)"
        parts.append(f"{pick(SLOT_LABEL[ch.slot], lang)} {old} → {new}")
    if not parts:
        return ""
    text = ("**变化：** " if zh else "**What changed:** ") + ("；".join(parts) if zh else "; ".join(parts))
    before = state.last_numbers.get("need_total")
    if before is not None and ev.need is not None and abs(ev.need.per_gpu.total - before) > 0.0005 * before:
        # ev.need is the job on one unsharded device: the total to spread over the GPUs, not what one GPU holds
        old = book.gib("previous total memory need (unsharded)", before, "previous turn: " + SRC_MEMORY)
        new = book.gib("total memory need (unsharded)", ev.need.per_gpu.total)
        delta = abs(ev.need.per_gpu.total - before) / before * 100 if before else 0.0
        up = ev.need.per_gpu.total > before
        pct = book.num("increase in memory" if up else "decrease in memory", delta, "%",
                       "computed from the two estimates", 0, suffix="").replace(" ", "") + "%"
        pct = ("+" if up else "−") + pct
        text += (f"。总显存需求（不分片）{old} → {new}（{pct}）" if zh else
                 f". Total memory need (unsharded): {old} → {new} ({pct})")
    text += _top_change(state, ev, book, lang)
    text += "。" if zh else "."
    return text


def _top_change(state: DialogState, ev: Evaluation, book: Book, lang: str) -> str:
    """How the leading option moved since the last answer: configuration and speed (recommender answers)."""
    before = state.last_workload or {}
    if ev.recommendation is None or not before.get("top_gpu"):
        return ""
    top = top_option(ev)
    if top is None:
        return ""
    zh = lang == "zh"
    out = ""
    if (before["top_gpu"], before["top_count"]) != (top.gpu, top.count):
        old = f"{book.count('previous GPU count', before['top_count'], 'GPUs', 'previous turn')}× {before['top_name']}"
        out += f"；首选配置 {old} → {_opt_name(top, book)}" if zh else f"; leading option {old} → {_opt_name(top, book)}"
    last = state.last_numbers
    speed = (top.throughput or {}).get("decode_tokens_per_s_total")
    if speed and last.get("top_tokens_per_s") and round(speed) != round(last["top_tokens_per_s"]):
        old = book.num("previous total decode speed", last["top_tokens_per_s"], "tokens/s", "previous turn: " + SRC_THROUGHPUT, 0)
        new = book.num(f"decode tokens/s total on {top.count}× {top.gpu_name}", speed, "tokens/s", SRC_THROUGHPUT, 0)
        out += f"；总生成速度 {old} → {new}" if zh else f"; total decode speed {old} → {new}"
    wall = (top.training or {}).get("wall_s")
    if wall and last.get("top_wall_s"):
        old = book.num("previous training time", last["top_wall_s"] / 86400, "days", "previous turn: " + SRC_TRAINING, 1,
                       suffix="天" if zh else "days")
        new = book.num(f"training wall-clock on {top.count}× {top.gpu_name}", wall / 86400, "days", SRC_TRAINING, 1,
                       suffix="天" if zh else "days")
        out += f"；训练时间 {old} → {new}" if zh else f"; training time {old} → {new}"
    return out


def _effective(slot: str, ev: Evaluation, book: Book, lang: str, catalog: Any) -> str:
    """The default a slot had before the user set it ("BF16 (default)")."""
    if slot == "weights":
        default = default_weights(ev.workload.model).upper() if ev.workload.task == "inference" else "BF16"
    elif slot == "context":
        default = book.tokens("previous context", DEFAULT_CONTEXT, SRC_DEFAULT, lang)
    elif slot == "concurrency":
        default = book.count("previous concurrency", 1, "sequences", SRC_DEFAULT)
    elif slot == "task":
        default = _task("inference", lang)
    else:  # the region default build_constraints applies: mainland China for Chinese users
        default = pick(REGION["cn" if lang == "zh" else "global"], lang)
    return f"{default}（默认）" if lang == "zh" else f"{default} (default)"


def _key_numbers(ev: Evaluation) -> dict[str, float]:
    out: dict[str, float] = {}
    if ev.need is not None:
        out["need_total"] = float(ev.need.per_gpu.total)
    top = _top(ev)
    if top is not None and top.memory is not None:
        out["top_total"] = float(top.memory.per_gpu.total)
        out["top_count"] = float(top.count)
    return out


def _options(ev: Evaluation) -> list[dict[str, Any]]:
    """Options in the `gpu-advisor recommend --json` shape."""
    out = []
    for c in ev.configs:
        out.append({
            "gpu": c.gpu.id, "count": c.count, "layout": c.layout,
            "per_gpu_bytes": c.memory.per_gpu.to_contract() if c.memory is not None else {},
            "fits": c.fits, "throughput": None, "price": None, "findings": [], "role": c.role,
        })
    return out


def _memory_chart(ev: Evaluation) -> dict[str, Any] | None:
    top = _top(ev)
    mem = top.memory if top is not None and top.memory is not None else ev.need
    if mem is None:
        return None
    chart: dict[str, Any] = {k: int(v) for k, v in mem.per_gpu.parts().items()}
    chart["total"] = int(mem.per_gpu.total)
    if top is not None and top.memory is not None:
        chart["capacity"] = int(top.gpu.memory_bytes)
        chart["usable"] = int(mem.usable_bytes(top.gpu))
        chart["gpu"] = top.gpu.id
        chart["count"] = top.count
    return chart


# ================================================================================================================
# answers from the recommender (advisor.recommend): options with speed, price, findings
# ================================================================================================================
SRC_RECOMMEND = "advisor.recommend"
SRC_THROUGHPUT = "advisor.estimator.throughput.estimate_throughput"
SRC_TRAINING = "advisor.estimator.training.estimate_train_time"
LABEL = {
    "lowest_cost": ("lowest cost", "最低成本"), "best_value": ("best value", "最佳性价比"),
    "best_performance": ("best performance", "最佳性能"), "existing": ("your hardware", "现有硬件"),
    "candidate": ("named by you", "您提到的"),
}
# "lowest cost" when a cheaper option exists but spreads consumer cards over several servers, which the recommender
# ranks after single-server and datacenter options (advisor.recommend._rank; review R01, R47)
LOWEST_COST_COMPACT = ("lowest cost without consumer cards spread over servers", "最低成本（不计跨服务器的消费级卡方案）")


def _label_words(o: Any, lang: str, options: Any = ()) -> list[str]:
    """The option's labels in words; "lowest cost" says what it is lowest among when `options` holds a cheaper one
    that meets the targets but spreads consumer cards over servers (`advisor.recommend.spread_consumer`, the
    criterion the ranking puts after it)."""
    from advisor.recommend import cost_of, spread_consumer
    from knowledge.catalog import load_catalog

    def spread_and_cheaper(p: Any) -> bool:
        if p is o or not p.meets_targets or cost_of(p) >= cost_of(o):
            return False
        return spread_consumer(p, {p.gpu: load_catalog().gpu(p.gpu)})

    words = []
    for lab in o.labels:
        if lab not in LABEL:
            continue
        if lab == "lowest_cost" and any(spread_and_cheaper(p) for p in options or ()):
            words.append(pick(LOWEST_COST_COMPACT, lang))
        else:
            words.append(pick(LABEL[lab], lang))
    return words


MISS = {
    "budget": ("over budget", "超出预算"), "no_price": ("no dated price in the catalog", "目录中没有带日期的价格"),
    "power": ("over the power limit", "超出功耗限制"), "latency": ("too slow per token", "单 token 延迟超标"),
    "throughput": ("below the throughput target", "吞吐量不达标"), "deadline": ("misses the deadline", "赶不上期限"),
    "blocked": ("ruled out by a rule", "被规则排除"),
}


# sizing rules whose block restates a miss the answer already names (rules/sizing.py): the deadline rule is the
# missed deadline itself, not a second reason, so "ruled out by a rule" and its ⚠ tag are not added for it (review R39)
RESTATES = {"sizing-deadline-missed": "deadline", "sizing-over-budget": "budget", "sizing-over-power": "power",
            "sizing-throughput-short": "throughput", "sizing-latency-short": "latency", "sizing-does-not-fit": "fit"}


def _restates(f: Any, o: Any) -> bool:
    """Whether finding `f` only repeats a miss of option `o` that is shown anyway ("misses the deadline", "does not
    fit")."""
    miss = RESTATES.get(f.rule_id)
    return (not o.fits) if miss == "fit" else (miss is not None and miss in o.misses)


def _misses(o: Any, lang: str) -> list[str]:
    """What `o` misses, in words, each once: "ruled out by a rule" only when a block finding says more than a miss
    already listed (a market or capability rule), not when the blocking rule is the missed deadline itself."""
    blocks = [f for f in o.findings if f.severity == "block"]
    keep = [m for m in o.misses if m != "blocked" or not blocks or any(not _restates(f, o) for f in blocks)]
    return [pick(MISS.get(m, (m, m)), lang) for m in keep]


def _low_reliability(source: Any) -> bool:
    """Whether a catalog figure rests on a source the registry marks as low reliability: its kind ends in '-low'
    (press-low: the expert-call minutes behind the 2024 China channel prices; secondary-low: unverified price
    compilations). `source` is one id or several joined by commas; ids the catalog does not know count as not low."""
    if not source:
        return False
    from knowledge.errors import CatalogError

    cat = default_catalog()
    for sid in str(source).split(","):
        try:
            if cat.source(sid.strip()).kind.endswith("-low"):
                return True
        except CatalogError:
            continue
    return False


LOW_RELIABILITY = ("low-reliability source", "来源可靠性低")


def _opt_name(o: Any, book: Book) -> str:
    n = book.count(f"GPUs ({o.gpu_name})", o.count, "GPUs", "configuration evaluated")
    return f"{n}× {o.gpu_name}"


def _opt_layout(o: Any, lang: str, book: Book) -> str:
    lay = o.layout or {}
    parts = []
    if lay.get("tp", 1) > 1 and lay.get("engine") == "llama.cpp":  # llama.cpp splits layers, it has no TP
        n = book.count('layer-split GPUs', lay['tp'], 'GPUs', SRC_RECOMMEND)
        parts.append(f"按层切分到 {n} 卡" if lang == "zh" else f"layers split over {n} GPUs")
    elif lay.get("tp", 1) > 1:
        parts.append(f"TP {book.count('tensor parallel degree', lay['tp'], 'GPUs', SRC_RECOMMEND)}")
    if lay.get("pp", 1) > 1:
        parts.append(f"PP {book.count('pipeline parallel degree', lay['pp'], 'GPUs', SRC_RECOMMEND)}")
    if lay.get("dp", 1) > 1:
        parts.append(f"DP {book.count('data parallel degree', lay['dp'], 'GPUs', SRC_RECOMMEND)}")
    if lay.get("zero"):
        parts.append(f"ZeRO-{book.count('ZeRO stage', lay['zero'], '', SRC_RECOMMEND)}")
    if lay.get("offload") == "layers":  # llama.cpp layer offload: -ngl layers on the card, the rest in system RAM
        ngl = book.count(f"GPU layers (-ngl) on 1× {o.gpu_name} with layer offload", lay["ngl"], "layers", SRC_RECOMMEND)
        rest = book.count(f"layers in system RAM on 1× {o.gpu_name} with layer offload", lay["cpu_layers"], "layers",
                          SRC_RECOMMEND)
        parts.append(f"-ngl {ngl}，{rest} 层在系统内存" if lang == "zh" else f"-ngl {ngl}, {rest} layers in system RAM")
    elif lay.get("offload") not in (None, "none"):
        parts.append(("卸载 " if lang == "zh" else "offload ") + str(lay["offload"]))
    if lay.get("engine"):
        parts.append(str(lay["engine"]))
    from advisor.recommend import option_tags  # issue 15: 4-bit format, used-card price, near the memory limit

    parts += option_tags(o, lang)
    return ", ".join(parts) or ("单卡" if lang == "zh" else "1 GPU")


def _opt_memory(o: Any, book: Book, lang: str) -> str:
    need = book.gib(f"memory per GPU on {o.count}× {o.gpu_name}", o.per_gpu_bytes.get("total", 0))
    usable = book.gib(f"usable memory of {o.gpu_name}", o.usable_bytes, f"catalog: {o.gpu} memory_bytes × engine usable fraction")
    return f"{need} / {usable}"


def _opt_speed(o: Any, book: Book, lang: str, w: Any) -> str:
    zh = lang == "zh"
    t = o.throughput or {}
    if t.get("decode_tokens_per_s"):
        per = book.num(f"decode tokens/s per sequence on {o.count}× {o.gpu_name}", t["decode_tokens_per_s"], "tokens/s",
                       SRC_THROUGHPUT, 0 if t["decode_tokens_per_s"] >= 10 else 1)
        total = book.num(f"decode tokens/s total on {o.count}× {o.gpu_name}", t.get("decode_tokens_per_s_total") or 0,
                         "tokens/s", SRC_THROUGHPUT, 0)
        return (f"每路 {per}，合计 {total}" if zh else f"{per} per user, {total} total")
    tr = o.training or {}
    if tr.get("wall_s"):
        days = book.num(f"training wall-clock on {o.count}× {o.gpu_name}", tr["wall_s"] / 86400, "days", SRC_TRAINING,
                        1 if tr["wall_s"] < 100 * 86400 else 0, suffix="天" if zh else "days")
        hours = book.num(f"GPU-hours on {o.count}× {o.gpu_name}", tr["gpu_hours"], "GPU-hours", SRC_TRAINING, 0,
                         suffix="" if zh else "GPU-hours")
        if tr.get("goodput"):  # the planner's run total (advisor.training_advice.training_figures)
            g = book.num("goodput of the run total", tr["goodput"] * 100, "%", "advisor.estimator.planner", 0)
            return (f"{days}（GPU 时数 {hours}，整体运行按 {g} 有效训练时间计）" if zh
                    else f"{days} ({hours}; run total at {g} goodput)")
        return f"{days}（GPU 时数 {hours}）" if zh else f"{days} ({hours})"
    return "—"


def _opt_price(o: Any, book: Book, lang: str) -> str:
    p = o.price
    if not p:
        return "无报价" if lang == "zh" else "no price"
    total = book.money(f"purchase price of {o.count}× {o.gpu_name} (GPUs only)", p["amount"] * o.count, p["currency"],
                       f"catalog price {p.get('source', '')} as of {p.get('as_of', '')}" +
                       (" (converted at the dated exchange rate)" if p.get("converted") else ""))
    when = p.get("as_of") or ""
    if _low_reliability(p.get("source")):  # e.g. the 2024 China channel prices from expert-call minutes (review R40)
        when += ("，" if lang == "zh" else ", ") + pick(LOW_RELIABILITY, lang)
    return f"{total}（{when}）" if lang == "zh" else f"{total} (as of {when})"


def _opt_notes(o: Any, lang: str, options: Any = ()) -> str:
    from rules.titles import rule_title
    bits = _label_words(o, lang, options)
    if not o.fits:
        bits.append("放不下" if lang == "zh" else "does not fit")
    bits += _misses(o, lang) if o.fits else []
    flagged = [f for f in o.findings if f.severity in ("block", "warn") and not _restates(f, o)]
    flagged.sort(key=lambda f: f.severity != "block")
    bits += [f"⚠ {rule_title(f.rule_id, lang)}" for f in flagged[:2]]  # the id stays in the findings section
    return "，".join(bits) if lang == "zh" else ", ".join(bits)


CHINA_STATUS = {"available": ("available", "可购买"), "restricted": ("restricted", "受限"),
                "licence_required": ("licence required", "需许可"), "china_variant": ("China variant", "中国特供"),
                "not_sold": ("not sold", "不在售")}


def _china(o: Any, lang: str) -> str:
    spec = default_catalog().find_gpu(o.gpu)
    if spec is None:
        return "—"
    status = pick(CHINA_STATUS.get(spec.china.status, (spec.china.status, spec.china.status)), lang)
    when = spec.china.as_of.isoformat()
    return f"{status}（截至 {when}）" if lang == "zh" else f"{status} (as of {when})"


def _opt_tco(o: Any, book: Book, lang: str) -> str:
    t = o.tco or {}
    if not t.get("tco"):
        return "—"
    return _money_of(book, f"TCO of {o.count}× {o.gpu_name}", t["tco"], "advisor.estimator.cost.estimate_tco")


def _options_table(opts: list[Any], book: Book, lang: str, w: Any, region: str | None = None) -> str:
    zh = lang == "zh"
    speed = ("训练时间" if zh else "training time") if w.is_training else ("生成速度" if zh else "decode speed")
    with_tco = any((o.tco or {}).get("tco") for o in opts)
    years = next((o.tco.get("years") for o in opts if (o.tco or {}).get("tco")), None)
    cols = ["配置", "并行", "每卡显存 / 可用", speed, "显卡价格"] if zh else \
        ["configuration", "layout", "memory per GPU / usable", speed, "GPU price"]
    if with_tco:
        y = book.num("TCO years", float(years or 3), "years", "advisor.estimator.cost.estimate_tco", 0, suffix="")
        cols.append(f"TCO（{y} 年）" if zh else f"TCO ({y} years)")
    if region == "cn":
        cols.append("国内供货" if zh else "China market")
    cols.append("说明" if zh else "notes")
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)
    rows = []
    for o in opts:
        cells = [_opt_name(o, book), _opt_layout(o, lang, book), _opt_memory(o, book, lang), _opt_speed(o, book, lang, w),
                 _opt_price(o, book, lang)]
        if with_tco:
            cells.append(_opt_tco(o, book, lang))
        if region == "cn":
            cells.append(_china(o, lang))
        cells.append(_opt_notes(o, lang, opts))
        rows.append("| " + " | ".join(cells) + " |")
    return head + "\n" + "\n".join(rows)


def _rec_headline(ev: Evaluation, top: Any, book: Book, lang: str) -> str:

    zh = lang == "zh"
    users = ev.user_options
    if users and len(users) == 1:
        o = users[0]
        need = book.gib(f"memory per GPU on {o.count}× {o.gpu_name}", o.per_gpu_bytes.get("total", 0))
        usable = book.gib(f"usable memory of {o.gpu_name}", o.usable_bytes, f"catalog: {o.gpu} memory_bytes × engine usable fraction")
        if o.fits:
            speed = _opt_speed(o, book, lang, ev.workload)
            tail = "" if speed == "—" else (f"；速度：{speed}" if zh else f"; speed: {speed}")
            missing = _misses(o, lang)
            warn = (f"（但{'、'.join(missing)}）" if zh else f" (but it {', '.join(missing)})") if missing else ""
            return (f"**可以：{_opt_name(o, book)} 放得下**{warn}（{_opt_layout(o, lang, book)}），每卡需要 {need}，可用 {usable}{tail}。"
                    if zh else f"**Yes: {_opt_name(o, book)} fits**{warn} ({_opt_layout(o, lang, book)}): {need} needed per GPU "
                    f"of {usable} usable{tail}.")
        return (f"**不够：{_opt_name(o, book)} 放不下**（{_opt_layout(o, lang, book)}），每卡需要 {need}，可用只有 {usable}。"
                if zh else f"**No: {_opt_name(o, book)} does not fit** ({_opt_layout(o, lang, book)}): {need} needed per GPU, "
                f"only {usable} usable.")
    own = next((o for o in users if "existing" in o.labels), None)
    if own is not None and len(users) > 1:
        return _own_versus_others(own, [o for o in users if o is not own], ev, book, lang)
    if users:
        alt = next((o for o in (ev.recommendation.options if ev.recommendation else []) if o.meets_targets
                    and not any(u.gpu == o.gpu and u.count == o.count for u in users)), None)
        alt_text = ""
        if alt is not None:
            alt_text = (f"满足全部要求的最近方案：{_opt_name(alt, book)}（{_opt_speed(alt, book, lang, ev.workload)}）。" if zh else
                        f" The nearest configuration that meets every target: {_opt_name(alt, book)} "
                        f"({_opt_speed(alt, book, lang, ev.workload)}).")
        if top is not None and top.meets_targets:
            return (f"**建议：{_opt_name(top, book)}**（{_opt_layout(top, lang, book)}）——在您列出的配置中最合适；对比见下表。"
                    if zh else f"**Recommendation: {_opt_name(top, book)}** ({_opt_layout(top, lang, book)}), the best fit among the "
                    "configurations you named; the comparison is below.")
        if top is not None:
            missing = _misses(top, lang)
            return ((f"**您列出的配置都达不到全部要求。** 最接近的是 {_opt_name(top, book)}：放得下，但{'、'.join(missing)}"
                     f"（{_opt_speed(top, book, lang, ev.workload)}）。" + alt_text) if zh else
                    (f"**None of the configurations you named meets every target.** The closest is {_opt_name(top, book)}: it "
                     f"fits but {', '.join(missing)} ({_opt_speed(top, book, lang, ev.workload)}).{alt_text}"))
        return (("**您列出的配置都放不下**，见下表与可行的改动。" + alt_text) if zh else
                "**None of the configurations you named fits**; see the table and what would have to change." + alt_text)
    if top is not None:
        labels = _label_words(top, lang, ev.recommendation.options if ev.recommendation else ())
        why = ("、".join(labels) if zh else ", ".join(labels)) if labels else ""
        price = _opt_price(top, book, lang) if top.price else ""
        speed = _opt_speed(top, book, lang, ev.workload)
        extra = [x for x in (why, price, speed if speed != "—" else "") if x]
        return (f"**建议：{_opt_name(top, book)}**（{_opt_layout(top, lang, book)}）：{'；'.join(extra)}。" if zh else
                f"**Recommendation: {_opt_name(top, book)}** ({_opt_layout(top, lang, book)}): {'; '.join(extra)}.")
    return ("**在当前约束下没有能放下的配置。**" if zh else "**Nothing in the catalog fits under these constraints.**")


def _speed_value(o: Any) -> tuple[str, float] | None:
    if o.training and o.training.get("wall_s"):
        return "wall_s", float(o.training["wall_s"])
    total = (o.throughput or {}).get("decode_tokens_per_s_total")
    return ("tokens_per_s", float(total)) if total else None


def _own_versus_others(own: Any, others: list[Any], ev: Evaluation, book: Book, lang: str) -> str:
    """"We have X; would Y be worth it?": the verdict on X, then each Y against it (speed ratio and price)."""
    zh = lang == "zh"
    w = ev.workload
    if own.fits:
        head = (f"**您现有的 {_opt_name(own, book)} 放得下**（{_opt_layout(own, lang, book)}）：{_opt_speed(own, book, lang, w)}。"
                if zh else f"**Your {_opt_name(own, book)} fits** ({_opt_layout(own, lang, book)}): "
                f"{_opt_speed(own, book, lang, w)}.")
    else:
        head = (f"**您现有的 {_opt_name(own, book)} 放不下**（{_opt_layout(own, lang, book)}）。" if zh else
                f"**Your {_opt_name(own, book)} does not fit** ({_opt_layout(own, lang, book)}).")
    lines = [head]
    mine = _speed_value(own) if own.fits else None
    for o in others:
        if not o.fits:
            lines.append(f"- {_opt_name(o, book)}：放不下。" if zh else f"- {_opt_name(o, book)}: does not fit.")
            continue
        theirs = _speed_value(o)
        ratio_text = ""
        if mine and theirs and mine[0] == theirs[0] and mine[1] > 0 and theirs[1] > 0:
            ratio = mine[1] / theirs[1] if mine[0] == "wall_s" else theirs[1] / mine[1]
            r = book.num(f"speed-up of {o.count}× {o.gpu_name} over {own.count}× {own.gpu_name}", ratio, "×",
                         "computed from the two estimates", 1, suffix="").replace(" ", "") + "×"
            ratio_text = (f"，是现有配置的 {r} 速度" if zh else f", {r} the speed of yours")
        price = _opt_price(o, book, lang)
        lines.append((f"- {_opt_name(o, book)}：{_opt_speed(o, book, lang, w)}{ratio_text}；显卡价格 {price}。" if zh else
                      f"- {_opt_name(o, book)}: {_opt_speed(o, book, lang, w)}{ratio_text}; GPUs {price}."))
    return "\n".join(lines)


def _limits_block(lim: Any, book: Book, lang: str) -> str:
    """How far the user's configuration stretches (dialog.Limits): the longest context at the asked micro-batch or
    concurrency, the largest micro-batch or concurrency at the asked context, and the speed."""
    zh = lang == "zh"
    o = lim.option
    name = _opt_name(o, book)
    step = book.tokens("context search step", CONTEXT_STEP, "dialog: bisection grain", lang)
    asked_ctx = book.tokens("context", lim.context, SRC_USER, lang)
    src = f"{SRC_MEMORY} (bisection in steps of {CONTEXT_STEP} tokens)"
    if lim.training:
        load = book.count("micro-batch asked", lim.load, "sequences", SRC_USER)
        what, what_zh = f"micro-batch {load}", f"微批 {load} 时"
    else:
        load = book.count("concurrency asked", lim.load, "sequences", SRC_USER)
        what, what_zh = f"{load} concurrent request{'s' if lim.load != 1 else ''}", f"{load} 路并发时"
    parts: list[str] = []
    if lim.max_context:
        longest = book.tokens(f"longest context that fits on {o.count}× {o.gpu_name}", lim.max_context, src, lang)
        capped = lim.max_context >= lim.context_cap
        if zh:
            parts.append(f"{what_zh}最长可放下 {longest} 的序列" + ("，即模型的最大上下文" if capped else "")
                         + f"（您要的是 {asked_ctx}）")
        else:
            parts.append(f"at {what} the longest sequence that fits is {longest}"
                         + (", the model's maximum context" if capped else "") + f" (you asked for {asked_ctx})")
    else:
        parts.append(f"{what_zh}任何序列长度都放不下（{step} 也不行）" if zh else
                     f"at {what} no sequence length fits (not even {step})")
        weights = o.per_gpu_bytes.get("weights", 0)
        if weights > o.usable_bytes:
            w_gib = book.gib("weights per GPU", weights)
            parts[-1] += f"：每卡仅权重就要 {w_gib}" if zh else f": the weights alone take {w_gib} per GPU"
        if lim.single_context:  # the asked load is the problem: what one sequence (micro-batch 1) can have
            one = book.tokens(f"longest context of one sequence on {o.count}× {o.gpu_name}", lim.single_context, src, lang)
            parts.append((f"微批 1 时最长 {one}" if lim.training else f"单路请求时最长 {one}") if zh else
                         (f"at micro-batch 1 up to {one}" if lim.training else f"one request at a time can have up to {one}"))
    if lim.training:
        if lim.max_load:
            b = book.count(f"largest micro-batch on {o.count}× {o.gpu_name}", lim.max_load, "sequences", src)
            parts.append(f"序列长度 {asked_ctx} 时最大微批为 {b}" if zh else f"at {asked_ctx} the largest micro-batch is {b}")
        if lim.tokens_per_s:
            tps = book.num(f"training tokens/s on {o.count}× {o.gpu_name}", lim.tokens_per_s, "tokens/s", SRC_TRAINING,
                           0 if lim.tokens_per_s >= 10 else 1)
            parts.append(f"训练速度约 {tps}" if zh else f"training speed about {tps}")
    elif lim.max_load:
        n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", lim.max_load, "sequences",
                       f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
        text = f"上下文 {asked_ctx} 时最多 {n} 路并发" if zh else f"at {asked_ctx} it holds {n} concurrent sequences"
        at = lim.at_max
        if at:
            tot = book.num(f"decode tokens/s total at capacity on {o.count}× {o.gpu_name}", at["total"], "tokens/s",
                           SRC_THROUGHPUT, 0)
            per = book.num(f"decode tokens/s per sequence at capacity on {o.count}× {o.gpu_name}", at["per_seq"],
                           "tokens/s", SRC_THROUGHPUT, 1 if at["per_seq"] < 10 else 0)
            text += f"，此时合计 {tot}（每路 {per}）" if zh else f", {tot} in total at that load ({per} per sequence)"
        parts.append(text)
    elif lim.max_context:
        parts.append(f"上下文 {asked_ctx} 时连 1 路都放不下" if zh else f"at {asked_ctx} not even one sequence fits")
    head = f"**{name} 上能放下多少：**" if zh else f"**What fits on {name}:**"
    return head + " " + ("；".join(parts) + "。" if zh else "; ".join(parts) + ".")


def _rec_breakdown(top: Any, book: Book, lang: str) -> str:
    zh = lang == "zh"
    lines = [(f"**每卡显存明细**（{_opt_name(top, book)}）：" if zh else f"**Memory per GPU** ({_opt_name(top, book)}):")]
    for part, label in PART.items():
        value = top.per_gpu_bytes.get(part, 0)
        if value:
            lines.append(f"- {pick(label, lang)}: {book.gib(f'{part} per GPU', value)}")
    lines.append(f"- {'合计' if zh else 'total'}: {book.gib('total per GPU', top.per_gpu_bytes.get('total', 0))}")
    cpu = (top.cpu_bytes or {}).get("total", 0)
    if cpu:
        lines.append(f"- {'CPU 内存（卸载）' if zh else 'CPU RAM (offload)'}: {book.gib('CPU memory', cpu)}")
    return "\n".join(lines)


def _rec_findings(findings: list[Any], book: Book, lang: str, limit: int = 8, title: tuple[str, str] | None = None) -> str:
    if not findings:
        return ""
    zh = lang == "zh"
    lines = [pick(title or ("**Findings:**", "**规则检查：**"), lang)]
    for f in findings[:limit]:
        src = _short_source(f.source or "", lang)
        msg = book.text(f.text(lang), f"finding {f.rule_id}", f"rule {f.rule_id}: {f.source}")
        if src:
            book.text(src, f"source of {f.rule_id}", f"citation of rule {f.rule_id}")
        when = f"，截至 {f.as_of}" if zh and f.as_of else (f", as of {f.as_of}" if f.as_of else "")
        lines.append(f"- [{f.rule_id}] ({f.severity}) {msg}" + (f"（来源：{src}{when}）" if zh else f" (source: {src}{when})"))
    if len(findings) > limit:
        more = book.count("findings not shown", len(findings) - limit, "findings", SRC_RECOMMEND)
        lines.append(f"- 另有 {more} 条提示见详情。" if zh else f"- {more} more in the details.")
    return "\n".join(lines)


def _short_source(source: str, lang: str, width: int = 140) -> str:
    """The first citation of a rule's source, cut at `width` characters, with a count of the others
    (the full text stays in Turn.findings)."""
    parts = [p.strip() for p in source.split("; ") if p.strip()]
    if not parts:
        return ""
    first = parts[0] if len(parts[0]) <= width else parts[0][: width - 1].rstrip() + "…"
    if len(parts) > 1:
        first += f"（另有 {len(parts) - 1} 处来源）" if lang == "zh" else f" (+{len(parts) - 1} more)"
    return first


def _money_of(book: Book, name: str, m: Any, source: str) -> str:
    return book.money(name, float(m["amount"]), m["currency"], source)


def _capacity_block(opts: list[Any], ev: Evaluation, book: Book, lang: str) -> str:
    """No concurrency given: the tables' speeds are for one user at a time, so for each option shown, its capacity
    (most concurrent sequences at the context) and its total speed and owned cost per million tokens at that load."""
    zh = lang == "zh"
    rows: list[str] = []
    seen: set[tuple[str, int]] = set()
    for o in opts:
        key = (o.gpu, o.count)
        cap = ev.capacity.get(key)
        if cap is None or key in seen:
            continue
        seen.add(key)
        name = _opt_name(o, book)
        n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", cap["max_concurrency"], "sequences",
                       f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
        tot = book.num(f"decode tokens/s total at capacity on {o.count}× {o.gpu_name}", cap["total"], "tokens/s",
                       SRC_THROUGHPUT, 0)
        per = book.num(f"decode tokens/s per sequence at capacity on {o.count}× {o.gpu_name}", cap["per_seq"],
                       "tokens/s", SRC_THROUGHPUT, 1 if cap["per_seq"] < 10 else 0)
        cpm = cap.get("cost_per_million")
        money = _money_of(book, f"cost per million tokens at capacity on {o.count}× {o.gpu_name} (owned)", cpm,
                          "advisor.estimator.cost.estimate_tco at the capacity speed") if cpm else ""
        if zh:
            rows.append(f"- {name}：最多 {n} 路，合计 {tot}（每路 {per}）" + (f"；自有每百万 token {money}" if money else ""))
        else:
            rows.append(f"- {name}: {n} sequences, {tot} in total ({per} per sequence)"
                        + (f"; {money} per million tokens owned" if money else ""))
    if not rows:
        return ""
    ctx = book.tokens("context", ev.workload.context, SRC_USER, lang)
    one = book.count("default concurrency", 1, "sequences", SRC_DEFAULT)
    head = (f"**满载容量**（未给出并发数，上表速度按 {one} 路请求计算；下面是每种配置在 {ctx} 上下文下最多能同时服务的序列数，"
            "以及此时的速度和成本）：" if zh else
            f"**Capacity** (no concurrency was given, so the speeds above are for {one} user at a time; here is the most "
            f"sequences of {ctx} each configuration holds at once, and its speed and cost at that load):")
    return head + "\n" + "\n".join(rows)


def _rec_cost(o: Any, book: Book, lang: str, buy_or_rent: str | None, asked_years: int | None = None,
              capacity: dict[str, Any] | None = None) -> str:
    """Purchase, power, TCO over the years, renting the same GPU-hours, break-even utilisation and cost per
    million tokens of one option (advisor.estimator.cost via the recommender), with the dated inputs."""
    t = o.tco
    if not t or not t.get("tco"):
        return ""
    zh = lang == "zh"
    src = "advisor.estimator.cost.estimate_tco"
    years = book.num("TCO years", float(t.get("years", 3)), "years", src, 0, suffix="年" if zh else "years")
    p = t.get("purchase", {})
    lines = [(f"**成本（{_opt_name(o, book)}，{years}）：**" if zh else f"**Cost ({_opt_name(o, book)}, {years}):**")]
    if p.get("total"):
        total = _money_of(book, "purchase (GPUs and servers)", p["total"], src)
        gpus = _money_of(book, "purchase: GPUs", p["gpus"], src) if p.get("gpus") else ""
        rest = _money_of(book, "purchase: rest of the servers", p["rest_of_system"], src) if p.get("rest_of_system") else ""
        lines.append(f"- {'购置' if zh else 'purchase'}: {total}" + (
            f"（显卡 {gpus} + 服务器其余部分 {rest}）" if zh and gpus and rest else
            f" (GPUs {gpus} + rest of the servers {rest})" if gpus and rest else ""))
    if t.get("power_per_year"):
        power = _money_of(book, "power per year", t["power_per_year"], src)
        kwh = book.num("energy per year", float(t.get("energy_kwh_per_year", 0)), "kWh", src, 0)
        lines.append(f"- {'电费' if zh else 'power'}: {power}{'/年' if zh else '/year'} ({kwh}{'/年' if zh else '/year'})")
    tco = _money_of(book, "total cost of ownership", t["tco"], src)
    shaky = _low_reliability((o.price or {}).get("source"))  # the card price it rests on (review R40)
    if shaky:
        tco += "（显卡单价来源可靠性低）" if zh else " (the card price comes from a low-reliability source)"
    lines.append(f"- TCO: {tco}")
    asked = asked_years
    if asked and abs(float(asked) - float(t.get("years", 3))) > 1e-9:
        lines.append(f"- （您问的是 {book.count('TCO years asked', asked, 'years', SRC_USER)} 年；这里按 {years} 计算，"
                     "推荐器目前不支持其他年限）" if zh else
                     f"- (you asked for {book.count('TCO years asked', asked, 'years', SRC_USER)} years; this is over "
                     f"{years}, the recommender's horizon)")
    cloud = t.get("cloud") or {}
    if cloud.get("cost"):
        rent = _money_of(book, "renting the same GPU-hours", cloud["cost"], f"{src} (cloud {cloud.get('provider', '')})")
        rate = book.num("cloud price per GPU-hour", float(cloud.get("usd_per_gpu_hour", 0)), "USD/GPU-hour",
                        f"{cloud.get('provider', '')} as of {cloud.get('as_of', '')}", 2, suffix="")
        lines.append((f"- 租用同样的 GPU 时数：{rent}（{cloud.get('provider', '')} ${rate}/GPU·时，{cloud.get('as_of', '')}）" if zh else
                      f"- renting the same GPU-hours: {rent} ({cloud.get('provider', '')} at ${rate} per GPU-hour, as of "
                      f"{cloud.get('as_of', '')})"))
        if cloud.get("other_region"):  # review R38/R45: the only quote is from the other market
            china = cloud.get("region") == "cn"
            lines[-1] += (f"；目录中没有该卡的{'海外' if china else '国内'}云报价，这是{'国内' if china else '海外'}云厂商的价格，"
                          "仅供参考" if zh else
                          f"; the catalog has no {'non-China' if china else 'mainland-China'} cloud quote for this "
                          f"card, so this is {'a mainland-China' if china else 'an overseas'} provider's rate, for "
                          "reference only")
    elif t.get("basis") != "owned":  # say so rather than leave the buy-or-rent question unanswered (owned: nothing to buy)
        gpu_name = o.gpu_name
        lines.append(f"- 租用同样的 GPU 时数：目录中没有 {gpu_name} 的按需云价格，买还是租无法比较" if zh else
                     f"- renting the same GPU-hours: the catalog has no on-demand cloud price for the {gpu_name}, so buy "
                     "or rent cannot be compared")
    be = t.get("break_even_utilization")
    if be:
        pct = book.num("break-even utilisation", be * 100, "%", src, 0, suffix="").replace(" ", "") + "%"
        if be <= 1:
            verdict = (f"- 买还是租：利用率高于 {pct} 时买卡更划算，低于则租云。" if zh else
                       f"- buy or rent: buying is cheaper when the GPUs are busy more than {pct} of the time; below that, rent.")
        else:
            verdict = ("- 买还是租：即使满负荷运行，买卡也比租云贵，建议租用。" if zh else
                       "- buy or rent: even fully busy, owning costs more than renting here; rent.")
        lines.append(verdict)
    cpm = t.get("cost_per_million_tokens") or {}
    if cpm.get("owned"):
        owned = _money_of(book, "cost per million tokens (owned)", cpm["owned"], src)
        cl = _money_of(book, "cost per million tokens (cloud)", cpm["cloud"], src) if cpm.get("cloud") else ""
        full = ""
        if capacity and capacity.get("cost_per_million"):
            # the figure above is at the asked load; with no concurrency given that is one user on the whole server
            n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", capacity["max_concurrency"],
                           "sequences", f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
            at = _money_of(book, f"cost per million tokens at capacity on {o.count}× {o.gpu_name} (owned)",
                           capacity["cost_per_million"], "advisor.estimator.cost.estimate_tco at the capacity speed")
            full = (f"（按单路请求；满载 {n} 路时自有 {at}）" if zh else f" (one user at a time; {at} owned at the full "
                    f"load of {n} sequences)")
        lines.append((f"- 每百万 token 成本：自有 {owned}" + (f"，租用 {cl}" if cl else "") + full) if zh else
                     (f"- cost per million tokens: {owned} owned" + (f", {cl} rented" if cl else "") + full))
    dated = [x for x in t.get("prices", []) if x.get("as_of")]
    if dated:
        bits = []
        for x in dated[:6]:
            name, unit = (_dated_zh(x["name"], x.get("unit", "")) if zh else (x["name"], x.get("unit", "")))
            v = book.num(f"input: {x['name']}", float(x["value"]), x.get("unit", ""), x.get("source", ""),
                         _digits_for(float(x["value"])), suffix=unit)
            when = str(x["as_of"])
            if _low_reliability(x.get("source")):
                when += ("，" if zh else ", ") + pick(LOW_RELIABILITY, lang)
            bits.append(f"{name} {v}（{when}）" if zh else f"{name} {v} ({when})")
        lines.append(("- 依据（带日期）：" if zh else "- dated inputs: ") + ("；".join(bits) if zh else "; ".join(bits)))
    return "\n".join(lines)


def _digits_for(x: float) -> int:
    return 0 if abs(x) >= 100 else (2 if abs(x) < 10 else 1)


# Chinese wording of the recommender's and estimator's fixed assumption sentences (they are generated from
# templates); a sentence that matches none is shown as written.
_ASSUMPTION_ZH: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^a configuration fits when its per-GPU memory leaves ≥ (?P<p>[\d.]+%) of the card free"),
     "每卡显存至少留出 {p} 余量才算放得下"),
    (re.compile(r"^prices in (?P<c>CNY|USD): .*"),
     "价格以 {c} 计：取目录中每张卡最新的带日期价格（只有另一币种时按带日期汇率换算），服务器其余部分按指南的档位计价；"
     "TCO 按默认年限、满负荷计算"),
    (re.compile(r"^at most (?P<n>\d+) GPUs per node$"), "每台服务器最多 {n} 张卡"),
    (re.compile(r"^tensor parallel inside a node, pipeline parallel across nodes.*"),
     "机内张量并行、跨机流水线并行；注意力头数不能整除卡数时用多副本"),
    (re.compile(r"^training time for a default token budget.*"),
     "训练时间按默认 token 数估算（预训练每参数 20 个 token，微调 1 亿 token）：请提供实际数据量以获得准确估计"),
    (re.compile(r"^vLLM claims (?P<f>[\d.]+) of GPU memory at start-up = (?P<g>[\d.]+ GiB) of (?P<name>.+?) and .*"),
     "vLLM 启动时占用 {name} 显存的 {f}（{g}），权重与激活之外的部分都用作 KV 缓存；nvidia-smi 显示的就是这部分预留"),
    (re.compile(r"^gradient checkpointing on.*"), "微调时开启梯度检查点（完全重计算）"),
    (re.compile(r"^engine: (?P<e>[^;]+); weights (?P<w>\S+), KV cache (?P<kv>\S+), (?P<n>\d+) sequence\(s\) × "
                r"(?P<c>\d+) tokens$"), "框架：{e}；权重 {w}，KV 缓存 {kv}，{n} 路 × {c} tokens"),
    (re.compile(r"^engine: (?P<e>[^;]+); micro-batch (?P<b>\d+) × (?P<c>\d+) tokens; (?P<n>\d+) GPU\(s\): "
                r"DP (?P<dp>\d+) × TP (?P<tp>\d+) × PP (?P<pp>\d+); optimizer (?P<o>\S+)$"),
     "框架：{e}；微批 {b} × {c} tokens；{n} 张卡：DP {dp} × TP {tp} × PP {pp}；优化器 {o}"),
    (re.compile(r"^engine: (?P<rest>.*)"), "框架：{rest}"),
]

# Chinese names of the cost model's dated inputs (advisor.estimator.cost DatedValue names and units)
_PRICE_KIND_ZH = {"street": "零售价", "channel": "渠道价", "used": "二手价", "launch_msrp": "首发建议零售价",
                  "user input": "用户输入",
                  "quote": "报价"}
_DATED_ZH: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^exchange rate$"), "汇率"),
    (re.compile(r"^(?P<g>.+) per card \((?P<k>[^,)]+)(?:, converted from (?P<c>CNY|USD))?\)$"), "{g} 单卡{k}{conv}"),
    (re.compile(r"^server tier (?P<t>\S+) \(rest of system\)$"), "服务器档位 {t}（整机其余部分）"),
    (re.compile(r"^electricity$"), "电价"),
    (re.compile(r"^cloud (?P<tier>[\w ]+?) \((?P<p>[^)]+)\)$"), "云租用价（{p}，{tier}）"),
]
_UNIT_ZH = {"CNY per USD": "元/美元", "CNY/kWh": "元/kWh", "USD/kWh": "美元/kWh", "USD per GPU-hour": "美元/GPU·时",
            "CNY per GPU-hour": "元/GPU·时",
            "ratio": "", "CNY": "元", "USD": "美元"}
_TIER_ZH = {"on demand": "按需", "on_demand": "按需", "spot": "竞价/社区", "serverless": "无服务器"}


def _dated_zh(name: str, unit: str) -> tuple[str, str]:
    """(name, unit) of a dated cost input in Chinese; unknown names stay as written."""
    for rx, template in _DATED_ZH:
        m = rx.match(name)
        if m:
            d = {k: v or "" for k, v in m.groupdict().items()}
            if "k" in d:
                d["k"] = _PRICE_KIND_ZH.get(d["k"], d["k"])
                d["conv"] = f"（由{'美元' if d['c'] == 'USD' else '人民币'}换算）" if d["c"] else ""
            if "tier" in d:
                d["tier"] = _TIER_ZH.get(d["tier"], d["tier"])
            name = template.format(**d)
            break
    return name, _UNIT_ZH.get(unit, unit)


def _assumption_zh(text: str) -> str:
    for rx, template in _ASSUMPTION_ZH:
        m = rx.match(text)
        if m:
            return template.format(**m.groupdict())
    return text


def _rec_changes(rec: Any, book: Book, lang: str, own_only: bool = False) -> str:
    """The recommender's checked changes; `own_only` keeps those checked on the user's own hardware."""
    changes = [ch for ch in rec.changes if getattr(ch, "for_existing", False) or not own_only]
    if not changes:
        return ""
    return _checked_changes("**要让它可行，可以：**" if lang == "zh" else "**What would make it work:**", changes,
                            book, lang)


def _checked_changes(title: str, changes: list[Any], book: Book, lang: str, of: str = "") -> str:
    """`title` and one line per checked change, in the user's language. Changes checked on the user's own cards
    say so, unless they are all about `of` (one configuration the user named)."""
    zh = lang == "zh"
    lines = [title]
    for ch in changes:
        text = ch.message_zh if zh and ch.message_zh else ch.message
        if getattr(ch, "for_existing", False) and not of:
            text = ("在您现有的卡上：" if zh else "on your own hardware: ") + text
        lines.append("- " + book.text(text, f"change ({ch.kind})" + (f" for {of}" if of else ""), SRC_RECOMMEND))
    return "\n".join(lines)


MFU_BASIS = {
    "fitted": ("a best case: calibrated on tuned llm-foundry/Megatron runs; long multi-node runs reach less (Meta's "
               "Llama 2 runs took 1.5–1.6× the A100-hours this calibration predicts for them)",
               "属于最好情况：按调优过的 llm-foundry/Megatron 基准校准；长时间的多节点训练达不到（Meta 训练 Llama 2 实际用的 A100 "
               "时数是本校准预测值的 1.5–1.6 倍）"),
    "prior": ("a stated prior with no measured run of this class: treat it as a best case",
              "这是没有同类实测的先验值：请按最好情况看待"),
}


def _mfu_assumption(o: Any, book: Book, lang: str) -> str:
    """The training time's MFU and what it rests on (advisor.estimator.training), for a training option."""
    t = o.training or {}
    basis = MFU_BASIS.get(t.get("mfu_basis", ""))
    if not t.get("mfu") or basis is None:
        return ""
    pct = book.num("MFU of the training time", float(t["mfu"]) * 100, "%", SRC_TRAINING, 0, suffix="").strip() + "%"
    return (f"训练时间按 MFU {pct} 计算，{basis[1]}" if lang == "zh" else
            f"training time at MFU {pct}, {basis[0]}")


def _named_changes(ev: Evaluation, book: Book, lang: str) -> str:
    """What would make the one configuration the user named work (the recommender's changes checked on it)."""
    name = _opt_name(ev.named_config, book)
    return _checked_changes(f"**要让 {name} 可行，可以：**" if lang == "zh" else f"**What would make {name} work:**",
                            ev.named_changes, book, lang, of=name)


def recommendation_turn(ev: Evaluation, state: DialogState, lang: str, catalog: Any, *, notes: list[str],
                        slots: Slots, changes: list[Change], question: str | None) -> Turn:
    """The answer in layers (advisor.conversation.firstscreen): the first screen answers the question asked, then
    collapsible details carry the full table, capacity, breakdown, cost, launch hint, changes, findings and
    assumptions."""
    book = Book()
    zh = lang == "zh"
    rec = ev.recommendation
    w = ev.workload
    top = top_option(ev)
    lead = _lead(ev, top, state, book, lang)
    first: list[str] = [_notes_block(notes, book, lang), lead.text]
    if slots.gib_question:
        first.append(fs.gib_note(book, lang, state.slots.capacity.value if state.slots.capacity else None))
    if ev.premise:  # what the user takes for granted and is not so ("two 4090s over NVLink"): said at once
        first.append(_rec_findings(list(ev.premise), book, lang, title=("**First, a correction:**", "**先更正一点：**")))
    first += _unknown_lines(slots, lang, catalog)
    changed = _changes_block(changes, state, ev, book, lang, catalog)
    if changed:
        first.append(changed)
    first.append(fs.assumed_line(ev, book, lang, _this()))
    lines: list[str] = [_rec_headline(ev, top, book, lang), _job_line(ev, book, lang)]
    shown = list(ev.user_options)
    others = [o for o in rec.options if not any(u.gpu == o.gpu and u.count == o.count for u in shown)]
    others = list(ev.alternatives) or others  # the named cards cannot do it: the catalog's options
    if ev.alternatives_within is not None and not ev.alternatives:
        others = []  # "only four cards": more cards of the same kind are no answer
    region = ev.constraints.region
    displayed: list[Any] = []  # options in the tables, in order (for the capacity lines)

    def table(opts: list[Any]) -> str:
        displayed.extend(opts)
        return _options_table(opts, book, lang, w, region)

    if shown:
        lines.append(table(shown))
        if ev.alternatives_within is not None and not others and not any(u.meets_targets for u in shown):
            n = book.count("GPU count searched", ev.alternatives_within, "GPUs", SRC_RECOMMEND)
            lines.append(f"目录中没有 {n} 张卡以内、满足全部要求（预算、地区等）的配置。" if zh else
                         f"No configuration of at most {n} GPUs in the catalog meets every target (budget, region, …).")
        if others and not any(u.fits and u.meets_targets for u in shown):
            lines.append(("**目录中的其他可行方案：**" if zh else "**Other configurations that work:**"))
            lines.append(table(others[:3]))
    elif rec.options:
        lines.append(table(rec.options[:4]))
    elif ev.alternatives:
        lines.append(("**目录中的其他可行方案：**" if zh else "**Other configurations that work:**"))
        lines.append(table(ev.alternatives))
    elif rec.closest:
        lines.append("**最接近的配置：**" if zh else "**Closest configurations:**")
        lines.append(table(rec.closest[:3]))
    compact = _compact_rows(shown, others, rec)
    if ev.offload is not None and not any("offload" in o.labels for o in compact):  # one card + RAM: a real option
        compact = compact[:2] + [ev.offload]
    first.append(fs.compact_table(compact, book, lang, w, _this()))
    capacity = _capacity_block(displayed, ev, book, lang)
    if capacity:
        lines.append(capacity)
    lead_opt = top or (shown[0] if shown else None) or (rec.closest[0] if rec.closest else None)
    avg = ev.average_speed
    if avg and lead_opt is not None:
        n = book.count("average concurrency", avg["concurrency"], "sequences", SRC_USER)
        per = book.num(f"decode tokens/s per sequence at average concurrency on {_opt_name(lead_opt, book)}",
                       avg["per_seq"], "tokens/s", SRC_THROUGHPUT, 1 if avg["per_seq"] < 10 else 0)
        tot = book.num(f"decode tokens/s total at average concurrency on {_opt_name(lead_opt, book)}", avg["total"],
                       "tokens/s", SRC_THROUGHPUT, 0)
        lines.append(f"**平时 {n} 路并发时**（{_opt_name(lead_opt, book)}）：每路 {per}，合计 {tot}。" if zh else
                     f"**At the average {n} concurrent requests** ({_opt_name(lead_opt, book)}): {per} per user, {tot} total.")
    if ev.limits is not None:
        lines.append(_limits_block(ev.limits, book, lang))
    sections: list[str] = [fs.details("完整方案与容量" if zh else "All options and capacity", "\n\n".join(x for x in lines if x))]
    if lead_opt is not None:
        sections.append(fs.details("显存明细" if zh else "Memory breakdown", _rec_breakdown(lead_opt, book, lang)))
        cost = _rec_cost(lead_opt, book, lang, state.slots.buy_or_rent, state.slots.tco_years,
                         ev.capacity.get((lead_opt.gpu, lead_opt.count))) if lead_opt.fits else ""
        sections.append(fs.details("成本" if zh else "Cost", cost))
        if lead_opt.launch_hint and lead_opt.fits:
            hint = book.text(lead_opt.launch_hint, "launch hint", SRC_RECOMMEND + " launch hint")
            sections.append(fs.details("启动参考" if zh else "Launch hint", f"```\n{hint}\n```"))
    fixes: list[str] = []
    if ev.named_changes and ev.named_config is not None:
        fixes.append(_named_changes(ev, book, lang))
    blocked_named = bool(shown) and all(any(f.severity == "block" for f in u.findings) for u in shown)
    if not (top is not None and top.meets_targets):  # no changes to a card a rule rules out, but own hardware's
        ch = _rec_changes(rec, book, lang, own_only=blocked_named)
        if ch:
            fixes.append(ch)
    sections.append(fs.details("怎样才可行" if zh else "What would make it work", "\n\n".join(fixes)))
    if ev.claim is not None:
        sections.append(fs.details("说法核对" if zh else "Claim check", _claim_block(ev, book, lang)))
    if ev.findings:
        rest = [f for f in ev.findings if not any(f is p for p in ev.premise)]
        if rest:
            sections.append(fs.details("规则提示" if zh else "Findings", _rec_findings(rest, book, lang)))
    notes_a = list(ev.assumptions)
    assumptions = _assumptions_block(notes_a, book, lang)
    tool_assumptions = list(rec.assumptions_in(lang))  # the recommender words its own in Chinese too
    if lead_opt is not None:
        tool_assumptions += [a for a in lead_opt.assumptions if a.startswith(("engine:", "gradient checkpointing", "vLLM claims"))][:2]
        mfu_line = _mfu_assumption(lead_opt, book, lang)  # review R04: where the training speed comes from
        if mfu_line:
            tool_assumptions.append(mfu_line)
    if tool_assumptions:
        extra = "\n".join("- " + book.text(_assumption_zh(a) if zh else a, "assumption", SRC_RECOMMEND)
                          for a in tool_assumptions)
        assumptions = (assumptions + "\n" + extra) if assumptions else (("**假设：**" if zh else "**Assumptions:**") + "\n" + extra)
    if assumptions:
        sections.append(fs.details("全部假设" if zh else "All assumptions", assumptions))
    lines = first
    questions: list[str] = []
    if question:
        q = question_text(question, state, lang, catalog, book)
        lines.append(("**接下来想确认：** " if zh else "**Next question:** ") + q)
        questions.append(q)
    if top is not None:
        state.focus_gpu = top.gpu
    state.last_numbers = {"need_total": float(ev.need.per_gpu.total)} if ev.need is not None else {}
    state.last_workload = {}
    if top is not None:
        state.last_numbers.update(top_total=float(top.per_gpu_bytes.get("total", 0)), top_count=float(top.count))
        speed = (top.throughput or {}).get("decode_tokens_per_s_total") or 0.0
        wall = (top.training or {}).get("wall_s") or 0.0
        if speed:
            state.last_numbers["top_tokens_per_s"] = float(speed)
        if wall:
            state.last_numbers["top_wall_s"] = float(wall)
        state.last_workload = {"top_gpu": top.gpu, "top_name": top.gpu_name, "top_count": top.count}
    verdict = None
    users = ev.user_options
    if users:
        verdict = ("fits" if users[0].fits else "does_not_fit") if len(users) == 1 else (
            "some_fit" if any(u.fits for u in users) else "none_fit")
    from advisor.recommend import same_config  # one row per configuration (issue 15)

    options = [o.to_contract() | {"role": next((lab for lab in o.labels if lab in ("existing", "candidate")), "option")}
               for o in (shown + [o for o in rec.options if not any(same_config(o, s) for s in shown)])]
    if ev.offload is not None and not any("offload" in o["labels"] for o in options):  # shown on the first screen
        options.append(ev.offload.to_contract() | {"role": "option"})
    memory = None
    if lead_opt is not None:
        memory = {k: int(v) for k, v in lead_opt.per_gpu_bytes.items()}
        memory.update(capacity=int(lead_opt.capacity_bytes), usable=int(lead_opt.usable_bytes), gpu=lead_opt.gpu,
                      count=lead_opt.count)
    extra = {"kind": "answer", "pending": question, "changed": [c.slot for c in changes], "verdict": verdict,
             "top": {"gpu": top.gpu, "count": top.count} if top is not None else None,
             "claim_verdict": ev.claim.verdict if ev.claim is not None else None, "unavailable": list(ev.unavailable),
             "intent": ev.intent, "answer_verdict": lead.verdict, "deciding": lead.deciding,
             "breakdown": {k: int(v) for k, v in (lead_opt.per_gpu_bytes.items() if lead_opt is not None else [])},
             "assumptions": [_assumption_text(a, lang) for a in notes_a] + list(tool_assumptions)}
    lines += sections
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=questions,
                 findings=list(ev.findings), options=options, memory=memory, extra=extra)


# -- the first screen (advisor.conversation.firstscreen) -------------------------------------------------------------
def _this() -> Any:
    """This module, for the first-screen helpers that print with its formatters."""
    import sys

    return sys.modules[__name__]


def _assumption_text(a: Assumption, lang: str) -> str:
    values = {k: (f"{v[0]:g} {v[1]}" if v[1] != "sequences" else f"{v[0]:g}") for k, v in a.numbers.items()}
    return (a.zh if lang == "zh" else a.en).format(**values)


def _compact_rows(shown: list[Any], others: list[Any], rec: Any) -> list[Any]:
    """The configurations the first screen shows: the user's own, then what works, at most three."""
    rows = list(shown[:3])
    pool = [o for o in others if o.fits] or (list(rec.closest) if not shown and not others else [])
    for o in pool:
        if len(rows) >= 3 or (len(rows) >= 2 and shown):
            break
        if not any((o.gpu, o.count) == (r.gpu, r.count) for r in rows):
            rows.append(o)
    return rows


def _lead(ev: Evaluation, top: Any, state: DialogState, book: Book, lang: str) -> fs.Lead:
    """The opening sentences for the question asked (ev.intent); see advisor.conversation.intent."""
    intent = ev.intent
    me = _this()
    users = ev.user_options
    cap = state.slots.capacity
    if intent in ("feasibility", "claim") and cap is not None and not users:
        return fs.memory_lead(ev, cap, top, book, lang, me)
    if intent == "explain" and ev.asks_need and not users and ev.need is not None:  # "需要多少显存？"
        return fs.need_lead(ev, top, book, lang, me)
    if intent == "how_many" and ev.asks_users and (users or top) is not None:  # "how many users can it serve?"
        led = fs.users_lead(users[0] if users else top, ev, book, lang, me)
        if led is not None:
            return led
    if intent == "how_many" and len(users) == 1 and users[0].fits:  # "how many H100s?": the count, first
        return fs.count_lead(users[0], ev, book, lang, me)
    if intent in ("feasibility", "claim", "what_if", "how_many", "which", "other") and len(users) == 1:
        led = fs.option_lead(users[0], ev, book, lang, me, one_card=True)
        led.verdict = led.verdict if intent == "feasibility" else None  # a verdict answers a feasibility question
        return led
    if intent == "compare" and len(users) >= 2 or (intent in ("feasibility",) and len(users) >= 2):
        led = fs.compare_lead(users, ev, book, lang, me)
        if intent == "feasibility":
            led.verdict = "yes" if any(u.fits for u in users) else "no"
        return led
    pick = top or (users[0] if users else None)
    if pick is None:
        text = ("**在当前约束下没有能放下的配置。**" if lang == "zh" else "**Nothing in the catalog fits under these constraints.**")
        return fs.Lead(text, "no" if intent == "feasibility" else None)
    if intent == "how_long":
        led = fs.time_lead(pick, ev, book, lang, me)
        if led is not None:
            return led
    if intent == "how_much":
        led = fs.price_lead(pick, ev, book, lang, me)
        if led is not None:
            return led
    if intent == "explain":
        return fs.explain_lead(pick, ev, book, lang, me)
    if intent == "how_many":
        return fs.count_lead(pick, ev, book, lang, me)
    if intent == "feasibility":
        led = fs.count_lead(pick, ev, book, lang, me)
        led.text = (("**可以**：" if lang == "zh" else "**Yes** — ") + led.text) if pick.fits else led.text
        led.verdict = "yes" if pick.fits else "no"
        return led
    return fs.which_lead(pick, ev, book, lang, me)


def negative_line(typed: str, lang: str) -> str:
    """One line for a count or amount typed with a minus sign (bad input, not read as its absolute value)."""
    return (f"“{typed}”不是有效的数量：卡数、金额和 token 数都必须是正数（例如“4 张 H100”）。" if lang == "zh" else
            f"'{typed}' is not a valid amount: GPU counts, budgets and token counts must be positive (e.g. '4× H100').")
