"""Puts the deterministic dialog's answers together in Chinese or English, from the sections in
`advisor.conversation.render` (one module each: headline, options table, memory, cost, findings, assumptions,
changes, the first screen's lead, and the preamble of notes and questions).

Order of an answer: the recommendation (or the verdict on the user's own hardware) first, what changed
since the last turn, the computed numbers (memory breakdown, speed, cost), findings with rule ids and
sources, the check of a quoted guide claim, the assumptions, and the one question worth asking next.

Every number is printed through :class:`~advisor.conversation.render.book.Book`, which records it as a
:class:`Number` (name, value, unit, source) on the Turn — the answer contains no number that is not in
`Turn.numbers`. GiB (2^30 bytes) for memory, GB (1e9 bytes) only where a quoted figure is compared, each labelled.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from advisor.analysis.result import Analysis, top_option
from advisor.conversation.dialog.machine import (
    Change,
    DialogState,
    default_catalog,
    workload_summary_dict,
)
from advisor.conversation.reader.extract import Slots
from advisor.conversation.reader.inline_specs import ASSUMED, card_lines, model_lines
from advisor.conversation.reader.lang import say
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render import load_lead
from advisor.conversation.render.assumed_line import assumed_line, instance_words
from advisor.conversation.render.assumptions import assumption_text, assumption_zh, assumptions_block, mfu_assumption
from advisor.conversation.render.book import SRC_RECOMMEND, SRC_THROUGHPUT, SRC_USER, Book
from advisor.conversation.render.changes import (
    changes_block,
    key_numbers,
    named_changes,
    rec_changes,
    shown_total_speed,
)
from advisor.conversation.render.cost import rec_cost
from advisor.conversation.render.findings import claim_block, findings_block, guide_name, rec_findings
from advisor.conversation.render.headline import headline, job_line, rec_headline, top_config, verdict_of
from advisor.conversation.render.labels import format_label
from advisor.conversation.render.lead import lead_for, ttft_target_line
from advisor.conversation.render.memory import (
    capacity_block,
    dialog_breakdown,
    limits_block,
    memory_chart_of,
    rec_breakdown,
)
from advisor.conversation.render.options_table import (
    compact_rows,
    configs_table,
    opt_name,
    options_contract,
    options_table,
)
from advisor.conversation.render.preamble import (
    device_line,
    notes_block,
    question_text,
    render_note,
    summary,
    unknown_lines,
)
from advisor.conversation.render.turns_lead import turns_intro, turns_option
from advisor.conversation.turn import Turn
from advisor.recommend.recommender import same_config
from advisor.recommend.search import default_train_tokens
from knowledge.messages import known as has_message
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option
    from knowledge.catalog import Catalog
    from knowledge.guides import Claim
    from rules.findings import Finding

if TYPE_CHECKING:
    from advisor.recommend.recommender import Recommendation


def _catalog_names(answer: str, book: Book) -> None:
    """Numbers inside catalog names shown in the answer ("GPT-2 XL (1.5B)", "H20 96GB") are the catalog's."""
    catalog = default_catalog()
    for spec in list(catalog.models) + list(catalog.gpus):
        if spec.name in answer and any(ch.isdigit() for ch in spec.name):
            book.text(spec.name, f"name {spec.id}", f"knowledge catalog: {spec.id}")


def finish_turn(answer: str, lang: str, state: DialogState, book: Book, **kw: Any) -> Turn:
    """The deterministic Turn of `answer`, with the numbers `book` recorded and the workload as understood."""
    _catalog_names(answer, book)
    if lang == "zh":
        answer = zh_spacing(answer)
    return Turn(answer=answer.strip(), lang=lang if lang in ("zh", "en") else "en", mode="deterministic",  # type: ignore[arg-type]
                numbers=book.numbers, workload=workload_summary_dict(state), **kw)


_BOLD_COLON = re.compile(r"：\*\* (?=\S)")  # "**标签：** 正文": the colon inside the bold, an ASCII gap after it
_PAREN_GAP = re.compile(r"） (?=[\d¥$])")  # "（整机其余部分） 228,190 元"


