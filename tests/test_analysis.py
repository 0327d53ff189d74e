"""advisor.analysis called directly (no dialog): the typed result of `analyse`, checked against the estimator and
recommender called directly; and the agent's `recommend` tool and the dialog's analysis giving the same options."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.analysis.evaluate import analyse
from advisor.analysis.request import AnalysisRequest, NamedConfig, QuotedClaim
from advisor.analysis.result import Analysis, top_option
from advisor.conversation.dialog.analysis_request import analysis_request
from advisor.conversation.dialog.machine import DialogState, build_constraints, build_workload
from advisor.conversation.reader.extract import Slots
from advisor.conversation.tools.registry import call_tool
from advisor.estimator.memory import estimate_memory
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.catalog import load_catalog
from knowledge.structs import dump, validate


@pytest.fixture(scope="module")
def catalog() -> Any:
    return load_catalog()


def _analyse(catalog: Any, workload: Workload, constraints: Constraints | None = None, **request: Any) -> Analysis:
    req = AnalysisRequest(workload=workload, constraints=constraints or Constraints(), **request)
    return analyse(req, catalog)


def test_serving_question_need_options_and_capacity(catalog: Any) -> None:
    workload = Workload(model="qwen2.5-7b", context=8192, concurrency=4)
    steps: list[Any] = []
    ev = analyse(AnalysisRequest(workload=workload, constraints=Constraints(), intent="feasibility"), catalog, steps)
    model = catalog.model("qwen2.5-7b")
    assert ev.model.id == model.id and ev.intent == "feasibility"
    assert ev.need is not None
    assert ev.need.per_gpu.total.n == estimate_memory(model, workload).per_gpu.total.n
    assert ev.recommendation is not None and ev.recommendation.options
    top = top_option(ev)
    assert top is ev.recommendation.options[0] and top.fits
    assert ev.user_options == [] and ev.limits is None and ev.claim is None
    # no concurrency said: each fitting option's capacity at full load, at least the asked load
    assert (top.gpu, top.count) in ev.capacity
    assert ev.capacity[(top.gpu, top.count)]["max_concurrency"] >= workload.concurrency
    assert [s.name for s in steps][:2] == ["estimate_memory", "recommend"]
    given = _analyse(catalog, workload, concurrency_given=True)
    assert given.capacity == {}


def test_lora_on_owned_gpus(catalog: Any) -> None:
    gpu = catalog.gpu("rtx 4090")
    workload = Workload(model="qwen2.5-7b", task="lora", context=2048)
    ev = _analyse(catalog, workload, Constraints(existing=ExistingGpus(gpu=gpu.id, count=2)),
                  named=(NamedConfig(gpu=gpu.id, count=2, role="existing"),))
    assert len(ev.user_options) == 1
    own = ev.user_options[0]
    assert (own.gpu, own.count) == (gpu.id, 2) and "existing" in own.labels
    sized = own.sized_workload
    assert sized is not None
    assert own.per_gpu.total.n == estimate_memory(catalog.model("qwen2.5-7b"), sized, gpu).per_gpu.total.n
    assert ev.limits is not None and ev.limits.option is own and ev.limits.training
    assert ev.limits.context == 2048 and ev.limits.context_cap >= 2048
    if own.fits:
        assert ev.limits.max_context >= 2048 and ev.limits.max_load >= ev.limits.load >= 1
    assert top_option(ev) is (own if own.fits else None)


def test_named_candidate_without_a_count_takes_the_searchs_count(catalog: Any) -> None:
    workload = Workload(model="llama-3.1-70b", context=4096)
    ev = _analyse(catalog, workload, Constraints(candidates=("h100-sxm",)),
                  named=(NamedConfig(gpu="h100-sxm", role="candidate"),))
    assert ev.recommendation is not None
    searched = next(o for o in ev.recommendation.options + ev.recommendation.closest if o.gpu == "h100-sxm")
    assert [(o.gpu, o.count) for o in ev.user_options] == [("h100-sxm", searched.count)]
    assert "candidate" in ev.user_options[0].labels
    assert ev.limits is not None and ev.limits.option is ev.user_options[0]
    assert ev.limits.max_context >= 4096  # the recommender's count holds the asked context


def test_quoted_claim_checked_against_the_estimator(catalog: Any) -> None:
    workload = Workload(model="llama-3.1-70b", weights="int4", context=4096)
    claim = QuotedClaim(text="70B 4bit 只要 28GB", value=28.0, unit="GB", bytes_if_gib=28 * 2**30)
    ev = _analyse(catalog, workload, claim=claim)
    assert ev.claim is not None and ev.claim.claim == claim
    one = validate(Workload, {**dump(workload), "gpus": 1, "tp": 1, "pp": 1, "concurrency": 1, "batch": 1})
    mem = estimate_memory(catalog.model("llama-3.1-70b"), one)
    assert ev.claim.weights == mem.per_gpu.weights and ev.claim.total == mem.per_gpu.total
    assert ev.claim.fmt == "int4" and ev.claim.context == 4096
    assert ev.claim.verdict == ("too_low" if claim.bytes_if_gib < mem.per_gpu.weights.n else "weights_only")
    assert all(f in ev.findings for f in ev.claim.findings)


# the same workload and constraints asked of the dialog (slots → request → analyse) and of the agent's tool
SAME = [
    {"model": "qwen2.5-32b", "task": "inference", "concurrency": 16, "context": 8192},
    {"model": "qwen2.5-7b", "task": "lora"},
    {"model": "llama-3.1-70b", "task": "qlora"},
    {"model": "llama-3.1-8b", "task": "full", "train_tokens": 1e9},
    {"model": "qwen2.5-7b", "task": "pretrain", "train_tokens": 1e11, "deadline_s": 30 * 86400},
    {"model": "qwen2.5-72b", "task": "inference", "region": "cn", "budget": 500_000, "currency": "CNY"},
]


def _tool_args(workload: Workload, constraints: Constraints) -> dict[str, Any]:
    args = dump(workload, json=True, exclude_defaults=True) | {"model": workload.model}
    c = dump(constraints, json=True, exclude_defaults=True)
    args |= {k: c[k] for k in ("budget", "currency", "region", "deadline_s", "candidates") if k in c}
    return args


def _row(o: Any) -> tuple[Any, ...]:
    contract = o if isinstance(o, dict) else o.to_contract()
    return (contract["gpu"], contract["count"], contract["layout"], contract["per_gpu_bytes"]["total"],
            contract["throughput"])


@pytest.mark.parametrize("said", SAME, ids=[f"{s['model']}-{s['task']}" + ("-cn" if "region" in s else "") for s in SAME])
def test_recommend_tool_and_dialog_give_the_same_options(catalog: Any, said: dict[str, Any]) -> None:
    state = DialogState(slots=Slots(**said))
    workload, _ = build_workload(state)
    constraints, _ = build_constraints(state, "en")
    assert workload is not None
    ev = analyse(analysis_request(state, workload, constraints), catalog)
    assert ev.recommendation is not None
    result = call_tool("recommend", _tool_args(workload, constraints) | {"top": 3})
    assert result.ok, result.error
    dialog_rows = [_row(o) for o in (ev.recommendation.options or ev.recommendation.closest)[:3]]
    assert [_row(o) for o in result.artifact["options"]] == dialog_rows
    assert dialog_rows
