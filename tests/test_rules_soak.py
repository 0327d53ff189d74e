"""The rule engine in a long-running process: no session left behind, flat memory, same results, and a failure
that is shown (and repaired by a rebuild), never an answer without findings.

Before the fix, a request whose facts no rule reads left its durable session state behind (~0.4 MB each,
at most 1,024 per ruleset): after ~1,000 such requests every evaluation raised MemoryError.
"""

from __future__ import annotations

import pytest

from benchmarks.soak_rules import fresh_digests, soak
from rules import engine as engine_module
from rules.engine import RULESET, RuleEngineError, engine, evaluate

UNREAD = {"kind": "config", "gpu_id": "h100-sxm"}  # a fact no rule reads
SOAK_SESSIONS = 50_000  # ~30 s on one loaded core (615 µs a session); benchmarks/soak_rules.py runs 200,000


def _last_sid() -> str:
    eng = engine()
    sid = next(eng._sids)  # noqa: SLF001 - peek at the id counter: the last request used sid - 1
    return f"r{sid - 1}"


def test_unread_facts_leave_no_session_behind() -> None:
    assert evaluate(UNREAD) == []
    with pytest.raises(Exception, match="309|Could not get"):
        engine()._host.get_state(RULESET, _last_sid())  # noqa: SLF001


def test_thousands_of_unread_requests_keep_working() -> None:
    """More requests than durable's 1,024-state limit, each with facts no rule reads (failed at ~1,021)."""
    for _ in range(1_200):
        assert evaluate(UNREAD) == []
    assert [f.rule_id for f in evaluate({"kind": "workload", "task": "pretrain", "params": 1.2e11})] == \
        ["size-table-130b", "tier-beyond"]


def test_a_failed_evaluation_rebuilds_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """One failure: the engine is replaced and the request answered by the new one, with its findings."""
    old = engine()
    fails = iter([True])

    def flaky(self, facts):  # noqa: ANN001, ANN202
        if self is old and next(fails, False):
            raise RuleEngineError("rule evaluation failed: MemoryError()")
        return real(self, facts)

    real = engine_module.RuleEngine.hits
    monkeypatch.setattr(engine_module.RuleEngine, "hits", flaky)
    found = evaluate({"kind": "workload", "task": "pretrain", "params": 1.2e11})
    assert [f.rule_id for f in found] == ["size-table-130b", "tier-beyond"]
    assert engine() is not old and engine_module.HEALTH.rebuilds >= 1


def test_an_engine_that_keeps_failing_is_an_error_the_user_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self, facts):  # noqa: ANN001, ANN202
        raise RuleEngineError("rule evaluation failed: MemoryError()")

    monkeypatch.setattr(engine_module.RuleEngine, "hits", broken)
    with pytest.raises(RuleEngineError) as err:
        evaluate(UNREAD)
    assert "rules could not be checked; this answer is not validated" in str(err.value)
    assert "规则无法检查" in err.value.localized("zh")
    monkeypatch.undo()
    engine_module.check()
    assert [f.rule_id for f in evaluate({"kind": "workload", "task": "pretrain", "params": 1.2e11})] == \
        ["size-table-130b", "tier-beyond"]  # the rebuilt engine works


def test_soak_flat_memory_and_fresh_process_results() -> None:
    """50,000 mixed sessions (repeated scenarios, unread facts, ~1,000 distinct configurations) in this process:
    RSS grows < 10 % after warm-up, and every request's findings equal a fresh interpreter's."""
    evaluate(UNREAD)
    curve, seen = soak(SOAK_SESSIONS, 5_000)
    warm = curve[1][1]
    assert warm > 0
    growth = (curve[-1][1] - warm) / warm
    assert growth < 0.10, f"RSS grew {growth:.1%}: {curve}"
    fresh = fresh_digests(sorted(seen))
    assert {k: v for k, v in seen.items() if fresh[k] != v} == {}


def test_dialog_shows_the_failure_instead_of_an_unchecked_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat said "2× B200" without findings when the engine had failed; now it says the rules could not be
    checked, in the user's language."""
    from advisor.conversation.session import Conversation
    from advisor.recommend.recommender import clear_cache

    def broken(self, facts):  # noqa: ANN001, ANN202
        raise RuleEngineError("rule evaluation failed: MemoryError()")

    clear_cache()
    monkeypatch.setattr(engine_module.RuleEngine, "hits", broken)
    for text, expected in [("serve Qwen2.5-72B to 50 users with 8k context", "this answer is not validated"),
                           ("用 Qwen2.5-72B 服务 50 个用户，8k 上下文", "规则无法检查")]:
        reply = Conversation(driver="deterministic").respond(text)
        assert expected in reply.answer, reply.answer
        assert "B200" not in reply.answer and "A6000" not in reply.answer and not reply.options


def test_readiness_fails_when_the_rules_cannot_evaluate(monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.server.combined import readiness

    assert readiness()[0] == 200 and readiness()[1]["ready"] is True

    def broken(self, facts):  # noqa: ANN001, ANN202
        raise RuleEngineError("rule evaluation failed: MemoryError()")

    monkeypatch.setattr(engine_module.RuleEngine, "hits", broken)
    status, body = readiness()
    assert status == 503 and body["ready"] is False and "not validated" in body["error"]