def zh_spacing(text: str) -> str:
    """A Chinese answer without gaps an ASCII space leaves after full-width punctuation: a bold label closes
    before its colon ("**变化**：…"; CommonMark would not close "**变化：**…" without the space) and a number
    follows a closing parenthesis directly."""
    return _PAREN_GAP.sub("）", _BOLD_COLON.sub("**：", text))


def simple_turn(body: str, lang: str, state: DialogState, *, notes: list[str] | None = None,
                pending_question: bool = False, show_state: bool = False, catalog: Catalog | None = None, text: str = "",
                kind: str = "no_change") -> Turn:
    """A reply that changes nothing: empty, nonsense, greeting, injection, an error (`text`). `body` and `notes` are
    keys of fixed sentences; the pending question, if any, is asked again."""
    catalog = catalog if catalog is not None else default_catalog()
    book = Book()
    lines = [notes_block(notes or [], book, lang), render_note(body, book, lang), text]
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


def guide_claim_turn(claim: Claim, findings: list[Finding], state: DialogState, lang: str, catalog: Catalog) -> Turn:
    """The answer to a quoted guide statement about a card (knowledge.guides claim): the verdict with the computed
    figure, the guide's own words and section, and the claims rule's finding. The conversation state is unchanged;
    a pending question is asked again."""
    book = Book()
    zh = lang == "zh"
    key = f"claim.verdict.{claim.verdict}"
    verdict = t(key, lang) if has_message(key) else claim.verdict
    explanation = (claim.explanation_zh or claim.explanation) if zh else claim.explanation
    quote = t("claim.guide_says", lang, guide=guide_name(claim.guide), section=claim.section,
              quote=book.text(claim.quote, 'guide quote', claim.guide))
    if findings:  # the claims rule words the correction (guide figure, computed figure, explanation) and cites it
        # the guide's words once: the finding that quotes them again (claims rule) points back to the quote line
        checked = rec_findings(findings, book, lang).replace(f"“{claim.quote}”", t("claim.quoted_above", lang))
        lines = [t("claim.verdict_line", lang, verdict=verdict), quote, checked]
    else:
        lines = [t("claim.verdict_head", lang, verdict=verdict) + book.text(explanation, f"claim {claim.id}",
                                                                          f"knowledge.guides claim {claim.id}"), quote]
    questions: list[str] = []
    if state.pending:
        q = question_text(state.pending, state, lang, catalog, book)
        lines.append(q)
        questions.append(q)
    elif state.slots.model is None:
        lines.append(t("claim.to_size", lang))
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=questions, findings=list(findings),
                 extra={"kind": "claim", "pending": state.pending, "claim_id": claim.id, "claim_verdict": claim.verdict})


def question_turn(slot: str, state: DialogState, lang: str, catalog: Catalog, *, notes: list[str], slots: Slots,
                  changes: list[Change], findings: list[Finding] | None = None) -> Turn:
    """A blocking question, first (what the answer needs), then what is known; an unknown name and `findings` that
    correct the user's premise (NVLink on a card without it) come before it."""
    book = Book()
    lines = [notes_block(notes, book, lang)] + unknown_lines(slots, lang, catalog)
    if findings:
        lines.append(rec_findings(list(findings), book, lang, title=t("findings.correction", lang)))
    q = question_text(slot, state, lang, catalog, book)
    lines.append(q)
    known = summary(state, lang, catalog, book)
    if known:
        lines.append(t("question.so_far", lang, known=known))
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=[q], findings=list(findings or []),
                 extra={"kind": "question", "pending": slot, "blocking": True})


