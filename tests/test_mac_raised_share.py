""""M3 Ultra" read as its catalog default (the 96 GB Mac Studio): when none of the larger ones holds the job with
macOS's default GPU share (about 3/4 of the pool: 384 GiB of 512) but one does once the share is raised with
`sudo sysctl iogpu.wired_limit_mb`, the answer names that machine and the setting, as people run DeepSeek R1 at Q4
on the 512 GB machine; a twin that holds it by default is named as before."""

from __future__ import annotations

import re

from advisor.recommend.changes import gpu_share_ceiling, raised_share_mb
from knowledge.catalog import load_catalog
from tests.answer_text import answer

GIB = 2**30


def test_r1_q4_names_the_512gb_machine_and_the_sysctl() -> None:
    head = answer("can I run DeepSeek R1 Q4 on a Mac Studio M3 Ultra?").split("\n\n")[0]
    assert head.startswith("**No** — the machine is short by"), head  # a Mac is no card
    assert "Mac Studio M3 Ultra 512GB" in head, head
    mb = int(re.search(r"iogpu\.wired_limit_mb=(\d+)", head).group(1))
    need = float(re.search(r"([\d.]+) GiB needed", head).group(1))
    assert need * 1024 <= mb <= 480 * 1024, head  # at least the need, at most the pool less 32 GiB for the system


def test_in_chinese() -> None:
    head = answer("M3 Ultra 能跑 DeepSeek R1 Q4 吗", "zh").split("\n\n")[0]
    assert "512GB" in head and "iogpu.wired_limit_mb=" in head and "调高" in head, head


def test_a_twin_that_holds_it_by_default_needs_no_setting() -> None:
    head = answer("M3 Ultra enough for Qwen3-235B 4-bit?").split("\n\n")[0]
    assert "256GB" in head and "holds it:" in head and "sysctl" not in head, head


def test_the_ceiling_leaves_the_system_its_share() -> None:
    mac = load_catalog().gpu("mac-studio-m3-ultra-512g")
    ceiling = gpu_share_ceiling(mac)
    assert ceiling is not None and 470 * GIB <= ceiling < 512 * GIB
    assert raised_share_mb(mac, ceiling + GIB) is None
    assert gpu_share_ceiling(load_catalog().gpu("h100-sxm")) is None
