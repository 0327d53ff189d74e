"""The deterministic dialog: a state machine over workload slots, one clarifying question at a time.

Each turn: extract slots from the message (:mod:`advisor.conversation.reader.extract`), merge them into the
conversation's state (later turns refine earlier ones and the changes are reported), then either ask the
one question that blocks an answer (which model? which task?) or answer from the tools — recommender,
estimator, rules — and ask the most useful next question with its default offered. "默认/default"
accepts the default of the pending question. Nonsense, injection attempts, empty or huge messages get a
clear reply in the user's language and leave the state as it was.

The answer is computed by :func:`advisor.analysis.evaluate.analyse` from the request built of this module's state
(:mod:`advisor.conversation.dialog.analysis_request`), and rendered by :mod:`advisor.conversation.render.compose`;
this module only decides.
"""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING, Any

import msgspec

from advisor.analysis.result import Assumption
from advisor.conversation.dialog import relative
from advisor.conversation.dialog.load import (
    deadline_of,
    e2e_tpot_ms,
    job_rate,
    serving_concurrency,
    volume_rate,
)
from advisor.conversation.dialog.money import money_constraints
from advisor.conversation.reader.constraints import FOREIGN_VENDORS
from advisor.conversation.reader.extract import GpuMention, Slots, extract
from advisor.conversation.reader.rental import same_provider
from advisor.conversation.reader.words import CODING_USE
from advisor.estimator.formats import FORMATS, NATIVE_GGUF
from advisor.estimator.memory import default_inference_format
from advisor.workload import Constraints, ExistingGpus, PinnedLayout, Workload
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError, InputError
from knowledge.messages import LANGS, pair, t
from knowledge.structs import Mutable, StructError, Value, dump, fields, replace

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

DEFAULT_MODEL = "qwen2.5-7b"
# a coding use with no model named ("a coding assistant for 20 developers", "代码补全助手"): the catalog's coding
# counterpart of DEFAULT_MODEL, same family and size (Qwen2.5-Coder-7B-Instruct), said in the answer as a default
DEFAULT_CODING_MODEL = "qwen2.5-coder-7b"
from advisor.recommend.offload import OFFLOAD_FORMAT as OFFLOAD_WEIGHTS  # noqa: E402 (the one place of that default)
from advisor.recommend.search import GGUF_OF  # noqa: E402 (a width said for llama.cpp: the GGUF file people run)
from advisor.workload import CHAT_OUTPUT_TOKENS, CHAT_PROMPT_TOKENS, default_context, job_answer_tokens  # noqa: E402  (one place for each default)

if TYPE_CHECKING:
    from knowledge.catalog import Catalog

BLOCKING = ("model", "task")
NEXT_INFERENCE = ("concurrency", "context", "weights", "region", "budget", "output_tokens")
NEXT_TRAINING = ("train_tokens", "context", "region", "budget", "deadline")


class DialogState(Mutable):
    """What the conversation knows: merged slots, the question waiting for an answer, what was asked/defaulted."""

    slots: Slots = msgspec.field(default_factory=Slots)
    pending: str | None = None
    asked: list[str] = msgspec.field(default_factory=list)
    defaulted: list[str] = msgspec.field(default_factory=list)
    focus_gpu: str | None = None  # the top option of the last answer ("what about 4 cards?" re-counts it)
    last_numbers: dict[str, float] = msgspec.field(default_factory=dict)  # key results of the last answer, for "what changed and how much"
    last_workload: dict[str, Any] = msgspec.field(default_factory=dict)
    answered: int = 0
    intent: str = "other"  # the intent of the last turn (advisor.conversation.reader.intent)
    act_text: str = ""  # the last question that set the act ("需要多少显存"), read again by a follow-up that keeps it
    catalog_count: int = 0  # the cards counted by the last catalog-only price answer ("8卡H100多少钱" → 8; "换成 H20 呢")
    answer_lang: str | None = None  # the language asked for the answers ("answer in Chinese please"): every one after


class Change(Value):
    slot: str
    old: Any
    new: Any
    factor: float | None = None  # the new value said as a factor of the old ("double the users": 2)


# ----------------------------------------------------------------------------------------------------------------
# merging turns
# ----------------------------------------------------------------------------------------------------------------
_TRANSIENT = {"claim", "unknown_gpus", "unknown_model", "model_text", "model_assumed", "size_params"}