def answer_turn(ev: Analysis, state: DialogState, lang: str, catalog: Catalog, *, notes: list[str], slots: Slots,
                changes: list[Change], question: str | None) -> Turn:
    if ev.recommendation is not None:
        return recommendation_turn(ev, state, lang, catalog, notes=notes, slots=slots, changes=changes,
                                   question=question)
    book = Book()
    lines: list[str] = [notes_block(notes, book, lang)]
    lines += unknown_lines(slots, lang, catalog, stand_in=False)  # an unknown name first: nothing below is about it
    unknown_card = state.slots.unknown_gpus and ev.need is not None and \
        not any(c.role in ("existing", "candidate") for c in ev.configs)
    lines += [fs.unknown_card_lead(ev, list(state.slots.unknown_gpus), None, book, lang).text if unknown_card
              else headline(ev, book, lang)]  # no verdict about other cards when the card asked is unknown
    lines += unknown_lines(slots, lang, catalog, names=False)
    changed = changes_block(changes, state, ev, book, lang, catalog)
    if changed:
        lines.append(changed)
    lines.append(job_line(ev, book, lang))
    table = configs_table(ev, book, lang)
    if table:
        lines.append(table)
    breakdown = dialog_breakdown(ev, book, lang)
    if breakdown:
        lines.append(breakdown)
    if ev.claim is not None:
        lines.append(claim_block(ev, book, lang))
    if ev.findings:
        lines.append(findings_block(ev.findings, lang))
    assumptions = assumptions_block(ev.assumptions, book, lang)
    if assumptions:
        lines.append(assumptions)
    if ev.unavailable:
        lines.append(t("answer.memory_only", lang))
    questions: list[str] = []
    if question:
        q = _next_question(question, ev, state, lang, catalog, book)
        lines.append(t("answer.next_question", lang) + q)
        questions.append(q)
    top = top_config(ev)
    state.focus_gpu = top.gpu.id if top is not None else state.focus_gpu
    state.last_numbers = key_numbers(ev)
    memory_chart = memory_chart_of(ev)
    extra: dict[str, Any] = {"kind": "answer", "pending": question, "changed": [c.slot for c in changes],
                             "verdict": verdict_of(ev), "top": {"gpu": top.gpu.id, "count": top.count} if top else None,
                             "claim_verdict": ev.claim.verdict if ev.claim is not None else None,
                             "unavailable": list(ev.unavailable)}
    return finish_turn("\n\n".join(x for x in lines if x), lang, state, book, questions=questions,
                 findings=list(ev.findings), options=options_contract(ev), memory=memory_chart, extra=extra)


def recommendation_turn(ev: Analysis, state: DialogState, lang: str, catalog: Catalog, *, notes: list[str],
                        slots: Slots, changes: list[Change], question: str | None) -> Turn:
    """The answer in layers (advisor.conversation.render.firstscreen): the first screen answers the question asked, then
    collapsible details carry the full table, capacity, breakdown, cost, launch hint, changes, findings and
    assumptions. The sections are rendered in the order their numbers are recorded."""
    book = Book()
    rec = _recommendation(ev)
    top = top_option(ev)
    lead = lead_for(ev, top, state, book, lang)
    first = _first_lines(ev, state, lead, book, lang, catalog, notes=notes, slots=slots, changes=changes)
    shown = list(ev.user_options)
    others = _other_options(ev, shown)
    displayed: list[Option] = []  # options in the tables, in order (for the capacity lines)
    lines: list[str] = [rec_headline(ev, top, book, lang), job_line(ev, book, lang)]
    lines += _option_tables(ev, shown, others, displayed, book, lang)
    compact = compact_rows(shown, others, rec)
    if ev.offload is not None and not any("offload" in o.labels for o in compact):  # one card + RAM: a real option
        own = bool(compact) and "existing" in compact[0].labels and compact[0].gpu == ev.offload.gpu
        compact = compact[:1] + [ev.offload] + compact[1:2] if own else compact[:2] + [ev.offload]  # own card first
    first.append(fs.compact_table(compact, book, lang, ev.workload))
    lead_opt = top or (shown[0] if shown else None) or (rec.closest[0] if rec.closest else None)
    lines += _load_lines(ev, displayed, lead_opt, book, lang)
    sections: list[str] = [fs.details(t("answer.details.options", lang), "\n\n".join(x for x in lines if x))]
    sections += _detail_sections(ev, state, top, lead_opt, shown, book, lang)
    assumptions, tool_assumptions = _all_assumptions(ev, lead_opt, book, lang)
    if assumptions:
        sections.append(fs.details(t("answer.details.assumptions", lang), assumptions))
    questions: list[str] = []
    if question:
        q = _next_question(question, ev, state, lang, catalog, book)
        first.append(t("answer.next_question", lang) + q)
        questions.append(q)
    _remember(state, ev, top)
    extra = {"kind": "answer", "pending": question, "changed": [c.slot for c in changes], "verdict": _users_verdict(ev),
             "top": {"gpu": top.gpu, "count": top.count} if top is not None else None,
             "claim_verdict": ev.claim.verdict if ev.claim is not None else None, "unavailable": list(ev.unavailable),
             "intent": ev.intent, "answer_verdict": lead.verdict, "deciding": lead.deciding,
             "breakdown": lead_opt.per_gpu.to_contract() if lead_opt is not None else {},
             # each configuration at full load when no load was stated (analysis.limits.capacity): a per-token
             # comparison is made there, not at one user (dialog.compare)
             "capacity": {f"{g}:{n}": {"max_concurrency": c["max_concurrency"], "total": c["total"],
                                       "cost_per_million": c.get("cost_per_million")}
                          for (g, n), c in ev.capacity.items()},
             "assumptions": [assumption_text(a, lang) for a in ev.assumptions] + list(tool_assumptions)}
    return finish_turn("\n\n".join(x for x in first + sections if x), lang, state, book, questions=questions,
                       findings=list(ev.findings), options=_contract_options(ev, shown), memory=_memory_of(lead_opt),
                       extra=extra)


