"""`gpu-advisor ask` and `gpu-advisor chat` (ui/cli/commands/ask.py, chat.py) in deterministic mode."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from ui.cli.entry import main


@pytest.fixture(autouse=True)
def _no_model(monkeypatch):
    for name in ("OPENAI_API_KEY", "ADVISOR_MODEL", "ADVISOR_SETTINGS"):
        monkeypatch.delenv(name, raising=False)


def test_ask_json_follows_the_contract(capsys):
    assert main(["ask", "--json", "我只有一张 4090，想做 14B 的 QLoRA 微调，序列长度 4k，够吗？"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"answer", "questions", "numbers", "findings", "mode",  # issue 13 adds the answer's parts:
                        "intent", "verdict", "options", "breakdown", "assumptions",
                        "fallback", "note",  # issue 19: why a model's answer was replaced
                        "request"}  # issue 26: the typed reading of the message
    req = out["request"]
    assert req["act"] == "feasibility" and req["engine_family"] == "server"  # a fine-tune: not a llama.cpp job
    job = {v["name"]: v for v in req["job"]}
    assert job["task"]["value"] == "qlora" and job["task"]["provenance"] == "stated"
    assert job["context"]["value"] == 4096 and job["context"]["provenance"] == "stated"
    assert [(h["gpu"], h["role"], h["count"]) for h in req["hardware"]] == [("rtx-4090", "owned", 1)]
    assert out["mode"] == "deterministic" and out["fallback"] is None  # no model configured: nothing fell back
    assert out["intent"] == "feasibility" and out["verdict"] in ("yes", "no", "with_changes")
    b = out["breakdown"]
    assert b["gpu"] == "rtx-4090" and b["count"] == 1 and b["total"] == sum(
        b[k] for k in ("weights", "gradients", "optimizer_states", "activations", "kv_cache", "overhead"))
    assert out["options"] and out["assumptions"] and all(isinstance(a, str) for a in out["assumptions"])
    assert "RTX 4090" in out["answer"]
    assert out["numbers"] and all(set(n) == {"name", "value", "unit", "source"} for n in out["numbers"])
    from advisor.conversation.turn import Number  # Turn.to_contract writes these fields out by name
    from knowledge.structs import fields

    assert set(fields(Number)) == {"name", "value", "unit", "source"}
    assert all(n["unit"] and n["source"] for n in out["numbers"])
    for f in out["findings"]:
        assert set(f) == {"rule_id", "severity", "message", "source"} and f["rule_id"] and f["source"]


def test_ask_plain_prints_the_answer_and_the_question(capsys):
    assert main(["ask", "What", "GPU", "for", "a", "70B", "model?"]) == 0
    out = capsys.readouterr().out
    # issue 26: answered for serving (the default, stated), the task asked after the answer
    assert "Llama-3.1-70B" in out and "GiB" in out.split("**Next question:**")[0]
    assert "serving Llama-3.1-70B (inference, the default)" in out


def test_ask_reads_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Serve Qwen2.5-7B for 10 users\n"))
    assert main(["ask", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "deterministic"


def test_ask_state_file_holds_a_multi_turn_conversation(tmp_path, capsys):
    state = tmp_path / "conv.json"
    assert main(["ask", "--state", str(state), "Qwen2.5-32B 推理，100 并发，上下文 8k"]) == 0
    assert state.exists()
    capsys.readouterr()
    assert main(["ask", "--state", str(state), "--json", "那换成 FP8 呢？"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "FP8" in out["answer"] and "变化" in out["answer"]
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert saved["state"]["slots"]["weights"] == "fp8" and len(saved["history"]) == 2


def test_ask_bad_state_file_is_one_line_and_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["ask", "--state", str(bad), "hello"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-advisor: error:") and "--state" in err and err.count("\n") == 1


def test_ask_without_text_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ask"])
    assert exc.value.code == 2


def _chat(lines: str, *args: str) -> str:
    import argparse

    from ui.cli.commands import chat

    parser = argparse.ArgumentParser()
    chat.add_arguments(parser)
    out = io.StringIO()
    assert chat.run(parser.parse_args(list(args)), stdin=io.StringIO(lines), stdout=out) == 0
    return out.getvalue()


def test_chat_runs_a_conversation_and_ends_cleanly_at_eof():
    out = _chat("Serve Llama-3.1-8B for 16 users\nwhat about FP8?\n/json\n")
    assert "deterministic mode" in out
    assert "estimate_memory" in out  # tool steps are shown as they run
    assert "What changed" in out and "FP8" in out
    assert '"mode": "deterministic"' in out


def test_chat_reset_and_quit():
    out = _chat("Serve Llama-3.1-8B\n/reset\nwhat about FP8?\n/quit\nnever read\n", "--quiet")
    assert "(conversation reset)" in out
    assert "Which model" in out  # after the reset the model is unknown again
    assert "never read" not in out


def test_chat_ctrl_c_exits_cleanly():
    import argparse

    from ui.cli.commands import chat

    class Interrupt(io.StringIO):
        def readline(self, *a):
            raise KeyboardInterrupt

    parser = argparse.ArgumentParser()
    chat.add_arguments(parser)
    assert chat.run(parser.parse_args(["--quiet"]), stdin=Interrupt(), stdout=io.StringIO()) == 0


def test_ask_as_a_process():
    proc = subprocess.run([sys.executable, "-m", "ui.cli.entry", "ask", "--json", "部署 Qwen2.5-7B，并发 10"],
                          capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in __import__("os").environ.items() if k not in ("OPENAI_API_KEY", "ADVISOR_MODEL")})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["mode"] == "deterministic"
    assert "Traceback" not in proc.stderr
