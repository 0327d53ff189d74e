"""The parallelism planner: memory and step-time terms from their formulas, DeepSpeed parity, overrides, every
published Llama 2 / Llama 3 / DeepSeek-V3 layout expressible, refusal only when nothing fits, properties and bad
input (one line, exit status 2)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from advisor.estimator import training_memory as tm
from advisor.estimator.activations import training_activations
from advisor.estimator.calibration import load_calibration
from advisor.estimator.layout_memory import layout_memory, stage_params
from advisor.estimator.memory import estimate_memory
from advisor.estimator.parallel_layout import ParallelLayout
from advisor.estimator.planner import Overrides, plan_training
from advisor.estimator.step_time import step_time
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.params import param_counts
from knowledge.structs import replace
from ui.cli.entry import main

CAT = load_catalog()
CAL = load_calibration()
PROPS = settings(max_examples=25, deadline=None, derandomize=True, database=None)
M = 2**20


def plan(mid, gid, n, tokens=1e11, **kw):
    ov = {k: kw.pop(k) for k in list(kw) if k in Overrides.__struct_fields__}
    return plan_training(CAT.model(mid), CAT.gpu(gid), n, tokens, CAL, ov=Overrides(**ov), **kw)


# --- memory terms -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("stage, gpus", [(2, 1), (2, 8), (3, 8), (3, 32)])
def test_zero_states_equal_deepspeed_estimator_for_pure_data_parallel(stage, gpus):
    m = CAT.model("llama-2-7b")
    lay = ParallelLayout(tp=1, pp=1, dp=gpus, zero=stage)
    mem = layout_memory(m, lay, 4096)
    # by hand from config.json: 6,738,415,616 parameters; the largest module is the embedding, 32,000 × 4096
    P, LL = 6_738_415_616, 32000 * 4096
    assert (P, LL) == (param_counts(m).total, tm.largest_layer_params(m))
    ds = tm.deepspeed_zero2(P, gpus)[0] if stage == 2 else tm.deepspeed_zero3(P, LL, gpus)[0]
    # DeepSpeed's estimators, worked out: ZeRO-2 4P + 16P/N (2 B weights, 2 B gradients, 16 B/N of fp32 states),
    # ZeRO-3 4·largest layer + 18P/N
    by_hand = 4 * P + 16 * P // gpus if stage == 2 else 4 * LL + 18 * P // gpus
    assert ds == pytest.approx(by_hand, abs=1)
    assert mem.weights + mem.gradients + mem.optimizer == pytest.approx(ds, rel=1e-6)


@pytest.mark.parametrize("stage, gpus, nodes", [(1, 1, 1), (2, 1, 1), (2, 8, 1), (3, 8, 1), (3, 8, 4)])
def test_estimate_with_engine_deepspeed_matches_its_estimator_to_the_byte(stage, gpus, nodes):
    """The issue's case: `estimate --zero 2 --gpus 1` for Llama-2-7B was 20 % below DeepSpeed's figure."""
    m = CAT.model("llama-2-7b")
    P, LL = param_counts(m).total, tm.largest_layer_params(m)
    e = estimate_memory(m, Workload(task="full", zero=stage, gpus=gpus, nodes=nodes, engine="deepspeed"))
    got = e.per_gpu.weights.n + e.per_gpu.gradients.n + e.per_gpu.optimizer_states.n
    ds = tm.deepspeed_zero2(P, gpus, nodes)[0] if stage < 3 else tm.deepspeed_zero3(P, LL, gpus, nodes)[0]
    assert abs(got - ds) <= 1
    assert any("DeepSpeed's estimate_zero2/zero3" in a for a in e.assumptions)
    # issue 28: asking for ZeRO without --engine runs DeepSpeed, so the default follows its accounting too (it was
    # the ZeRO paper's 16Ψ, 20 % under DeepSpeed's 20Ψ on one GPU) and says so
    default = estimate_memory(m, Workload(task="full", zero=stage, gpus=gpus, nodes=nodes))
    p = default.per_gpu.weights.n + default.per_gpu.gradients.n + default.per_gpu.optimizer_states.n
    assert abs(p - ds) <= 1
    assert any("ZeRO runs in DeepSpeed" in a for a in default.assumptions)


def test_megatron_distributed_optimizer_is_6_plus_12_over_d():
    m = CAT.model("llama-2-70b")
    lay = ParallelLayout(tp=8, pp=4, dp=16, zero=1)
    mem = layout_memory(m, lay, 4096)
    psi = sum(stage_params(m, lay))
    assert mem.weights + mem.gradients + mem.optimizer == pytest.approx(6 * psi + 12 * psi / 16)


def test_first_stage_holds_pp_micro_batches_and_embeddings_sit_on_the_ends():
    m = CAT.model("llama-2-7b")
    one = layout_memory(m, ParallelLayout(tp=1, pp=4, dp=2, grad_accum=8), 4096)
    a = training_activations(m, 4096, 1, tp=1, pp=4, recompute="selective")
    assert one.activations == pytest.approx(a.stored + a.working + a.logits)
    few = layout_memory(m, ParallelLayout(tp=1, pp=4, dp=2, grad_accum=2), 4096)  # m < p: only m in flight
    assert few.activations == pytest.approx(a.stored * 2 / 4 + a.working + a.logits)
    g = param_counts(m).by_group
    dense, _ = stage_params(m, ParallelLayout(tp=2, pp=4, dp=1))
    body = (g["attention"] + g["mlp"] + g["norm"]) / 4
    assert dense == pytest.approx((body + max(g["embedding"], g["lm_head"])) / 2)


def test_experts_are_sharded_by_ep():
    m = CAT.model("deepseek-v3")
    experts = param_counts(m).by_group["experts"]
    _, e = stage_params(m, ParallelLayout(tp=1, pp=16, dp=128, ep=64))
    assert e == pytest.approx(experts * 4 / m.moe_layers / 64)  # ⌈61/16⌉ = 4 layers on the most loaded stage


# --- step time ---------------------------------------------------------------------------------------------

def test_bubble_is_p_minus_1_over_v_m():
    m, g = CAT.model("llama-3.1-405b"), CAT.gpu("h100-sxm")
    lay = ParallelLayout(tp=8, pp=16, dp=64, grad_accum=32, vpp=4, recompute="full")
    s = step_time(m, g, lay, 8192, CAL)
    assert s.bubble_s == pytest.approx(s.compute_s * 15 / (4 * 32))
    assert s.bubble_fraction == pytest.approx(15 / (4 * 32 + 15))
    assert s.step_s == pytest.approx(s.compute_s + s.bubble_s + s.exposed_comm_s)
    tokens = 64 * 32 * 8192
    assert s.mfu == pytest.approx(tokens * s.model_flops_per_token / (8192 * g.bf16_dense_flops * s.step_s))


def test_run_total_divides_by_the_llama3_goodput():
    p = plan("llama-2-7b", "a100-80g-sxm", 64, 1e11)
    assert p.goodput == 0.9 and CAL.planner.goodput.source == ["llama3-paper"]
    assert p.run_gpu_hours == pytest.approx(p.gpu_hours / 0.9)
    assert p.gpu_hours == pytest.approx(p.wall_s * 64 / 3600)
    assert any("goodput" in a and "run total" in a for a in p.assumptions)


# --- overrides, expressibility, refusal ---------------------------------------------------------------------

@pytest.mark.parametrize("mid, gid, n, seq, prec, ov", [
    ("llama-2-7b", "a100-80g-sxm", 2048, 4096, "bf16", {}),
    ("llama-2-13b", "a100-80g-sxm", 2048, 4096, "bf16", {}),
    ("llama-2-70b", "a100-80g-sxm", 2048, 4096, "bf16", {}),
    ("llama-2-70b", "a100-80g-sxm", 2048, 4096, "bf16", {"tp": 8, "pp": 1}),
    ("llama-3.1-405b", "h100-sxm", 8192, 8192, "bf16", {"tp": 8, "cp": 1, "pp": 16}),
    ("llama-3.1-405b", "h100-sxm", 16384, 8192, "bf16", {"tp": 8, "cp": 1, "pp": 16}),
    ("llama-3.1-405b", "h100-sxm", 16384, 131072, "bf16", {"tp": 8, "cp": 16, "pp": 16}),
    ("llama-3.1-405b", "h100-sxm", 1024, 8192, "fp8", {"tp": 8, "cp": 2, "pp": 8}),
    ("llama-3.1-70b", "h100-sxm", 64, 8192, "fp8", {"tp": 4, "pp": 8}),
    ("deepseek-v3", "h800-sxm", 2048, 4096, "fp8", {"tp": 1, "pp": 16, "ep": 64}),
    ("deepseek-v3", "h800-sxm", 2048, 4096, "fp8", {}),
])
def test_published_runs_are_expressible(mid, gid, n, seq, prec, ov):
    p = plan(mid, gid, n, 1e12, context=seq, precision=prec, global_batch_tokens=16 * M if "405b" in mid else None,
             **ov)
    for k, v in ov.items():
        assert getattr(p.layout, k) == v
    assert p.memory.total <= 0.9 * CAT.gpu(gid).memory_bytes
    assert p.layout.world == n


def test_the_issue_case_is_no_longer_refused():
    p = plan("llama-2-70b", "a100-80g-sxm", 2048, 2e12)
    assert p.layout.tp * p.layout.pp > 1 or p.layout.zero == 3
    assert 0.3 < p.mfu < 0.7


def test_refusal_names_the_smallest_count_that_fits():
    with pytest.raises(InputError) as err:
        plan("llama-3.1-405b", "h100-sxm", 8, 1e11)
    msg = str(err.value)
    need = int(msg.split("smallest count that fits is ")[1].split()[0])
    assert "GiB per GPU" in msg and err.value.field == "count"
    assert plan("llama-3.1-405b", "h100-sxm", need, 1e11).layout.world == need
    with pytest.raises(InputError):
        plan("llama-3.1-405b", "h100-sxm", need - 8, 1e11)


def test_launch_settings_name_the_layout():
    from advisor.estimator.plan_text import launch_settings

    p = plan("llama-3.1-405b", "h100-sxm", 8192, 1e12, context=8192, tp=8, pp=16, global_batch_tokens=16 * M)
    s = launch_settings(p)
    for arg in ("--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 16", "--sequence-parallel",
                "--micro-batch-size 1", f"--global-batch-size {p.layout.global_batch_seqs}",
                "--recompute-granularity"):
        assert arg in s["megatron"]
    z3 = plan("llama-3-8b", "h100-sxm", 8, 1e10, zero=3)
    import json
    ds = json.loads(launch_settings(z3)["deepspeed"])
    assert ds["zero_optimization"]["stage"] == 3
    assert ds["train_batch_size"] == z3.layout.global_batch_seqs == (ds["train_micro_batch_size_per_gpu"]
                                                                      * ds["gradient_accumulation_steps"] * 8)


# --- properties ---------------------------------------------------------------------------------------------

@PROPS
@given(mid=st.sampled_from(["llama-3-8b", "llama-2-13b", "qwen2.5-72b", "mixtral-8x7b"]),
       gid=st.sampled_from(["h100-sxm", "a100-80g-sxm", "l40s"]), n=st.integers(1, 32), extra=st.integers(1, 32))
def test_more_gpus_never_lengthen_the_best_layout(mid, gid, n, extra):
    """Whole 8-GPU servers, while the 4M-token global batch (1,024 sequences of 4,096) gives every data-parallel
    rank a sequence."""
    try:
        a = plan(mid, gid, 8 * n, 1e11)
    except InputError:
        assume(False)
    b = plan(mid, gid, 8 * (n + extra), 1e11)
    assert b.wall_s <= a.wall_s * (1 + 1e-9), (a.layout.describe(), b.layout.describe())


@PROPS
@given(gid=st.sampled_from(["l40s", "a100-80g-pcie", "rtx-4090", "h100-pcie", "l20"]),
       mid=st.sampled_from(["llama-3-8b", "qwen2.5-14b", "mixtral-8x7b"]), dp=st.sampled_from([1, 4, 16]),
       pp=st.sampled_from([1, 2, 4]))
def test_nvlink_never_slows_a_tp_layout(gid, mid, dp, pp):
    pcie = CAT.gpu(gid)
    nvl = replace(pcie, link_kind="nvlink-switch", nvlink_bytes_per_s=900e9, nvlink="NVLink via NVSwitch")
    lay = ParallelLayout(tp=2, pp=pp, dp=dp, grad_accum=8, recompute="selective")
    m = CAT.model(mid)
    assert step_time(m, nvl, lay, 4096, CAL).step_s <= step_time(m, pcie, lay, 4096, CAL).step_s


@PROPS
@given(mid=st.sampled_from(["mixtral-8x7b", "deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b"]),
       k=st.sampled_from([1, 2, 4]), tp=st.sampled_from([1, 2]), pp=st.sampled_from([1, 4]))
def test_ep_never_increases_per_gpu_expert_memory(mid, k, tp, pp):
    m = CAT.model(mid)
    assume(m.n_routed_experts % (2 * k) == 0)
    a = ParallelLayout(tp=tp, pp=pp, dp=64, ep=k)
    b = ParallelLayout(tp=tp, pp=pp, dp=64, ep=2 * k)
    assert stage_params(m, b)[1] <= stage_params(m, a)[1]
    assert layout_memory(m, b, 4096).total <= layout_memory(m, a, 4096).total


# --- bad input ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mid, n, kw, field", [
    ("llama-3-8b", 8, {"tp": 3}, "count"),
    ("llama-3-8b", 24, {"tp": 3}, "tp"),
    ("llama-3-8b", 16, {"tp": 16}, "tp"),  # above the 8 KV heads
    ("llama-3-8b", 64, {"pp": 64}, "pp"),  # 32 layers
    ("llama-3-8b", 8, {"ep": 2}, "ep"),  # dense
    ("mixtral-8x7b", 16, {"ep": 16}, "ep"),  # 8 experts
    ("llama-3-8b", 16, {"pp": 2, "zero": 3}, "zero"),
    ("llama-3-8b", 12, {"tp": 8}, "count"),
    ("llama-3-8b", 8, {"global_batch_tokens": 10}, "global_batch"),
    ("llama-3-8b", 0, {}, "count"),
])
def test_impossible_layouts_are_refused_with_the_field(mid, n, kw, field):
    with pytest.raises(InputError) as err:
        plan(mid, "h100-sxm", n, 1e10, **kw)
    assert err.value.field == field


@pytest.mark.parametrize("tokens", [0, -1, 1e16, float("nan")])
def test_token_budgets(tokens):
    with pytest.raises(InputError) as err:
        plan("llama-3-8b", "h100-sxm", 8, tokens)
    assert err.value.field == "tokens"


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra, needle", [
    (("--count", "8", "--tp", "3"), "factor"),
    (("--count", "16", "--tp", "16"), "KV heads"),
    (("--count", "8", "--ep", "2"), "mixture-of-experts"),
    (("--count", "64", "--pp", "64"), "layers"),
    (("--count", "8", "--zero", "5"), "--zero"),
    (("--count", "8", "--global-batch", "lots"), "token count"),
    (("--count", "8", "--task", "lora", "--tp", "2"), "data parallel"),
])
def test_cli_bad_layouts_one_line_exit_2(capsys, extra, needle):
    code, out, err = run(capsys, "train-time", "--model", "llama-3-8b", "--tokens", "1B", "--gpu", "h100-sxm", *extra)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err


def test_cli_prints_the_layout_and_both_totals(capsys):
    code, out, _ = run(capsys, "train-time", "--model", "llama-2-70b", "--tokens", "2T", "--gpu", "a100-80g-sxm",
                       "--count", "2048")
    assert code == 0
    for needle in ("layout", "tp ", "pp ", "dp ", "zero ", "bubble", "exposed communication", "MFU",
                   "at step time", "run total", "goodput", "--tensor-model-parallel-size"):
        assert needle in out


def test_cli_json_contract_and_estimate_agree(capsys):
    import json

    code, out, err = run(capsys, "train-time", "--model", "llama-2-70b", "--tokens", "1B", "--gpu", "a100-80g-sxm",
                         "--count", "32", "--json")
    assert code == 0, err
    d = json.loads(out)
    for key in ("tp", "pp", "dp", "ep", "cp", "zero", "recompute", "micro_batch", "grad_accum", "global_batch_tokens"):
        assert key in d["layout"]
    for key in ("compute_s", "exposed_comm_s", "bubble_fraction"):
        assert key in d["step"]
    assert d["run"]["gpu_hours"] == pytest.approx(d["gpu_hours"] / d["run"]["goodput"])
    assert d["wall_s"] == pytest.approx(1e9 / d["tokens_per_s"])
    code, out2, _ = run(capsys, "estimate", "--model", "llama-2-70b", "--task", "pretrain", "--gpus", "8", "--nodes",
                        "4", "--gpu", "a100-80g-sxm", "--json")
    e = json.loads(out2)
    assert code == 0 and {k: e["layout"][k] for k in ("tp", "pp", "dp", "zero")} == {
        k: d["layout"][k] for k in ("tp", "pp", "dp", "zero")}
    assert math.isclose(e["per_gpu_bytes"]["total"], d["memory_per_gpu_bytes"]["total"], rel_tol=1e-6)