def merge(state: DialogState, new: Slots) -> list[Change]:
    """Fold this turn's slots into the state; return what changed (old -> new) for the slots that matter."""
    old = state.slots
    scaled = relative.resolve(state, new)  # "double the tokens", "并发翻倍", "2x the GPUs": the last value × the factor
    merged = copy.deepcopy(old)
    changes: list[Change] = []

    def put(name: str, value: Any) -> None:
        before = getattr(merged, name)
        if before != value:
            if name not in _TRANSIENT:
                changes.append(Change(name, before, value))
            setattr(merged, name, value)

    merged.claim = new.claim
    merged.layout_asked = old.layout_asked or new.layout_asked  # a layout asked once: a large run in later turns too
    merged.unknown_gpus = list(new.unknown_gpus)
    merged.unknown_model = new.unknown_model
    if len(new.models) >= 2:
        merged.models = list(new.models)  # the pair a later "the MoE or the dense one?" refers to
    elif new.model is not None and new.model not in merged.models:
        merged.models = []
    if new.model is not None:
        put("model", new.model)
        merged.model_text, merged.model_assumed, merged.size_params = new.model_text, new.model_assumed, new.size_params
    elif new.size_params is not None:
        merged.size_params = new.size_params
    if new.task is not None:
        put("task", new.task)
        merged.task_generic = None
    elif new.task_generic is not None:
        keep = old.task in ("lora", "qlora", "full", "freeze") if new.task_generic == "finetune" else (
            old.task in ("lora", "qlora", "full", "freeze", "pretrain"))
        if not keep:
            merged.task_generic = new.task_generic
            if old.task == "inference":
                put("task", None)
    if new.headcount is not None and new.concurrency is None and new.qps is None:
        merged.concurrency = merged.qps = None  # "it's for a team of 300" replaces an earlier user count
    for name in ("weights", "kv", "context", "batch", "prompt_tokens", "output_tokens", "concurrency", "qps", "headcount",
                 "budget", "currency", "region", "train_tokens", "deadline_s", "tco_years", "engine", "lora_rank",
                 "zero", "optimizer", "mfu", "buy_or_rent", "usage_hours_month", "usage_per_gpu", "usage_text", "tokens_per_day", "horizon_months", "rent_rate",
                 "horizon_text", "wants_nvlink", "condition", "offload", "home", "coding", "rent_at", "ttft_ms", "ttft_pct", "tpot_ms", "latency_text",
                 "min_tokens_per_s", "throughput_text", "e2e_ms", "e2e_text", "rack_text", "job_requests", "job_tokens", "server_size", "other_currency", "gpu_cap",
                 "peak_share", "daily_each", "rent_cap_hour", "electricity", "fleet", "replicas", "job_answer"):
        value = getattr(new, name)
        if value is not None:
            put(name, value)
    if new.usage_hours_month is not None:
        merged.usage_share = new.usage_share  # "8 hours a day" after "60% of the time": hours, no longer a share
    if new.said_lengths:  # "每条1000字": its words beside the slot it fills (the answer says the ratio)
        said = {x.slot for x in new.said_lengths}
        merged.said_lengths = [x for x in old.said_lengths or () if x.slot not in said] + new.said_lengths
    if new.concurrency is not None:
        merged.concurrency_avg = new.concurrency_avg
        merged.load_from = new.load_from  # a change of load said with it ("from 50 to 100"), else none
        merged.load_ladder = new.load_ladder  # loads listed with it ("1, 8, 32, 128"), else none
    if new.deadline_s is not None:  # "overnight" (its words said with the hours), or a duration without words
        merged.deadline_text = new.deadline_text
    if new.epochs is not None:  # "and 5 epochs?": the earlier dataset (tokens per epoch) passed over that many times
        if new.train_tokens is None and old.train_tokens:
            put("train_tokens", old.train_tokens / (old.epochs or 1) * new.epochs)
        merged.epochs = new.epochs
    elif new.train_tokens is not None:  # a new total ("and 1B tokens?") is one pass unless its epochs are said
        merged.epochs = None
    if new.samples is not None:  # samples without their length: sized in `workload_from` at the sequence length
        put("samples", new.samples)
    if new.sample_tokens is not None and new.train_tokens is None and merged.samples:  # "每条大约 800 token"
        put("train_tokens", merged.samples * new.sample_tokens * (merged.epochs or 1))
        merged.samples = None
    if new.train_tokens is not None:
        merged.samples = None
    if new.budget is not None:  # a new amount says again what it pays for (the cards alone, or the machine) and
        merged.budget_gpus = new.budget_gpus  # whether it is spent once or every month
        merged.budget_monthly = new.budget_monthly
    if new.weights is not None and merged.task == "qlora" and new.weights not in ("nf4", "int4", "gptq-int4", "awq-int4"):
        put("task", "lora")  # "QLoRA … 改成 8bit": an 8-bit base is LoRA on a quantised base, not QLoRA
    fp8_training = merged.weights == "fp8" and merged.task in ("full", "pretrain") and old.task in ("full", "pretrain")
    if (new.weights is None and merged.weights is not None and merged.task in ("full", "pretrain", "freeze")
            and merged.weights not in ("bf16", "fp16", "fp32") and not fp8_training):
        put("weights", None)  # an earlier turn's serving precision does not carry over to full training (FP8 said
        # for that training, "换成 FP8 呢", does: it is the plan's precision, build_workload's train_precision)
    if new.weights is None and merged.task == "qlora" and merged.weights not in (None, "nf4", "int4"):
        put("weights", None)
    if new.excluded or new.excluded_vendors:
        put("excluded", sorted(set(old.excluded) | set(new.excluded)))
        put("excluded_vendors", sorted(set(old.excluded_vendors) | set(new.excluded_vendors)))
        merged.candidates = [c for c in merged.candidates if c.gpu not in merged.excluded]
    if new.pinned_layout is not None:  # "and with TP 4?": this turn's degrees over the earlier ones
        put("pinned_layout", new.pinned_layout.after(old.pinned_layout))
    if new.capacity is not None:
        put("capacity", new.capacity)
        merged.bandwidth, merged.device = new.bandwidth, new.device
    if new.existing is not None:
        put("existing", new.existing)
    if new.candidates:
        cands = list(new.candidates)
        if (len(cands) == 1 and cands[0].count is None and len(old.candidates) == 1 and old.candidates[0].count
                and new.gpu_count is None and "gpus" not in new.scales and new.existing is None):
            # "a single RTX 5090?" → "and the 4090?": the card swapped at the count asked about (not re-sized to 2)
            cands = [replace(cands[0], count=old.candidates[0].count)]
        put("candidates", cands)
    merged.gpu_count_to = new.gpu_count_to  # a second count said with no card holds for its own turn only
    if new.gpu_count is not None:
        if new.existing is None and not new.candidates:
            if merged.existing is not None:
                put("existing", replace(merged.existing, count=new.gpu_count))
            elif merged.candidates:
                put("candidates", [replace(c, count=new.gpu_count) for c in merged.candidates])
            elif state.focus_gpu:
                put("candidates", [GpuMention(gpu=state.focus_gpu, count=new.gpu_count, text="")])
            else:
                put("gpu_count", new.gpu_count)
        else:
            for mention in ([merged.existing] if merged.existing else []) + list(merged.candidates):
                if mention.count is None:
                    mention.count = new.gpu_count
    state.slots = merged
    return relative.mark(changes, scaled)


