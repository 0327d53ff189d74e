"""The same question gives the same configurations and numbers through every front end (issue 12).

Each conversation runs through:
- `Conversation.respond` in process (the reference the others are compared with);
- `gpu-advisor ask --json --state FILE` per turn: one real CLI process per turn for the inline cases, the same
  command in process (`ui.cli.entry.main`) for the dialog test set;
- the LLM agent's `recommend` tool, called with the workload and constraints the conversation evaluated (what the
  agent passes when it has the same slots): its ranked options must be the dialog's, in order (the configurations
  the user named, and the llama.cpp offload option the dialog adds on one named card, are shown apart from the
  ranking and compared through the other front ends);
- the web app's turn handler (`ui.web.app.ChatController`, what Gradio calls) and the side panel's options table;
- the Slack bot, over real signed HTTP requests in one thread against the local mock Slack Web API.

Per turn, a configuration is compared by GPU, count, layout, per-GPU bytes, decode or training tokens/s and price;
the numbers of an answer by name, value and unit. The web table and the Slack table are compared cell by cell with
the numbers they show (GiB per GPU to 0.1, tokens/s to 1).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from knowledge.structs import dump
from tests.slack_support import Harness, mention

GIB = 2**30
ROOT = Path(__file__).resolve().parent.parent
CONVERSATIONS_DIR = Path(__file__).parent / "conversations"
SUBSET = 1000  # every conversation of the dialog test set, beside the cases below

INLINE: list[tuple[str, list[str]]] = [
    ("en-serve-70b", ["Serve Llama 3 70B in INT4 with 8k context for 50 users"]),
    ("zh-serve-72b", ["部署 Qwen2.5-72B，32k 上下文，50 并发"]),
    ("en-lora-owned", ["LoRA fine-tune Qwen2.5-14B on our two 3090s"]),
    ("zh-budget-cn", ["报价：70B 推理，预算 20 万", "默认"]),
    ("en-qlora", ["QLoRA fine-tune Llama 3.1 70B, 4k context"]),
    ("en-full-ft", ["Full fine-tune Llama 3.1 8B with 8k context"]),
    ("en-pretrain", ["Pre-train a Llama 3.1 8B on 1T tokens in 30 days"]),
    ("en-refine", ["Serve Mistral-7B for 32 users", "what about 8bit?"]),
]


def _dialog_cases() -> list[tuple[str, list[str]]]:
    cases = []
    for path in sorted(CONVERSATIONS_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in data.get("conversations", []):
            texts = [t["say"] * int(t.get("repeat") or 1) for t in case.get("turns", []) if isinstance(t.get("say"), str)]
            if texts and all(t.strip() and len(t) < 2000 for t in texts):
                cases.append((f"{path.stem}:{case['id']}", texts))
    step = max(1, len(cases) // SUBSET)
    return cases[::step][:SUBSET]


CASES = INLINE + _dialog_cases()


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch):
    for k in ("OPENAI_API_KEY", "ADVISOR_API_KEY", "ADVISOR_MODEL", "OPENAI_BASE_URL", "ADVISOR_SETTINGS"):
        monkeypatch.delenv(k, raising=False)


@pytest.fixture(scope="module")
def harness():
    h = Harness()
    yield h
    h.stop()


def _rounded(x: Any) -> Any:
    return round(x, 6) if isinstance(x, float) and math.isfinite(x) else x


def configuration(opt: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree about one configuration, from its `recommend --json` shape."""
    speed = opt.get("throughput") or {}
    price = opt.get("price") or {}
    return (opt["gpu"], opt["count"], json.dumps(opt.get("layout"), sort_keys=True),
            (opt.get("per_gpu_bytes") or {}).get("total"), opt.get("fits"),
            _rounded(speed.get("decode_tokens_per_s_total") or speed.get("tokens_per_s")),
            _rounded(price.get("amount")), price.get("currency"))


def numbers(items: list[Any]) -> list[tuple[Any, ...]]:
    rows = [n if isinstance(n, dict) else dump(n, json=True) for n in items]
    return [(n["name"], _rounded(n["value"]), n["unit"]) for n in rows]


def _cli_turns(texts: list[str], tmp_path: Path, *, real_process: bool) -> list[dict[str, Any]]:
    """`gpu-advisor ask --json --state FILE` per turn: a real CLI process for the inline cases, `ui.cli.entry.main` in
    this process for the dialog set (the same parser, command and state file; a process start per turn cost
    about 2 s each under load, for 115 turns, and the inline cases already cover the real process)."""
    state = tmp_path / "state.json"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ADVISOR_MODEL", "OPENAI_BASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    out = []
    for text in texts:
        argv = ["ask", "--json", "--state", str(state), text]
        if real_process:
            proc = subprocess.run([sys.executable, "-m", "ui.cli.entry", *argv],
                                  capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        else:
            from ui.cli import entry as cli

            buf, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
                code = cli.main(argv)
            stdout, stderr = buf.getvalue(), err.getvalue()
        assert code == 0, stderr
        out.append(json.loads(stdout))
    return out


def _tool_args(conversation: Any) -> dict[str, Any]:
    """The `recommend` tool's arguments for the workload and constraints the conversation evaluated."""
    from advisor.conversation.tools.registry import RecommendArgs

    w = dump(conversation.workload, json=True)
    c = dump(conversation.constraints, json=True)
    args = {k: v for k, v in w.items() if k in RecommendArgs.model_fields and v is not None}
    existing = c.pop("existing", None)
    if existing:
        args.update(existing_gpu=existing["gpu"], existing_count=existing["count"])
    args.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in c.items()
                 if k in RecommendArgs.model_fields and v is not None})
    return args


