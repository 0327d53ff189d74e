"""The web chat's deployment settings: defaults < environment (`GPU_ADVISOR_WEB_*`, Gradio's own as fallbacks) <
command-line flags, each checked against its accepted range."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from knowledge.errors import InputError
from knowledge.structs import Value, replace
from ui.web.pool import default_workers

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7860

# Environment overrides (command-line flags win over them; `GRADIO_SERVER_NAME/PORT` are read as fallbacks).
ENV_HOST = "GPU_ADVISOR_WEB_HOST"
ENV_PORT = "GPU_ADVISOR_WEB_PORT"
ENV_AUTH = "GPU_ADVISOR_WEB_AUTH"  # "user:password"; preferred over --auth, which shows in the process list
ENV_QUEUE = "GPU_ADVISOR_WEB_QUEUE_SIZE"
ENV_CONCURRENCY = "GPU_ADVISOR_WEB_CONCURRENCY"
ENV_MAX_BODY = "GPU_ADVISOR_WEB_MAX_BODY_BYTES"
ENV_WORKERS = "GPU_ADVISOR_WEB_WORKERS"


class WebSettings(Value):
    """Deployment settings of the web chat. `concurrency` turns run at once, `queue_size` more may wait."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    auth: tuple[str, str] | None = None
    queue_size: int = 100
    concurrency: int = 8
    max_body_bytes: int = 1_000_000  # whole HTTP request; a 100 KB message still gets a clear reply
    export_dir: str | None = None  # where export files are written (default: inside Gradio's file cache)
    workers: int | None = None  # processes answering deterministic turns (None: ui.web.pool.default_workers())

    def validated(self) -> WebSettings:
        """Self, after range checks; InputError names the field and the accepted values."""
        if not self.host or any(c.isspace() for c in self.host):
            raise InputError(f"invalid host {self.host!r}", field="host", accepted="a host name or IP, e.g. 127.0.0.1")
        _check_int("port", self.port, 1, 65535)
        _check_int("queue-size", self.queue_size, 1, 100_000)
        _check_int("concurrency", self.concurrency, 1, 1024)
        _check_int("max-body-bytes", self.max_body_bytes, 64_000, 100_000_000)
        if self.workers is not None:
            _check_int("workers", self.workers, 0, 64)
        if self.auth is not None and (len(self.auth) != 2 or not self.auth[0] or not self.auth[1]):
            raise InputError("auth needs a user and a password", field="auth", accepted="USER:PASSWORD")
        return self

    def public(self) -> dict[str, Any]:
        """For logs: everything but the password."""
        return {"host": self.host, "port": self.port, "auth": bool(self.auth), "queue_size": self.queue_size,
                "concurrency": self.concurrency, "max_body_bytes": self.max_body_bytes, "workers": self.workers}

    def worker_count(self) -> int:
        """Processes for deterministic turns: `workers`, else one per core but one (ui.web.pool)."""
        return default_workers() if self.workers is None else self.workers


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"invalid {name} {value!r}", field=name, accepted=f"an integer from {lo} to {hi}")


def parse_auth(text: str | None) -> tuple[str, str] | None:
    """"user:password" -> (user, password); None or "" -> None."""
    if not text:
        return None
    user, sep, password = text.partition(":")
    if not sep or not user or not password:
        raise InputError("auth must be USER:PASSWORD with both parts non-empty", field="auth",
                         accepted="USER:PASSWORD")
    return user, password


def _env_int(env: Mapping[str, str], *names: str) -> int | None:
    for name in names:
        raw = env.get(name, "").strip()
        if raw:
            try:
                return int(raw)
            except ValueError:
                raise InputError(f"{name}={raw!r} is not an integer", field=name, accepted="an integer") from None
    return None


def settings_from(
    env: Mapping[str, str] | None = None, *, host: str | None = None, port: int | None = None,
    auth: str | None = None, queue_size: int | None = None, concurrency: int | None = None,
    workers: int | None = None,
) -> WebSettings:
    """Defaults < environment (see the ENV_* names) < explicit arguments (the command-line flags)."""
    env = os.environ if env is None else env
    base = WebSettings()
    values: dict[str, Any] = {
        "host": host or env.get(ENV_HOST, "").strip() or env.get("GRADIO_SERVER_NAME", "").strip() or base.host,
        "port": port if port is not None else (_env_int(env, ENV_PORT, "GRADIO_SERVER_PORT") or base.port),
        "auth": parse_auth(auth if auth is not None else env.get(ENV_AUTH)),
        "queue_size": queue_size if queue_size is not None else (_env_int(env, ENV_QUEUE) or base.queue_size),
        "concurrency": concurrency if concurrency is not None else (_env_int(env, ENV_CONCURRENCY) or base.concurrency),
        "max_body_bytes": _env_int(env, ENV_MAX_BODY) or base.max_body_bytes,
        "workers": workers if workers is not None else _env_int(env, ENV_WORKERS),
    }
    return replace(base, **values).validated()
