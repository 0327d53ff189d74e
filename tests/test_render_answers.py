"""What a chat answer shows on its first screen (issues 29 and 30), in English and Chinese, checked against the
numbers of the analysis the answer was built from (captured from `advisor.analysis.evaluate.analyse`):

- "Serve X to N users": TTFT, per-user speed and total at that load, and the largest concurrency meeting the TPOT
  target (the stated one, else the recommender's interactivity target), with units;
- the first line: the full purchase (cards and servers) and the 3-year TCO of the lead option, owned cards costed
  by their running cost only;
- findings under their rules' titles, never rule ids, claim ids or guide ids (the JSON keeps the rule ids);
- a training time computed from the default token count says the default, and the one question after it does not
  claim the time cannot be estimated.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.analysis import evaluate
from advisor.conversation.dialog import turn as dialog_turn
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.session import Conversation
from advisor.recommend.rank import INTERACTIVE_MS_PER_TOKEN
from advisor.recommend.results import money
from knowledge.structs import replace
from rules.titles import rule_title


def _ask(monkeypatch: pytest.MonkeyPatch, text: str, **constraints: Any) -> tuple[Any, Any]:
    """(turn, analysis) of one question; `constraints` are set on the analysis request (the reader's part)."""
    seen: list[Any] = []

    def capture(request: Any, *a: Any, **k: Any) -> Any:
        if constraints:
            request = replace(request, constraints=replace(request.constraints, **constraints))
        ev = evaluate.analyse(request, *a, **k)
        seen.append(ev)
        return ev

    monkeypatch.setattr(dialog_turn, "analyse", capture)
    turn = Conversation().respond(text)
    assert seen, turn.answer
    return turn, seen[-1]


def _screen(turn: Any) -> str:
    return fs.split_details(turn.answer)[0]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms"


def _tps(v: float) -> str:
    return f"{v:.1f} tokens/s" if v < 10 else f"{v:.0f} tokens/s"


SERVE = [("en", "Serve Llama-3.1-70B to about 40 concurrent users with 8k context — which GPUs, how many?"),
         ("zh", "用 Llama-3.1-8B 在一张 H100 上给 50 个用户提供服务，速度怎么样？")]


@pytest.mark.parametrize("lang,text", SERVE)
def test_serving_at_a_stated_load_shows_ttft_speed_and_the_concurrency_limit(monkeypatch, lang, text):
    turn, ev = _ask(monkeypatch, text)
    load = ev.load
    assert load is not None and load["concurrency"] == ev.workload.concurrency > 1
    screen = _screen(turn)
    assert _ms(load["ttft_s"]) in screen and _tps(load["per_user_tokens_per_s"]) in screen, screen
    assert f"{load['total_tokens_per_s']:.0f} tokens/s" in screen
    # the default target is the recommender's interactivity target, one figure
    assert load["target"] == {"tpot_s": pytest.approx(INTERACTIVE_MS_PER_TOKEN / 1000)}
    assert f"{INTERACTIVE_MS_PER_TOKEN:.0f} ms" in screen
    limit = load["max_concurrency_for_target"]
    assert limit and (f"at most {limit} concurrent users" in screen if lang == "en" else f"最多 {limit} 路并发" in screen)
    # consistency of the simulated figures: the stated load meets the target exactly when it is within the limit
    assert (load["tpot_s"] <= load["target"]["tpot_s"]) == (load["concurrency"] <= limit) or load["limit_bound"] == "memory"
    word = "default interactivity target" if lang == "en" else "默认交互目标"
    assert word in screen
    assert ("median" if lang == "en" else "中位数") in screen


@pytest.mark.parametrize("lang,text,ms", [(*SERVE[0], 30.0), (*SERVE[1], 15.0)])
def test_a_stated_tpot_target_sets_the_limit(monkeypatch, lang, text, ms):
    turn, ev = _ask(monkeypatch, text, max_ms_per_token=ms)
    load = ev.load
    assert load is not None and load["target"] == {"tpot_s": pytest.approx(ms / 1000)}
    screen = _screen(turn)
    assert f"{ms:.0f} ms" in screen and ("your target" if lang == "en" else "您的目标") in screen, screen
    limit = load["max_concurrency_for_target"]
    if limit:
        assert str(limit) in screen
        again = _ask(monkeypatch, text)[1]
        # the configuration includes its layout: a tighter target may take larger TP groups on the same cards
        same = [(o.gpu, o.count, o.layout.tp, o.layout.pp) for o in again.recommendation.options[:1]] == \
            [(o.gpu, o.count, o.layout.tp, o.layout.pp) for o in ev.recommendation.options[:1]]
        if same:  # on the same configuration a tighter target never allows more users
            assert limit <= again.load["max_concurrency_for_target"]
    else:
        assert ("not even one user" if lang == "en" else "即使只有 1 路") in screen


def _first_line(turn: Any) -> str:
    return turn.answer.strip().splitlines()[0]


@pytest.mark.parametrize("lang,text", [
    ("en", "Serve Llama-3.1-70B to about 40 concurrent users with 8k context — which GPUs, how many, what will it cost?"),
    ("zh", "用 Llama-3.1-8B 给 50 个用户提供服务，需要什么显卡？多少钱？"),
    ("en", "How much does it cost to serve Qwen2.5-32B to 10 users?"),
])
def test_first_line_gives_the_full_purchase_and_the_tco(monkeypatch, lang, text):
    turn, ev = _ask(monkeypatch, text)
    top = ev.recommendation.options[0]
    t = top.tco.to_contract()
    first = _first_line(turn)
    total, gpus, rest = (t["purchase"][k] for k in ("total", "gpus", "rest_of_system"))
    cur = total["currency"]
    for amount in (total["amount"], gpus["amount"], rest["amount"], t["tco"]["amount"]):
        assert money(float(amount), cur) in first, first
    assert ev.recommendation.lead_summary(lang) in first  # the same words as the recommendation's own summary
    # hand arithmetic on the printed figures: cards + servers = the purchase, and the TCO is not below it
    shown = [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+)", first)]
    assert abs(shown[1] + shown[2] - shown[0]) <= 1 and shown[3] >= shown[0], first
    assert ("3-year TCO" if lang == "en" else "3 年总拥有成本") in first


@pytest.mark.parametrize("lang,text", [
    ("en", "We have 2 RTX 4090. Serve Qwen2.5-7B to 8 users, what does it cost us?"),
    ("zh", "我们有 2 张 4090，给 8 个用户部署 Qwen2.5-7B，要花多少钱？"),
])
def test_owned_cards_are_costed_by_power_and_operation(monkeypatch, lang, text):
    turn, ev = _ask(monkeypatch, text)
    own = next(o for o in ev.user_options if "existing" in o.labels)
    first = _first_line(turn)
    run = money(own.tco.tco.amount, own.tco.tco.currency)
    assert run in first, first
    assert ("nothing to buy" if lang == "en" else "无需购买") in first
    assert ("to buy" if lang == "en" else "整机采购") not in first.replace("nothing to buy", "")
    price = money(float(own.price.per_card.amount) * own.count, own.price.per_card.currency)
    assert price not in first  # the cards are not bought again


RULE_ID = re.compile(r"\[(?:cap|risk|size-table|sizing|market|sub|value|tier|practice|claim)-[a-z0-9-]+\]")


@pytest.mark.parametrize("lang,text", [
    ("en", "Serve Llama-3.1-70B to about 40 concurrent users with 8k context"),
    ("zh", "用 Llama-3.1-8B 给 50 个用户提供服务，需要什么显卡？"),
    ("en", "A guide says a 70B model at 4-bit needs only 28 GB, so one RTX 5090 is enough, right?"),
    ("zh", "指南说 4090 的 FP16 算力是 82.6 TFLOPS，对吗？"),
])
def test_findings_by_title_never_by_id(monkeypatch, lang, text):
    turn = Conversation().respond(text)
    assert turn.findings, turn.answer
    assert not RULE_ID.search(turn.answer), RULE_ID.search(turn.answer)
    assert not re.search(r"guide-0\d\d|Guide-0\d\d", turn.answer)
    for f in turn.findings:
        assert f.rule_id not in turn.answer, f.rule_id
    shown = [f for f in turn.findings if rule_title(f.rule_id, lang) in turn.answer]
    assert shown, turn.answer  # the findings listed carry their titles
    contract = turn.to_contract()
    assert {f["rule_id"] for f in contract["findings"]} == {f.rule_id for f in turn.findings}  # the JSON keeps ids


@pytest.mark.parametrize("lang,text", [
    ("en", "How long does it take to fine-tune Llama-3.1-8B with LoRA on one H100?"),
    ("zh", "我有 2 张 4090，LoRA 微调 Qwen2.5-7B 要多久？"),
])
def test_training_time_from_the_default_tokens_says_so(monkeypatch, lang, text):
    from advisor.recommend.search import default_train_tokens

    turn, ev = _ask(monkeypatch, text)
    assert ev.workload.train_tokens is None
    screen = _screen(turn)
    tokens = default_train_tokens(ev.model, ev.workload)
    assert tokens == 1e8  # fine-tuning's default budget
    lead = fs.first_sentences(turn.answer, 1)
    assert ("100 M tokens" if lang == "en" else "1 亿 tokens") in lead and ("default" if lang == "en" else "默认") in lead, lead
    opt = next(o for o in ev.user_options if o.training)
    wall = opt.training.wall.s  # under a day the time is given in hours (options_table.opt_days)
    assert (f"{wall / 3600:.1f}" if 3600 <= wall < 86400 else f"{wall / 86400:.1f}") in lead
    assert len(turn.questions) <= 1
    assert "With it I can estimate the training time" not in screen and "才能估算训练时间" not in screen
    if turn.questions:
        q = turn.questions[0]
        if "token" in q:  # the data-size question says the time above used the default
            assert ("100 M tokens" if lang == "en" else "1 亿 tokens") in q and ("above" if lang == "en" else "上面的训练时间") in q


def test_training_time_for_stated_tokens_has_no_default_note(monkeypatch):
    turn, ev = _ask(monkeypatch, "How long does it take to fine-tune Llama-3.1-8B with LoRA on one H100 on 500M tokens?")
    assert ev.workload.train_tokens == 5e8
    screen = _screen(turn)
    assert "(default)" not in screen and "the default 100 M" not in screen
    assert "500 M tokens" in screen
    assert not any("training tokens" in q for q in turn.questions)
