"""Start `gpu-advisor web` on a free port in a subprocess for the API, browser and load tests (no API key)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OFFLINE_DROP = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "ADVISOR_MODEL", "ADVISOR_API_KEY",
                "ADVISOR_SETTINGS", "LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2",
                "PROMETHEUS_MULTIPROC_DIR")  # each server its own metrics (an in-process test server sets one)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def offline_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_DROP and not k.startswith("GPU_ADVISOR_WEB_")}
    env.update({"GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1", "NO_PROXY": "127.0.0.1,localhost"})
    env.update(extra)
    return env



def stop_process(proc: subprocess.Popen | None) -> None:
    """Terminate a server started by a test (SIGTERM, then SIGKILL after 10 s)."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

def log_path(name: str) -> Path:
    """tests/artifacts/<name>.log; under pytest-xdist one file per worker (`make test` runs two), so that the same
    server started by two workers never writes into one file."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return ROOT / "tests" / "artifacts" / (f"{name}-{worker}.log" if worker else f"{name}.log")


class WebServer:
    """`with WebServer() as url:` runs the real app; `args` are extra `gpu-advisor web` flags."""

    def __init__(self, *args: str, port: int | None = None, timeout_s: float = 90.0, name: str = "web-server",
                 **env: str) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.args = list(args)
        if "GPU_ADVISOR_DATABASE_URL" not in env and "GPU_ADVISOR_DATA_DIR" not in env:
            # a store of its own: login failures counted by one test's server must not lock another's (they share
            # 127.0.0.1 and user names, and tests in one pytest worker share the session's data directory)
            env["GPU_ADVISOR_DATA_DIR"] = tempfile.mkdtemp(prefix=f"{name}-")
        self.env = offline_env(**env)
        self.timeout_s = timeout_s
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = log_path(name)

    def __enter__(self) -> str:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")  # noqa: SIM115 - closed in __exit__ via the process
        self.proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", "web", "--port", str(self.port), *self.args],
                                     cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"web server exited with {self.proc.returncode}: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "gradio_api/info", timeout=2) as resp:  # noqa: S310
                    if resp.status == 200:
                        return self.url
            except urllib.error.HTTPError:  # answering, e.g. 401 behind auth
                return self.url
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError(f"web server did not answer within {self.timeout_s} s")

    def __exit__(self, *exc: object) -> None:
        stop_process(self.proc)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
