"""The recommender's `Option` has typed parts (advisor.recommend.parts): a dict-shaped or misspelt part is refused
with the project's one-line StructError, and the JSON contract of each part reads back into the same part.

The contracts' shapes are checked against DESIGN.md's key lists and the keys a client of `recommend --json` reads
(the planner's Megatron layout, llama.cpp's `-ngl` split); that they are byte-identical to the dict-built parts of
before is checked by `benchmarks/json_regression.py` (52 CLI runs and the conversation sets, diffed)."""

from __future__ import annotations

import json

import msgspec
import pytest

from advisor.estimator.results import Breakdown
from advisor.recommend.parts import Margin, OptionLayout, UnitPrice
from advisor.recommend.recommender import Option, recommend
from advisor.workload import Constraints, Workload
from knowledge.errors import InputError
from knowledge.quantities import Bytes, Money
from knowledge.structs import StructError

BASE = {"gpu": "h100-sxm", "gpu_name": "H100 SXM", "count": 1, "per_gpu": Breakdown(overhead=1), "capacity": Bytes(2),
        "usable": Bytes(2), "headroom_ratio": 0.5, "fits": True}
LAYOUT_KEYS = ["tp", "pp", "dp", "zero", "offload", "engine", "weights", "kv", "recompute"]
PRICE_KEYS = ["amount", "currency", "as_of", "condition", "reliability", "kind", "source", "end_of_life"]


def _one_line(exc: pytest.ExceptionInfo[StructError]) -> str:
    text = str(exc.value)
    assert isinstance(exc.value, InputError) and "\n" not in text and "Traceback" not in text
    return text


def test_an_unknown_layout_key_is_refused_in_one_line() -> None:
    with pytest.raises(StructError) as exc:
        Option(**BASE, layout={"tp": 1, "pp": 1, "ngls": 40})  # a misspelt llama.cpp key
    assert "ngls" in _one_line(exc)


def test_a_flat_offload_key_is_not_a_layout_field() -> None:
    """The contract's one `offload` key is two fields in the struct: ZeRO's optimizer offload and llama.cpp layers."""
    with pytest.raises(StructError) as exc:
        Option(**BASE, layout={"tp": 1, "pp": 1, "offload": "layers"})
    assert "offload" in _one_line(exc)
    with pytest.raises(StructError) as exc:
        OptionLayout(tp=1, pp=1, zero_offload="layers")  # type: ignore[arg-type]
    assert "zero_offload" in _one_line(exc)


def test_a_price_without_a_currency_is_refused() -> None:
    with pytest.raises(StructError) as exc:
        Option(**BASE, layout={"tp": 1, "pp": 1}, price={"amount": 30000, "as_of": "2025-06-01"})
    assert "price" in _one_line(exc)
    with pytest.raises(StructError) as exc:
        UnitPrice.from_contract({"amount": 30000, "as_of": "2025-06-01", "kind": "street", "source": "x",
                                 "condition": "street", "reliability": "high"})
    assert "currency" in _one_line(exc)


def test_money_takes_only_the_catalogs_currencies_and_finite_amounts() -> None:
    assert str(Money(amount=138621.4, currency="USD")) == "$138,621 USD"
    with pytest.raises(StructError) as exc:
        Money(amount=1.0, currency="EUR")  # type: ignore[arg-type]
    assert "USD" in _one_line(exc) and "CNY" in str(exc.value)
    with pytest.raises(StructError):
        Money(amount=float("nan"), currency="USD")


def test_margin_keys_follow_near_capacity() -> None:
    roomy = Margin(used=Bytes(50), usable=Bytes(100), share=0.5, near_capacity=False)
    assert list(roomy.to_contract()) == ["used_bytes", "usable_bytes", "share", "near_capacity"]
    tight = Margin(used=Bytes(97), usable=Bytes(100), share=0.97, near_capacity=True, max_context=4096,
                   max_concurrency=None, context=2048, concurrency=8)
    assert tight.to_contract()["max_context"] == 4096 and tight.to_contract()["max_concurrency"] is None


def _options(rec: object) -> list[Option]:
    return [*rec.options, *rec.closest]  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def kinds() -> dict[str, Option]:
    """One option of each layout kind from real recommendations."""
    serving = recommend(Workload(model="llama-3-70b", concurrency=8), Constraints())
    planned = recommend(Workload(model="llama-3-8b", task="full", train_tokens=1e9), Constraints(deadline_s=3 * 86400))
    offload = recommend(Workload(model="llama-3.1-70b"),
                        Constraints(candidates=("rtx-4090",), max_gpus_per_node=1, max_nodes=1))
    zero = recommend(Workload(model="llama-3-8b", task="full", offload="optimizer", zero=2), Constraints())
    return {
        "tensor_parallel": next(o for o in _options(serving) if o.layout.tp > 1),
        "megatron": next(o for o in _options(planned) if o.layout.engine == "megatron"),
        "layers": next(o for o in _options(offload) if o.layout.layer_offload is not None),
        "optimizer": next(o for o in _options(zero) if o.layout.zero_offload == "optimizer"),
    }


