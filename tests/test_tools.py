"""The tool surface (advisor/conversation/tools/registry.py): each tool over the real estimator, recommender, rules and
catalog, checked against independent references; argument validation; the dispatcher never raises."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.conversation.tools import registry as tools
from advisor.conversation.tools.registry import ALLOWED, TOOLS, call_tool
from advisor.conversation.turn import Step

GIB = 2**30
DATA = Path(__file__).resolve().parents[1] / "knowledge" / "data"


def numbers(result: tools.ToolResult) -> dict[str, float]:
    assert result.ok, result.error
    return {n["name"]: n["value"] for n in result.numbers}


def test_the_tool_set_is_exactly_the_advisors() -> None:
    assert ALLOWED == {"estimate_memory", "estimate_throughput", "train_time", "recommend", "compare_gpus", "tco",
                       "lookup_gpu", "lookup_model", "explain_rule_or_claim", "ask_clarifying_question"}
    assert [name for name, spec in TOOLS.items() if spec.return_direct] == ["ask_clarifying_question"]
    for spec in TOOLS.values():
        assert spec.description and spec.args.model_config.get("extra") == "forbid"


# --------------------------------------------------------------------------------------------------------------
# Catalog lookups against published figures
# --------------------------------------------------------------------------------------------------------------

def test_lookup_gpu_h100_dense_figures_and_sources() -> None:
    r = call_tool("lookup_gpu", {"gpu": "H100"})
    n = numbers(r)
    assert n["NVIDIA H100 SXM5 80GB memory"] == 80 * GIB  # 81,920 MiB as nvidia-smi reports
    assert n["NVIDIA H100 SXM5 80GB dense BF16 tensor"] == pytest.approx(989e12, rel=0.01)  # dense, not 1979 sparse
    assert n["NVIDIA H100 SXM5 80GB memory bandwidth"] == pytest.approx(3.35e12, rel=0.001)
    assert r.data["china"]["status"] in ("restricted", "licence_required") and r.data["china"]["as_of"]
    assert r.data["sources"] and all(s["url"] for s in r.data["sources"])
    assert all(n["source"].startswith("catalog") for n in r.numbers)
    assert "80.0 GiB (85.9 GB)" in r.summary


def test_lookup_gpu_4090_tensor_not_fp32() -> None:
    n = numbers(call_tool("lookup_gpu", {"gpu": "rtx 4090"}))
    # DESIGN.md: "RTX 4090 FP16 82.6 TFLOPS" is FP32 non-tensor; tensor FP16 with FP32 accumulate is 165
    assert n["GeForce RTX 4090 dense BF16 tensor"] == pytest.approx(165e12, rel=0.01)
    assert n["GeForce RTX 4090 FP32 (non-tensor)"] == pytest.approx(82.6e12, rel=0.01)
    assert "GeForce RTX 4090 NVLink (total, both directions)" not in n  # the 4090 has no NVLink


@pytest.mark.parametrize("model, params", [
    ("llama-2-7b", 6_738_415_616), ("llama-3-8b", 8_030_261_248), ("qwen2.5-7b", 7_615_616_512),
])
def test_lookup_model_parameter_counts_match_safetensors(model: str, params: int) -> None:
    n = numbers(call_tool("lookup_model", {"model": model}))
    assert n["parameters"] == params  # exact published counts (HF safetensors metadata)
    assert n["weights in bf16"] == 2 * params  # every tensor in 16-bit: exactly 2 bytes per parameter


def test_lookup_model_kv_per_token_llama2_7b() -> None:
    # MHA: 2 (K,V) × 32 layers × 32 heads × 128 dims × 2 bytes = 524,288 B per token
    assert numbers(call_tool("lookup_model", {"model": "llama-2-7b"}))["KV cache per token (fp16, all layers)"] == 524_288


# --------------------------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------------------------

def test_estimate_memory_70b_bf16_weights_are_about_140_gb() -> None:
    r = call_tool("estimate_memory", {"model": "llama-3-70b", "gpu": "h100"})
    n = numbers(r)
    assert n["weights per GPU"] == pytest.approx(2 * 70_553_706_496, rel=0.002)  # DESIGN: "weights alone ≈ 140 GB"
    assert n["total per GPU"] > n["weights per GPU"]
    assert r.data["fits"] is False and "does not fit" in r.summary
    assert n["shortfall per GPU"] == pytest.approx(n["total per GPU"] - n["usable on NVIDIA H100 SXM5 80GB"], abs=1)
    assert any(f.rule_id == "sizing-does-not-fit" for f in r.findings)
    assert r.artifact["memory"]["capacity"] == 80 * GIB
    assert r.data["findings"][0]["rule_id"] == "sizing-does-not-fit"  # the model sees the finding too


def test_estimate_memory_70b_4bit_is_not_28_gb() -> None:
    # the guide's "70B 4-bit ≈ 28 GB" is wrong: 4-bit weights alone are ≈ 35 GB, plus scales and 16-bit embeddings
    n = numbers(call_tool("estimate_memory", {"model": "llama-3-70b", "weights": "awq-int4"}))
    assert 35e9 <= n["weights per GPU"] <= 42e9


def test_estimate_memory_tensor_parallel_halves_weights() -> None:
    one = numbers(call_tool("estimate_memory", {"model": "llama-3-70b"}))["weights per GPU"]
    two = numbers(call_tool("estimate_memory", {"model": "llama-3-70b", "tp": 2, "gpus": 2}))["weights per GPU"]
    assert two == pytest.approx(one / 2, rel=0.01)


def test_estimate_throughput_stays_under_the_bandwidth_roofline() -> None:
    args = {"model": "llama-3-70b", "gpu": "h100", "count": 2, "tp": 2, "gpus": 2}
    r = call_tool("estimate_throughput", args)
    n = numbers(r)
    # per sequence decode ≤ aggregate bandwidth / bytes read per token: 2 × 3.35 TB/s / (2 × 70.55e9 B)
    roofline = 2 * 3.35e12 / (2 * 70_553_706_496)
    assert 0.5 * roofline < n["decode speed per sequence"] <= roofline * 1.001
    assert n["time per output token"] == pytest.approx(1 / n["decode speed per sequence"], rel=0.01)
    assert r.data["bound"] == "memory"


def test_train_time_is_consistent_with_6nd() -> None:
    r = call_tool("train_time", {"model": "llama-2-7b", "gpu": "a100-80g-sxm", "count": 8, "tokens": 1e9})
    n = numbers(r)
    assert n["wall-clock time"] * n["throughput, all GPUs"] == pytest.approx(1e9, rel=1e-3)
    assert n["GPU-hours"] == pytest.approx(8 * n["wall-clock time"] / 3600, rel=1e-3)
    # MFU = 6·N per token × tokens/s / (GPUs × peak), within the estimator's attention term
    implied = 6 * 6_738_415_616 * n["throughput, all GPUs"] / (8 * 312e12)
    assert n["MFU"] == pytest.approx(implied, rel=0.15)


def test_compare_gpus_with_a_model() -> None:
    r = call_tool("compare_gpus", {"gpus": ["h20", "a800", "rtx 4090"], "model": "llama-3-70b", "count": 8})
    n = numbers(r)
    assert [row["id"] for row in r.data["gpus"]] == ["h20", "a800-80g-sxm", "rtx-4090"]
    assert n["NVIDIA H20 96GB memory"] == 96 * GIB
    per_gpu = {row["id"]: row["fits"] for row in r.data["gpus"]}
    assert per_gpu["h20"] is True  # 8-way TP: ≈ 18 GiB of weights per card
    assert any(f.rule_id == "sizing-pcie-tensor-parallel" for f in r.findings)  # 4090: TP 8 over PCIe
    assert call_tool("compare_gpus", {"gpus": ["h100", "H100 SXM"]}).error.startswith("the same GPU is listed twice")


def test_recommend_over_the_real_recommender() -> None:
    if not (DATA / "economics.yaml").exists():
        pytest.skip("knowledge/data/economics.yaml not there yet (recommender prices)")
    r = call_tool("recommend", {"model": "qwen2.5-32b", "context": 8192, "concurrency": 30, "region": "cn",
                                "budget": 500_000, "currency": "CNY"})
    assert r.ok, r.error
    rows = r.data.get("options") or r.data.get("closest_not_fitting")
    assert rows and r.artifact["options"] and r.artifact["memory"]["total"] > 0
    assert all(n["unit"] for n in r.numbers)


def test_tco_over_the_real_cost_model() -> None:
    try:
        import advisor.estimator.cost  # noqa: F401
    except ImportError:
        pytest.skip("advisor/estimator/cost.py not there yet")
    if not (DATA / "economics.yaml").exists():
        pytest.skip("knowledge/data/economics.yaml not there yet")
    r = call_tool("tco", {"gpu": "h20", "count": 8, "years": 3, "currency": "CNY", "model": "qwen2.5-32b"})
    n = numbers(r)
    assert n["TCO over 3 years"] == pytest.approx(n["purchase, total"] + 3 * (n["power per year"]
                                                  + n["operations per year"]), rel=1e-6)


def test_explain_a_rule_by_id_and_by_words() -> None:
    r = call_tool("explain_rule_or_claim", {"query": "sizing-does-not-fit"})
    assert r.ok and r.data["rule_id"] == "sizing-does-not-fit" and r.data["source"]
    words = call_tool("explain_rule_or_claim", {"query": "tensor parallel over PCIe without NVLink"})
    assert words.ok and "sizing-pcie-tensor-parallel" in [x["rule_id"] for x in words.data.get("rules", [])] + [
        c.get("claim_id") for c in words.data.get("claims", [])]
    nothing = call_tool("explain_rule_or_claim", {"query": "zzzz qqqq"})
    assert not nothing.ok and "no rule or guide claim matches" in nothing.error


def test_explain_a_quoted_guide_claim() -> None:
    if not (DATA / "guides" / "claims.yaml").exists():
        pytest.skip("knowledge/data/guides/claims.yaml not there yet")
    r = call_tool("explain_rule_or_claim", {"query": "70B 模型 4bit 量化只要 28GB 显存"})
    assert r.ok and r.data.get("claims"), r.data
    claim = r.data["claims"][0]
    assert claim["verdict"] in ("wrong", "imprecise") and claim["source"]
    assert any(f.rule_id.startswith("claim-") for f in r.findings)


def test_ask_clarifying_question_tool() -> None:
    r = call_tool("ask_clarifying_question", {"slot": "context", "question": "What context length?"})
    assert r.ok and r.data["question"] == "What context length?" and r.data["default_en"] == "default: 4k tokens"
    bad = call_tool("ask_clarifying_question", {"slot": "colour", "question": "Which colour?"})
    assert not bad.ok and "'model', 'task', 'precision'" in bad.error


# --------------------------------------------------------------------------------------------------------------
# Invalid calls: readable errors, never a crash
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, args, needle", [
    ("estimate_memory", {"model": "llama-3-70b", "context": -5}, "context: Input should be greater than or equal to 1"),
    ("estimate_memory", {"model": "llama-3-70b", "weights": "int3"}, "weights: Input should be 'fp32'"),
    ("estimate_memory", {"model": "llama-3-70b", "context": float("nan")}, "context: Input should be a finite number"),
    ("estimate_memory", {"context": 4096}, "model: Field required"),
    ("estimate_memory", {"model": "llama-9000"}, "unknown model 'llama-9000'; did you mean"),
    ("estimate_memory", {"model": "llama-3-70b", "tp": 4}, "tp × pp = 4 exceeds the 1 GPUs"),
    ("lookup_gpu", {"gpu": "h100", "rm": "-rf /"}, "rm: unknown field (accepted: gpu)"),
    ("lookup_gpu", {"gpu": "h1000"}, "unknown gpu 'h1000'"),
    ("train_time", {"model": "llama-2-7b", "gpu": "h100", "tokens": -1}, "tokens: Input should be greater than 0"),
    ("estimate_memory", "{bad", "not valid JSON"),
    ("estimate_memory", "[1, 2]", "must be an object, not list"),
    ("delete_files", {"path": "/"}, "unknown tool 'delete_files' (accepted: ask_clarifying_question"),
    (None, {}, "unknown tool '<none>'"),
])
def test_invalid_calls_return_readable_errors(name: object, args: object, needle: str) -> None:
    r = call_tool(name, args)
    assert not r.ok and needle in r.error, r.error
    assert json.loads(r.content()) == {"tool": r.name, "ok": False, "error": r.error}
    step = r.step()
    assert isinstance(step, Step) and not step.ok and step.summary == f"error: {r.error}"


def test_a_tool_bug_becomes_an_error_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(args: object) -> None:
        raise ZeroDivisionError("bug")

    monkeypatch.setitem(TOOLS, "lookup_gpu", tools.ToolSpec("lookup_gpu", tools.LookupGpuArgs, boom, "x"))
    r = call_tool("lookup_gpu", {"gpu": "h100"})
    assert not r.ok and r.error == "internal error in lookup_gpu (ZeroDivisionError); try other arguments"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
field_names = st.sampled_from(["model", "gpu", "gpus", "count", "context", "weights", "task", "tokens", "tp",
                               "concurrency", "query", "slot", "question", "budget", "years", "x"])


@settings(max_examples=200, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(ALLOWED)), args=st.dictionaries(field_names, json_values, max_size=5))
def test_fuzzed_arguments_never_raise_and_stay_finite(name: str, args: dict) -> None:
    r = call_tool(name, args)
    text = r.content()
    json.loads(text)  # valid JSON, no NaN/Infinity tokens
    assert "NaN" not in text and "Infinity" not in text
    for n in r.numbers:
        assert math.isfinite(n["value"])


# --------------------------------------------------------------------------------------------------------------
# LangChain wrappers
# --------------------------------------------------------------------------------------------------------------

def test_langchain_wrappers_route_through_call_tool() -> None:
    pytest.importorskip("langchain_core")
    wrapped = {t.name: t for t in tools.langchain_tools()}
    assert set(wrapped) == ALLOWED
    assert wrapped["ask_clarifying_question"].return_direct and not wrapped["lookup_gpu"].return_direct
    schema = wrapped["estimate_memory"].tool_call_schema.model_json_schema()
    assert schema["required"] == ["model"] and "q4_k_m" in json.dumps(schema["properties"]["weights"])
    message = wrapped["lookup_gpu"].invoke({"type": "tool_call", "id": "c1", "name": "lookup_gpu",
                                            "args": {"gpu": "h20"}})
    assert json.loads(message.content)["gpu"] == "NVIDIA H20 96GB"
    assert isinstance(message.artifact, tools.ToolResult) and message.artifact.ok