def observe(state: DialogState, text: str, lang: str = "en", catalog: Catalog | None = None) -> Slots:
    """Extraction and merge only (used in LLM mode so the state follows the conversation)."""
    slots = extract(text or "", catalog if catalog is not None else default_catalog(), pending=state.pending, lang=lang,
                    training=state.slots.training)
    if slots.reset:
        reset(state)
    elif not slots.empty:
        merge(state, slots)
    return slots


def reset(state: DialogState) -> None:
    fresh = DialogState()
    for name in fields(state):
        setattr(state, name, getattr(fresh, name))


# ----------------------------------------------------------------------------------------------------------------
# from slots to Workload / Constraints (defaults applied, each one stated)
# ----------------------------------------------------------------------------------------------------------------
PRETRAIN_TOKENS = 1e10  # "train a 1B model on 100B tokens": only pre-training reads that many tokens (fine-tuning sets are far smaller)
PRETRAIN_GPUS = 1024  # "train X on 16k H100s": fine-tuning, even of a 405B model, runs on hundreds of GPUs, not thousands
# a fine-tuning job with no method said, at the scale of a full SFT run (a judgment, stated where it applies): LoRA is
# the one- to eight-card default; tens of GPUs or a set of billions of tokens are full supervised fine-tuning's scale
FULL_SFT_GPUS = 32
FULL_SFT_TOKENS = 5e9


# the stored formats whose long label (advisor.estimator.formats) is English, as a Chinese answer names them
_NATIVE_ZH = {"fp8": "FP8（e4m3，每 128×128 块一个缩放）", "mxfp4": "MXFP4（MoE 专家 MXFP4，每 32 个一个 E8M0 缩放；其余 BF16）",
              "int4-experts": "INT4 路由专家（compressed-tensors，每 32 个一个 BF16 缩放；其余 BF16）"}


def _gpus_said(slots: Slots) -> int:
    """The most GPUs the person said (named cards, their own, or a bare count)."""
    named = [*slots.candidates, *([slots.existing] if slots.existing else [])]
    return max([m.count or 0 for m in named] + [slots.gpu_count or 0])


def full_sft_scale(slots: Slots) -> bool:
    """A fine-tuning job at full SFT's scale: FULL_SFT_GPUS GPUs or more, or FULL_SFT_TOKENS of data."""
    return _gpus_said(slots) >= FULL_SFT_GPUS or (slots.train_tokens or 0) >= FULL_SFT_TOKENS


def _task_of(slots: Slots) -> str | None:
    if slots.task:
        return slots.task
    if slots.task_generic == "finetune":
        return "full" if full_sft_scale(slots) else "lora"
    if slots.task_generic == "train":  # the default is answered with and said, never named and then asked for
        cluster = _gpus_said(slots) >= PRETRAIN_GPUS
        # a layout pinned or asked for ("the best parallelism layout for training a 70B on 256 H100"): a large run,
        # on a few cards every parameter trained (LoRA needs no parallelism layout)
        if (slots.train_tokens or 0) >= PRETRAIN_TOKENS or cluster or slots.pinned_layout:
            return "pretrain"
        if slots.layout_asked:
            return "pretrain" if _gpus_said(slots) >= FULL_SFT_GPUS else "full"
        return "lora"
    if (slots.train_tokens or 0) >= PRETRAIN_TOKENS:  # "how many days for 405B on 15.6 trillion tokens?"
        return "pretrain"
    return None


