"""The faster search gives the options the plain one gave, and the one-shot CLI runs without the cyclic collector.

`search_gpu` builds only the layout it returns (price, TCO, launch line, margin) and judges the layouts it moves past
on their speed alone. The reference below is the search as it was written before: build every layout tried, keep
the last one, move on (a serving layout to the count's larger TP groups, then more GPUs) while a speed target is
missed, and once a serving layout of several servers meets it, every server count in between in turn (the search
bisects). Both are run on every candidate GPU of requests that make the
search move on (a latency target most single cards miss; a training deadline that takes several servers) and must
give the same option, field for field.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.recommend.options import SPEED_MISSES, _needed_for_speed, build_option, search_gpu, speed_misses
from advisor.recommend.results import Option
from advisor.recommend.search import (
    Search,
    candidate_gpus,
    closest_sizing,
    counts,
    first_fit,
    resolve_inputs,
    wider_groups,
)
from advisor.workload import Constraints, Workload
from knowledge.quantities import Seconds
from knowledge.schemas import GpuSpec
from knowledge.structs import dump_json

ROOT = Path(__file__).resolve().parent.parent


def _reference(search: Search, gpu: GpuSpec, pairs: list[tuple[int, int]]) -> tuple[Option | None, Option | None]:
    """The search before it skipped building the layouts it moves past."""
    remaining = list(pairs)
    best: Option | None = None
    slow = 0  # the most servers of a serving layout that missed a speed target
    while remaining:
        found = first_fit(search, gpu, remaining)
        if found is None:
            break
        # serving: every group of the count built; of those meeting the targets, the first or the widest if it is
        # over 1 % faster per user
        opts = [build_option(search, gpu, *sizing) for sizing in (found, *wider_groups(search, gpu, found))]
        meeting = [o for o in opts if not any(m in SPEED_MISSES for m in o.misses)]
        if meeting:
            if slow and found.workload.task == "inference":
                # every whole-server count between the last that missed and this one, fewest first
                for k in range(slow + 1, found.layout.nodes):
                    got = _reference(search, gpu, [(k * search.constraints.max_gpus_per_node, k)])[0]
                    if got is not None and not any(m in SPEED_MISSES for m in got.misses):
                        return got, None
            first, widest = meeting[0], opts[-1]
            faster = (widest in meeting and widest.throughput is not None and first.throughput is not None
                      and widest.throughput.decode_tokens_per_s > 1.01 * first.throughput.decode_tokens_per_s)
            return (widest if faster else first), None
        slow = found.layout.nodes if found.layout.nodes > 1 else 0
        opt = best = opts[-1]
        missed = [m for m in opt.misses if m in SPEED_MISSES]
        needed = _needed_for_speed(search, missed, opt.training, found.layout, pairs, remaining)
        remaining = [(n, k) for n, k in remaining if n >= needed]
    if best is not None:
        return best, None
    near = closest_sizing(search, gpu, pairs)
    return None, (build_option(search, gpu, *near) if near else None)


def _text(opt: Option | None) -> str | None:
    return None if opt is None else dump_json(opt)


REQUESTS = [
    # chat serving at 25 tokens/s per user: most cards need more of themselves than the memory alone asks for
    (Workload(model="qwen2.5-32b", concurrency=30), Constraints(region="cn", max_ms_per_token=40.0)),
    (Workload(model="llama-3.1-70b", concurrency=64), Constraints(max_ms_per_token=30.0, min_tokens_per_s=2000.0)),
    # a LoRA run with a deadline: more GPUs until the wall-clock fits (the full-server step in between)
    (Workload(model="llama-3.1-8b", task="lora", train_tokens=5e9), Constraints(deadline_s=3 * 86400)),
]


@pytest.mark.parametrize(("workload", "constraints"), REQUESTS, ids=["latency-cn", "latency-and-total", "deadline"])
def test_search_gives_the_options_of_building_every_layout_tried(workload: Workload, constraints: Constraints) -> None:
    model, catalog = resolve_inputs(workload, constraints)
    search = Search(model, workload, constraints, catalog)
    pairs = counts(constraints)
    moved_on = 0
    for gpu in candidate_gpus(catalog, constraints):
        got, want = search_gpu(search, gpu, pairs), _reference(search, gpu, pairs)
        assert (_text(got[0]), _text(got[1])) == (_text(want[0]), _text(want[1])), gpu.id
        first = first_fit(search, gpu, pairs)
        if first is not None and got[0] is not None and got[0].count != first.layout.count:
            moved_on += 1
    assert moved_on >= 3  # the requests do make the search move past layouts that miss a speed target


def test_speed_misses_names_each_missed_target() -> None:
    model, catalog = resolve_inputs(Workload(model="llama-3.1-8b"), Constraints())
    c = Constraints(max_ms_per_token=10.0, min_tokens_per_s=5000.0, deadline_s=3600.0)
    search = Search(model, Workload(model="llama-3.1-8b"), c, catalog)
    fast = type("T", (), {"judged_tpot": Seconds.of(5.0, "ms"), "judged_total": 6000.0})()
    slow = type("T", (), {"judged_tpot": Seconds.of(12.5, "ms"), "judged_total": 4000.0})()
    long_run = type("R", (), {"wall": Seconds.of(2, "h")})()
    assert speed_misses(search, fast, None) == []
    assert speed_misses(search, slow, None) == ["latency", "throughput"]
    assert speed_misses(search, None, long_run) == ["deadline"]


def _gc_state(code: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_one_shot_command_run_as_the_process_turns_the_collector_off() -> None:
    probe = ("import contextlib, gc, io, json, sys\n"
             "from ui.cli.entry import main\n"
             "sys.argv = ['gpu-advisor', 'gpus', '--json']\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    main()\n"
             "print(json.dumps({'enabled': gc.isenabled()}))\n")
    assert _gc_state(probe) == {"enabled": False}


def test_a_caller_that_passes_argv_or_a_long_running_command_keeps_the_collector() -> None:
    probe = ("import contextlib, gc, io, json, sys\n"
             "from ui.cli.entry import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    main(['gpus', '--json'])\n"
             "sys.argv = ['gpu-advisor', 'history', '--help']\n"
             "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
             "    main()\n"
             "print(json.dumps({'enabled': gc.isenabled()}))\n")
    assert _gc_state(probe) == {"enabled": True}
    assert gc.isenabled()
