"""Dump the `--json` of CLI commands and the deterministic dialog's turns over the conversation test sets, to diff
two versions of the code (a refactoring must leave every byte unchanged):

    PYTHONPATH=<tree A> python benchmarks/json_regression.py /tmp/a
    PYTHONPATH=<tree B> python benchmarks/json_regression.py /tmp/b
    diff -r /tmp/a /tmp/b

Runs in one process (`ui.cli.entry.main`), offline. Errors are recorded as their one line on stderr and the exit status.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import yaml

CLI: list[list[str]] = [
    ["gpus", "--json"], ["models", "--json"], ["gpus", "show", "h100-sxm", "--json"],
    ["models", "show", "llama-3-70b", "--json"], ["models", "show", "deepseek-v3", "--json"],
    ["estimate", "--model", "llama-3-70b", "--json"],
    ["estimate", "--model", "llama-3-70b", "--context", "8192", "--batch", "4", "--tp", "2", "--gpus", "2",
     "--gpu", "h100-sxm", "--json"],
    ["estimate", "--model", "qwen2.5-7b", "--task", "qlora", "--json"],
    ["estimate", "--model", "qwen2.5-7b", "--task", "lora", "--lora-rank", "64", "--json"],
    ["estimate", "--model", "llama-3-8b", "--task", "full", "--zero", "3", "--gpus", "8", "--json"],
    ["estimate", "--model", "llama-3-8b", "--task", "full", "--offload", "optimizer", "--zero", "2", "--json"],
    ["estimate", "--model", "deepseek-v3", "--weights", "fp8", "--kv", "fp8", "--json"],
    ["estimate", "--model", "qwen2.5-72b", "--weights", "awq-int4", "--concurrency", "16", "--json"],
    ["estimate", "--model", "llama-3-8b", "--weights", "q4_k_m", "--engine", "llama.cpp", "--json"],
    ["estimate", "--model", "llama-3-8b", "--task", "pretrain", "--recompute", "selective", "--json"],
    ["estimate", "--model", "llama-3-70b", "--context", "0", "--json"],
    ["estimate", "--model", "llama-3-70b", "--context", "１０２４", "--json"],
    ["estimate", "--model", "llama-3-70b", "--tp", "4", "--json"],
    ["estimate", "--model", "llama-3-70b", "--task", "qlora", "--weights", "bf16", "--json"],
    ["estimate", "--model", "nope-model", "--json"],
    ["throughput", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--json"],
    ["throughput", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--count", "4", "--json"],
    ["throughput", "--model", "qwen2.5-7b", "--gpu", "l40s", "--concurrency", "32", "--json"],
    ["throughput", "--model", "qwen2.5-72b", "--gpu", "a100-80gb", "--count", "8", "--tp", "4", "--json"],
    ["throughput", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--weights", "q4_k_m", "--engine", "llama.cpp",
     "--json"],
    ["throughput", "--model", "deepseek-v3", "--gpu", "h200", "--count", "8", "--weights", "fp8", "--json"],
    ["throughput", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--request-rate", "5", "--json"],
    ["throughput", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--context", "-5", "--json"],
    ["train-time", "--model", "llama-3-8b", "--tokens", "1e9", "--gpu", "h100-sxm", "--count", "8", "--json"],
    ["train-time", "--model", "llama-3-70b", "--tokens", "1e10", "--gpu", "h100-sxm", "--count", "64",
     "--json"],
    ["train-time", "--model", "qwen2.5-7b", "--tokens", "2e8", "--gpu", "a100-80gb", "--task", "lora",
     "--json"],
    ["train-time", "--model", "llama-3-8b", "--tokens", "1e9", "--gpu", "h100-sxm", "--mfu", "0.4", "--json"],
    ["train-time", "--model", "llama-3-8b", "--tokens", "nan", "--gpu", "h100-sxm", "--json"],
    ["tco", "--gpu", "h100-sxm", "--count", "8", "--json"],
    ["tco", "--gpu", "rtx-4090", "--count", "2", "--years", "3", "--currency", "CNY", "--json"],
    ["tco", "--gpu", "a100-80gb", "--model", "llama-3-70b", "--json"],
    ["tco", "--gpu", "l40s", "--count", "4", "--utilization", "0.5", "--json"],
    ["recommend", "--model", "llama-3-70b", "--json"],
    ["recommend", "--model", "llama-3-8b", "--json"],
    ["recommend", "--model", "qwen2.5-72b", "--region", "cn", "--currency", "CNY", "--json"],
    ["recommend", "--model", "llama-3-70b", "--budget", "50000", "--json"],
    ["recommend", "--model", "deepseek-r1", "--json"],
    ["recommend", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--json"],
    ["recommend", "--model", "llama-3-8b", "--task", "full", "--tokens", "1e9", "--deadline-days", "3",
     "--json"],
    ["recommend", "--model", "llama-3-70b", "--existing", "4×a100-80gb", "--json"],
    ["recommend", "--model", "llama-3-70b", "--candidates", "h20,l20,rtx-4090", "--json"],
    ["recommend", "--model", "llama-3-70b", "--concurrency", "64", "--context", "32768", "--json"],
    ["recommend", "--model", "qwen2.5-32b", "--condition", "used", "--json"],
    ["recommend", "--model", "llama-3-70b", "--max-ms-per-token", "30", "--json"],
    ["recommend", "--model", "llama-3-70b", "--existing", "0×a100-80gb", "--json"],
    ["recommend", "--model", "llama-3-70b", "--budget", "-1", "--json"],
    ["recommend", "--model", "llama-3-70b", "--budget", "inf", "--json"],
]


def _run_cli(argv: list[str]) -> dict[str, Any]:
    from ui.cli.entry import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return {"argv": argv, "status": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def _conversations() -> list[dict[str, Any]]:
    from advisor.conversation.session import Conversation
    from ui.cli import jsonout

    out = []
    import ui

    tree = Path(ui.__file__).resolve().parent.parent  # the tree on PYTHONPATH, not this script's
    for path in sorted((tree / "tests" / "conversations").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for conv in doc["conversations"]:
            c = Conversation(driver="deterministic")
            turns = []
            for spec in conv["turns"]:
                said = spec.get("say", "") * int(spec.get("repeat", 1))
                turn = c.respond(said)
                turns.append(json.loads(jsonout.dumps(turn.to_contract())))
                c = Conversation.from_dict(json.loads(json.dumps(c.to_dict(), ensure_ascii=False)))  # --state
            out.append({"id": conv["id"], "turns": _mask(turns)})
    return out


_VOLATILE = {"elapsed_s", "duration_s", "ms", "timing", "created_at", "generated_at", "conversation_id", "id_",
             "turn_id", "started_at", "took_ms"}


def _mask(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: ("<masked>" if k in _VOLATILE else _mask(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_mask(v) for v in obj]
    return obj


def main() -> int:
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    for i, argv in enumerate(CLI):
        (target / f"cli-{i:02d}-{argv[0]}.json").write_text(json.dumps(_run_cli(argv), ensure_ascii=False, indent=1),
                                                           encoding="utf-8")
    for conv in _conversations():
        (target / f"conv-{conv['id']}.json").write_text(json.dumps(conv, ensure_ascii=False, indent=1),
                                                        encoding="utf-8")
    print(f"{len(CLI)} CLI runs and the conversations written to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
