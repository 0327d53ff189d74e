"""The grounding gate (advisor/conversation/grounding/gate.py): numbers in an answer must match this turn's tool
results after unit conversion. References: 1 GiB = 2^30 B, 1 GB = 1e9 B, 1 万 = 1e4, 1 亿 = 1e8."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from advisor.conversation.grounding import gate as grounding
from advisor.conversation.grounding.gate import Pool, check, extract
from advisor.conversation.tools.format import num

H100_BYTES = 80 * 2**30  # 85,899,345,920 B


def ok(answer: str, *results: object) -> bool:
    return check(answer, Pool.of(results)).ok


# --------------------------------------------------------------------------------------------------------------
# Unit conversion
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("answer, result, expected", [
    # bytes: GiB, GB, MiB, TB, Chinese "G"
    ("The H100 has 80 GiB.", {"memory_bytes": H100_BYTES}, True),
    ("The H100 has 85.9 GB.", {"memory_bytes": H100_BYTES}, True),
    ("The H100 has 81,920 MiB.", {"memory_bytes": H100_BYTES}, True),
    ("The H100 has 80 GB.", {"memory_bytes": H100_BYTES}, True),  # the nominal capacity of an 80 GiB card
    ("The H100 has 75 GB.", {"memory_bytes": H100_BYTES}, False),
    ("It needs 141.1 GiB.", {"total_bytes": 141.1e9}, False),  # 141.1 GB is 131.4 GiB: a GiB/GB mix-up
    ("H100 有 80G 显存", {"memory_bytes": H100_BYTES}, True),  # "G" may be GiB
    ("It needs 0.14 TB in total.", {"total_bytes": 141_100_000_000}, True),
    ("It needs 1.4e11 bytes.", {"total_bytes": 141_100_000_000}, True),
    # FLOP/s and bandwidth
    ("989.4 TFLOPS dense BF16", {"bf16_dense_flops": 989.4e12}, True),
    ("1979 TFLOPS dense BF16", {"bf16_dense_flops": 989.4e12}, False),  # the sparse figure
    ("3.35 TB/s", {"bandwidth_bytes_per_s": 3.35e12}, True),
    ("3,350 GB/s", {"bandwidth_bytes_per_s": 3.35e12}, True),
    ("3.35 GB/s", {"bandwidth_bytes_per_s": 3.35e12}, False),
    # tokens/s
    ("35.2 tokens/s per user", {"decode_tokens_per_s": 35.21}, True),
    ("1.2k tokens/s in total", {"decode_tokens_per_s_total": 1204.0}, True),
    ("每秒 35 tokens/秒", {"decode_tokens_per_s": 35.21}, True),
    ("45 tokens/s per user", {"decode_tokens_per_s": 35.21}, False),
    # time: ms, s, hours, days, GPU-hours
    ("TTFT 231 ms", {"ttft_s": 0.2312}, True),
    ("TTFT 0.23 s", {"ttft_s": 0.2312}, True),
    ("TTFT 2.3 s", {"ttft_s": 0.2312}, False),
    ("about 18.2 days", {"wall_s": 18.2 * 86400}, True),
    ("437 hours", {"wall_s": 18.2 * 86400}, True),
    ("3,502 GPU-hours", {"gpu_hours": 3502.4}, True),
    ("3502 GPU 小时", {"gpu_hours": 3502.4}, True),
    ("5,000 GPU-hours", {"gpu_hours": 3502.4}, False),
    # percent
    ("MFU 31.5%", {"mfu": 0.315}, True),
    ("MFU 40%", {"mfu": 0.315}, False),
    # money with 万/k/M and currencies
    ("预算 ¥20万", {"budget": 200_000, "currency": "CNY"}, True),
    ("预算 20 万元", {"budget": 200_000, "currency": "CNY"}, True),
    ("a $50k budget", {"amount": 50_000, "currency": "USD"}, True),
    ("a ¥50k budget", {"amount": 50_000, "currency": "USD"}, False),  # right number, wrong currency
    ("$36,500 per card", {"price_usd": 36_500}, True),
    ("36,500 元一张", {"price_usd": 36_500}, False),
    ("$1.2M over 3 years", {"tco": {"amount": 1_200_000, "currency": "USD"}, "years": 3}, True),
    # counts: parameters, GPUs, context
    ("Llama-3-70B has 70.55B parameters", {"params": 70_553_706_496}, True),
    ("Llama-3-70B has 72.1B parameters", {"params": 70_553_706_496}, False),
    ("它有 705.5亿参数", {"params": 70_553_706_496}, True),
    ("Use 8× H100.", {"count": 8}, True),
    ("Use 4× H100.", {"count": 8}, False),
    ("Use 2 H100s with TP 2.", {"gpus": 2, "tp": 2}, True),
    ("用两张 4090", {"count": 2, "gpu": "GeForce RTX 4090"}, True),
    ("用三张 4090", {"count": 2, "gpu": "GeForce RTX 4090"}, False),
    ("two H100s are enough", {"count": 2}, True),
    ("at 32k context", {"context": 32768}, True),
    ("at 32k context", {"context": 32000}, True),
    ("at 8k context", {"context": 32768}, False),
])
def test_unit_conversion(answer: str, result: dict, expected: bool) -> None:
    assert ok(answer, result) is expected


def test_number_dicts_are_typed_by_their_unit() -> None:
    result = {"numbers": [num("total per GPU", 144.9e9, "bytes", "estimate_memory"),
                          num("MFU", 0.315, "ratio", "train_time"), num("price", 140_000, "CNY", "catalog")]}
    assert ok("It needs 134.9 GiB (144.9 GB) per GPU at 31.5% MFU; a card costs ¥140,000 (14万元).", result)
    assert not ok("It needs 134.9 GB per GPU.", result)
    report = check("It needs 144.9 GB, MFU 31.5%.", Pool.of([result]))
    assert [r["name"] for r in report.refs] == ["total per GPU", "MFU"]


def test_approximate_marker_allows_one_percent() -> None:
    result = {"total_bytes": 141.1e9}
    assert ok("≈140 GB in total", result) and ok("约 140 GB", result) and ok("about 140 GB", result)
    assert not ok("140 GB in total", result)  # printed as exact: half a unit of the last digit only
    assert not ok("≈130 GB in total", result)


# --------------------------------------------------------------------------------------------------------------
# What is not a claim
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "As of 2025-01-15 the price was listed.",
    "数据截至 2024年10月，来源见下。",
    "Q3 2024 shipments; released in 2023.",
    "1. First option\n2) Second option\n3、第三个",
    "Option 2 is cheaper; see step 3 and 方案1 / 第2步.",
    "H100, A800, H20, L20, RTX 4090, RTX 5090D, 4090D, MI300X, Ascend 910B, 昇腾910B",
    "Llama-3.1-70B, Qwen2.5-72B-Instruct, DeepSeek-V3, gpt-4o, Q4_K_M, FP8, BF16, INT4, ZeRO-3, PCIe 4.0",
    "Llama 3.1 and Qwen 2.5 in 4-bit or 8 bit (4位量化); vLLM 0.6.3; NVLink 4; Gen 5",
    "1 GiB = 2^30 bytes and 1 GB = 10^9 bytes",
])
def test_non_claims_are_skipped(text: str) -> None:
    assert extract(text) == [] and ok(text)


def test_full_width_digits_are_read() -> None:
    assert [m.text for m in extract("显存 ８０ GiB，１２３ tokens/s")] == ["80 GiB", "123 tokens/s"]
    assert ok("显存 ８０ GiB", {"memory_bytes": H100_BYTES})
    assert not ok("显存 ９０ GiB", {"memory_bytes": H100_BYTES})


def test_numbers_inside_tool_strings_count_as_results() -> None:
    finding = {"findings": [{"rule_id": "x", "message": "the estimate needs 134.9 GiB per GPU and the H100 has 80.0 GiB"}]}
    assert ok("It needs 134.9 GiB while the card has 80.0 GiB.", finding)
    assert ok("A GeForce RTX 4090 has 24 GB.", {"gpu": "GeForce RTX 4090", "memory_bytes": 24 * 2**30})
    assert not ok("A GeForce RTX 4090 has 24 GB.", {"gpu": "GeForce RTX 4090"})  # the name alone is no capacity
    assert ok("The NVIDIA H100 SXM5 80GB is sold out.", {"gpu": "NVIDIA H100 SXM5 80GB"})


def test_an_empty_pool_grounds_nothing_but_text_without_numbers() -> None:
    assert ok("I can only help with GPU sizing.")
    report = check("You need 3 GPUs and 200 GB.", Pool())
    assert not report.ok and [m.text for m in report.ungrounded] == ["3 GPUs", "200 GB"]


# --------------------------------------------------------------------------------------------------------------
# Properties: no false rejections of faithfully rendered numbers, and changed numbers are caught
# --------------------------------------------------------------------------------------------------------------

UNITS = {
    "bytes": st.floats(1e6, 1e13), "bytes/s": st.floats(1e10, 1e13), "FLOP/s": st.floats(1e12, 1e16),
    "tokens/s": st.floats(0.1, 1e5), "s": st.floats(1e-3, 1e7), "USD": st.floats(1, 1e7), "CNY": st.floats(1, 1e8),
    "ratio": st.floats(0.001, 0.999), "W": st.floats(10, 1e5), "GPU-hours": st.floats(1, 1e6),
    "params": st.floats(1e8, 1e12),
}


@st.composite
def tool_number(draw: st.DrawFn) -> dict:
    unit = draw(st.sampled_from(sorted(UNITS)))
    value = draw(UNITS[unit])
    if unit in ("bytes", "params"):
        value = float(int(value))
    return num("quantity", value, unit, "test")


@settings(max_examples=500, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(numbers=st.lists(tool_number(), min_size=1, max_size=4))
@example(numbers=[num("total", 144.9e9, "bytes", "t"), num("mfu", 0.315, "ratio", "t")])
def test_rendered_tool_numbers_always_pass(numbers: list[dict]) -> None:
    answer = "; ".join(f"value {'ABCD'[i]}: {n['display']}" for i, n in enumerate(numbers))
    report = check(answer, Pool.of([{"numbers": numbers}]))
    assert report.ok, [m.text for m in report.ungrounded]


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(n=tool_number(), factor=st.sampled_from([0.5, 0.8, 1.25, 2.0, 3.0, 10.0]))
def test_a_changed_number_is_always_caught(n: dict, factor: float) -> None:
    changed = num("quantity", n["value"] * factor, n["unit"], "test")
    assume(changed["display"] != n["display"])  # a change the display precision cannot show is no claim
    pool = Pool.of([{"numbers": [n]}])
    assert not check(f"The value is {changed['display']}.", pool).ok, (n["display"], changed["display"])


@settings(max_examples=300, derandomize=True, database=None)
@given(gib=st.floats(0.001, 1e6))
def test_gib_gb_round_trip(gib: float) -> None:
    b = gib * grounding.GIB
    gb = b / 1e9
    assert abs(gb * 1e9 / grounding.GIB - gib) <= 1e-12 * gib
    assert abs(grounding.GIB / 1e9 - 1.073741824) < 1e-15
