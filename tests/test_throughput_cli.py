"""`gpu-advisor throughput`, `train-time` and `tco` in-process: JSON contracts, human output, and bad input (one
line on stderr, exit status 2)."""

from __future__ import annotations

import json

import pytest

from ui.cli.entry import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse-level errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_throughput_json_contract(capsys):
    code, out, err = run(capsys, "throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--prompt-tokens",
                         "1000", "--output-tokens", "500", "--concurrency", "16", "--max-ms-per-token", "15", "--json")
    assert code == 0, err
    data = json.loads(out)
    for key in ("decode_tokens_per_s", "decode_tokens_per_s_total", "prefill_tokens_per_s", "ttft_s", "bound",
                "formulas"):
        assert key in data
    # under load (issue 29): the simulation's output tokens/s stay below 16 × the per-user decode speed, because
    # each client spends part of every request waiting for its first token; the decode-only roofline keeps the
    # identity
    assert data["decode_tokens_per_s_total"] < 16 * data["decode_tokens_per_s"]
    roof = data["roofline"]
    assert roof["decode_tokens_per_s_total"] == pytest.approx(16 * roof["decode_tokens_per_s"])
    assert data["tpot_s"] == pytest.approx(1 / data["decode_tokens_per_s"])
    assert data["ttft_p95_s"] >= data["ttft_s"] and data["itl_p95_s"] > 0
    assert 1 <= data["max_concurrency_for_target"] <= data["serving"]["max_num_seqs"]
    assert data["bound"] == "memory"
    assert data["capacity"]["max_concurrency"] >= 16
    assert data["users_at_latency"]["concurrency"] >= 1


def test_throughput_human_output(capsys):
    code, out, _ = run(capsys, "throughput", "--model", "mixtral-8x7b", "--gpu", "a100-80g-sxm", "--count", "2",
                       "--concurrency", "8")
    assert code == 0
    assert "tokens/s per sequence" in out and "first token" in out and "MoE" in out and "formulas:" in out


def test_train_time_json_contract(capsys):
    code, out, err = run(capsys, "train-time", "--model", "llama-3-8b", "--tokens", "100B", "--gpu", "h100-sxm",
                         "--count", "64", "--json")
    assert code == 0, err
    data = json.loads(out)
    for key in ("gpu_hours", "wall_s", "mfu", "tokens_per_s", "formulas"):
        assert key in data
    assert data["gpu_hours"] == pytest.approx(data["wall_s"] * 64 / 3600)
    assert data["wall_s"] == pytest.approx(1e11 / data["tokens_per_s"])


