"""What a turn's words mean beyond its slots, shared by the dialog (dialog_turn) and the offline reader (request):
the intent read before any injection attempt, an explain follow-up that keeps the job, and references to the
previous answer ("that setup") or to one card."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import TYPE_CHECKING

from advisor.conversation.reader.constraints import cut_at_injection
from advisor.conversation.reader.extract import INJECTION, GpuMention, Slots
from advisor.conversation.reader.intent import classify, from_cue
from advisor.conversation.reader.quantity import Quantity, quantities, rewrite
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import DialogState


def keep_job(slots: Slots) -> None:
    """An explain follow-up asks about the answer; the amounts in its words ("each extra user", "一个用户") are not a
    new job: they are dropped so the merge keeps the conversation's job."""
    for name in ("concurrency", "concurrency_avg", "load_from", "load_ladder", "context", "gpu_count", "qps", "batch",
                 "prompt_tokens", "output_tokens"):
        setattr(slots, name, None)


def read_intent(text: str, slots: Slots, state: DialogState) -> str:
    """The question's intent, read from what precedes any injection attempt."""
    low = (text or "").lower()
    hit = INJECTION.search(low)
    cut = cut_at_injection(low, hit.start() if hit else None)
    intent = classify(cut, slots, follow_up=state.answered > 0)
    if intent == "feasibility" and (_plural_card(slots) or _card_for_a_load(cut, slots, state)):
        return "how_many"
    return intent


# "on H100s", "with A100s", "4090s": a card named in the plural without a number asks how many of it, not whether one
# holds the job (a count given, or an owned card, keeps the question as it was)
_PLURAL_CARD = re.compile(r"[0-9a-z]s$|[0-9a-z]'s$", re.I)


def _plural_card(slots: Slots) -> bool:
    if len(slots.candidates) != 1 or slots.existing is not None or slots.gpu_count is not None:
        return False
    mention = slots.candidates[0]
    text = (mention.text or "").strip()
    if mention.count is not None or not re.search(r"\d", text) or not _PLURAL_CARD.search(text):
        return False
    return not (mention.gpu or "").lower().endswith("s")  # "L40S" is the card's own name, not a plural


# "a", "one", "my", "单张", "一块" … right before the card: one card is meant ("Gemma 27B on a 4090 for 20 users?")
_ONE_CARD_BEFORE = re.compile(r"(?:(?<![a-z])(?:an?|one|single|my|our|the|this|that|1)\s*[x×*]?\s*|"
                              r"(?:一|单|1)\s*(?:张|块|个|台|片)\s*|单卡\s*)$")


def _card_for_a_load(text: str, slots: Slots, state: DialogState) -> bool:
    """A job stated for many users on a card named bare, with no question of whether it runs ("Serve DeepSeek-V3
    for 500 concurrent users on H200", "Qwen2.5-72B 200 并发 H20 部署"): how many of that card, not whether one
    holds the job. "Gemma 27B on a 4090 for 20 users?" (a card with an article) and any yes/no question keep
    the question about one card."""
    if state.answered > 0 or len(slots.candidates) != 1 or slots.existing is not None or slots.gpu_count is not None:
        return False
    mention = slots.candidates[0]
    users = max(slots.concurrency or 0, slots.headcount or 0)
    if mention.count is not None or not mention.text or (users <= 1 and not slots.qps):
        return False
    if from_cue(text, slots):
        return False  # "can it …", "够不够", "does it fit": a yes/no question
    at = text.find(mention.text.lower())
    return at >= 0 and not _ONE_CARD_BEFORE.search(text[:at].rstrip())