def build_workload(state: DialogState) -> tuple[Workload | None, list[Assumption]]:
    """The Workload the slots describe, with the defaults it needed (None when no model is known yet)."""
    s = state.slots
    notes: list[Assumption] = []
    if s.model is None:
        return None, notes
    task = _task_of(s) or "inference"
    if s.task is None and s.task_generic == "finetune" and task == "full":
        notes.append(Assumption(*pair("assumption.finetune_full")))
    elif s.task is None and s.task_generic == "finetune":
        notes.append(Assumption(*pair("assumption.finetune_lora")))
    elif s.task is None and s.task_generic == "train":
        kind = "assumption.training_kind." + (task if task in ("pretrain", "full") else "lora")
        en, zh = (t("assumption.training_kind", lang, kind=t(kind, lang)) for lang in LANGS)
        notes.append(Assumption(en, zh))
    elif s.task is None:
        notes.append(Assumption(*pair("assumption.task_inference")))
    weights = s.weights
    if task == "qlora" and weights in (None, "int4"):
        weights = "nf4"
    train_precision = None
    if task in ("full", "pretrain") and weights == "fp8":  # "pre-train in FP8": FP8 GEMMs, BF16 master weights
        train_precision, weights = "fp8", None
        notes.append(Assumption(*pair("assumption.fp8_training")))
    elif task in ("full", "pretrain", "freeze") and weights not in (None, "bf16", "fp16", "fp32"):
        notes.append(Assumption(*pair("assumption.full_weights_bf16", weights=weights.upper())))
        weights = None
    if s.offload and task == "inference" and weights in (None, "int4"):
        weights = OFFLOAD_WEIGHTS  # layer offload is llama.cpp's: a GGUF file, the 4-bit one people run
        notes.append(Assumption(*pair("assumption.offload_gguf", weights=weights.upper())))
    if s.engine == "llama.cpp" and task == "inference" and weights in GGUF_OF:
        said, weights = weights, GGUF_OF[weights]  # "4-bit on llama.cpp": the GGUF file of that width people run
        notes.append(Assumption(*pair("assumption.llamacpp_gguf", said=said.upper(), weights=weights.upper())))
    at_home = task == "inference" and weights is None and not s.offload and (s.engine == "llama.cpp" or (
        s.home and s.engine is None and (s.concurrency or 1) <= 2))
    gguf = at_home and default_weights(s.model) not in NATIVE_GGUF
    if gguf:  # Ollama / llama.cpp / a home machine: the GGUF 4-bit file people run, on a llama.cpp-style engine
        weights = OFFLOAD_WEIGHTS
        notes.append(Assumption(*pair("assumption.home_gguf", weights=weights.upper())))
    if weights is None and task == "inference":
        native = default_weights(s.model)
        label = FORMATS[native].label  # the stored format named in full ("FP8 e4m3, 128×128 block scales")
        shown = native.upper() if label.upper() == native.upper() else label
        notes.append(Assumption(f"weights in {shown}, the checkpoint's own precision",
                                f"权重按 {_NATIVE_ZH.get(native, shown)} 计算（模型发布时的精度）"))
    context = s.context
    widened = prompt_fills(s) if context is None and task == "inference" else None
    if widened is not None:
        context = widened  # "prompts of 20k tokens": the context holds them (never cut to the default)
        notes.append(Assumption(*pair("assumption.context_prompt"), {"ctx": (widened, "tokens", "inferred from user input")}))
    if context is None and task == "inference" and coding_use(s):
        # a coding assistant or agent sends files and tool output with every request: the context coding tools need
        # (CODING_CONTEXT, Ollama's guide), within the model's own window
        context = coding_context(s)
        notes.append(Assumption(*pair("assumption.context_coding"), {"ctx": (context, "tokens", SRC_CODING_CONTEXT)}))
    if context is None:
        context = default_context(default_catalog().find_model(s.model or "") if task == "inference" else None)
        notes.append(Assumption(*pair("assumption.context"), {"ctx": (context, "tokens", "advisor.workload.default_context")}))
    concurrency, load_notes = serving_concurrency(s, task)
    notes += load_notes
    if s.concurrency_avg is not None and s.concurrency is not None and task == "inference":
        notes.append(Assumption(*pair("assumption.peak"),
                                {"peak": (s.concurrency, "sequences", "user input"),
                                 "avg": (s.concurrency_avg, "sequences", "user input")}))
    kwargs: dict[str, Any] = {"model": s.model, "task": task, "weights": weights, "context": context,
                              "concurrency": concurrency if task == "inference" else 1}
    if train_precision:
        kwargs["train_precision"] = train_precision
    if s.kv:
        kwargs["kv"] = s.kv
    if s.batch:
        kwargs["batch"] = s.batch
    if s.prompt_tokens:
        kwargs["prompt_tokens"] = min(s.prompt_tokens, context)
    if s.output_tokens:
        kwargs["output_tokens"] = min(s.output_tokens, context)
    elif task == "inference" and (answers := job_answer(s)) and s.prompt_tokens:
        # "classify 10M documents of 1k tokens", "translate 500k documents": each answer a label or a translation
        # (advisor.workload.job_answer_tokens, stated), not a chat turn
        kwargs["output_tokens"] = max(1, min(job_answer_tokens(answers, s.prompt_tokens), context - s.prompt_tokens))
        notes.append(Assumption(*pair(f"assumption.{answers}_output"), {"out": (
            kwargs["output_tokens"], "tokens", "advisor.workload.job_answer_tokens")}))
    elif s.prompt_tokens and task == "inference":  # "8k prompts", no answer length: a chat turn's answer, not the
        # rest of the context (a prompt as long as the context would leave 1 token of answer: all prefill)
        kwargs["output_tokens"] = answer_tokens(s.prompt_tokens, context)
    if s.train_tokens and task != "inference":
        kwargs["train_tokens"] = s.train_tokens
    elif s.samples and task != "inference":  # "一万条数据": each sample as long as the sequence trained (an upper bound)
        kwargs["train_tokens"] = s.samples * context * (s.epochs or 1)
        notes.append(Assumption(*pair("assumption.samples"), {"samples": (s.samples, "", "user input"),
                                                              "ctx": (context, "tokens", "sequence length"),
                                                              "epochs": (s.epochs or 1, "", "user input")}))
    elif (published := published_pretrain_tokens(s, task)) is not None:
        kwargs["train_tokens"] = published  # "how long to pre-train DeepSeek-V3?": the tokens its makers published
    if s.engine:
        kwargs["engine"] = s.engine
    elif (s.offload or at_home) and task == "inference":  # a native GGUF (gpt-oss MXFP4) keeps its own file
        kwargs["engine"] = "llama.cpp"
    if s.lora_rank and task in ("lora", "qlora"):
        kwargs["lora_rank"] = s.lora_rank
    if s.zero is not None and task != "inference":
        kwargs["zero"] = s.zero
    if s.optimizer is not None and task != "inference":  # "8-bit Adam": its bytes of state per parameter
        kwargs["optimizer"] = s.optimizer
    # degrees the planner keeps (reader.layout); a served model's TP/PP ("on 8 H100 with TP 4") its replicas' group
    if s.pinned_layout is not None and task in ("full", "pretrain", "inference"):
        kwargs["pinned_layout"] = s.pinned_layout
    if s.replicas and task == "inference":  # "4 replicas": the serving DP (recommend.search.replica_layouts)
        kwargs["pinned_layout"] = replace(s.pinned_layout or PinnedLayout(), dp=s.replicas)
    try:
        return Workload(**kwargs), notes
    except StructError as exc:
        raise _input_error(exc) from None


