"""The recommender's llama.cpp offload option (advisor/recommend/offload.py): offered for one named card that cannot
hold the model even at 4 bits, after the quantised options, labelled "offload" with its speed and warned about by
the cited rule sizing-layer-offload-slow; never offered when the model fits one card or for training."""

from __future__ import annotations

from advisor.recommend.recommender import recommend
from advisor.workload import Constraints, ExistingGpus, Workload

ONE_4090 = Constraints(candidates=("rtx-4090",), max_gpus_per_node=1, max_nodes=1)


def _offload(rec):
    return [o for o in rec.options + rec.closest if "offload" in o.labels]


def test_70b_on_one_named_4090_offers_offload_with_its_speed_and_the_rule():
    rec = recommend(Workload(model="llama-3.1-70b"), ONE_4090)
    (opt,) = _offload(rec)
    assert rec.options[0] is opt  # nothing else fits one card: the offload option is the answer
    assert opt.count == 1 and opt.layout.engine == "llama.cpp" and opt.layout.weights == "q4_k_m"
    lo = opt.layout.layer_offload
    assert 40 <= lo.ngl <= 48 and lo.cpu_layers == 80 - lo.ngl
    assert opt.per_gpu.total <= opt.capacity
    assert 15 * 2**30 < lo.system_ram_bytes < 25 * 2**30
    assert 1.5 < opt.throughput.decode_tokens_per_s < 4.0 and opt.throughput.bound == "host-memory"
    rule = next(f for f in opt.findings if f.rule_id == "sizing-layer-offload-slow")
    assert rule.severity == "warn" and f"{opt.throughput.decode_tokens_per_s:.1f} tokens/s" in rule.message
    assert "tokens/s" in rule.message_zh
    assert "offload" in rec.assumptions[-1] and "卸载" in rec.assumptions_zh[-1]
    contract = opt.to_contract()
    assert contract["labels"] == ["offload"] and contract["throughput"]["offload"]["ngl"] == lo.ngl


def test_owned_single_card_gets_the_offload_option_after_the_purchases():
    rec = recommend(Workload(model="llama-3.1-70b"), Constraints(existing=ExistingGpus(gpu="rtx-4090", count=1)))
    (opt,) = _offload(rec)
    assert "existing" in opt.labels and rec.options[-1] is opt
    assert all("offload" not in o.labels for o in rec.options[:-1])


def test_after_the_quantised_options():
    """32B at bf16 does not fit one 4090 but AWQ-INT4 does: the quantised option leads and no offload is offered."""
    rec = recommend(Workload(model="qwen2.5-32b"), ONE_4090)
    assert rec.options and "quantised" in rec.options[0].labels
    assert not _offload(rec)


def test_no_offload_when_the_model_fits_or_for_training_or_several_cards():
    assert not _offload(recommend(Workload(model="llama-3.1-8b"), ONE_4090))
    assert not _offload(recommend(Workload(model="llama-3.1-70b", task="lora"), ONE_4090))
    assert not _offload(recommend(Workload(model="llama-3.1-70b"),
                                  Constraints(existing=ExistingGpus(gpu="rtx-4090", count=2))))
    assert not _offload(recommend(Workload(model="llama-3.1-70b", weights="awq-int4"), ONE_4090))