def read_references(state: DialogState, slots: Slots, intent: str) -> None:
    """What a turn means beyond its slots: "that setup / 这个配置" pins the previous answer's configuration; a
    feasibility question about one card named without a count is about one card ("can the 4060 Ti do 32k?")."""
    named = bool(slots.candidates or slots.existing)
    last = state.last_workload or {}
    if slots.refers_previous and not named and last.get("top_gpu"):
        slots.candidates = [GpuMention(gpu=last["top_gpu"], count=int(last.get("top_count") or 1),
                                       text="previous answer")]
    elif (intent == "feasibility" and len(slots.candidates) == 1 and slots.candidates[0].count is None
          and slots.gpu_count is None and slots.existing is None
          and not (slots.budget_monthly or slots.rent_cap_hour)):  # a rental budget counts the cards (rent_budget)
        slots.candidates[0].count = 1
    elif intent == "feasibility" and slots.existing is not None and slots.existing.count is None and slots.gpu_count is None:
        slots.existing.count = 1


# --- two values offered for one slot ("70B or 8B", "8k 还是 32k 上下文"): asked, never guessed -----------------------
_OR_BETWEEN = re.compile(r"\s*(?:tokens?\s*)?(?:or|vs\.?|versus|还是|或者|或)\s*", re.I)
_AMBIGUOUS_DIMS = {"params": "model", "tokens": "context", "users": "concurrency"}


def ambiguity(text: str, slots: Slots) -> tuple[str, list[str]] | None:
    """(the slot, the values as typed) when the message offers two different values for one slot joined by "or"
    ("70B or 8B", "8k or 32k context", "20 还是 50 个用户"); None otherwise (two named models are a comparison)."""
    if len(slots.models) >= 2:
        return None
    s = rewrite(text or "", full=True)
    found = quantities(text or "")
    for a, b in pairwise(found):
        dims = {a.dimension, b.dimension}
        dim = next((d for d in dims if d in _AMBIGUOUS_DIMS), None)
        if dim is None or not dims <= {dim, "count"} or not _OR_BETWEEN.fullmatch(s[a.span[1]:b.span[0]]):
            continue
        first, second = a.text.split()[0], b.text.split()[0]
        if first.lower() != second.lower():
            return _AMBIGUOUS_DIMS[dim], [first, second]
    if not _CORRECTION.search(s):  # "8k context … a 32k context window": two contexts, neither corrected
        sized = [q for q in found if q.dimension in ("tokens", "count") and q.value >= 512]
        contexts = [q for q in sized if _context_cue_nearest(s, q, sized)]
        values = list(dict.fromkeys(q.text.split()[0] for q in contexts))
        if len(values) >= 2 and len({q.value for q in contexts}) >= 2:
            return "context", values[:2]
    return None


def _context_cue_nearest(s: str, q: Quantity, others: list[Quantity]) -> bool:
    """A context cue word within reach of `q` ("8k 上下文", "context of 32k") that no other number stands closer to:
    in "词表 128256 的模型，8k 上下文" the cue belongs to 8k, not to the vocabulary size."""
    def gap(x: Quantity, start: int, end: int) -> int:
        return max(start - x.span[1], x.span[0] - end, 0)

    for cue in _CONTEXT_CUE.finditer(s, max(0, q.span[0] - 14), q.span[1] + 10):
        mine = gap(q, cue.start(), cue.end())
        if all(mine <= gap(o, cue.start(), cue.end()) for o in others if o is not q):
            return True
    return False


_CONTEXT_CUE = re.compile(r"context|上下文|window|窗口|max[\s_-]*model[\s_-]*len|seq(?:uence)?[\s_-]*len", re.I)
_CORRECTION = re.compile(r"actually|instead|rather|change (?:it|that)? ?to|make (?:it|the context)|no,? |改成|改为|换成|"
                         r"不是|其实|算了|→|->", re.I)


def drop_ambiguous(slots: Slots, slot: str) -> None:
    """Forget this message's reading of the ambiguous slot (the question asks for it)."""
    if slot == "model":
        slots.model = slots.model_text = slots.unknown_model = slots.size_params = None
        slots.model_assumed = ""
    elif slot == "context":
        slots.context = None
    elif slot == "concurrency":
        slots.concurrency = None


def ambiguity_question(slot: str, values: list[str], lang: str) -> str:
    """The one question that settles it, in the user's language."""
    return t("ambiguity.question", lang, a=values[0], b=values[1], what=t(f"ambiguity.what.{slot}", lang))


