"""Tokens per sequence is called `context` at every layer (issue 12); `seq_len`, the training JSON contract's name,
is still accepted where callers used it: the training estimators' keyword, the train_time tool's argument and the
`train-time --seq-len` flag give exactly what `context` gives."""

from __future__ import annotations

import json

from advisor.conversation.tools.registry import call_tool
from advisor.estimator.calibration import load_calibration
from advisor.estimator.planner import plan_training
from advisor.estimator.training import estimate_train_time
from knowledge.catalog import load_catalog
from ui.cli.entry import main


def test_training_estimators_take_context_and_the_old_keyword_alike():
    cat, cal = load_catalog(), load_calibration()
    m, g = cat.model("llama-3-8b"), cat.gpu("h100-sxm")
    new = estimate_train_time(m, g, 8, 1e10, cal, context=2048, task="full")
    old = estimate_train_time(m, g, 8, 1e10, cal, seq_len=2048, task="full")
    assert new == old and new.context == 2048 and new.to_contract()["workload"]["seq_len"] == 2048
    default = estimate_train_time(m, g, 8, 1e10, cal, task="full")
    assert default.context != 2048  # the keyword is read, not ignored
    plan = plan_training(cat.model("llama-3.1-8b"), g, 64, 1e12, cal, context=4096)
    assert plan == plan_training(cat.model("llama-3.1-8b"), g, 64, 1e12, cal, seq_len=4096)
    assert plan.context == 4096


def test_train_time_tool_reads_context_or_seq_len():
    base = {"model": "llama-3-8b", "gpu": "a100-80g-sxm", "count": 8, "tokens": 2e9, "task": "lora"}
    a = call_tool("train_time", {**base, "context": 1024})
    b = call_tool("train_time", {**base, "seq_len": 1024})
    assert a.ok and b.ok and a.data == b.data and a.data["context"] == 1024


def test_train_time_cli_context_and_seq_len_flags(capsys):
    argv = ["train-time", "--model", "llama-3-8b", "--gpu", "a100-80g-sxm", "--count", "8", "--tokens", "2e9",
            "--task", "lora", "--json"]
    outs = []
    for flag in ("--context", "--seq-len"):
        assert main([*argv, flag, "1024"]) in (0, None)
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0]["workload"]["seq_len"] == 1024
