"""Serving on more GPUs than one copy of the model needs: independent replicas of the smallest tensor-parallel group
inside a server that holds the load, pipeline parallel across servers only when one copy does not fit a server
(advisor.recommend.search.inference_layouts) — checked by hand arithmetic on published architectures, by the
replicas property of the simulator and the roofline, and by the layout text in both languages on every surface
(markdown answer, web table, CLI --json and text)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from advisor.conversation.session import Conversation
from advisor.estimator.calibration import load_calibration
from advisor.estimator.serving import simulate_serving
from advisor.estimator.throughput import estimate_throughput
from advisor.recommend.options import existing_option
from advisor.recommend.recommender import recommend
from advisor.recommend.search import Layout, Search, memory_of, resolve_inputs
from advisor.recommend.speed import speed
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.catalog import load_catalog
from knowledge.quantities import GIB
from ui.cli.entry import main as cli
from ui.web import panels as web_panels

CAT = load_catalog()
H100_USABLE = 0.9 * 80 * GIB  # vLLM --gpu-memory-utilization 0.9 of an 80 GiB H100 (nvidia-smi 81,559 MiB ≈ 80 GiB)

# Llama-3.1-70B, meta-llama/Llama-3.1-70B config.json: 80 layers, 8 KV heads of 128 dimensions; 70,553,706,496
# parameters (the model card's safetensors total)
L70_PARAMS, L70_LAYERS, L70_KV_HEADS, L70_HEAD_DIM = 70_553_706_496, 80, 8, 128


def _own(model: str, gpu: str, count: int, users: int, **c: object) -> object:
    rec = recommend(Workload(model=model, concurrency=users),
                    Constraints(existing=ExistingGpus(gpu=gpu, count=count), **c))  # type: ignore[arg-type]
    return next(o for o in rec.options if "existing" in o.labels)


def test_70b_on_two_h100_servers_for_200_users_is_replicas_by_hand() -> None:
    """BF16 weights over TP g: 70.55e9 × 2 B / g; KV of one replica's ⌈200 / (16/g)⌉ users at 4096 tokens:
    users × 4096 × 2 (K, V) × 80 layers × 8 heads × 128 × 2 B / g. g = 2: 65.7 GiB of weights + 7.8 GiB of KV is over
    the 72 GiB vLLM may use; g = 4: 32.86 + 15.63 GiB fits, and so does g = 8 (16.43 + 15.63): replicas inside a
    server (4 × TP 4 or 2 × TP 8, the faster per user), never one TP 8 × PP 2 pipeline."""
    o = _own("llama-3.1-70b", "h100-sxm", 16, 200)
    kv_token = 2 * L70_LAYERS * L70_KV_HEADS * L70_HEAD_DIM * 2
    for g in (2, 4):
        users = -(-200 // (16 // g))
        need = L70_PARAMS * 2 / g + users * 4096 * kv_token / g
        assert (need < H100_USABLE) == (g == 4), g
    lay = o.layout  # type: ignore[attr-defined]
    assert lay.pp == 1 and lay.tp in (4, 8) and lay.tp * lay.dp == 16 and lay.replicas == lay.dp
    g, users = lay.tp, -(-200 // lay.dp)
    assert o.per_gpu.weights.n == pytest.approx(L70_PARAMS * 2 / g, rel=0.01)  # type: ignore[attr-defined]
    assert o.per_gpu.kv_cache.n == pytest.approx(users * 4096 * kv_token / g, rel=0.01)  # type: ignore[attr-defined]
    assert o.fits  # type: ignore[attr-defined]


def test_a_model_no_server_holds_is_pipelined_across_servers() -> None:
    """DeepSeek-V3 (671 B parameters, FP8 checkpoint: 671 GB) over one server's 8 H100s is 78 GiB a card, over the
    72 GiB usable: TP 8 × PP 2 over both servers (39 GiB a card). In BF16 (1,342 GB) 16 H100s hold it nowhere, and
    the layout shown is still the pipeline over both servers, never replicas. Llama-3.1-405B in BF16 (810 GB, 94 GiB a
    card on one server) likewise."""
    assert 671e9 / 8 > H100_USABLE > 671e9 / 16 and 405.9e9 * 2 / 8 > H100_USABLE > 405.9e9 * 2 / 16
    for model, weights in (("deepseek-v3", None), ("deepseek-v3", "bf16"), ("llama-3.1-405b", None)):
        w = Workload(model=model, concurrency=8, weights=weights)
        c = Constraints(existing=ExistingGpus(gpu="h100-sxm", count=16))
        spec, catalog = resolve_inputs(w, c)
        o = existing_option(Search(spec, w, c, catalog), catalog.gpu("h100-sxm"), 16, 2)
        assert o is not None
        assert (o.layout.tp, o.layout.pp, o.layout.dp) == (8, 2, 1), (model, weights)
        assert o.fits == (weights is None), (model, weights)


def test_one_user_gets_the_widest_group_not_idle_replicas() -> None:
    """No more copies than users: one user on 4 A100s gets TP 4 (a second copy would idle); on two servers of 8
    the server's TP 8 (one copy idles there whatever the layout) rather than a pipeline over both."""
    four = _own("qwen2.5-32b", "a100-80gb", 4, 1)
    assert (four.layout.tp, four.layout.dp) == (4, 1)  # type: ignore[attr-defined]
    two_servers = _own("llama-3.1-70b", "h100-sxm", 16, 1)
    assert (two_servers.layout.tp, two_servers.layout.pp, two_servers.layout.dp) == (8, 1, 2)  # type: ignore[attr-defined]