def test_train_time_mfu_override_and_suffixes(capsys):
    code, out, _ = run(capsys, "train-time", "--model", "llama-3-8b", "--tokens", "1.5T", "--gpu", "h100-sxm",
                       "--count", "8", "--mfu", "0.4", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["mfu"] == pytest.approx(0.4)
    assert data["workload"]["tokens"] == 1.5e12


def test_tco_json_contract(capsys):
    code, out, err = run(capsys, "tco", "--gpu", "h100-sxm", "--count", "8", "--years", "3", "--currency", "USD",
                         "--electricity", "0.1", "--utilization", "0.6", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["currency"] == "USD" and data["tco"]["currency"] == "USD"
    assert data["purchase"]["total"]["amount"] > data["purchase"]["gpus"]["amount"]
    assert data["exchange_rate"]["as_of"]
    assert all("source" in p for p in data["prices"])
    assert data["break_even_utilization"] is not None


def test_tco_human_output_with_model_throughput(capsys):
    code, out, _ = run(capsys, "tco", "--gpu", "rtx-4090", "--count", "2", "--model", "qwen2.5-7b", "--weights",
                       "awq-int4", "--concurrency", "8")
    assert code == 0
    assert "TCO" in out and "per 1M tokens" in out and "as of" in out


@pytest.mark.parametrize("argv, needle", [
    (("throughput", "--model", "llama-3-8b", "--gpu", "h900"), "unknown gpu"),
    (("throughput", "--model", "llama-3-70b", "--gpu", "rtx-4090"), "GiB"),
    (("throughput", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--count", "3"), "tensor parallelism"),
    (("throughput", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--concurrency", "0"), "concurrency"),
    (("throughput", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--prompt-tokens", "5000", "--context", "4096"),
     "context"),
    (("train-time", "--model", "llama-3-8b", "--tokens", "0", "--gpu", "h100-sxm"), "positive"),
    (("train-time", "--model", "llama-3-8b", "--tokens=-3B", "--gpu", "h100-sxm"), "token"),
    (("train-time", "--model", "llama-3-8b", "--tokens", "1e20", "--gpu", "h100-sxm"), "absurd"),
    (("train-time", "--model", "llama-3-8b", "--tokens", "lots", "--gpu", "h100-sxm"), "not a token count"),
    (("train-time", "--model", "llama-3-8b", "--tokens", "1B", "--gpu", "rtx-4090", "--task", "full"), "GiB"),
    (("train-time", "--model", "llama-3-8b", "--tokens", "1B", "--gpu", "a100-80g-sxm", "--precision", "fp8"),
     "FP8"),
    (("tco", "--gpu", "h100-sxm", "--electricity", "-1"), "negative"),
    (("tco", "--gpu", "h100-sxm", "--utilization", "2"), "utilization"),
    (("tco", "--gpu", "nosuchgpu"), "unknown gpu"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("gpu-advisor: error:")
    assert needle.lower() in err.lower()
    assert "Traceback" not in err


def test_throughput_simulation_options(capsys):
    """Open-loop load, conversational lengths and speculative decoding reach the simulation (issue 29)."""
    base = ("throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--prompt-tokens", "1000",
            "--output-tokens", "300", "--json")
    code, out, err = run(capsys, *base, "--request-rate", "10", "--traffic", "conversation")
    assert code == 0, err
    poisson = json.loads(out)["serving"]
    assert poisson["rate"] == 10 and poisson["concurrency"] is None
    code, out, err = run(capsys, *base, "--request-rate", "10", "--traffic", "conversation", "--spec-tokens", "3")
    assert code == 0, err
    spec = json.loads(out)["serving"]
    assert spec["speculative"] == {"k": 3, "acceptance": 0.7} and spec["tpot_s"] < poisson["tpot_s"]
    code, out, err = run(capsys, *base, "--spec-tokens", "0")
    assert code == 2 and "spec-tokens" in err


@pytest.mark.parametrize(("model", "gpu", "users", "question"), [
    ("llama-3.1-8b", "h100-sxm", 16, "How many tokens per second for Llama-3.1-8B on one H100 SXM with 16 concurrent "
                                     "users?"),
    ("qwen2.5-7b", "rtx-4090", 4, "Qwen2.5-7B 在一张 4090 上 4 个人同时用，每秒多少 token？"),
])
def test_throughput_defaults_are_the_dialogs_chat_turn(capsys, model, gpu, users, question):
    """No lengths given: the CLI estimates one chat turn, 215 prompt and 195 output tokens (ShareGPT means of the
    vLLM/SGLang benchmark clients, advisor.workload), as the dialog does, so both give the same speed."""
    from advisor.conversation.session import Conversation

    code, out, err = run(capsys, "throughput", "--model", model, "--gpu", gpu, "--concurrency", str(users), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["workload"]["prompt_tokens"], data["workload"]["output_tokens"]) == (215, 195)
    assert data["workload"]["context"] == 4096  # memory and capacity stay sized for whole-context sequences
    turn = Conversation(driver="deterministic").respond(question)
    tput = next(o for o in turn.options if o["gpu"] == gpu and o["count"] == 1)["throughput"]
    load = tput["under_load"]  # the simulated speed at the stated users the dialog's answer leads with
    assert load["per_user_tokens_per_s"] == pytest.approx(data["decode_tokens_per_s"], rel=1e-6)
    assert load["ttft_s"] == pytest.approx(data["ttft_s"], rel=1e-6)
    assert tput["ttft_s"] == pytest.approx(data["roofline"]["ttft_s"], rel=1e-6)  # the 215-token prefill roofline
