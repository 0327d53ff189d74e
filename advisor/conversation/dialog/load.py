"""How many sequences a message asks to serve at once, read from the slots: the users said; a request rate by Little's
law at the per-token target; a batch; a headcount at its peak share; a total rate at the per-token target; else one
(`serving_concurrency`, each with the assumption it rests on), and the per-token target an end-to-end one allows."""

from __future__ import annotations

import math

from advisor.analysis.result import Assumption
from advisor.conversation.reader.extract import Slots
from advisor.workload import CHAT_OUTPUT_TOKENS
from knowledge.messages import pair

# The share of a service's users who send requests at its peak, when only its headcount is known ("team of 15"): "a
# good estimate of peak usage for the Chat service is 10% of total users" (NVIDIA Enterprise RAG sizing guide,
# source nvidia-rag-sizing). Stated in the answer as an assumption; "15 people" → ceil(1.5) = 2 at the same time.
PEAK_SHARE = 0.10
PEAK_SHARE_SOURCE = "nvidia-rag-sizing"


def e2e_tpot_ms(s: Slots) -> float | None:
    """The time per output token an end-to-end target allows: e2e = TTFT + output tokens × TPOT, so TPOT ≤ e2e /
    output tokens with the first token's wait left out (the serving simulator bounds TTFT and TPOT, not their sum);
    output tokens as stated, else a chat turn's CHAT_OUTPUT_TOKENS. Said first in the answer (lead.e2e)."""
    return s.e2e_ms / (s.output_tokens or CHAT_OUTPUT_TOKENS) if s.e2e_ms else None


def request_seconds(s: Slots) -> float:
    """W of Little's law L = λ·W when only a request rate is known: one request's time in the engine at the
    per-token target — its output tokens (stated, else a chat turn's CHAT_OUTPUT_TOKENS) × the stated time per
    token, else the interactivity target (INTERACTIVE_MS_PER_TOKEN, MLPerf's interactive 40 ms). The first token's
    wait is left out (tens of ms against seconds of decoding). Stated in the answer as an assumption."""
    from advisor.recommend.rank import INTERACTIVE_MS_PER_TOKEN  # start-up: only a stated request rate needs it

    out = s.output_tokens or CHAT_OUTPUT_TOKENS
    return out * (s.tpot_ms or e2e_tpot_ms(s) or INTERACTIVE_MS_PER_TOKEN) / 1000


# a batch job with no deadline and no card: the hardware is sized to finish it within a day (said as an assumption);
# without one the one-user lead was timed (200,000 tickets on 2 consumer cards)
JOB_DEFAULT_DEADLINE_S = 86_400


def job_rate(s: Slots) -> float | None:
    """The request rate a batch job asks for when no card is named ("1 million documents within 24 hours: what
    hardware?"): λ = requests ÷ deadline (stated, else JOB_DEFAULT_DEADLINE_S), sized like a stated request rate (the
    hardware is chosen to sustain it). With a card named the analysis sizes copies of it instead
    (advisor.analysis.load_answers.batch_job)."""
    if not s.job_requests or s.qps or s.candidates or s.existing is not None:
        return None
    return s.job_requests / (s.deadline_s or JOB_DEFAULT_DEADLINE_S)


def job_default_day(s: Slots) -> bool:
    """Whether a batch job is sized to finish within the default day (JOB_DEFAULT_DEADLINE_S): no deadline said and
    no count of cards ("on H100", or no card at all), so the hardware is the advisor's to size; a count said
    ("on 2 H100s") is the person's, and the job's time on it is the answer."""
    return bool(s.job_requests) and not s.deadline_s and not s.qps and s.existing is None \
        and not any(c.count for c in s.candidates)


def deadline_of(s: Slots) -> tuple[float | None, list[Assumption]]:
    """The deadline the job is sized to: the one said (a deadline said in words, "overnight", with the hours it was
    taken as: an assumption), else a batch job's default day (`job_default_day`); None otherwise."""
    if s.deadline_s and s.deadline_text:
        return s.deadline_s, [Assumption(*pair("assumption.deadline_words", said=s.deadline_text, hours="{hours}"),
                                         {"hours": (round(s.deadline_s / 3600), "h", "reader.deadline_words")})]
    if s.deadline_s:
        return s.deadline_s, []
    return (JOB_DEFAULT_DEADLINE_S, []) if job_default_day(s) else (None, [])