def test_a_latency_target_is_met_by_the_wider_group_on_the_same_cards() -> None:
    """At 24 ms per token 2 × TP 8 (half the weights per card per step of 4 × TP 4) meets it on the same 16 cards —
    NIM's latency profiles spend more GPUs per copy than its throughput ones."""
    tight = _own("llama-3.1-70b", "h100-sxm", 16, 200, max_ms_per_token=24.0)
    assert (tight.layout.tp, tight.layout.dp) == (8, 2) and not tight.misses  # type: ignore[attr-defined]
    assert tight.throughput.tpot.ms < 24.0  # type: ignore[attr-defined]


def test_a_light_load_runs_on_the_servers_widest_group() -> None:
    """Ten users of Llama-3.1-70B on one 8× H100 server: 4 copies of TP 2 each read half the weights per token where
    TP 8 reads an eighth, so TP 8 is faster per user and, at the same ten users, in total; the answer runs the faster
    layout, not the fewest GPUs per copy (NIM's throughput profile, made for a saturated server)."""
    o = _own("llama-3.1-70b", "h100-sxm", 8, 10)
    assert (o.layout.tp, o.layout.dp) == (8, 1), o.layout  # type: ignore[attr-defined]
    w = Workload(model="llama-3.1-70b", concurrency=10)
    c = Constraints(existing=ExistingGpus(gpu="h100-sxm", count=8))
    spec, catalog = resolve_inputs(w, c)
    search, gpu, narrow = Search(spec, w, c, catalog), catalog.gpu("h100-sxm"), Layout(count=8, nodes=1, tp=2, pp=1)
    sized = memory_of(search, gpu, narrow)
    assert sized is not None
    slow = speed(search, gpu, sized.estimate, sized.workload, narrow).throughput
    assert slow is not None and slow.decode_tokens_per_s < o.throughput.decode_tokens_per_s  # type: ignore[attr-defined]


def _workload(users: int, tp: int, count: int) -> Workload:
    return Workload(model="llama-3.1-8b", concurrency=users, tp=tp, gpus=min(count, 8), nodes=max(1, count // 8),
                    prompt_tokens=1000, output_tokens=200)


@pytest.mark.parametrize("tp,users", [(1, 24), (2, 64), (8, 48)])
def test_doubling_the_replicas_doubles_the_total_at_twice_the_users(tp: int, users: int) -> None:
    """Replicas are independent engines sharing the users: with the same per-replica layout, twice the replicas at
    twice the users give twice the output tokens/s at the same per-user speed, in the simulator and the roofline."""
    m, g, calib = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), load_calibration()
    one, two = (simulate_serving(m, g, n, _workload(c, tp, n), calib, concurrency=c, ladder=False)
                for n, c in ((8, users), (16, 2 * users)))
    assert two.replicas == 2 * one.replicas
    assert two.output_tokens_per_s == pytest.approx(2 * one.output_tokens_per_s, rel=1e-9)
    assert two.result.per_user_tokens_per_s == pytest.approx(one.result.per_user_tokens_per_s, rel=1e-9)
    a, b = (estimate_throughput(m, g, n, _workload(c, tp, n), calib) for n, c in ((8, users), (16, 2 * users)))
    assert b.decode_tokens_per_s_total == pytest.approx(2 * a.decode_tokens_per_s_total, rel=1e-9)
    assert b.decode_tokens_per_s == pytest.approx(a.decode_tokens_per_s, rel=1e-9)