def _next_question(slot: str, ev: Analysis, state: DialogState, lang: str, catalog: Catalog, book: Book) -> str:
    """The one question after an answer; the data size after a training time computed from the default token count
    says so (issue 30: never "to estimate the training time" under a time already given)."""
    if slot == "train_tokens" and ev.workload.is_training and not ev.workload.train_tokens:
        return fs.train_tokens_question(ev, book, lang)
    return question_text(slot, state, lang, catalog, book)


def _recommendation(ev: Analysis) -> Recommendation:
    """The recommendation of an answer that has one (recommendation_turn and its sections)."""
    assert ev.recommendation is not None  # answer_turn routes only analyses with a recommendation here
    return ev.recommendation


def _first_lines(ev: Analysis, state: DialogState, lead: fs.Lead, book: Book, lang: str, catalog: Catalog, *,
                 notes: list[str], slots: Slots, changes: list[Change]) -> list[str]:
    """The first screen up to its compact table: notes, the lead, corrections, unknown names, what changed, the
    assumed defaults."""
    first: list[str] = [notes_block(notes, book, lang)] + unknown_lines(slots, lang, catalog, stand_in=False) + [lead.text]
    users_lead = lead.deciding.startswith(("most concurrent sequences", "largest concurrency meeting",
                                           "requests per second", "users served by copies"))
    if not lead.deciding.startswith("most concurrent sequences"):  # "how many users?" leads with the capacity
        line = "" if ev.batch else load_lead.load_line(ev, fs.load_option(ev), book, lang)  # (the job's lead has its load)
        if line:  # a long context's load is a chat turn's: one context-filling prompt's first token beside it
            line += load_lead.long_prompt_sentence(ev, fs.load_option(ev), book, lang)
        if line and ev.asks_p99 and not users_lead:  # "p95 TTFT at 16 users?": the tails under that load, first
            first.insert(first.index(lead.text), line)
        else:
            first.append(line)
        named = turns_option(ev)
        if named is not None and ev.turns_load:  # the named cards at the users asked, a chat turn each
            line = load_lead.load_line(ev, named, book, lang, load=ev.turns_load)
            led = lead.deciding.startswith("tokens/s per user at")  # the turns lead said it fits them (a speed asked)
            if line and not led:
                line = turns_intro(ev, ev.turns_load, book, lang) + line
            if line and ev.turns_load.get("format"):  # in the lighter format the weights need ("With FP8 weights: …")
                line = t("screen.load.changed", lang, fmt=format_label(ev.turns_load["format"], lang)) + line
            first.append(line)
            # and in the format that holds whole contexts, unless the turns were served in it already (fewer users)
            if ev.changed_config is not None and not ev.turns_load.get("format") and load_lead.format_changed(ev, book, lang):
                first.append(load_lead.changed_line(ev, book, lang))
        else:
            first.append(load_lead.changed_line(ev, book, lang))  # the named cards, as the change makes them hold it
    first.append(ttft_target_line(fs.load_option(ev), ev, book, lang,  # a first-token target at one user
                                  said=lead.deciding.startswith("decode tokens/s per sequence")))
    first += unknown_lines(slots, lang, catalog, names=False)
    unknown = state.slots.unknown_gpus
    if state.slots.device is not None and not ev.user_options:  # a laptop GPU or a Mac: its memory and sources
        first.append(device_line(state.slots.device, catalog, book, lang))
    else:
        first += card_lines(ev, state.slots.capacity, state.slots.bandwidth, book, lang,  # specs typed, as given
                            named=unknown[0] if len(unknown) == 1 else "")
    if ev.model.id in ASSUMED:  # a model typed by its shape: the user's own, sized as given
        first += model_lines(ev.model, ASSUMED[ev.model.id], book, lang)
    if slots.gib_question:
        first.append(fs.gib_note(book, lang, state.slots.capacity.value if state.slots.capacity else None))
    if ev.premise:  # what the user takes for granted and is not so ("two 4090s over NVLink"): said at once
        first.append(rec_findings(list(ev.premise), book, lang, title=t("findings.correction", lang)))
    changed = changes_block(changes, state, ev, book, lang, catalog)
    if changed:
        first.append(changed)
    instances = instance_words(ev, lang)  # "On AWS, I recommend 1× g6e.12xlarge": not said again in the line
    # the users or the batch answered for the format that makes the cards hold the model: no "1 user" assumed either
    answered = users_lead or bool(ev.changed_limits) or (ev.asks_users and bool(ev.changed_load))
    first.append(assumed_line(ev, book, lang, people=state.slots.headcount, users_answered=answered,
                              share=state.slots.peak_share, daily_each=state.slots.daily_each,
                              qps=state.slots.qps, said=state.slots.said_lengths or (),
                              instances_said=bool(instances) and instances in lead.text))
    return first