_KIND_PAIR = re.compile(r"(?:moe|mixture[\s-]*of[\s-]*experts|混合专家|专家模型|稀疏)[^,.;?，。；？]{0,24}"
                        r"(?:or|vs\.?|versus|还是|和|与|跟)[^,.;?，。；？]{0,24}(?:dense|稠密|密集)|"
                        r"(?:dense|稠密|密集)[^,.;?，。；？]{0,24}(?:or|vs\.?|versus|还是|和|与|跟)[^,.;?，。；？]{0,24}"
                        r"(?:moe|mixture[\s-]*of[\s-]*experts|混合专家|专家模型|稀疏)", re.I)


def models_referred(text: str, slots: Slots, state: DialogState) -> None:
    """"Is the MoE or the dense model faster on this card?" after two models were named: the pair compared again
    (`slots.models` set from the conversation)."""
    if len(slots.models) < 2 and len(state.slots.models) >= 2 and _KIND_PAIR.search(text or ""):
        slots.models = list(state.slots.models)


# "what's the biggest model I can run on my 4090?", "一张 4060 Ti 能跑什么模型": a card named, the model asked for
_WHICH_MODEL = re.compile(
    r"\bwhich (?:llms?|models?)\b|\bwhat (?:llms?|models?)\b|\b(?:biggest|largest|best|strongest) (?:llm|model)s?\b|"
    r"\bwhat (?:can|could) (?:i|we) run\b|\bwhat (?:else )?(?:runs|fits)\b|哪个模型|哪些模型|什么模型|能跑什么|跑什么|跑哪个|"
    r"推荐.{0,16}模型|最大.{0,8}模型|最强.{0,4}模型|最好.{0,4}模型|多大(?:的)?模型|推荐哪个|推荐什么|选哪个|用哪个|哪个好|"
    r"跑(?:个|一个|点)[^，。？！,.?!]{0,10}模型", re.I)  # "想本地跑个写代码的模型": no model named yet
CODING = re.compile(r"\bcod(?:e|ing|er)\b|\bprogramming\b|编程|写代码|代码", re.I)


def asks_which_model(text: str) -> bool:
    """The message asks which model to run (on the cards it names), rather than naming one."""
    return bool(_WHICH_MODEL.search(text or ""))


# a follow-up that is a number and nothing else ("what about 512?", "and 1024?", "512 呢？", "换成 2048 试试")
_BARE_NUMBER = re.compile(r"^\s*(?:(?:so\s+)?(?:what|how)\s+about|and|or|with|try|then|what\s+if\s+(?:we\s+(?:use|had)\s+)?|"
                          r"那|那么|换成|改成|如果是?|要是)?\s*(?P<n>\d{1,6})\s*(?:呢|的话呢?|试试|instead|then)?\s*[?？.!。]*\s*$")


def bare_count(text: str, slots: Slots, state: DialogState) -> None:
    """A follow-up that is a number alone, read in the unit the previous answer was sized in: "what about 512?" after
    a training run planned on a count of one card ("Pretrain a 13B … with 256 A100s") is that card's new count
    (`slots.gpu_count`); "what about 100?" after serving a stated number of users is the users, when it is more than
    a server's cards (16). A small number after a serving answer could be either and is left unread (the question
    that follows asks)."""
    m = _BARE_NUMBER.match(text or "")
    prev = state.slots
    if m is None or not state.answered or slots.gpu_count is not None or slots.candidates or slots.existing:
        return
    n = int(m.group("n"))
    counted = (len(prev.candidates) == 1 and (prev.candidates[0].count or prev.gpu_count)) or (
        not prev.candidates and prev.existing is None and prev.gpu_count)  # "… with 256 GPUs": no card named
    if prev.training and counted and n >= 1:  # (a method named, or "微调"/"train" with the default one)
        slots.gpu_count = n
    elif prev.task in (None, "inference") and prev.concurrency and n > 16:
        slots.concurrency = n