def test_fewer_users_than_replicas_count_only_the_busy_ones() -> None:
    """One user on 4 single-GPU replicas decodes one sequence: its tokens/s in total are its own, not four times."""
    m, g, calib = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), load_calibration()
    w = Workload(model="llama-3.1-8b", concurrency=1, tp=1, gpus=4, prompt_tokens=1000, output_tokens=200)
    t = estimate_throughput(m, g, 4, w, calib)
    assert t.replicas == 4 and t.decode_tokens_per_s_total == pytest.approx(t.decode_tokens_per_s)
    sim = simulate_serving(m, g, 4, w, calib, concurrency=1, ladder=False)
    assert sim.output_tokens_per_s == pytest.approx(sim.result.output_tokens_per_s)


@pytest.mark.parametrize("lang,text,shown", [
    ("en", "serve Llama 3.1 70B on 16 H100s to 200 users", "2 replicas × TP 8"),
    ("zh", "在16张H100上部署Llama 3.1 70B，200个并发用户", "2 个副本 × TP 8"),
])
def test_the_layout_reads_the_same_in_the_answer_and_the_web_table(lang: str, text: str, shown: str) -> None:
    turn = Conversation(lang=lang).respond(text)
    assert shown in turn.answer.split("\n")[0]
    lead = next(o for o in turn.options if o["count"] == 16)
    assert lead["layout"]["replicas"] == 2 and lead["layout"]["tp"] == 8
    row = web_panels.options_table([lead], lang)["data"][0]
    assert f"({shown})" in row[2]


def _cli(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(argv) == 0
    return out.getvalue()


def test_the_cli_says_the_replicas_in_json_and_text() -> None:
    args = ["recommend", "--model", "llama-3.1-70b", "--existing", "16×h100-sxm", "--concurrency", "200"]
    data = json.loads(_cli([*args, "--json"]))
    own = next(o for o in data["options"] if o["count"] == 16)
    assert {k: own["layout"][k] for k in ("tp", "pp", "dp", "replicas")} == {"tp": 8, "pp": 1, "dp": 2, "replicas": 2}
    assert "--max-num-seqs 100" in own["launch_hint"] and "(× 2 replicas" in own["launch_hint"]
    assert "layout 2 replicas × TP 8 × PP 1" in _cli(args)


def test_web_layout_text_of_a_contract_layout() -> None:
    lay = {"tp": 8, "pp": 1, "dp": 2, "replicas": 2, "zero": 0, "offload": "none"}
    assert web_panels._layout_text(lay, "en") == "2 replicas × TP 8"
    assert web_panels._layout_text(lay, "zh") == "2 个副本 × TP 8"
    assert web_panels._layout_text({**lay, "tp": 1, "dp": 8, "replicas": 8}, "zh") == "8 个副本 × 单卡"
    assert web_panels._layout_text({"tp": 1, "pp": 1, "dp": 8, "zero": 3, "offload": "none"}, "en") == "DP 8, ZeRO-3"


def test_a_pipelined_option_has_no_engine_start_up_figure() -> None:
    """vLLM's start-up KV figure is modelled for one TP group holding every layer; DeepSeek-V3 over two servers of 8
    H100 (TP 8 × PP 2) gets none rather than the '0.00x' one group holding all 61 layers would give."""
    w = Workload(model="deepseek-v3", concurrency=8)
    c = Constraints(existing=ExistingGpus(gpu="h100-sxm", count=16))
    rec = recommend(w, c)
    own = next(o for o in rec.options if "existing" in o.labels)
    assert own.layout.pp == 2 and own.throughput is not None
    assert own.throughput.engine_log_line is None and own.throughput.engine_max_concurrency is None