def _other_options(ev: Analysis, shown: list[Option]) -> list[Option]:
    """The options beside the user's own: the catalog's alternatives when the named cards cannot do it."""
    others = [o for o in _recommendation(ev).options if not any(u.gpu == o.gpu and u.count == o.count for u in shown)]
    others = list(ev.alternatives) or others  # the named cards cannot do it: the catalog's options
    if ev.alternatives_within is not None and not ev.alternatives:
        others = []  # "only four cards": more cards of the same kind are no answer
    return others


def _option_tables(ev: Analysis, shown: list[Option], others: list[Option], displayed: list[Option], book: Book,
                   lang: str) -> list[str]:
    """The options tables of the details (the user's own, then what works, else the closest); every option shown is
    appended to `displayed`."""
    rec = _recommendation(ev)
    lines: list[str] = []

    def table(opts: list[Option]) -> str:
        displayed.extend(opts)
        return options_table(opts, book, lang, ev.workload, ev.constraints.region)

    if shown:
        lines.append(table(shown))
        if ev.alternatives_within is not None and not others and not any(u.meets_targets for u in shown):
            n = book.count("GPU count searched", ev.alternatives_within, "GPUs", SRC_RECOMMEND)
            lines.append(t("answer.none_within", lang, n=n))
        if others and not any(u.fits and u.meets_targets for u in shown):
            lines.append(t("answer.others_work", lang))
            lines.append(table(others[:3]))
    elif rec.options:
        lines.append(table(rec.options[:4]))
    elif ev.alternatives:
        lines.append(t("answer.others_work", lang))
        lines.append(table(ev.alternatives))
    elif rec.closest:
        lines.append(t("answer.closest", lang))
        lines.append(table(rec.closest[:3]))
    return lines


