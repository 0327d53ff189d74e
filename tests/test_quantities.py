"""knowledge.quantities: memory and money keep their unit across layers.

The conversions are checked against hand arithmetic (1 GiB = 2^30 B = 1,073,741,824 B; 1 GB = 10^9 B) and figures
printed by vendors and tools, never against the module's own constants.
"""

from __future__ import annotations

import pytest

from advisor.estimator.results import Breakdown, MemoryEstimate
from knowledge.quantities import Bytes, Money, memory_text


def test_datasheet_gigabytes_in_gibibytes_by_hand() -> None:
    # 80 GB (SI) = 80,000,000,000 B; / 1,073,741,824 B per GiB = 74.505... GiB
    eighty_gb = Bytes.of(80, "GB")
    assert eighty_gb.n == 80_000_000_000
    assert eighty_gb.gib == pytest.approx(74.50580596923828, abs=1e-12)
    assert eighty_gb.text("GiB") == "74.5 GiB"
    # an H100's 80 GB of HBM3 is 80 GiB as nvidia-smi counts it (81,920 MiB): 85.9 GB in SI units
    hbm = Bytes.of(81_920, "MiB")
    assert hbm.n == 85_899_345_920 and hbm.text("GB") == "85.9 GB" and hbm.text("GiB", 0) == "80 GiB"
    # 24 GiB (an RTX 4090) is 25.77 GB; 141 GB (H200 datasheet) is 131.3 GiB
    assert Bytes.of(24, "GiB").text("GB", 2) == "25.77 GB"
    assert Bytes.of(141, "GB").text("GiB") == "131.3 GiB"
    # binary and decimal prefixes below and above: 1 TiB = 1,099,511,627,776 B; 1 TB = 931.3 GiB
    assert Bytes.of(1, "TiB").n == 1_099_511_627_776 and Bytes.of(1, "TB").text("GiB") == "931.3 GiB"
    assert Bytes.of(1.5, "KiB").n == 1536 and Bytes.of(1.5, "KB").n == 1500


def test_formatting_always_names_the_unit() -> None:
    amount = Bytes(141_100_000_000)
    assert str(amount) == "131.4 GiB"
    assert amount.text("GB") == "141.1 GB"
    assert Bytes(5 * 2**40).text("GiB", 0, grouped=True) == "5,120 GiB"
    assert memory_text(2**29, "MiB", 0) == "512 MiB"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB"):
        assert Bytes(10**12).text(unit).endswith(" " + unit)  # type: ignore[arg-type]


def test_gib_and_gb_cannot_be_mixed_silently() -> None:
    gb, gib = Bytes.of(80, "GB"), Bytes.of(80, "GiB")
    # both sides carry their unit: the sum is exact, in bytes
    assert (gb + gib).n == 80_000_000_000 + 85_899_345_920
    assert gib > gb and gib - gb == Bytes(5_899_345_920)
    # a bare number could be GiB or GB (or bytes): adding, subtracting or comparing it raises
    for bad in (lambda: gb + 80, lambda: 80 + gb, lambda: gb - 74.5, lambda: 1.0 - gb, lambda: gb < 80):
        with pytest.raises(TypeError):
            bad()
    # `/ 2**30` is the hand conversion the type replaces: refused; a share is a ratio of two amounts
    with pytest.raises(TypeError):
        gb / 2**30  # type: ignore[operator]
    assert gb.ratio(gib) == pytest.approx(80e9 / (80 * 2**30))
    with pytest.raises(TypeError):
        gb.ratio(80)  # type: ignore[arg-type]
    assert gb * 0.5 == Bytes(40_000_000_000) and 2 * gib == Bytes.of(160, "GiB")
    with pytest.raises(TypeError):
        gb * gib  # type: ignore[operator]
    assert Bytes.of(100, "GiB") // Bytes(2**20) == 102_400  # how many MiB fit: a count
    assert gb != 80_000_000_000  # a Bytes is not equal to a bare int of the same size


def test_money_in_two_currencies_does_not_add() -> None:
    usd, cny = Money(amount=30_000, currency="USD"), Money(amount=220_000, currency="CNY")
    assert usd + Money(amount=5_000, currency="USD") == Money(amount=35_000, currency="USD")
    assert str(usd * 2) == "$60,000 USD"
    with pytest.raises(TypeError, match="USD and CNY"):
        usd + cny
    with pytest.raises(TypeError, match="USD and CNY"):
        assert usd < cny
    with pytest.raises(TypeError):
        usd + 5_000  # type: ignore[operator]


def test_estimator_results_carry_bytes_and_the_contract_still_writes_integers() -> None:
    parts = Breakdown(weights=16_060_522_496, kv_cache=1_073_741_824.4, overhead=2 * 2**30)
    assert parts.total == Bytes(16_060_522_496 + 1_073_741_824 + 2 * 2**30)
    assert parts.to_contract() == {"weights": 16_060_522_496, "gradients": 0, "optimizer_states": 0,
                                   "activations": 0, "kv_cache": 1_073_741_824, "overhead": 2_147_483_648,
                                   "reference_model": 0,
                                   "total": 19_281_747_968}
    assert all(type(v) is int for v in parts.to_contract().values())
    est = MemoryEstimate(model="m", task="inference", params=8_030_261_248, active_params=8_030_261_248,
                         per_gpu=parts, usable_fraction=0.9, kv_bytes_per_token=Bytes(131_072))
    card = Bytes.of(24, "GiB")
    # usable = 0.9 × 24 GiB = 21.6 GiB = 23,192,823,398 B (int of 23,192,823,398.4); headroom = usable − 19,281,747,968
    assert est.usable_bytes(card) == Bytes(23_192_823_398)
    assert est.headroom_bytes(card) == Bytes(23_192_823_398 - 19_281_747_968) and est.fits(card)
    # KV room: usable − (total − KV) = 23,192,823,398 − 18,208,006,144 = 4,984,817,254 B; / 131,072 B = 38,031 tokens
    assert est.kv_capacity_tokens(card) == 38_031
    assert est.to_contract()["per_gpu_bytes"]["total"] == 19_281_747_968
