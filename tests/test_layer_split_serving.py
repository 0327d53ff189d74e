"""llama.cpp's layer split in the serving simulation. "70B for a team of 20 within $50k" had recommended 4× RTX 5060 Ti
16GB at 23 tokens/s per user: the simulator costed llama.cpp's --split-mode layer as tensor parallelism (every GPU
reading its share of the weights at once, 4 × 448 GB/s), while the roofline (throughput._steps) already passed each
token through the GPUs one after another. Both now agree: a layer split runs at one card's bandwidth plus a hand-over
per boundary, so 4× RTX 5060 Ti give about 7 tokens/s on a 70B Q4_K_M (448 GB/s ÷ ~42 GB of weights read per token
≈ 10.7 tokens/s is the bandwidth bound), and the pick is one that meets the interactive target where one can."""

from __future__ import annotations

import pytest

from advisor.estimator.calibration import load_calibration
from advisor.estimator.serving import simulate_serving
from advisor.estimator.throughput import estimate_throughput
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()
CAL = load_calibration()


def _sim(model: str, gpu: str, count: int, users: int) -> tuple[float, float]:
    """(simulated time per output token, roofline time per output token) of a chat turn under llama.cpp."""
    m, g = CAT.model(model), CAT.gpu(gpu)
    w = Workload(model=m.id, weights="q4_k_m", context=4096, concurrency=users, gpus=count, tp=count,
                 engine="llama.cpp", prompt_tokens=215, output_tokens=195)
    sim = simulate_serving(m, g, count, w, CAL, concurrency=users, engine="llama.cpp").result.tpot_p50_s
    roof = 1.0 / estimate_throughput(m, g, count, w, CAL).decode_tokens_per_s
    return sim, roof


@pytest.mark.parametrize(("model", "gpu", "count"), [
    ("llama-3.1-70b", "rtx-5060-ti-16g", 4), ("llama-3.1-70b", "rtx-5090", 2), ("qwen2.5-32b", "rtx-4090", 2),
])
def test_simulation_agrees_with_the_roofline_for_one_user(model: str, gpu: str, count: int) -> None:
    sim, roof = _sim(model, gpu, count, 1)
    assert sim == pytest.approx(roof, rel=0.10)


@pytest.mark.parametrize(("model", "gpu"), [("llama-3.1-8b", "rtx-4090"), ("qwen2.5-14b", "rtx-3090")])
def test_more_cards_in_a_layer_split_never_decode_faster(model: str, gpu: str) -> None:
    """A token passes every layer whichever card holds it: splitting over more cards only adds hand-overs."""
    one = _sim(model, gpu, 1, 2)[0]
    for n in (2, 4):
        split = _sim(model, gpu, n, 2)[0]
        assert one <= split <= 1.2 * one


def test_under_the_bandwidth_bound() -> None:
    """4× RTX 5060 Ti 16GB (448 GB/s each) on Llama-3.1-70B Q4_K_M: every token reads all the weights from one
    card after another, so no more than bandwidth ÷ weight bytes per user."""
    sim, _ = _sim("llama-3.1-70b", "rtx-5060-ti-16g", 4, 2)
    weights_gb = 42.5  # Q4_K_M of a 70.6 B model, 4.8 bits a weight on average
    assert 1.0 / sim < 448 / weights_gb


def test_team_budget_pick_meets_the_interactive_target() -> None:
    first = answer("I have $50k. What's the best setup for running 70B models locally for a team of 20?").splitlines()[0]
    assert "RTX 5060 Ti" not in first and first.startswith("I recommend"), first
    assert "slower than the default interactivity target" not in first


# llama-bench tg512 on two cards with the default layer split (XiongjieDai/GPU-Benchmarks-on-LLM-Inference, the
# figures review R21 cites): Llama-3-70B Q4_K_M 19.06 tokens/s on 2× RTX 4090, 16.29 on 2× RTX 3090; Llama-3-8B
# Q4_K_M 122.56 on 2× RTX 4090 against 127.74 on one. Never fitted on; ±25 % as the serving rows.
@pytest.mark.parametrize(("model", "gpu", "count", "measured"), [
    ("llama-3-70b", "rtx-4090", 2, 19.06), ("llama-3-70b", "rtx-3090", 2, 16.29),
    ("llama-3-8b", "rtx-4090", 2, 122.56), ("llama-3-8b", "rtx-4090", 1, 127.74),
])
def test_simulated_layer_split_against_llama_bench(model: str, gpu: str, count: int, measured: float) -> None:
    m, g = CAT.model(model), CAT.gpu(gpu)
    w = Workload(model=m.id, weights="q4_k_m", context=1024, concurrency=1, gpus=count, tp=count, engine="llama.cpp",
                 prompt_tokens=16, output_tokens=512)
    tpot = simulate_serving(m, g, count, w, CAL, concurrency=1, engine="llama.cpp").result.tpot_p50_s
    assert 1.0 / tpot == pytest.approx(measured, rel=0.25)