def _load_lines(ev: Analysis, displayed: list[Option], lead_opt: Option | None, book: Book, lang: str) -> list[str]:
    """Capacity at full load of the options shown, the speed at the average concurrency, and the limits of the
    user's configuration."""
    lines: list[str] = []
    capacity = capacity_block(displayed, ev, book, lang)
    if capacity:
        lines.append(capacity)
    avg = ev.average_speed
    if avg and lead_opt is not None:
        n = book.count("average concurrency", avg["concurrency"], "sequences", SRC_USER)
        per = book.num(f"decode tokens/s per sequence at average concurrency on {opt_name(lead_opt, book)}",
                       avg["per_seq"], "tokens/s", SRC_THROUGHPUT, 1 if avg["per_seq"] < 10 else 0)
        tot = book.num(f"decode tokens/s total at average concurrency on {opt_name(lead_opt, book)}", avg["total"],
                       "tokens/s", SRC_THROUGHPUT, 0)
        lines.append(t("answer.average_load", lang, n=n, name=opt_name(lead_opt, book), per=per, tot=tot))
    if ev.limits is not None:
        lines.append(limits_block(ev.limits, book, lang))
    return lines


def _detail_sections(ev: Analysis, state: DialogState, top: Option | None, lead_opt: Option | None, shown: list[Option], book: Book,
                     lang: str) -> list[str]:
    """The collapsible sections after the options: memory breakdown, cost, launch hint, what would make it work,
    the claim check and the findings."""
    sections: list[str] = []
    if lead_opt is not None:
        sections.append(fs.details(t("answer.details.memory", lang), rec_breakdown(lead_opt, book, lang)))
        cost = rec_cost(lead_opt, book, lang, state.slots.buy_or_rent, state.slots.tco_years,
                        ev.capacity.get((lead_opt.gpu, lead_opt.count))) if lead_opt.fits else ""
        sections.append(fs.details(t("answer.details.cost", lang), cost))
        if lead_opt.launch_hint and lead_opt.fits:
            hint = book.text(_hint_in(lead_opt.launch_hint, lang), "launch hint", SRC_RECOMMEND + " launch hint")
            sections.append(fs.details(t("answer.details.launch", lang), f"```\n{hint}\n```"))
    fixes: list[str] = []
    if ev.named_changes and ev.named_config is not None:
        fixes.append(named_changes(ev, book, lang))
    blocked_named = bool(shown) and all(any(f.severity == "block" for f in u.findings) for u in shown)
    if not (top is not None and top.meets_targets):  # no changes to a card a rule rules out, but own hardware's
        ch = rec_changes(_recommendation(ev), book, lang, own_only=blocked_named)
        if ch:
            fixes.append(ch)
    sections.append(fs.details(t("answer.details.fixes", lang), "\n\n".join(fixes)))
    if ev.claim is not None:
        sections.append(fs.details(t("answer.details.claim", lang), claim_block(ev, book, lang)))
    if ev.findings:
        rest = [f for f in ev.findings if not any(f is p for p in ev.premise)]
        if rest:
            sections.append(fs.details(t("answer.details.findings", lang), rec_findings(rest, book, lang)))
    return sections


def _all_assumptions(ev: Analysis, lead_opt: Option | None, book: Book, lang: str) -> tuple[str, list[str]]:
    """(the assumptions section, the tool assumptions in it): the dialog's, then the recommender's own (in Chinese
    too), the leading option's engine and checkpointing lines and where its training speed comes from."""
    zh = lang == "zh"
    assumptions = assumptions_block(list(ev.assumptions), book, lang)
    tool_assumptions = list(_recommendation(ev).assumptions_in(lang))  # the recommender words its own in Chinese too
    if lead_opt is not None:
        tool_assumptions += [a for a in lead_opt.assumptions if a.startswith(("engine:", "gradient checkpointing", "vLLM claims"))][:2]
        mfu_line = mfu_assumption(lead_opt, book, lang)  # review R04: where the training speed comes from
        if mfu_line:
            tool_assumptions.append(mfu_line)
    # the recommender's and the estimator's lines in the user's language, in the answer and in the turn's list
    # (the quote's appendix reads the list)
    tool_assumptions = [assumption_zh(a) if zh else a for a in tool_assumptions]
    if tool_assumptions:
        extra = "\n".join("- " + book.text(a, "assumption", SRC_RECOMMEND) for a in tool_assumptions)
        assumptions = (assumptions + "\n" + extra) if assumptions else (t("assumptions.title", lang) + "\n" + extra)
    return assumptions, tool_assumptions


