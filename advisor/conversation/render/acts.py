"""Leads for acts beside a plain sizing: "which engine is faster here?" (advisor.analysis.engines), "TP 8 or two
replicas of TP 4?", "FP8 or BF16?" (advisor.analysis.load_answers.served_variants), "why does it
need two GPUs?" (the weights against one card's memory), and what a DPO sizing assumes about the frozen reference
model (TRL's DPOTrainer: with a PEFT adapter the reference is the base with the adapter disabled, so no second
copy; full-parameter DPO keeps a second frozen copy of the weights)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis, EngineRun
from advisor.analysis.why_count import smallest_single_card
from advisor.conversation.reader.intent import RL_METHODS
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_MEMORY, SRC_THROUGHPUT, Book
from advisor.conversation.render.labels import PARTS, format_label, task_label
from advisor.conversation.render.options_table import opt_layout
from advisor.estimator.formats import bits_per_weight
from advisor.estimator.memory import default_inference_format
from advisor.estimator.preference import compute_factor
from knowledge.catalog import load_catalog
from knowledge.messages import t
from knowledge.params import param_counts
from knowledge.quantities import Bytes, Seconds

if TYPE_CHECKING:
    from advisor.recommend.results import Option

ENGINE_NAMES = {"vllm": "vLLM", "llama.cpp": "llama.cpp", "sglang": "SGLang", "trtllm": "TensorRT-LLM",
                "transformers": "transformers"}
SAME_SPEED = 0.05  # within 5 %: about the same (the roofline's own error is larger)


def engines_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"Is vLLM or llama.cpp faster on a 4090?": each engine's decode speed per user with the format it would use to
    fit, the faster first; None when nothing was compared."""
    runs = list(ev.engines)
    if len(runs) < 2:
        return None
    where = f"{runs[0].count}× {runs[0].gpu_name}"
    parts = []
    for r in runs:
        name = ENGINE_NAMES.get(r.engine, r.engine)
        if not r.weights:
            parts.append(t("acts.engine.none", lang, engine=name))
            continue
        speed = book.num(f"decode tokens/s per user with {name} on {where}", r.tokens_per_s, "tokens/s",
                         SRC_THROUGHPUT, 0)
        mem = book.gib(f"memory per GPU with {name} on {where}", r.per_gpu)
        fmt = (t("acts.engine.fmt_kv", lang, fmt=format_label(r.weights, lang), kv=format_label(r.kv, lang)) if r.kv
               else t("acts.engine.fmt", lang, fmt=format_label(r.weights, lang)))
        if getattr(ev, "asks_ttft", False) and r.ttft_s > 0:  # "compare the TTFT of vLLM and SGLang": theirs too
            ttft = book.latency(f"median time to first token with {name} on {where}", Seconds(r.ttft_s), SRC_THROUGHPUT)
            parts.append(t("acts.engine.run_ttft", lang, engine=name, speed=speed, ttft=ttft, fmt=fmt, mem=mem))
        elif r.full_load and r.tokens_per_s_total > 0:  # "more throughput?": each at the load it runs at once
            total = book.num(f"decode tokens/s in total with {name} at full load on {where}", r.tokens_per_s_total,
                             "tokens/s", SRC_THROUGHPUT, 0)
            parts.append(t("acts.engine.run_full", lang, engine=name, speed=speed, total=total, fmt=fmt, mem=mem,
                           n=book.count(f"requests at once with {name} on {where}", r.full_load, "sequences",
                                        SRC_THROUGHPUT)))
        elif (ev.workload.concurrency or 1) > 1 and r.tokens_per_s_total > 0:  # under load: the total too
            total = book.num(f"decode tokens/s in total with {name} on {where}", r.tokens_per_s_total, "tokens/s",
                             SRC_THROUGHPUT, 0)
            parts.append(t("acts.engine.run_load", lang, engine=name, speed=speed, total=total, fmt=fmt, mem=mem))
        else:
            parts.append(t("acts.engine.run", lang, engine=name, speed=speed, fmt=fmt, mem=mem))
    full = any(r.full_load for r in runs)  # at full load the engines are judged on their total, not one user's speed

    def judged(r: EngineRun) -> float:
        return r.tokens_per_s_total if full else r.tokens_per_s

    fitting = sorted((r for r in runs if r.weights), key=lambda r: -judged(r))
    if not fitting:
        verdict = t("acts.engine.verdict.none", lang)
    elif len(fitting) == 1:
        verdict = t("acts.engine.verdict.only", lang, engine=ENGINE_NAMES.get(fitting[0].engine, fitting[0].engine))
    elif judged(fitting[0]) <= judged(fitting[1]) * (1 + SAME_SPEED):
        verdict = t("acts.engine.verdict.same_total" if full else "acts.engine.verdict.same", lang)
    else:
        verdict = t("acts.engine.verdict.more_total" if full else "acts.engine.verdict.faster", lang,
                    engine=ENGINE_NAMES.get(fitting[0].engine, fitting[0].engine))
    users = ev.workload.concurrency or 1
    load = t("acts.engine.users", lang, n=users) if users > 1 else t("acts.engine.full", lang) if full else ""
    text = t("acts.engine.lead" if fitting else "acts.engine.lead.none", lang, verdict=verdict, where=where, runs=t("list.sep", lang).join(parts), load=load)
    return fs.Lead(text, None, f"decode tokens/s per user with {ENGINE_NAMES.get(runs[0].engine)} on {where}")


