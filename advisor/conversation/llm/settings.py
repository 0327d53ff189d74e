"""How the LLM agent reaches its model, and the limits it runs under.

Sources, later ones winning: the defaults below < a TOML settings file < environment variables.
The file is named by `ADVISOR_SETTINGS`; its keys are the field names, at top level or under `[llm]`:

    [llm]
    base_url = "http://127.0.0.1:11434/v1"   # Ollama, vLLM, DeepSeek, Qwen (DashScope), OpenAI, …
    model = "qwen2.5:14b"
    api_key_env = "DEEPSEEK_API_KEY"          # read the key from this variable (keeps it out of the file)
    request_timeout_s = 30

Environment: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (or `OPENAI_API_BASE`), `ADVISOR_MODEL`, and
`ADVISOR_<FIELD>` for any other field (`ADVISOR_MAX_STEPS=4`, `ADVISOR_STREAM=1`). With no key the
deterministic dialog answers; a local server that needs no key still needs a dummy one ("none").
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from knowledge.errors import InputError

DEFAULT_MODEL = "gpt-4o-mini"


class Settings(BaseModel):
    """LLM connection and per-turn limits. Times in seconds; tokens as the server counts them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    api_key: SecretStr | None = Field(None, description="bearer key; None means no model is configured")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://host:8000/v1")
    model: str = Field(DEFAULT_MODEL, min_length=1, description="model name the server knows")
    temperature: float = Field(0.0, ge=0, le=2)
    first_token_timeout_s: float = Field(5.0, gt=0, le=120, description="streaming: longest wait for the first "
                                         "byte of a response and between two chunks (a hanging model)")
    request_timeout_s: float = Field(20.0, gt=0, le=600, description="without streaming: longest wait for a "
                                     "whole completion (its first byte)")
    connect_timeout_s: float = Field(5.0, gt=0, le=60)
    turn_timeout_s: float = Field(15.0, gt=0, le=600, description="total deadline of one whole turn (a dripping "
                                  "model); the fallback answer follows it")
    max_retries: int = Field(1, ge=0, le=5, description="retries of one model call on 429/5xx/timeout")
    backoff_initial_s: float = Field(0.5, ge=0, le=30, description="first retry delay; doubles per retry")
    backoff_max_s: float = Field(4.0, ge=0, le=60)
    max_retry_after_s: float = Field(10.0, ge=0, le=120, description="longest Retry-After honoured")
    max_steps: int = Field(6, ge=1, le=50, description="model calls per turn, the grounding re-ask included")
    max_tool_calls: int = Field(8, ge=1, le=100, description="tool calls per turn")
    max_tokens: int = Field(1500, ge=16, le=65536, description="completion tokens per model call")
    max_turn_tokens: int = Field(60000, ge=256, le=2_000_000, description="prompt + completion tokens per turn")
    max_input_chars: int = Field(4000, ge=16, le=200_000, description="longest user message sent to a model")
    stream: bool = Field(True, description="ask the server for SSE streaming (first_token_timeout_s applies)")
    legacy_max_tokens: bool = Field(False, description="send `max_tokens` instead of `max_completion_tokens`")
    reader: Literal["agent", "structured"] = Field(
        "structured", description="structured (default): one structured-output call reads the message into the typed "
                                  "request and the deterministic dialog answers it (the agent's tools answer explain "
                                  "questions and small talk; an unusable reading falls back to the offline reader "
                                  "with a note); agent: the tool-calling loop reads and answers")
    tool_surface: Literal["full", "compact"] = Field(
        "full", description="the tools offered to the model: all ten, or `compact` for small local models (the sizing "
                            "tools with their main arguments; tools.COMPACT): a sixth of the prompt tokens")
    tool_choice: Literal["auto", "required", "none"] | None = Field(
        None, description="sent as `tool_choice` when set (llama-cpp-python's chatml-function-calling format offers "
                          "the tools only with tool_choice=auto)")

    @property
    def llm_configured(self) -> bool:
        """True when a model can be called: a non-empty key is set."""
        return bool(self.api_key and self.api_key.get_secret_value().strip())

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then the ADVISOR_SETTINGS file, then environment variables (see module docstring)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        path = env.get("ADVISOR_SETTINGS", "").strip()
        if path:
            values.update(_read_file(Path(path).expanduser(), env))
        key = env.get("OPENAI_API_KEY") or env.get("ADVISOR_API_KEY")
        if key:
            values["api_key"] = key
        base = env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_BASE")
        if base:
            values["base_url"] = base
        if env.get("ADVISOR_MODEL"):
            values["model"] = env["ADVISOR_MODEL"]
        for name in cls.model_fields:
            var = f"ADVISOR_{name.upper()}"
            if name not in ("api_key", "model") and env.get(var, "") != "":
                values[name] = _coerce(name, env[var], var)
        return cls.build(values, origin="environment")

    @classmethod
    def build(cls, values: Mapping[str, Any], origin: str = "settings") -> Settings:
        """Validate `values`; errors name the field and the accepted range (InputError)."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise InputError(_describe(exc, origin), field=_first_field(exc)) from None

    def public(self) -> dict[str, Any]:
        """The settings without the key (for logs and `--json`)."""
        data = self.model_dump(exclude={"api_key"})
        data["api_key_set"] = self.llm_configured
        return data


def _read_file(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"settings file not found: {path} (set by ADVISOR_SETTINGS)", field="ADVISOR_SETTINGS") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"settings file {path} is not valid TOML: {exc}", field="ADVISOR_SETTINGS") from None
    section = raw.get("llm", raw)
    if not isinstance(section, dict):
        raise InputError(f"settings file {path}: [llm] must be a table", field="llm")
    values = {k: v for k, v in section.items() if not isinstance(v, dict)}
    key_var = values.pop("api_key_env", None)
    if key_var is not None:
        if not isinstance(key_var, str) or not key_var:
            raise InputError(f"settings file {path}: api_key_env must name an environment variable", field="api_key_env")
        if env.get(key_var):
            values["api_key"] = env[key_var]
    unknown = sorted(set(values) - set(Settings.model_fields))
    if unknown:
        raise InputError(
            f"settings file {path}: unknown key(s) {', '.join(unknown)}",
            field=unknown[0],
            accepted=", ".join(["api_key_env", *Settings.model_fields]),
        )
    return values


def _coerce(name: str, text: str, var: str) -> Any:
    """Environment strings to the field's type (pydantic does the range checks)."""
    annotation = Settings.model_fields[name].annotation
    text = text.strip()
    if annotation is bool:
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise InputError(f"{var}={text!r} is not a boolean", field=var, accepted="1/0, true/false, yes/no, on/off")
    return text


def _first_field(exc: ValidationError) -> str | None:
    errors = exc.errors()
    return str(errors[0]["loc"][0]) if errors and errors[0]["loc"] else None


def _describe(exc: ValidationError, origin: str) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "settings"
        parts.append(f"{field}: {err['msg']} (got {err.get('input')!r})" if field != "api_key" else f"{field}: {err['msg']}")
    return f"invalid LLM settings from {origin}: " + "; ".join(parts)


def load_settings() -> Settings:
    """Settings from the environment and the ADVISOR_SETTINGS file (what the session uses)."""
    return Settings.from_env()