_REPLICAS = re.compile(r"\(× (\d+) replicas behind a load balancer\)")


def _hint_in(hint: str, lang: str) -> str:
    """A launch command as the answer's language shows it: in Chinese the planner's English summary of the layout
    before " — " is left out (the answer says the layout in Chinese) and the replicas note is translated; the
    command itself is the tool's own."""
    if lang != "zh":
        return hint
    if " — " in hint:
        hint = hint.split(" — ", 1)[1]
    return _REPLICAS.sub(lambda m: t("launch.replicas", lang, n=m.group(1)), hint)


def _remember(state: DialogState, ev: Analysis, top: Option | None) -> None:
    """The leading option and its key numbers, for "what changed" in the next answer."""
    if top is not None:
        state.focus_gpu = top.gpu
    state.last_numbers = {"need_total": float(ev.need.per_gpu.total.n)} if ev.need is not None else {}
    w = ev.workload  # the load, context and training tokens it was computed with, defaults included ("double the
    # tokens" after the default 100 M: dialog.relative)
    state.last_workload = {"context": w.context} | ({"train_tokens": w.train_tokens or default_train_tokens(ev.model, w)}
                                                    if w.is_training else {"concurrency": w.concurrency})
    if top is not None:
        state.last_numbers.update(top_total=float(top.per_gpu.total.n), top_count=float(top.count))
        speed = shown_total_speed(ev, top)
        wall = top.training.wall.s if top.training else 0.0
        if speed:
            state.last_numbers["top_tokens_per_s"] = float(speed)
        if wall:
            state.last_numbers["top_wall_s"] = float(wall)
        state.last_workload |= {"top_gpu": top.gpu, "top_name": top.gpu_name, "top_count": top.count,
                                # the load the answer simulated ("at most 158 users"): a figure asked next is at it
                                "load_users": int((ev.load or {}).get("concurrency") or 0)}


def _users_verdict(ev: Analysis) -> str | None:
    """On the user's own configurations: "fits" / "does_not_fit" (one), "some_fit" / "none_fit" (several)."""
    users = ev.user_options
    if not users:
        return None
    return ("fits" if users[0].fits else "does_not_fit") if len(users) == 1 else (
        "some_fit" if any(u.fits for u in users) else "none_fit")


def _contract_options(ev: Analysis, shown: list[Option]) -> list[dict[str, Any]]:
    """The options in the `recommend --json` shape with their role: the user's own, then the recommender's (one row
    per configuration, issue 15), and the offload option shown on the first screen."""
    rec = _recommendation(ev)
    options = [o.to_contract() | {"role": next((lab for lab in o.labels if lab in ("existing", "candidate")), "option")}
               for o in (shown + [o for o in rec.options if not any(same_config(o, s) for s in shown)])]
    if ev.offload is not None and not any("offload" in o["labels"] for o in options):  # shown on the first screen
        options.append(ev.offload.to_contract() | {"role": "option"})
    return options


def _memory_of(lead_opt: Option | None) -> dict[str, Any] | None:
    """The leading option's memory per GPU, capacity and usable bytes, for the side panel's chart."""
    if lead_opt is None:
        return None
    memory: dict[str, Any] = lead_opt.per_gpu.to_contract()
    memory.update(capacity=lead_opt.capacity.n, usable=lead_opt.usable.n, gpu=lead_opt.gpu,
                  count=lead_opt.count)
    return memory


def negative_line(typed: str, lang: str) -> str:
    """One line for a count or amount typed with a minus sign (bad input, not read as its absolute value)."""
    return t("answer.negative_amount", lang, typed=typed)