def served_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"TP 8 on 8 H100, or 2 replicas of TP 4?", "FP8 or BF16, how much faster?": each setting's per-user speed,
    total output and first token at the load asked on the same cards (advisor.analysis.load_answers.served_variants),
    then which gives more per user and which more in total (within SAME_SPEED: about the same); a setting that cannot
    hold the model there is said so. None when nothing was compared."""
    runs = list(getattr(ev, "served_runs", None) or [])
    if len(runs) < 2:
        return None
    o0 = next(r["option"] for r in runs if r["option"] is not None)
    users = max(1, ev.workload.concurrency or 1)
    where = f"{o0.count}× {o0.gpu_name}"
    parts, fit = [], []
    for r in runs:
        o, load = r["option"], r["load"]
        fmt = r["field"] == "weights"
        said = format_label(str(r["value"]), lang) if fmt else f"TP {r['value']}"
        if load is None or o is None:
            parts.append(t("acts.served.none_fmt" if fmt else "acts.served.none_tp", lang, tp=r["value"], fmt=said))
            continue
        lay = (t("acts.served.fmt", lang, fmt=said, lay=opt_layout(o, lang, book)) if fmt
               else opt_layout(o, lang, book))
        per = book.num(f"tokens/s per user with {said} on {where}", float(load["per_user_tokens_per_s"]),
                       "tokens/s", SRC_THROUGHPUT, 0)
        tot = book.num(f"tokens/s in total with {said} on {where}", float(load["total_tokens_per_s"]),
                       "tokens/s", SRC_THROUGHPUT, 0)
        ttft = book.latency(f"median time to first token with {said} on {where}", Seconds(float(load["ttft_s"])),
                            SRC_THROUGHPUT)
        parts.append(t("acts.served.run", lang, lay=lay, per=per, tot=tot, ttft=ttft))
        fit.append((lay, float(load["per_user_tokens_per_s"]), float(load["total_tokens_per_s"])))
    verdict = ""
    if len(fit) >= 2:
        by_user = max(fit, key=lambda x: x[1])
        by_total = max(fit, key=lambda x: x[2])
        close_user = min(x[1] for x in fit) >= by_user[1] * (1 - SAME_SPEED)
        close_total = min(x[2] for x in fit) >= by_total[2] * (1 - SAME_SPEED)
        if close_user and close_total:
            verdict = t("acts.served.same", lang)
        elif by_user is by_total or close_total:
            verdict = t("acts.served.both", lang, lay=by_user[0])
        elif close_user:
            verdict = t("acts.served.total", lang, lay=by_total[0])
        else:
            verdict = t("acts.served.split", lang, user=by_user[0], total=by_total[0])
    text = t("acts.served.lead", lang, where=where, users=users, runs=t("clause.sep", lang).join(parts)) + verdict
    return fs.Lead(text, None, f"speeds compared on {where}")


def why_count_lead(o: Option | None, ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"Why does 70B need two GPUs?": the job's memory on one card (the weights at its precision first) against what
    one card of the answer can use, then how it splits, and the smallest single card that would hold it."""
    need = ev.need
    if need is None:
        return None
    per = need.per_gpu
    fmt = ev.workload.weights or default_inference_format(ev.model)
    params = param_counts(ev.model).total
    weights = book.gib("weights of the whole model", per.weights)
    total = book.gib("memory of the job on one GPU", per.total)
    arith = t("acts.why.arith", lang, params=f"{params / 1e9:.1f}", bytes=f"{bits_per_weight(fmt) / 8:g}")
    one = smallest_single_card(ev.model, ev.workload, load_catalog())
    bigger = t("acts.why.bigger", lang, card=one.name, memory=book.gib(
        f"memory of one {one.name}", one.memory, "knowledge catalog", 0)) if one is not None else ""
    if o is None:  # nothing within the constraints: the need on one card, and the smallest card that holds it
        text = t("acts.why.none", lang, fmt=format_label(fmt, lang), weights=weights, arith=arith, total=total)
        return fs.Lead(text + (t("sentence.gap", lang) + bigger if bigger else ""), None, "weights of the whole model")
    usable = book.gib(f"usable memory of one {o.gpu_name}", o.usable)
    card = o.gpu_name
    if o.count <= 1:
        text = t("acts.why.one", lang, fmt=format_label(fmt, lang), total=total, weights=weights, card=card,
                 usable=usable)
        return fs.Lead(text, None, "memory of the job on one GPU")
    split = t("acts.why.split", lang, n=o.count, per=book.gib(f"memory per GPU on {o.count}× {card}", o.per_gpu.total))
    if per.weights.n > o.usable.n:
        text = t("acts.why.weights", lang, fmt=format_label(fmt, lang), weights=weights, arith=arith, card=card,
                 usable=usable, total=total, split=split)
    else:
        biggest = max((p for p in PARTS if p != "weights"), key=lambda p: getattr(per, p).n)
        text = t("acts.why.total", lang, total=total, card=card, usable=usable, weights=weights,
                 part=t(f"part.{biggest}", lang), amount=book.gib(f"{biggest} on one GPU", getattr(per, biggest)),
                 split=split)
    if one is not None and one.id != o.gpu:
        text += t("sentence.gap", lang) + bigger
    return fs.Lead(text, None, "weights of the whole model")


