"""`Option.to_contract()["sized_workload"]`: the Workload an option's memory was sized with, as JSON. A client
that passes it to `estimate_memory` with the option's GPU gets the option's per-GPU total back (the web app redraws
its plots from these fields instead of reading "TP 2 × PP 2" text)."""

from __future__ import annotations

import json

from advisor.estimator.memory import estimate_memory
from advisor.estimator.results import Breakdown
from advisor.recommend.recommender import Option, evaluate_configs, findings_contract, recommend
from advisor.workload import Constraints, Workload
from knowledge.catalog import load_catalog
from knowledge.quantities import Bytes
from knowledge.structs import validate

CAT = load_catalog()


def _reproduced_total(contract: dict[str, object]) -> int:
    """The per-GPU total `estimate_memory` gives for the contract's own sized workload and GPU."""
    data = json.loads(json.dumps(contract))  # what a client of `recommend --json` reads
    sized = validate(Workload, data["sized_workload"])
    return estimate_memory(CAT.model(str(sized.model)), sized, CAT.gpu(data["gpu"])).per_gpu.total.n


def test_an_inference_option_with_tensor_parallelism_reproduces_its_memory() -> None:
    rec = recommend(Workload(model="llama-3.1-70b", concurrency=4), Constraints(candidates=("h100-sxm", "l40s")))
    tp = [o.to_contract() for o in rec.options if o.layout.tp > 1]
    assert tp, "a 70B model in BF16 needs tensor parallelism on 80 GB and 48 GB cards"
    for opt in tp:
        sized = opt["sized_workload"]
        assert (sized["tp"], sized["pp"], sized["nodes"]) == (opt["layout"]["tp"], opt["layout"]["pp"], opt["nodes"])
        assert sized["gpus"] * sized["nodes"] == opt["count"]
        assert _reproduced_total(opt) == opt["per_gpu_bytes"]["total"]


def test_a_training_option_with_zero_reproduces_its_memory() -> None:
    rec = recommend(Workload(model="llama-3.1-70b", task="lora", train_tokens=2e9),
                    Constraints(candidates=("a100-80g-sxm", "rtx-6000-ada")))
    zero = [o.to_contract() for o in rec.options if o.layout.zero > 0]
    assert zero, "LoRA on a 70B base shards the frozen weights with ZeRO-3 across several cards"
    for opt in zero:
        assert opt["sized_workload"]["zero"] == opt["layout"]["zero"] and opt["sized_workload"]["task"] == "lora"
        assert _reproduced_total(opt) == opt["per_gpu_bytes"]["total"]


def test_a_named_configuration_carries_its_sized_workload_fitting_or_not() -> None:
    opts = evaluate_configs(Workload(model="qwen2.5-72b"), [("rtx-4090", 2), ("h100-sxm", 2)])
    for opt in opts:
        contract = opt.to_contract()
        assert _reproduced_total(contract) == contract["per_gpu_bytes"]["total"]
    assert not opts[0].fits and opts[1].fits


def test_an_option_without_an_estimate_has_no_sized_workload() -> None:
    bare = Option(gpu="h100-sxm", gpu_name="H100 SXM", count=1, layout={"tp": 1, "pp": 1}, per_gpu=Breakdown(overhead=1),
                  capacity=Bytes(2), usable=Bytes(2), headroom_ratio=0.5, fits=True)
    contract = bare.to_contract()
    assert contract["sized_workload"] is None and list(contract)[-1] == "sized_workload"


def test_findings_have_one_contract_shape_for_options_and_the_request() -> None:
    rec = recommend(Workload(model="qwen2.5-7b", concurrency=16), Constraints(region="cn"))
    contract = rec.to_contract()
    assert contract["findings"] == findings_contract(rec.findings) and contract["findings"]
    for opt, shown in zip(rec.options, contract["options"], strict=True):
        assert shown["findings"] == findings_contract(opt.findings)
        assert all(set(f) == {"rule_id", "severity", "message", "message_zh", "source", "as_of"}
                   for f in shown["findings"])