def serving_concurrency(s: Slots, task: str) -> tuple[int, list[Assumption]]:
    """The concurrent sequences the slots ask to serve, with how each was read: the users said; a request rate by
    Little's law; a batch job's rate to meet its deadline, likewise; a batch; a headcount at its peak share; a total
    rate at the per-token target; else one."""
    notes: list[Assumption] = []
    if s.job_tokens and s.job_requests and task == "inference":  # "1亿 token 的文档": requests of a length
        notes.append(Assumption(*pair("assumption.job_tokens"), {
            "tokens": (s.job_tokens, "tokens", "user input"), "n": (s.job_requests, "sequences", "tokens ÷ prompt length"),
            "len": (s.prompt_tokens or 0, "tokens", "assumed document length (reader.dataset.JOB_DOC_TOKENS) unless "
                    "stated")}))
    concurrency = s.concurrency
    job = job_rate(s) if concurrency is None and task == "inference" else None
    if job:
        w_s = request_seconds(s)
        concurrency = max(1, math.ceil(job * w_s))
        notes.append(Assumption(
            *pair("assumption.job_rate" if s.deadline_s else "assumption.job_rate_default"),
            {"n": (s.job_requests or 0, "sequences", "user input"),  # (the word is the message's: 个请求, requests)
             "hours": (round((s.deadline_s or JOB_DEFAULT_DEADLINE_S) / 3600, 1), "h",
                       "user input" if s.deadline_s else "dialog.load.JOB_DEFAULT_DEADLINE_S"),
             "qps": (round(job, 2), "requests/s", "requests ÷ deadline"),
             "conc": (concurrency, "sequences", "Little's law L = λ·W")}))
    if concurrency is None and s.qps:
        w_s = request_seconds(s)
        concurrency = max(1, math.ceil(s.qps * w_s))
        notes.append(Assumption(
            *pair("assumption.qps"),
            {"qps": (round(s.qps, 2), "requests/s", "user input"), "conc": (concurrency, "sequences", "Little's law L = λ·W"),
             "w": (round(w_s, 1), "s", "output tokens × time-per-token target")}))
    if concurrency is None and s.batch and task == "inference":  # "throughput at batch 64": 64 sequences at once
        concurrency = s.batch
        notes.append(Assumption(*pair("assumption.batch"), {"n": (s.batch, "sequences", "user input")}))
    if concurrency is None and s.headcount:
        concurrency = peak_concurrency(s.headcount, s.peak_share)
        notes.append(Assumption(
            *pair("assumption.people"),
            {"people": (s.headcount, "people", "user input"),
             "conc": (concurrency, "sequences", "ceil(people × peak share)"),
             "share": ((s.peak_share or PEAK_SHARE) * 100, "%", "user input" if s.peak_share else PEAK_SHARE_SOURCE)}))
    volume = volume_rate(s) if concurrency is None and task == "inference" else None
    if volume:
        concurrency, ms = rate_concurrency(s, volume)
        notes.append(Assumption(
            *pair("assumption.volume_rate"),
            {"day": (s.tokens_per_day or 0, "tokens", "user input"), "rate": (round(volume), "tokens/s",
             "tokens a day ÷ 86,400 s"), "conc": (concurrency, "sequences", "total tokens/s × time per token")}))
    if concurrency is None and s.min_tokens_per_s and task == "inference":
        concurrency, ms = rate_concurrency(s)
        notes.append(Assumption(
            *pair("assumption.total_rate"),
            {"rate": (s.min_tokens_per_s, "tokens/s", "user input"), "conc": (concurrency, "sequences",
             "total tokens/s × time per token"), "speed": (round(1000 / ms, 1), "tokens/s", "per-token target")}))
    if concurrency is None:
        concurrency = 1
        if task == "inference":
            notes.append(Assumption(*pair("assumption.single"), {"n": (1, "sequences", "dialog default")}))
    return concurrency, notes


def peak_concurrency(people: int, share: float | None = None) -> int:
    """Requests at the same time from a service's headcount: ceil(people × share), the share the person stated
    or PEAK_SHARE, at least one."""
    return max(1, math.ceil(people * (share or PEAK_SHARE) - 1e-9))


def rate_concurrency(s: Slots, rate: float | None = None) -> tuple[int, float]:
    """(streams, ms per token) a total rate (`rate`, else the stated "5000 tokens/s in total") implies: total =
    streams × per-stream speed, each stream at the per-token target (the stated one, else the default interactivity
    target)."""
    from advisor.recommend.rank import INTERACTIVE_MS_PER_TOKEN  # start-up: only a stated total rate needs it

    ms = s.tpot_ms or e2e_tpot_ms(s) or INTERACTIVE_MS_PER_TOKEN
    return max(1, math.ceil((rate or s.min_tokens_per_s or 0) * ms / 1000)), ms


def volume_rate(s: Slots) -> float | None:
    """The output rate a token volume to serve implies ("240M tokens a day", "10M tokens an hour": its average,
    tokens a day ÷ 86,400 s), when no load is stated otherwise (users, a request rate, a headcount, a total rate);
    the hardware is sized to sustain it, like a stated total rate."""
    if not s.tokens_per_day or s.concurrency is not None or s.qps or s.headcount or s.min_tokens_per_s or s.job_requests:
        return None
    if s.existing is not None or s.gpu_count or any(c.count for c in s.candidates):
        return None  # "500M tokens a day on one L4": what those cards make of it (render.lead's volume sentence)
    return s.tokens_per_day / 86_400