def rl_note(ev: Analysis, lang: str) -> str:
    """"GRPO on Qwen2.5-7B …": online RL is not modelled, said first; what follows sizes the policy's training step
    alone (rollout generation, reward scoring and a reference model left out), a lower bound on memory and time."""
    method = ev.reference_method
    if method not in RL_METHODS:
        return ""
    key = "acts.rl.generic" if method == "RL" else "acts.rl.unsupported"
    return t(key, lang, method=method, task=task_label(ev.workload.task, lang))


def reference_note(ev: Analysis, book: Book, lang: str) -> str:
    """"DPO training Llama 3.1 8B …": what the sizing assumes about DPO's frozen reference model, said after the
    verdict: with LoRA/QLoRA none extra (the reference is the base with the adapter disabled); with full parameters
    a second copy of the weights at BF16 (params × 2 bytes), which the figures include (estimator.preference)."""
    method = ev.reference_method
    if not method or method in RL_METHODS:  # online RL is said before the verdict (rl_note)
        return ""
    task = ev.workload.task
    params = param_counts(ev.model).total
    extra = book.gib(f"{method} reference model weights (BF16)", Bytes(params * 2), SRC_MEMORY)
    # KTO trains on unpaired examples (one completion per prompt, Ethayarajh 2024): no chosen + rejected pair
    key = "acts.dpo.adapter" if task in ("lora", "qlora") else "acts.dpo.full_unpaired" if method == "KTO" \
        else "acts.dpo.full"
    note = t(key, lang, method=method, task=task_label(task, lang), extra=extra, params=f"{params / 1e9:.2f}")
    k = compute_factor(ev.workload)
    if k != 1.0 and ev.workload.is_training:  # the time counts its sequences and the reference pass, said with it
        note += t("sentence.gap", lang) + t("acts.dpo.compute", lang, method=method, k=book.num(
            f"{method} compute over supervised fine-tuning on the same tokens", k, "ratio",
            "advisor.estimator.preference.compute_factor", 2, suffix=""))
    return note

