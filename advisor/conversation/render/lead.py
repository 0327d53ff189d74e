"""The first screen's lead: the opening sentences that answer the question asked (advisor.conversation.reader.intent),
built by the helpers of advisor.conversation.render.firstscreen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis
from advisor.conversation.dialog.load import e2e_tpot_ms
from advisor.conversation.dialog.machine import DialogState
from advisor.conversation.render import figure_leads, load_lead, load_runs, purchase_lead, training_lead
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.acts import engines_lead, reference_note, rl_note, served_lead, why_count_lead
from advisor.conversation.render.api_lead import api_lead
from advisor.conversation.render.book import (
    SRC_MEMORY,
    SRC_RECOMMEND,
    SRC_THROUGHPUT,
    SRC_USER,
    Book,
    decimals_for,
)
from advisor.conversation.render.changed_lead import changed_format_lead
from advisor.conversation.render.deadline_lead import deadline_goal, deadline_lead, slow_training
from advisor.conversation.render.interconnect import LINK_LEAD, card_text, fabric_text, link_text
from advisor.conversation.render.labels import format_label, task_label
from advisor.conversation.render.options_table import (
    SRC_LOAD,
    need_and_usable,
    opt_layout,
    opt_name,
    opt_purchase,
    opt_speed,
    price_when,
    user_speed,
)
from advisor.conversation.render.purchase_lead import against_target
from advisor.conversation.render.rate_lead import misses_but_rate
from advisor.conversation.render.scale_out import (
    copies_for_load,
    copies_lead,
    group_label,
    servers_at_default_target,
    servers_sentence,
)
from advisor.conversation.render.token_cost import token_cost_lead, volume_sentence
from advisor.conversation.render.variants import variants_lead
from advisor.recommend.prices import budget_price, unit_price
from advisor.workload import CHAT_OUTPUT_TOKENS, speed_workload
from knowledge.catalog import load_catalog
from knowledge.messages import t
from knowledge.quantities import Bytes, Seconds
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.results import Option


def lead_for(ev: Analysis, top: Option | None, state: DialogState, book: Book, lang: str) -> fs.Lead:
    """The opening sentences for the question asked (ev.intent); see advisor.conversation.reader.intent. A count
    said with no card ("on 2048 GPUs") is followed by the card it was taken as; an answer for the coding default model
    says so first."""
    led = _lead_for(ev, top, state, book, lang)
    chosen = ev.user_options[0] if len(ev.user_options) == 1 else top
    head = _within_budget(led.text, chosen, ev, book, lang)
    if head:
        led.text = head + led.text
    if ev.constraints.condition == "used" and chosen is not None and chosen.price is not None \
            and chosen.price.condition != "used" and "existing" not in chosen.labels:
        # "what if we buy used?": a card the catalog has no used price for is priced new, and said so first
        led.text = t("lead.no_used_price", lang, gpu=chosen.gpu_name) + led.text
    rented = load_lead.rent_cap_sentence(ev, book, lang)  # "$100k a month for rented H100s": the cards it rents, first
    if rented:
        led.text = rented + t("sentence.gap", lang) + led.text
    rent_of = load_lead.rent_within_sentence(chosen, ev, book, lang)  # "under $3 an hour … for 20 users": its rent
    if rent_of and ev.intent in ("which", "how_much", "other"):  # a recommendation: its rent is the budget's answer
        led.text = "**" + rent_of.rstrip("。.") + "**" + t("sentence.end", lang) + t("sentence.gap", lang) + led.text
    elif rent_of:  # "yes, 2× A100 fits" / "you need 4": then what they rent for
        led.text = led.text.rstrip() + t("sentence.gap", lang) + rent_of
    note = reference_note(ev, book, lang)  # "DPO …": what the sizing assumes about its reference model, after the verdict
    if note:
        led.text = led.text.rstrip() + t("sentence.gap", lang) + note
    if state.slots.model_assumed == "default" and ev.engines:  # engines compared with no model named
        led.text = t("acts.engine.default_model", lang, model=ev.model.name) + led.text
    if rl_note(ev, lang):  # "GRPO …": not modelled, said before anything else
        led.text = rl_note(ev, lang) + led.text
    if state.slots.model_assumed == "coding":  # no model named for a coding use: the answer is for the coding default
        led.text = t("lead.coding_default", lang, model=ev.model.name) + led.text
    before, after = training_lead.pinned_lines(ev, chosen, book, lang)  # a layout the user pinned: refused / slower
    led.text = (before + "\n\n" if before else "") + led.text + (t("sentence.gap", lang) + after if after else "")
    if ev.count_card and ev.count_card in led.text:
        led.text += t("sentence.gap", lang) + t("lead.count_card", lang, gpu=ev.count_card)
    users = ev.user_options
    if state.slots.offload and ev.offload is None and len(users) == 1 and users[0].fits and \
            users[0].layout.offload == "none" and not ev.workload.is_training:
        # "… on a 3090 with CPU offloading?" when the card holds it whole: no offload, said after the answer
        led.text += t("sentence.gap", lang) + t("lead.no_offload_needed", lang, name=opt_name(users[0], book))
    if state.slots.rack_text and (ev.user_options or top is not None):  # "half a rack of H100": its size asked first
        on = ev.user_options[0] if ev.user_options else top
        spec = load_catalog().gpu(on.gpu) if on else None
        per = spec.nvlink_domain if spec is not None and "rack" in spec.form_factor.lower() else None
        led.text = (t("lead.rack.part", lang, said=state.slots.rack_text, gpu=on.gpu_name if on else "", per=per) if per
                    else t("lead.rack", lang, said=state.slots.rack_text, gpu=on.gpu_name if on else "")) + led.text
    if state.slots.e2e_ms and not ev.workload.is_training:  # an end-to-end target: how it was read, before all else
        led.text = _e2e_read(state, book, lang) + led.text
    return led


def _e2e_read(state: DialogState, book: Book, lang: str) -> str:
    """'p95 latency under 2 s' read as a time per token: e2e / output tokens (dialog.load.e2e_tpot_ms)."""
    s = state.slots
    out = s.output_tokens or CHAT_OUTPUT_TOKENS
    ms = e2e_tpot_ms(s) or 0.0
    sec = (s.e2e_ms or 0.0) / 1000
    e2e = book.num("end-to-end latency you named", sec, "s", SRC_USER, decimals_for(sec))
    per = book.num("time per output token the end-to-end target allows (e2e / output tokens)", ms, "ms",
                   "end-to-end latency / output tokens", 1 if ms < 10 else 0)
    return t("lead.e2e", lang, said=s.e2e_text or "", e2e=e2e, out=out, ms=per)


def _lead_for(ev: Analysis, top: Option | None, state: DialogState, book: Book, lang: str) -> fs.Lead:
    intent = ev.intent
    users = ev.user_options
    asked = users[0] if len(users) == 1 else top  # the configuration a question about "it" is about
    cap = state.slots.capacity
    if ev.asks_kv_token and ev.model is not None:  # "how much KV cache per token?": that, first
        return figure_leads.kv_token_lead(ev, book, lang)
    if getattr(ev, "asks_kv_capacity", False) and asked is not None:  # "KV cache capacity in tokens on 2× H100?"
        led_pool = figure_leads.kv_capacity_lead(asked, ev, book, lang)
        if led_pool is not None:
            return led_pool
    plan_of = asked if asked is not None and asked.fits and asked.layout.planned is not None else None
    if ev.asks_plan and plan_of is not None:  # "what global batch and parallelism?": the plan, first
        return training_lead.plan_lead(plan_of, ev, book, lang)
    if ev.precision_runs:  # "FP8 instead of BF16: how much faster?": the run planned in each
        return training_lead.precision_lead(ev, book, lang)
    if ev.framework_runs:  # "Megatron, FSDP or DeepSpeed?": the run planned with each
        return training_lead.framework_lead(ev, book, lang)
    led_served = served_lead(ev, book, lang)  # "TP 8 or 2 × TP 4?", "FP8 or BF16, how fast?": each under the load
    if led_served is not None:
        return led_served
    if ev.variants:  # "LoRA vs QLoRA?", "8-bit KV cache worth it?": the settings' needs side by side
        typed = book.num("capacity you named", cap.value, cap.unit, SRC_USER, decimals_for(cap.value)) if cap else ""
        return variants_lead(ev, book, lang, Bytes.of(cap.value, "GiB") if cap is not None else None, typed)
    led_act = engines_lead(ev, book, lang)  # "vLLM or llama.cpp, which is faster here?": each engine's speed
    if led_act is None and ev.asks_why_count:  # "why does 70B need two GPUs?": the reason first
        led_act = why_count_lead(users[0] if len(users) == 1 else top or (users[0] if users else None), ev, book, lang)
    if led_act is not None:
        return led_act
    if (intent in ("feasibility", "claim", "what_if") or state.slots.device is not None) and cap is not None and not users:
        device = state.slots.device.name if state.slots.device is not None else ""
        return fs.memory_lead(ev, cap, top, book, lang, device)  # a laptop GPU or a Mac: its memory, whatever asked
    if intent == "explain" and ev.asks_need and not users and ev.need is not None:  # "需要多少显存？"
        return fs.need_lead(ev, top, book, lang)
    if ev.asks_need and users and ev.need is not None and intent in ("feasibility", "explain", "how_many"):
        # "70B 全参微调要多少显存，8 张 A800 够吗": the total first, then the verdict on the cards named
        then = _lead_for(replace(ev, asks_need=False), top, state, book, lang)
        then.text = fs.need_lead(ev, None, book, lang).text.rstrip() + t("sentence.gap", lang) + then.text
        return then
    if state.slots.unknown_gpus and not users and ev.need is not None:  # the card asked is not in the catalog
        return fs.unknown_card_lead(ev, list(state.slots.unknown_gpus), top, book, lang)
    if ev.asks_launch and asked is not None and asked.fits and asked.launch_hint:  # "启动命令怎么写": the line first
        first = _lead_for(replace(ev, asks_launch=False), top, state, book, lang)
        first.text = t("lead.launch", lang, name=opt_name(asked, book), line=asked.launch_hint) + "\n\n" + first.text
        return first
    if ev.asks_power and asked is not None:  # "what is the power draw and the electricity a year?"
        led_power = figure_leads.power_lead(asked, book, lang)
        if led_power is not None:
            return led_power
    if ev.asks_tokens_per_day and asked is not None:  # "how many tokens a day can it generate?"
        led_day = figure_leads.tokens_per_day_lead(asked, ev, book, lang)
        if led_day is not None:
            return led_day
    if ev.fabric is not None and asked is not None and asked.fits:  # "do I need InfiniBand?": 100 GbE run first
        first = fs.count_lead(asked, ev, book, lang)
        first.text = fabric_text(ev.fabric, opt_name(asked, book), opt_layout(asked, lang, book), book, lang) + \
            t("sentence.gap", lang) + first.text
        first.deciding = LINK_LEAD
        return first
    if ev.link is not None:  # "do I need NVLink for 70B on 4 GPUs?": yes / no / when, and why, first
        o = asked
        if o is not None and o.fits:
            first = fs.count_lead(o, ev, book, lang)
            first.text = link_text(ev.link, opt_name(o, book), book, lang) + t("sentence.gap", lang) + first.text
            first.deciding = LINK_LEAD
            return first
        if o is not None:  # the configuration does not hold the job: the card's own link first, then why
            ev_off = replace(ev, link=None)
            first = _lead_for(ev_off, top, state, book, lang)
            gpu = load_catalog().gpu(o.gpu)
            first.text = card_text(gpu, o.count, book, lang, sized=True) + t("sentence.gap", lang) + first.text
            first.deciding = LINK_LEAD
            return first
    if ev.asks_api and len(users) <= 1 and (users or top):  # "self-host or use an API?": the two prices first
        led_api = api_lead(users[0] if users else top, ev, book, lang, state.slots.tokens_per_day)  # type: ignore[arg-type]
        if led_api is not None:
            return led_api
    if ev.asks_token_cost and len(users) <= 1 and (users or top):  # "what does a million tokens cost on an L4?"
        led_cost = token_cost_lead(users[0] if users else top, ev, book, lang)  # type: ignore[arg-type]
        on = users[0] if users else top
        if led_cost is None and users and not users[0].fits:  # one card too small: the fewest of it that hold it
            led_cost, on = _token_cost_on_more(users[0], ev, book, lang)
        if led_cost is not None and on is not None:
            if state.slots.tokens_per_day:  # "1M tokens a day": what that volume costs, the cards idle the rest
                volume = volume_sentence(on, ev, book, lang, state.slots.tokens_per_day, ev.asks_monthly)
                led_cost.text = volume + t("sentence.gap", lang) + led_cost.text if volume else led_cost.text
            return led_cost
    if ev.asks_train_speed and len(users) <= 1:  # a training job's "tokens/s per GPU?" / "what MFU?": that, first
        o = users[0] if users else top
        if o is not None and o.fits and o.training is not None and o.training.tokens_per_s > 0:
            return training_lead.train_speed_lead(o, ev, book, lang)
    if getattr(ev, "asks_e2e", False) and not ev.workload.is_training and len(users) <= 1 and not ev.batch:
        led_e2e = load_lead.e2e_lead(users[0] if users else top, ev, book, lang)  # "how long does an answer take?"
        if led_e2e is not None:
            return led_e2e
    if getattr(ev, "batch", None) and len(users) <= 1:  # "summarise 1M documents: how long?": the job's time, first
        led_job = load_lead.batch_lead(users[0] if users else top, ev, book, lang)
        if led_job is not None:
            return led_job
    # the same configuration simulated twice or more, first: "from 50 to 100 users: how much slower?" (both loads),
    # "how does TTFT change with prompt length?" (a ladder of prompts), "does chunked prefill / speculative decoding
    # help?" (with and without); each lead is None unless its question was asked
    for with_without in (load_runs.load_change_lead, load_runs.load_ladder_lead, load_runs.ttft_ladder_lead,
                         load_runs.chunked_lead, load_runs.speculation_lead):
        led_twice = with_without(ev, book, lang)
        if led_twice is not None:  # on the cards as changed to hold the job: that change first ("With an FP8 KV cache: ")
            ran_on = [(getattr(ev, k, None) or {}).get("option") for k in ("chunked", "speculation")]
            if ev.changed_config is not None and ev.changed_config in ran_on:
                led_twice.text = load_lead.format_changed(ev, book, lang) + led_twice.text
            return led_twice
    if ev.asks_rps and len(users) <= 1:  # "how many requests per second can it handle?": the rate, first
        led_rps = load_lead.rps_lead(users[0] if users else top, ev, book, lang)
        if led_rps is not None:
            return led_rps
    # ev.asks_speed is only set for serving: "首 token 要多久" / "how long to the first token" asks the speed too
    if (ev.asks_full_load and ev.asks_speed and not ev.workload.is_training and len(users) <= 1
            and "concurrency" not in (ev.stated or ()) and intent not in ("compare", "claim", "how_much")
            and not ev.asks_batch):
        # "what's the max throughput on 8× H200?": the most sequences it holds and the tokens/s at that load
        led_full = load_lead.users_lead(users[0] if users else top, ev, book, lang)
        if led_full is not None:
            return _runs_first(led_full, ev, users, lang)
    # "the cheapest hardware that doesn't feel slow": the cheapest configuration first (its speed is in that sentence)
    if ev.asks_speed and intent not in ("compare", "claim", "how_much") and len(users) <= 1 and not ev.asks_users \
            and not (ev.asks_cheapest and not users) \
            and not (ev.asks_batch and ev.limits is not None and ev.limits.max_load > 0):  # "what batch size for max throughput?"
        o = users[0] if users else top  # "how many tokens per second on 2 H100s?": the speed, first
        if o is not None and o.fits and o.throughput is not None:
            if intent != "how_many":
                return _in_servers(_speed_lead(o, ev, book, lang), o, ev, book, lang)
            # "… TTFT under 500 ms for 30 users on H100s — how many GPUs?": the count first, then the speed there (the
            # count's sentence has named the cards, their layout and memory: not said twice)
            counted = _in_servers(fs.count_lead(o, ev, book, lang, goal=_count_goal(ev, book, lang)), o, ev, book, lang)
            counted.text += t("sentence.gap", lang) + _speed_lead(o, ev, book, lang, there=True).text
            return counted
    if ev.asks_batch and ev.limits is not None and len(users) == 1:  # "what batch size can I use on it?"
        led_batch = _batch_lead(ev, book, lang)
        if led_batch is not None:
            return led_batch
        if ev.limits.max_load <= 0:  # not even one sequence: the batch said first, then why and what would fit
            first = _lead_for(replace(ev, asks_batch=False, changed_limits=None), top, state, book, lang)
            first.text = _no_batch(ev, book, lang) + t("sentence.gap", lang) + first.text
            changed = ev.changed_limits
            led_changed = _batch_lead(replace(ev, limits=changed), book, lang) if changed is not None else None
            if led_changed is not None:  # then the batch the change that makes it fit holds ("With AWQ INT4 …")
                first.text += t("sentence.gap", lang) + load_lead.format_changed(ev, book, lang) + led_changed.text
            return first
    if ev.asks_context and ev.limits is not None and len(users) == 1:  # "what's the longest context on it?"
        led_ctx = _context_lead(ev, book, lang)
        changed_ctx = ev.changed_limits
        if led_ctx is not None and ev.limits.max_context <= 0 and changed_ctx is not None:
            # the weights alone do not fit: then the context the change that makes them fit holds ("With INT8 …")
            led_more = _context_lead(replace(ev, limits=changed_ctx), book, lang)
            if led_more is not None:
                led_ctx.text += t("sentence.gap", lang) + load_lead.format_changed(ev, book, lang) + led_more.text
        if led_ctx is not None:
            return led_ctx
    monthly = (getattr(ev, "budget_users", None) or {}).get("monthly")
    if monthly and intent not in ("compare", "claim"):  # "$25k a month: what can we get?": what the month's rent buys
        led_rent = load_lead.budget_users_lead(ev, book, lang)
        if led_rent is not None:
            return led_rent
    if len(users) == 1 and not users[0].fits:  # held only in another format: its users or its speed, first
        led_changed = changed_format_lead(ev, book, lang, users=intent == "how_many" and ev.asks_users)
        if led_changed is not None:
            return led_changed
    if intent == "how_many" and ev.asks_users and (users or top) is not None:  # "how many users can it serve?"
        led = load_lead.budget_users_lead(ev, book, lang) or load_lead.users_lead(users[0] if users else top, ev,
                                                                                   book, lang)
        if led is not None:
            return _runs_first(led, ev, users, lang)
    if intent == "how_many" and len(users) == 1 and users[0].fits:  # "how many H100s?": the count, first
        goal = deadline_goal(users[0], ev, book, lang)  # "… for 60 days?": the time it takes, within the deadline
        return _in_servers(fs.count_lead(users[0], ev, book, lang, goal=goal), users[0], ev, book, lang)
    same = next((x for x in [*ev.alternatives, *(ev.recommendation.options if ev.recommendation else [])]
                 if x.fits and users and x.gpu == users[0].gpu), None) if intent == "how_much" else None
    if same is not None and len(users) == 1 and not users[0].fits:
        # "how much is that?" when the named card alone does not hold the job: the price of the count of it that does
        led_price = purchase_lead.price_lead(same, ev, book, lang)
        if led_price is not None:
            led_price.text = t("lead.price_of_fitting", lang, one=opt_name(users[0], book), fits=opt_name(same, book)) \
                + led_price.text
            return led_price
    one_short = intent in ("how_long", "how_much") and len(users) == 1 and not users[0].fits
    timed = deadline_lead(users[0], top, ev, book, lang, state.slots.deadline_text) if len(users) == 1 and intent in (
        "feasibility", "claim", "what_if", "which", "other", "how_long") else None
    if timed is not None:  # "doable overnight on a 4090?": the deadline first, then the memory
        return timed
    copies = copies_lead(users[0], ev, book, lang) if len(users) == 1 else ""
    if copies:  # "8× H100 for 1,000 users: how many of these?": the copies that hold them, first
        return fs.Lead(copies, None, f"copies of {users[0].count}× {users[0].gpu_name}")
    if (intent in ("feasibility", "claim", "what_if", "how_many", "which", "other") and len(users) == 1) or one_short:
        # "how long on my one 4090?" when it does not fit there: that first, then what would
        led = fs.option_lead(users[0], ev, book, lang, one_card=True)
        led.verdict = led.verdict if intent == "feasibility" else None  # a verdict answers a feasibility question
        slow = slow_training(users[0], top, ev, book, lang)
        if slow:
            led.text += t("sentence.gap", lang) + slow
        return led
    if (intent == "compare" and len(users) >= 2) or (intent in ("feasibility",) and len(users) >= 2):
        led = fs.compare_lead(users, ev, book, lang)
        if intent == "feasibility":
            led.verdict = "yes" if any(u.fits for u in users) else "no"
        return led
    chosen = top or (users[0] if users else None)
    if chosen is None:
        over = _over_budget(ev, book, lang)
        text = over or _nothing_fits(ev, book, lang)
        return fs.Lead(text, "no" if intent == "feasibility" else None)
    if intent == "how_long":
        led = fs.time_lead(chosen, ev, book, lang)
        if led is not None and ev.asks_fits and chosen.fits:  # "要多久？显存够吗？": both, the time first
            need, usable = need_and_usable(chosen, book)
            led.text += t("sentence.gap", lang) + t("lead.fits_too", lang, need=need, usable=usable,
                                                    lay=opt_layout(chosen, lang, book))
            led.text, led.verdict = t("lead.yes", lang, text=_after_yes(led.text)), "yes"  # "能不能…？要多久？": yes, first
        if led is not None:
            others = [u for u in users if u is not chosen and u.fits and u.training and u.training.wall]
            if others:  # "How long on our 8×A100? Would 8×H100 be worth it?": the other named one's time too
                led.text += t("sentence.gap", lang) + fs.time_against(others[0], chosen, book, lang)
            return led
    if ev.asks_cheapest and intent in ("which", "how_much", "other"):
        led = purchase_lead.cheapest_lead(chosen, ev, book, lang)  # "the cheapest hardware for R1": the lowest purchase first
        if led is not None:
            return led
    if intent == "how_much":
        if ev.asks_fits and chosen is not None and not chosen.fits:  # "can X run it and what does it cost?": no
            return _lead_for(replace(ev, asks_fits=False, intent="feasibility"), top, state, book, lang)
        led = purchase_lead.price_lead(chosen, ev, book, lang)
        if led is not None and ev.asks_fits and chosen is not None:  # "… and what does it cost?": yes, then the price
            need, usable = need_and_usable(chosen, book)
            fits = t("lead.fits_too", lang, need=need, usable=usable, lay=opt_layout(chosen, lang, book))
            led.text, led.verdict = t("lead.yes", lang, text=_after_yes(fits) + t("sentence.gap", lang) + led.text), "yes"
        if led is not None:
            return led
    if intent == "explain":
        return fs.explain_lead(chosen, ev, book, lang)
    if intent == "how_many":
        return _in_servers(fs.count_lead(chosen, ev, book, lang), chosen, ev, book, lang)
    if intent == "feasibility":
        led = fs.count_lead(chosen, ev, book, lang)
        led.text = t("lead.yes", lang, text=led.text) if chosen.fits else led.text
        led.verdict = "yes" if chosen.fits else "no"
        return led
    return purchase_lead.which_lead(chosen, ev, book, lang)


def _runs_first(led: fs.Lead, ev: Analysis, users: list[Option], lang: str) -> fs.Lead:
    """"能跑满血 R1 吗？并发能到多少？": whether it runs, said before the users it serves, where both were asked of one
    configuration named that holds the job."""
    if ev.asks_fits and len(users) == 1 and users[0].fits:
        led.text = t("lead.users.runs", lang) + led.text
    return led


def _after_yes(text: str) -> str:
    """A sentence continued after "**Yes** —": its first word in lower case ("Yes — about 1.4 days", "Yes — the
    memory is enough"), unless it is a name or an acronym (its second letter is a capital: "GPU", "RTX")."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[0].isupper() and text[1].islower() else text


def _token_cost_on_more(named: Option, ev: Analysis, book: Book, lang: str) -> tuple[fs.Lead | None, Option | None]:
    """"Cost per million tokens of a 32B on an L4?" when one L4 cannot hold it: that first (need against usable),
    then the cost per token on the fewest cards of the same kind that fit (the recommender's own option)."""
    rec = ev.recommendation
    more = min((o for o in (rec.options if rec is not None else []) if o.gpu == named.gpu and o.fits),
               key=lambda o: o.count, default=None)
    led = token_cost_lead(more, ev, book, lang) if more is not None else None
    if more is None or led is None:
        return None, None
    need, usable = need_and_usable(named, book)
    led.text = t("token_cost.more_cards", lang, name=opt_name(named, book), model=ev.model.name, need=need,
                 usable=usable, more=opt_name(more, book)) + led.text
    return led, more


def _within_budget(text: str, o: Option | None, ev: Analysis, book: Book, lang: str) -> str:
    """"预算 50 万，训练 7B", "$20k budget for Mistral 7B": a budget the answer stays within is said before it, with
    what the configuration spends of it (advisor.recommend.prices.budget_price, the amount the recommender held
    against the budget); "" when no budget was said, the configuration is over it, unpriced or owned, or the lead
    already names the budget (over budget, the cards against a GPU budget)."""
    c = ev.constraints
    if c.budget is None or o is None or not o.fits or "existing" in o.labels or c.budget_covers == "gpus":
        return ""
    spent = budget_price(o, c.budget_covers)
    budget = book.money("budget", c.budget, c.currency, SRC_USER)
    if spent is None or spent > c.budget or budget in text:
        return ""
    cost = book.money(f"full purchase of {o.count}× {o.gpu_name} (GPUs and servers)", spent, c.currency,
                      "advisor.estimator.cost.estimate_tco")
    if cost in text:  # the lead says the purchase itself
        return t("lead.within_budget", lang, budget=budget)
    when = price_when(o, book, lang) if o.price is not None and o.price.as_of else "—"
    return t("lead.within_budget.spent", lang, budget=budget, spent=cost, when=when)


def _in_servers(led: fs.Lead, o: Option, ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """"How many servers / 几台": the count in servers first (advisor.conversation.render.scale_out), then the cards."""
    if ev.asks_servers and o.fits:
        head = servers_sentence(o, ev, book, lang)
        copies, each = copies_for_load(ev, o)
        if copies == 1:  # sized for memory: the servers the default per-token target would take, when more
            head += servers_at_default_target(o, ev, book, lang)
        if copies == 1 and (o.price or o.tco is not None) and "existing" not in o.labels:
            # a sales engineer's "how many servers and what will it cost": the purchase with its date beside the count
            head += t("sentence.gap", lang) + opt_purchase(o, book, lang) + t("sentence.end", lang)
        if copies > 1:  # the servers hold several copies of the configuration: each copy, not "you need" one of them
            need, usable = need_and_usable(o, book)
            whole = each == o.count  # else copies of one of its replica groups (scale_out.copy_unit)
            name = opt_name(o, book) if whole else f"{each}× {o.gpu_name}"
            lay = opt_layout(o, lang, book) if whole else group_label(o, lang)
            led.text = t("screen.servers.copies", lang, copies=book.count("copies of the deployment", copies, "copies",
                                                                        "computed: ⌈users / users within the target⌉"),
                         name=name, lay=lay, need=need, usable=usable)
        led.text = head + t("sentence.gap", lang) + led.text
    return led


def _context_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"What's the max context for X on one 4090?": the longest context that fits on the named configuration at the
    asked load (advisor.analysis.limits.config_limits: bisection over estimate_memory in CONTEXT_STEP steps up to the
    model's maximum), or that the model's whole context fits; None when the limits were not computed."""
    lim = ev.limits
    assert lim is not None
    o = lim.option
    name = opt_name(o, book)
    load = book.count("sequences at once" if not lim.training else "micro-batch", lim.load, "sequences", SRC_USER)
    cap = book.tokens("the model's maximum context", lim.context_cap, "catalog: max_position_embeddings", lang)
    if lim.max_context <= 0:
        return fs.Lead(t("lead.context.none", lang, name=name, load=load), "no", "longest context")
    if lim.max_context >= lim.context_cap:
        return fs.Lead(t("lead.context.all", lang, name=name, cap=cap, load=load), "yes", "longest context")
    longest = book.tokens(f"longest context on {o.count}× {o.gpu_name}", lim.max_context, SRC_MEMORY, lang)
    return fs.Lead(t("lead.context.max", lang, name=name, longest=longest, load=load, cap=cap), None, "longest context")


def _batch_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"What batch size can I use?": the largest micro-batch per GPU (training) or the most concurrent sequences
    (serving) that fit on the named configuration at the asked context (advisor.analysis.limits.config_limits,
    each a full estimate with the configuration's own layout); None when nothing fits (the no-fit lead says why)."""
    lim = ev.limits
    assert lim is not None
    if lim.max_load <= 0:
        return None
    o = lim.option
    where = f"{o.count}× {o.gpu_name}"
    ctx = book.tokens(f"tokens per sequence on {where}", lim.context, SRC_USER, lang)
    if lim.training:
        most = book.count(f"largest micro-batch per GPU on {where}", lim.max_load, "sequences", SRC_MEMORY)
        return fs.Lead(t("lead.batch.train", lang, name=opt_name(o, book), most=most, ctx=ctx,
                         task=task_label(ev.workload.task, lang), lay=opt_layout(o, lang, book)),
                       None, f"largest micro-batch per GPU on {where}")
    most = book.count(f"most concurrent sequences on {where}", lim.max_load, "sequences", SRC_MEMORY)
    text = t("lead.batch.serve_one" if lim.max_load == 1 else "lead.batch.serve", lang, name=opt_name(o, book),
             most=most, ctx=ctx, lay=opt_layout(o, lang, book))
    at = lim.at_max or {}
    if at.get("total"):  # "… for max throughput?": what that batch puts out (the decode roofline at that load)
        tot = book.num(f"decode tokens/s total at {lim.max_load} sequences on {where}", at["total"], "tokens/s",
                       SRC_THROUGHPUT, 0)
        per = book.num(f"decode tokens/s per sequence at {lim.max_load} sequences on {where}", at["per_seq"],
                       "tokens/s", SRC_THROUGHPUT, 1 if at["per_seq"] < 10 else 0)
        text = text.rstrip("。.") + t("screen.users.at_that_load", lang, tot=tot, per=per) + t("sentence.end", lang)
    return fs.Lead(text, None, f"most concurrent sequences on {where}")


def _no_batch(ev: Analysis, book: Book, lang: str) -> str:
    """"What batch size can I use?" when one sequence of the asked context does not fit: the batch size answered
    (none, not even 1) before the no-fit lead's shortfall."""
    lim = ev.limits
    assert lim is not None
    o = lim.option
    where = f"{o.count}× {o.gpu_name}"
    ctx = book.tokens(f"tokens per sequence on {where}", lim.context, SRC_USER, lang)
    key = "lead.batch.none_train" if lim.training else "lead.batch.none_serve"
    return t(key, lang, name=opt_name(o, book), ctx=ctx)


def _over_budget(ev: Analysis, book: Book, lang: str) -> str:
    """"Budget ¥500k, DeepSeek-R1 for 200 users": when the budget is what rules every configuration out, that first,
    with the budget that buys the cheapest configuration a buyer could be recommended (the recommender's change);
    "" otherwise."""
    rec, c = ev.recommendation, ev.constraints
    change = next((ch for ch in (rec.changes if rec else []) if ch.kind == "budget"), None)
    if change is None or c.budget is None:
        return ""
    budget = book.money("budget", c.budget, c.currency, SRC_USER)
    need = book.text(change.message_zh if lang == "zh" else change.message, "budget change", SRC_RECOMMEND)
    text = t("lead.over_budget", lang, budget=budget, model=ev.model.name, change=need)
    gpu = max((g for g in load_catalog().gpus if g.name in need), key=lambda g: len(g.name), default=None)
    price = unit_price(gpu, c.currency, c.condition) if gpu is not None else None
    if gpu is not None and price is not None and price.as_of:  # the card price that budget is worked from, dated
        text += t("sentence.gap", lang) + t("lead.over_budget.when", lang, gpu=gpu.name, when=price.as_of)
    return text


def _speed_lead(o: Option, ev: Analysis, book: Book, lang: str, *, there: bool = False) -> fs.Lead:
    """"How many tokens per second?": the decode speed per user and in total on the configuration (the roofline of
    advisor.estimator.throughput at the asked concurrency), then the memory it takes; what a rule says against it
    stays in the sentence. `there`: after a sentence that named the configuration (the count), the speed alone."""
    speed = _speed_with_tpot(o, book, lang) or opt_speed(o, book, lang, ev.workload)
    if there:
        return fs.Lead(t("lead.speed.there", lang, speed=speed, ttft=fs.ttft_text(o, book, lang),
                         verdict=against_target(o, ev, book, lang)),
                       None, f"decode tokens/s per sequence on {o.count}× {o.gpu_name}")
    need, usable = need_and_usable(o, book)
    missing = misses_but_rate(o, ev, lang)
    warn = t("screen.but", lang, missing=t("list.sep", lang).join(missing)) if missing else ""
    ttft = fs.ttft_text(o, book, lang, first=ev.asks_ttft)  # "what's the TTFT …?": the first-token time first, then the speed
    key = "lead.ttft_first" if ev.asks_ttft and ttft else "lead.speed"
    text = t(key, lang, speed=speed, name=opt_name(o, book), warn=warn, first=ttft,
             lay=opt_layout(o, lang, book), need=need, usable=usable, ttft=ttft,
             verdict=against_target(o, ev, book, lang))
    return fs.Lead(text, None, f"decode tokens/s per sequence on {o.count}× {o.gpu_name}")


def _count_goal(ev: Analysis, book: Book, lang: str) -> str:
    """The per-user target a count is for, said in the count's sentence ("You need 2× H20 for your target of 20
    tokens/s per user"); "" without a stated one."""
    ms, first = ev.constraints.max_ms_per_token, ev.constraints.max_ttft_ms
    if first is not None and ms is None:  # "p95 TTFT under 500 ms: how many L40S?"
        pct = ev.constraints.ttft_percentile
        ttft = book.latency("time to first token target", Seconds.of(first, "ms"), SRC_USER)
        return t("screen.count.goal_ttft", lang, ttft=ttft, pct=f"p{pct} " if pct and pct != 50 else "")
    if ms is None:
        return ""
    rate = book.num("per-user speed of the target", 1000.0 / ms, "tokens/s", SRC_USER, decimals_for(round(1000.0 / ms, 1)))
    return t("screen.count.goal", lang, rate=rate)


def _speed_with_tpot(o: Option, book: Book, lang: str) -> str | None:
    """The per-user speed with its time per output token beside it ("70 tokens/s per user (14 ms per token), 548
    tokens/s total": "time per output token?" is answered in its own unit), from the simulation at the asked load;
    None without one (the caller's plain speed then)."""
    tput, speed = o.throughput, user_speed(o, book)
    if tput is None or speed is None or tput.under_load is None or tput.under_load.tpot.s <= 0:
        return None
    tpot = t("screen.load.tpot", lang, tpot=book.duration(
        f"median time per output token at {tput.concurrency} users on {o.count}× {o.gpu_name}", tput.under_load.tpot,
        "ms", SRC_LOAD, 0))
    per, total = speed
    return t("speed.per_user" if per != total else "speed.one_user", lang, per=per + tpot, total=total)


def ttft_target_line(o: Option | None, ev: Analysis, book: Book, lang: str, *, said: bool = False) -> str:
    """A stated time-to-first-token target at one user (above one, the load sentence judges it on the simulation):
    the option's first-token time for the prompt its speed is given for, within or over the target ("" without a
    target, a fitting option or a first-token time); `said`: the lead gave that time already, only the verdict."""
    target = ev.constraints.max_ttft_ms
    if target is None or o is None or not o.fits or o.throughput is None or not o.throughput.ttft:
        return ""
    if (o.throughput.under_load is not None and ev.workload.concurrency > 1) or (ev.load or {}).get("concurrency", 0) > 1:
        return ""  # (a load the answer simulated, a request rate's or a batch's: its line judges the target)
    ttft = o.throughput.ttft_judged_at(ev.constraints.ttft_percentile)
    name = f"time to first token on {o.count}× {o.gpu_name}"
    value = book.latency(name, ttft, SRC_THROUGHPUT)
    goal = Seconds.of(target, "ms")
    wanted = book.latency("time to first token target", goal, SRC_USER)
    sized = o.sized_workload
    tokens = speed_workload(sized).prompt_tokens if sized is not None else None
    prompt = t("lead.ttft_target.prompt", lang, prompt=book.tokens("prompt tokens of the first-token time", tokens,
                                                                    SRC_THROUGHPUT, lang)) if tokens else ""
    key = "lead.ttft_target.met" if ttft.ms <= target else "lead.ttft_target.missed"
    return t(key + ("_short" if said else ""), lang, ttft=value, prompt=prompt, target=wanted)



def _nothing_fits(ev: Analysis, book: Book, lang: str) -> str:
    """No configuration within the constraints ("单卡能跑 Qwen3-235B-A22B 吗"): said with the job's memory need on
    one device, so the reader sees why (the need, unsharded, against the cards the constraints allow)."""
    if ev.need is None or ev.workload.is_training:
        return t("lead.nothing_fits", lang)
    c = ev.constraints
    if c.min_tokens_per_s is not None or c.max_ms_per_token is not None or c.max_ttft_ms is not None:
        said = []  # a speed target, not memory, may rule all out
        if c.max_ttft_ms is not None:
            said.append(t("lead.target.ttft", lang, ms=book.latency("first-token target", Seconds.of(c.max_ttft_ms, "ms"),
                                                                    SRC_USER)))
        if c.min_tokens_per_s is not None:
            said.append(t("lead.target.total", lang, rate=book.num("total throughput target", c.min_tokens_per_s,
                                                                  "tokens/s", SRC_USER, 0)))
        if c.max_ms_per_token is not None:
            said.append(t("lead.target.tpot", lang, ms=book.num("time per token target", c.max_ms_per_token, "ms",
                                                               SRC_USER, 1 if c.max_ms_per_token < 10 else 0)))
        return t("lead.nothing_meets", lang, model=ev.model.name, targets=t("list.sep", lang).join(said))
    fmt = format_label(fs.need_format(ev), lang)
    total = book.gib("total memory need (unsharded)", ev.need.per_gpu.total)
    return t("lead.nothing_fits_need", lang, model=ev.model.name, fmt=fmt, total=total)