def _users(opt: dict[str, Any]) -> bool:
    """A configuration the user named (own or candidate cards): the dialog shows it apart from the ranking, once."""
    return bool({"existing", "candidate"} & set(opt.get("labels") or ()))


def _offload(opt: dict[str, Any]) -> bool:
    """The llama.cpp layer-offload option the dialog adds on the one card named (advisor.recommend.offload)."""
    return (opt.get("layout") or {}).get("offload") == "layers"


def _slack_rows(body: dict[str, Any]) -> list[list[str]]:
    table = next((b for b in body.get("blocks") or [] if b["type"] == "table"), None)
    return [] if table is None else [[cell["text"] for cell in row] for row in table["rows"]]


@pytest.mark.parametrize("name, texts", CASES, ids=[c[0] for c in CASES])
def test_every_front_end_gives_the_same_configurations_and_numbers(harness, tmp_path, name, texts):
    from advisor.conversation.session import new_conversation
    from advisor.conversation.tools.registry import call_tool
    from ui.web.app import ChatController, ExportStore, SessionState

    direct = new_conversation()
    expected = []
    tool_checked = 0
    for text in texts:
        turn = direct.respond(text)
        expected.append(turn)
        recommended = [o for o in turn.options if o.get("role") == "option" and not _offload(o)]
        if recommended and direct.workload is not None and direct.workload.model:
            # the agent's tool on the same workload: the same ranked configurations
            args = _tool_args(direct) | {"top": 10}
            result = call_tool("recommend", args)
            assert result.ok, (name, result.error)
            named = {(o["gpu"], o["count"]) for o in turn.options if o.get("role") in ("existing", "candidate")}
            got = [o for o in result.artifact["recommendation"]["options"]
                   if not _users(o) and (o["gpu"], o["count"]) not in named][: len(recommended)]
            assert [configuration(o) for o in got] == [configuration(o) for o in recommended], (name, text)
            tool_checked += 1

    # the CLI, one command per turn (a real process for the inline cases), continuing through --state
    cli_turns = _cli_turns(texts, tmp_path, real_process=name in dict(INLINE))
    for i, (turn, cli) in enumerate(zip(expected, cli_turns, strict=True)):
        where = f"{name} turn {i + 1} (CLI)"
        assert [configuration(o) for o in cli["options"]] == [configuration(o) for o in turn.options], where
        assert numbers(cli["numbers"]) == numbers(turn.numbers), where
        assert cli["answer"] == turn.answer, where

    # the web app's turn handler and its side panel's table
    ctl = ChatController(exports=ExportStore(str(tmp_path / "exports")))
    state = SessionState()
    for i, (turn, text) in enumerate(zip(expected, texts, strict=True)):
        where = f"{name} turn {i + 1} (web)"
        before = state.last_turn
        list(ctl.turn(text, state, direct.lang))
        web = state.last_turn
        if web is before:  # refused at the edge (no words or digits): nothing computed, on either side
            assert not turn.options and not turn.numbers, where
            continue
        if turn.options:
            assert [configuration(o) for o in web.options] == [configuration(o) for o in turn.options], where
            table = ctl.panels(state, direct.lang)["table"]["data"]
            shown = [o for o in turn.options if (o.get("per_gpu_bytes") or {}).get("total")]
            for row, opt in zip(table, shown, strict=False):
                assert row[3] == f"{opt['per_gpu_bytes']['total'] / GIB:,.1f}", where
        assert numbers(web.numbers) == numbers(turn.numbers), where

    # the Slack bot: one thread, a message per turn (plus a details reply where the answer has sections)
    harness.bot(conversation_factory=None, placeholder_after_s=60.0)
    root = "1700002000.000100"
    for i, text in enumerate(texts):
        ts = root if i == 0 else f"1700002000.{100 + i:06d}"
        assert harness.send(mention(text, ts=ts, thread_ts=None if i == 0 else root), f"EvAgree{i}").status == 200
        with_details = sum(1 for t in expected[: i + 1] if "<details>" in t.answer)
        harness.mock.wait_calls("chat.postMessage", i + 1 + with_details, timeout=30)
    posts = [c for c in harness.mock.calls_to("chat.postMessage")
             if not str(c.body.get("text", "")).startswith(("Details:", "详情:"))]
    for i, (turn, call) in enumerate(zip(expected, posts, strict=True)):
        where = f"{name} turn {i + 1} (Slack)"
        rows = _slack_rows(call.body)[1:]
        assert len(rows) == min(len(turn.options), len(rows)) and (rows or not turn.options), where
        for row, opt in zip(rows, turn.options, strict=False):
            assert row[2] == str(opt["count"]), where
            total = (opt.get("per_gpu_bytes") or {}).get("total")
            if total:
                assert row[4].startswith(f"{total / GIB:,.1f} GiB"), where
    harness.finish_apps()
    if name in dict(INLINE):
        assert tool_checked or not any(t.options for t in expected), f"{name}: the agent's tool was never compared"