def default_weights(model_id: str | None) -> str:
    """The serving precision the estimator assumes when none is given: the checkpoint's own (FP8 for DeepSeek-V3)."""
    spec = default_catalog().find_model(model_id) if model_id else None
    if spec is None:
        return "bf16"

    return default_inference_format(spec)


def build_constraints(state: DialogState, lang: str = "en") -> tuple[Constraints, list[Assumption]]:
    s = state.slots
    kwargs, notes = money_constraints(s, lang)  # budget, currency, rent (dialog.money)
    if s.region:
        kwargs["region"] = s.region
    elif lang == "zh":
        # the region question offers mainland China as the default to Chinese users: apply what it promises
        kwargs["region"] = "cn"
        notes.append(Assumption(*pair("assumption.region_cn")))
    if s.existing:
        kwargs["existing"] = ExistingGpus(gpu=s.existing.gpu, count=s.existing.count or 1)
    if s.fleet and any(c.gpu == s.fleet and c.count is None for c in s.candidates):
        name = default_catalog().gpu(s.fleet).name
        notes.append(Assumption(*pair("assumption.fleet", gpu=name)))
        kwargs["owned"] = (s.fleet,)
    rented_there = cards_rented_at(s.rent_at) if s.rent_at and not s.candidates and not s.existing else ()
    if rented_there:  # "host it on Lambda": the cards that cloud rents (its dated quotes in the catalog)
        kwargs["candidates"], kwargs["candidates_pool"] = rented_there, True
        names = t("assumption.excluded.sep", lang).join(default_catalog().gpu(g).name for g in rented_there)
        notes.append(Assumption(*pair("assumption.rent_at", provider=s.rent_at, names=names)))
    if s.candidates:
        kwargs["candidates"] = tuple(c.gpu for c in s.candidates)
    elif s.excluded or s.excluded_vendors:  # "国内买不到 A100", "no NVIDIA": search every other card
        vendors = {v.lower() for v in s.excluded_vendors}
        # every other card the search would propose (a unified-memory machine is searched only when named:
        # advisor.recommend.search.candidate_gpus)
        kwargs["candidates"] = tuple(g.id for g in default_catalog().gpus
                                     if g.id not in s.excluded and g.vendor.lower() not in vendors and not g.is_machine)
        kwargs["candidates_pool"] = True
        kept = sorted({g.vendor for g in default_catalog().gpus if g.vendor.lower() not in vendors})
        if vendors >= set(FOREIGN_VENDORS):  # "国产卡": the cards made in China only
            en, zh = (t("assumption.domestic", lang, vendors=t("assumption.excluded.sep", lang).join(kept)) for lang in LANGS)
        elif len(kept) == 1 and not s.excluded:  # "on AMD GPUs": one vendor's cards only
            en, zh = (t("assumption.one_vendor", lang, vendor=kept[0]) for lang in LANGS)
        else:
            left_out = s.excluded + [v.upper() for v in vendors]
            en, zh = (t("assumption.excluded", lang, names=t("assumption.excluded.sep", lang).join(left_out))
                      for lang in LANGS)
        notes.append(Assumption(en, zh))
    if s.gpu_count and not s.existing and not s.candidates:
        if s.gpu_count <= 16:  # "四张卡", "8 GPUs": one machine
            kwargs["max_gpus_per_node"] = max(1, s.gpu_count)
            kwargs["max_nodes"] = 1
        else:  # "2048 GPUs": a cluster of 8-GPU servers
            kwargs["max_gpus_per_node"] = 8
            kwargs["max_nodes"] = min(4096, -(-s.gpu_count // 8))
    counted = [c.count for c in s.candidates if c.count]
    if counted and max(counted) >= 64 and (s.task or "") in ("pretrain", "full") and not s.gpu_count:
        # "1024 张 H800 预训练 70B": the alternatives beside the cards named are searched at their scale (up to twice
        # as many GPUs), not 32,768 cards to meet a default deadline
        kwargs["max_nodes"] = max(1, min(4096, -(-2 * max(counted) // 8)))
    if s.gpu_cap:  # "up to 128 H200s": the search stays within that many
        kwargs["max_gpus_per_node"] = min(8, s.gpu_cap)
        kwargs["max_nodes"] = max(1, -(-s.gpu_cap // 8))
    if s.server_size:  # "how many 4x L40S servers": servers of that size
        kwargs["max_gpus_per_node"] = s.server_size
    deadline, said = deadline_of(s)  # the one said ("overnight": 12 h, said), else a batch job's default day (the
    if deadline:  # copies it takes are cut to it, as for a stated one)
        kwargs["deadline_s"] = deadline
    notes += said
    if s.tpot_ms or s.e2e_ms:  # a stated per-token latency (or per-user speed) is the recommender's latency target;
        # an end-to-end one is its per-token share over the reply's output tokens (e2e_tpot_ms), the stricter kept
        kwargs["max_ms_per_token"] = min(x for x in (s.tpot_ms, e2e_tpot_ms(s)) if x)
    if s.min_tokens_per_s:  # a stated total throughput: the recommender keeps only configurations reaching it
        kwargs["min_tokens_per_s"] = s.min_tokens_per_s
    elif (qps := s.qps or job_rate(s)) and s.concurrency is None and (s.task or "inference") == "inference":
        # a request rate (stated, or a batch job's to meet its deadline) is served only where its output comes out as
        # fast as it is asked for: λ × output tokens a request (the same output as Little's law in build_workload),
        # judged on the simulation at that load
        out = s.output_tokens or CHAT_OUTPUT_TOKENS
        kwargs["min_tokens_per_s"] = rate = qps * out
        if s.qps:  # said, not a batch job's rate: the lead says whether the configuration keeps up with it
            kwargs["requests_per_s"] = s.qps
        notes.append(Assumption(*pair("assumption.qps_rate"), {
            "qps": (round(qps, 2), "requests/s", "user input" if s.qps else "requests ÷ deadline"),
            "out": (out, "tokens", "output tokens a request"),
            "rate": (round(rate), "tokens/s", "requests/s × output tokens")}))
    elif (volume := volume_rate(s)) and (s.task or "inference") == "inference":
        kwargs["min_tokens_per_s"] = volume  # "240M tokens a day": its average rate sustained
    if s.ttft_ms:  # a stated time to first token: judged like the per-token one
        kwargs["max_ttft_ms"] = s.ttft_ms
        if s.ttft_pct:  # "p95 TTFT under 1 s": judged at that percentile of the simulation, not its median
            kwargs["ttft_percentile"] = s.ttft_pct
    if s.offload is False:  # "without offloading": layouts that keep everything on the GPUs
        kwargs["no_offload"] = True
    if s.mfu:  # a stated training MFU (the serving estimate has none)
        kwargs["mfu"] = s.mfu
        if s.task != "inference":
            notes.append(Assumption(*pair("assumption.mfu"),
                                    {"mfu": (round(s.mfu * 100, 1), "%", "user input")}))
    try:
        return Constraints(**kwargs), notes
    except StructError as exc:
        raise _input_error(exc) from None


def _input_error(exc: StructError) -> InputError:
    err = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in err["loc"]) or "workload"
    msg = err["msg"].removeprefix("Value error, ")
    return InputError.from_key("errors.dialog_value", field=where, where=where, msg=msg)


def apply_workload(state: DialogState, workload: Workload | None) -> None:
    """Set the slots from a Workload (for drivers that build one themselves)."""
    s = state.slots
    if workload is None:
        for name in ("model", "task", "weights", "kv", "context", "concurrency", "train_tokens"):
            setattr(s, name, None)
        return
    s.model, s.task, s.weights, s.kv = workload.model, workload.task, workload.weights, workload.kv
    s.context, s.concurrency, s.batch = workload.context, workload.concurrency, workload.batch
    s.prompt_tokens, s.output_tokens = workload.prompt_tokens, workload.output_tokens
    s.train_tokens, s.engine = workload.train_tokens, workload.engine
    s.task_generic = None


def apply_constraints(state: DialogState, c: Constraints) -> None:
    s = state.slots
    s.budget, s.currency, s.region = c.budget or c.monthly_rent_budget, c.currency, c.region
    s.budget_monthly = True if c.monthly_rent_budget and not c.budget else None
    s.existing = GpuMention(gpu=c.existing.gpu, count=c.existing.count) if c.existing else None
    s.candidates = [GpuMention(gpu=g) for g in c.candidates]
    s.deadline_s, s.buy_or_rent = c.deadline_s, c.buy_or_rent


def workload_summary_dict(state: DialogState) -> dict[str, Any]:
    """The workload and constraints as understood, for Turn.workload (JSON-safe)."""
    out: dict[str, Any] = {}
    try:
        workload, _ = build_workload(state)
        if workload is not None:
            out["workload"] = dump(workload, json=True, exclude_defaults=True) | {"model": workload.model,
                                                                                        "task": workload.task}
    except AdvisorError:
        pass
    try:
        constraints, _ = build_constraints(state)
        out["constraints"] = dump(constraints, json=True, exclude_defaults=True)
    except AdvisorError:
        pass
    out["slots"] = state.slots.workload_fields() and dump(state.slots, json=True, exclude_defaults=True)
    if state.pending:
        out["pending"] = state.pending
    return out


# ----------------------------------------------------------------------------------------------------------------
# questions
# ----------------------------------------------------------------------------------------------------------------
def missing_blocking(state: DialogState, implied_inference: bool = False) -> str | None:
    """The slot that blocks an answer (see the ask-versus-default rule in advisor.conversation.reader.intent):
    `implied_inference` when this turn's question implies serving (feasibility, how many, a quantised format…)."""
    s = state.slots
    if s.model is None:
        return "model"
    return None  # a task not said is answered as serving (stated), then asked after (`next_question`)


def next_question(state: DialogState, answered: tuple[str, ...] = ()) -> str | None:
    """The most useful slot still unknown, not yet asked and not defaulted (one at a time); `answered`: slots the
    answer itself gives (how many users → concurrency), never asked back."""
    s = state.slots
    task = _task_of(s) or "inference"
    order = NEXT_INFERENCE if task == "inference" else NEXT_TRAINING
    known = {
        # (a batch job runs as many requests at once as the cards hold: no users to ask about)
        "concurrency": s.concurrency is not None or s.qps is not None or s.headcount is not None
        or s.job_requests is not None or volume_rate(s) is not None,
        "context": s.context is not None or prompt_fills(s) is not None,  # the request lengths said set it
        "weights": s.weights is not None,
        "region": s.region is not None,
        "budget": s.budget is not None or s.existing is not None,
        "output_tokens": s.output_tokens is not None or bool(job_answer(s)),
        # "pre-train DeepSeek-V3": the tokens its makers published are the run's (build_workload), not a question
        "train_tokens": s.train_tokens is not None or published_pretrain_tokens(s, task) is not None,
        "deadline": s.deadline_s is not None or s.train_tokens is None,
    }
    if _task_of(s) is None and "task" not in state.asked and "task" not in state.defaulted:
        return "task"  # the whole job may differ: asked first, after an answer for serving
    if s.job_requests is not None and not known["output_tokens"] and "output_tokens" not in state.asked + state.defaulted:
        return "output_tokens"  # a batch job's time turns on its answers' length, assumed a chat turn's until said
    for slot in order:
        if known.get(slot) or slot in state.asked or slot in state.defaulted or slot in answered:
            continue
        if task != "inference" and slot == "region" and s.existing is not None:
            continue
        return slot
    return None


def published_pretrain_tokens(s: Slots, task: str) -> float | None:
    """The tokens the named model's makers published for its pre-training (ModelSpec.pretrain_tokens), when the task
    is pre-training and the model was named, not a size's stand-in (which keeps Chinchilla's default)."""
    if task != "pretrain" or s.model_assumed in ("size", "closest"):
        return None
    spec = default_catalog().find_model(s.model or "")
    return spec.pretrain_tokens if spec is not None and spec.pretrain_tokens else None


def default_model(coding: bool) -> str:
    """The model answered with when none was named: the coding default for a coding use, else the general one."""
    return DEFAULT_CODING_MODEL if coding else DEFAULT_MODEL


def accept_default(state: DialogState, slot: str, lang: str, *, coding: bool = False) -> None:
    """"默认/default" for `slot`: fill it with the default the question offered (`coding`: the use is coding)."""
    s = state.slots
    if slot == "model":
        s.model = default_model(coding)
        s.model_assumed = "coding" if coding else "default"
    elif slot == "task":
        if s.task_generic == "train":
            s.task, s.task_generic = "lora", None
        else:
            s.task = "inference"
    elif slot == "region":
        s.region = "cn" if lang == "zh" else "global"
    if slot not in state.defaulted:
        state.defaulted.append(slot)


# ----------------------------------------------------------------------------------------------------------------
# the catalog every turn reads
# ----------------------------------------------------------------------------------------------------------------
_CATALOG: Catalog | None = None


def default_catalog() -> Catalog:
    """The package catalog, loaded on first use and kept for the process (what a driver without its own uses)."""
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = load_catalog()
    return _CATALOG


def job_answer(s: Slots) -> str | None:
    """What a batch job's answers are taken to be ("label", "translation": advisor.workload.job_answer_tokens) when
    their length follows from it: a job of items with their length said and no answer length said; else None, and
    the answer length is asked."""
    return s.job_answer if s.job_answer and s.job_requests and s.prompt_tokens and s.output_tokens is None else None


def answer_tokens(prompt: int, context: int) -> int:
    """The answer length assumed beside a stated prompt when none was said: a chat turn's CHAT_OUTPUT_TOKENS, within
    what the context leaves (at least 1)."""
    return max(1, min(CHAT_OUTPUT_TOKENS, context - prompt))


# the context a coding tool needs: "Coding tools require a larger context window. It is recommended to use a context
# window of at least 32K tokens" (Ollama, docs.ollama.com/integrations/cline, retrieved 2026-12-06)
CODING_CONTEXT = 32768
SRC_CODING_CONTEXT = "advisor.conversation.dialog.machine.CODING_CONTEXT (Ollama's Cline guide: at least 32K tokens)"


def cards_rented_at(provider: str) -> tuple[str, ...]:
    """The catalog cards `provider` rents (reader.rental's canonical name): those with a dated cloud quote from it,
    then the instance families of knowledge.cloud_offers (AWS's H100, H200, A100 and L4, which the catalog does not
    quote)."""
    # start-up: the offers table is read only when a cloud is named as the host
    from knowledge.cloud_offers import load_cloud_offers

    quoted = [g.id for g in default_catalog().gpus if any(same_provider(q.provider, provider) for q in g.cloud)]
    listed = [g for g in load_cloud_offers().cards_of(provider) if g not in quoted]
    return tuple(quoted + listed)


def coding_use(s: Slots) -> bool:
    """A coding use said ("as a coding assistant", "写代码") or a coder model named ("Qwen2.5-Coder-32B")."""
    return bool(s.coding or CODING_USE.search((s.model or "").lower()))


def coding_context(s: Slots) -> int:
    """The context a coding use is sized at when none was said: CODING_CONTEXT within the model's own window, never
    below the model's default."""
    known = default_catalog().find_model(s.model or "")
    return max(default_context(known), min(CODING_CONTEXT, known.max_context if known else CODING_CONTEXT))


def prompt_fills(s: Slots) -> int | None:
    """The context per sequence that stated request lengths set when no context was said: prompt + output tokens
    when both were said ("1k prompt, 1k output": each request is that long, as a benchmark's are, so 32 users of
    DeepSeek-R1 are not sized at its 32k default); prompt + a chat turn's CHAT_OUTPUT_TOKENS when only the prompt was
    and that is longer than the model's default context (a chat window keeps its default); None otherwise."""
    if s.context is not None or not (s.prompt_tokens or s.output_tokens):
        return None
    if not s.prompt_tokens:  # an answer's length alone ("16k-token reasoning outputs"): after a chat turn's prompt
        need = CHAT_PROMPT_TOKENS + int(s.output_tokens or 0)
        return need if need > default_context(default_catalog().find_model(s.model or "")) else None
    if s.output_tokens:
        return s.prompt_tokens + s.output_tokens
    need = s.prompt_tokens + CHAT_OUTPUT_TOKENS
    return need if need > default_context(default_catalog().find_model(s.model or "")) else None