def test_each_layout_kind_has_the_documented_keys(kinds: dict[str, Option]) -> None:
    planner = ["ep", "cp", "recompute_layers", "micro_batch", "grad_accum", "global_batch_tokens", "vpp", "summary"]
    serving = [*LAYOUT_KEYS[:3], "replicas", *LAYOUT_KEYS[3:]]  # a serving layout says its replicas (= dp)
    expected = {"tensor_parallel": serving, "optimizer": LAYOUT_KEYS, "megatron": LAYOUT_KEYS + planner,
                "layers": [*serving, "ngl", "cpu_layers", "system_ram_bytes"]}
    for kind, opt in kinds.items():
        layout = opt.to_contract()["layout"]
        assert list(layout) == expected[kind], kind
    assert kinds["layers"].to_contract()["layout"]["offload"] == "layers"
    assert kinds["optimizer"].to_contract()["layout"]["offload"] == "optimizer"
    assert kinds["megatron"].to_contract()["layout"]["offload"] == "none"


def test_the_contract_reads_back_into_the_same_parts(kinds: dict[str, Option]) -> None:
    for kind, opt in kinds.items():
        data = json.loads(json.dumps(opt.to_contract()))  # what a client of `recommend --json` reads
        assert OptionLayout.from_contract(data["layout"]) == opt.layout, kind
        assert data["layout"] == opt.layout.to_contract()
        if opt.price is not None:
            assert list(data["price"]) == PRICE_KEYS
            assert UnitPrice.from_contract(data["price"]) == opt.price, kind
        if opt.margin is not None:
            assert Margin.from_contract(data["margin"]) == opt.margin
        else:
            assert data["margin"] == {}


def test_the_tco_contract_is_the_estimators_plus_its_basis(kinds: dict[str, Option]) -> None:
    """An option's TCO keeps the estimator's contract keys in their order (advisor.estimator.cost), then `basis`."""
    from advisor.estimator.calibration import load_economics
    from advisor.estimator.cost import estimate_tco
    from knowledge.catalog import load_catalog

    opt = kinds["tensor_parallel"]
    assert opt.tco is not None and opt.tco.basis == "serving_horizon"
    estimator = estimate_tco(load_catalog().gpu(opt.gpu), opt.count, load_economics()).to_contract()
    data = json.loads(json.dumps(opt.to_contract()))["tco"]
    assert list(data) == [*estimator, "basis"]
    assert data["tco"] == opt.tco.tco.to_contract() and data["purchase"]["total"]["currency"] == opt.tco.currency


def test_owned_cards_running_a_job_say_its_hours_last() -> None:
    from advisor.recommend.recommender import evaluate_configs
    from advisor.workload import ExistingGpus

    w = Workload(model="qwen2.5-7b", task="lora", context=4096)
    c = Constraints(existing=ExistingGpus(gpu="rtx-3090", count=2), currency="USD")
    own = evaluate_configs(w, [("rtx-3090", 2)], c)[0]
    assert own.tco is not None and own.tco.basis == "owned" and own.tco.purchase.total is None
    data = own.to_contract()["tco"]
    assert list(data)[-2:] == ["basis", "job_hours"] and data["job_hours"] == own.training.wall.hours


def test_a_training_time_has_the_six_keys_and_the_planners_five(kinds: dict[str, Option]) -> None:
    run = ["tokens", "tokens_per_s", "wall_s", "gpu_hours", "mfu", "mfu_basis"]
    planner = ["step_wall_s", "step_gpu_hours", "goodput", "bubble_fraction", "layout"]
    planned = kinds["megatron"]
    assert planned.training is not None and planned.training.planned is not None and not planned.throughput
    assert list(planned.to_contract()["throughput"]) == run + planner
    lora = recommend(Workload(model="qwen2.5-7b", task="lora", context=4096), Constraints()).options[0]
    assert lora.training is not None and lora.training.planned is None
    assert list(lora.to_contract()["throughput"]) == run
    serving = kinds["tensor_parallel"]
    assert serving.training is None and serving.to_contract()["throughput"] == serving.throughput.to_contract()
    with pytest.raises(StructError) as exc:
        Option(**BASE, layout={"tp": 1, "pp": 1}, training={**msgspec.structs.asdict(lora.training), "mfu_basis": "guessed"})
    assert "mfu_basis" in _one_line(exc)
