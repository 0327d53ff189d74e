"""The offline reader against its labelled set (tests/data/reader_set.txt): per-field accuracy, in-sample (T, the
lines the reader was tuned on) and held out (H), and the time to read one message.

    .venv/bin/python benchmarks/bench_reader.py [--split T|H|all] [--show-errors] [--repeat N]
    .venv/bin/python benchmarks/bench_reader.py --llm [--limit N]   # the LLM reader against a real llama.cpp server
                                                                    # (SmolLM2-135M GGUF, tests/llamacpp_server.py)

A field is exact when the typed request has the expected value: `act`; `model` (catalog id, or the unknown name
as typed); `task`, `weights`, `context`, `concurrency`, `train_tokens` (job values); `budget` (amount and
currency), `region` (limits); `gpus` (every card named with its role and count, as a set); `excluded`;
`unknown` (names the catalog lacks); `engine_family`. Target (issue 26): >= 97 % of fields exact.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SET = ROOT / "tests" / "data" / "reader_set.txt"


def load(path: Path = SET) -> list[tuple[str, str, dict[str, str]]]:
    """(split, text, expected fields) for each labelled line."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        split, text, fields = line.split("|", 2)
        expected = dict(kv.split("=", 1) for kv in fields.split(";") if kv)
        out.append((split, text, expected))
    return out


def lang_of(text: str) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def actual(request: Any, field: str) -> str:
    """The request's value of `field` in the set's notation."""
    job = {v.name: v.value for v in request.job}
    limits = {v.name: v for v in request.limits}
    if field == "act":
        return str(request.act)
    if field == "model":
        model = next((s for s in request.subjects if s.kind == "model"), None)
        if model is None:
            return ""
        return str(model.id) if model.known else f"unknown:{model.text}"
    if field in ("task", "weights"):
        return str(job.get(field, ""))
    if field == "zero":
        return str(job.get("zero", ""))
    if field in ("mfu", "deadline_days"):
        v = limits.get(field)
        return "" if v is None else f"{float(v.value):g}"
    if field in ("context", "concurrency", "train_tokens"):
        value = job.get(field)
        return "" if value is None else f"{float(value):g}"
    if field == "budget":
        b = limits.get("budget")
        return "" if b is None else f"{float(b.value):g} {b.unit}"
    if field == "region":
        r = limits.get("region")
        return "" if r is None else str(r.value)
    if field == "gpus":
        return ",".join(sorted(f"{h.gpu}:{h.role}:{'-' if h.count is None else h.count}"
                               for h in request.hardware if h.known and h.role != "excluded"))
    if field == "excluded":
        return ",".join(sorted(str(h.gpu) for h in request.hardware if h.role == "excluded"))
    if field == "unknown":
        return ",".join(request.unknown)
    if field == "engine_family":
        return str(request.engine_family)
    raise KeyError(field)


def expected_form(field: str, value: str) -> str:
    if field in ("context", "concurrency", "train_tokens", "mfu", "deadline_days"):
        return f"{float(value):g}"
    if field == "budget":
        amount, cur = value.split()
        return f"{float(amount):g} {cur}"
    if field in ("gpus", "excluded"):
        return ",".join(sorted(value.split(",")))
    return value


def score(reader: Any, items: list[tuple[str, str, dict[str, str]]]) -> tuple[dict[str, list[int]], list[str]]:
    """Per field: [exact, total]; and the errors as lines."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    errors: list[str] = []
    for _split, text, expected in items:
        request = reader(text, lang_of(text))
        for field, value in expected.items():
            got, want = actual(request, field), expected_form(field, value)
            per[field][1] += 1
            if got == want:
                per[field][0] += 1
            else:
                errors.append(f"{field}: got {got!r} want {want!r} | {text}")
    return per, errors


def offline_reader() -> Any:
    """`reader(text, lang)`: the typed request of the last message of `text` ("A >> B": B after A)."""
    from advisor.conversation.dialog.machine import DialogState, default_catalog, observe
    from advisor.conversation.reader.request import read

    catalog = default_catalog()

    def reader(text: str, lang: str) -> Any:
        *before, last = [part.strip() for part in text.split(">>")]
        state = DialogState() if before else None
        for earlier in before:
            assert state is not None
            observe(state, earlier, lang, catalog)
            state.answered += 1
        return read(last, catalog, lang, state)

    return reader


def report(name: str, per: dict[str, list[int]]) -> float:
    ok = sum(v[0] for v in per.values())
    total = sum(v[1] for v in per.values())
    share = ok / total if total else 1.0
    print(f"{name}: {ok}/{total} fields exact = {share:.1%}")
    for field, (good, n) in sorted(per.items()):
        print(f"  {field:14s} {good:4d}/{n:<4d} {good / n:.1%}")
    return share


def llm_run(limit: int) -> None:
    """The LLM reader on the first `limit` messages of each split, against llama.cpp's server with the small model:
    how many structured answers validated, how many fell back (with the note), field accuracy, time per call."""
    from advisor.conversation.dialog.machine import default_catalog
    from advisor.conversation.llm.settings import Settings
    from advisor.conversation.reader.llm import llm_read
    from tests.llamacpp_server import LlamaServer, missing

    why = missing()
    if why:
        print(f"LLM reader: skipped ({why})")
        return
    catalog = default_catalog()
    items = [i for split in ("T", "H") for i in [j for j in load() if j[0] == split][:limit] if ">>" not in i[1]]
    with LlamaServer(chat_format="chatml") as base_url:
        settings = Settings(api_key="sk-local", base_url=base_url, model="smollm2", stream=False, request_timeout_s=60)
        times: list[float] = []
        notes: list[str] = []

        def reader(text: str, lang: str) -> Any:
            t0 = time.perf_counter()
            req = llm_read(text, settings, catalog, lang)
            times.append(time.perf_counter() - t0)
            if req.reader != "llm":
                notes.append(req.note)
            return req

        per, _errors = score(reader, items)
    report(f"LLM reader (llama.cpp, SmolLM2-135M), {len(items)} messages", per)
    print(f"  structured answers used: {len(items) - len(notes)}/{len(items)}; fell back: {len(notes)}"
          + (f" (e.g. {notes[0][:100]})" if notes else ""))
    print(f"  time per message: p50 {statistics.median(times):.2f} s, max {max(times):.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", action="store_true")
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--split", default="all", choices=["T", "H", "all"])
    ap.add_argument("--show-errors", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.llm:
        llm_run(args.limit)
        return
    items = load()
    reader = offline_reader()
    reader("warm-up: qwen2.5-7b on a 4090", "en")
    for split in (["T", "H"] if args.split == "all" else [args.split]):
        chosen = [i for i in items if i[0] == split]
        per, errors = score(reader, chosen)
        report({"T": "in-sample (tuned on)", "H": "held out"}[split] + f", {len(chosen)} messages", per)
        if args.show_errors:
            for e in errors:
                print("   ", e)
    times = []
    for _ in range(args.repeat):
        for _split, text, _e in items:
            t0 = time.perf_counter()
            reader(text, lang_of(text))
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    print(f"read one message: p50 {statistics.median(times):.2f} ms, p95 {times[int(0.95 * len(times))]:.2f} ms "
          f"over {len(times)} reads (target p50 < 5 ms)")


if __name__ == "__main__":
    main()
