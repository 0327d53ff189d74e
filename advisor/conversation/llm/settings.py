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
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from knowledge.errors import InputError
from knowledge.structs import Frozen, Meta, StructError, dump, field_type, fields, set_field, validate

DEFAULT_MODEL = "gpt-4o-mini"


class Secret:
    """A key kept out of repr, str and dumps; `get_secret_value()` gives it to the one caller that sends it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __len__(self) -> int:
        return len(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def _desc(text: str, **limits: Any) -> Meta:
    return Meta(description=text, **limits)


class Settings(Frozen):
    """LLM connection and per-turn limits. Times in seconds; tokens as the server counts them. Given as a string,
    the key is kept as a Secret."""

    api_key: Annotated[Secret | None, _desc("bearer key; None means no model is configured")] = None
    base_url: Annotated[str | None, _desc("OpenAI-compatible endpoint, e.g. http://host:8000/v1")] = None
    model: Annotated[str, _desc("model name the server knows", min_length=1)] = DEFAULT_MODEL
    temperature: Annotated[float, Meta(ge=0, le=2)] = 0.0
    first_token_timeout_s: Annotated[float, _desc("streaming: longest wait for the first byte of a response and "
                                                  "between two chunks (a hanging model)", gt=0, le=120)] = 5.0
    request_timeout_s: Annotated[float, _desc("without streaming: longest wait for a whole completion (its first "
                                              "byte)", gt=0, le=600)] = 20.0
    connect_timeout_s: Annotated[float, Meta(gt=0, le=60)] = 5.0
    turn_timeout_s: Annotated[float, _desc("total deadline of one whole turn (a dripping model); the fallback answer "
                                           "follows it", gt=0, le=600)] = 15.0
    max_retries: Annotated[int, _desc("retries of one model call on 429/5xx/timeout", ge=0, le=5)] = 1
    backoff_initial_s: Annotated[float, _desc("first retry delay; doubles per retry", ge=0, le=30)] = 0.5
    backoff_max_s: Annotated[float, Meta(ge=0, le=60)] = 4.0
    max_retry_after_s: Annotated[float, _desc("longest Retry-After honoured", ge=0, le=120)] = 10.0
    max_steps: Annotated[int, _desc("model calls per turn, the grounding re-ask included", ge=1, le=50)] = 6
    max_tool_calls: Annotated[int, _desc("tool calls per turn", ge=1, le=100)] = 8
    max_tokens: Annotated[int, _desc("completion tokens per model call", ge=16, le=65536)] = 1500
    max_turn_tokens: Annotated[int, _desc("prompt + completion tokens per turn", ge=256, le=2_000_000)] = 60000
    max_input_chars: Annotated[int, _desc("longest user message sent to a model", ge=16, le=200_000)] = 4000
    stream: Annotated[bool, _desc("ask the server for SSE streaming (first_token_timeout_s applies)")] = True
    legacy_max_tokens: Annotated[bool, _desc("send `max_tokens` instead of `max_completion_tokens`")] = False
    reader: Annotated[Literal["agent", "structured"], _desc(
        "structured (default): one structured-output call reads the message into the typed request and the "
        "deterministic dialog answers it (the agent's tools answer explain questions and small talk; an unusable "
        "reading falls back to the offline reader with a note); agent: the tool-calling loop reads and answers")] = \
        "structured"
    tool_surface: Annotated[Literal["full", "compact"], _desc(
        "the tools offered to the model: all ten, or `compact` for small local models (the sizing tools with their "
        "main arguments; tools.COMPACT): a sixth of the prompt tokens")] = "full"
    tool_choice: Annotated[Literal["auto", "required", "none"] | None, _desc(
        "sent as `tool_choice` when set (llama-cpp-python's chatml-function-calling format offers the tools only "
        "with tool_choice=auto)")] = None

    def normalize(self) -> None:
        if isinstance(self.api_key, str):
            set_field(self, "api_key", Secret(self.api_key))

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
        for name in fields(cls):
            var = f"ADVISOR_{name.upper()}"
            if name not in ("api_key", "model") and env.get(var, "") != "":
                values[name] = _coerce(name, env[var], var)
        return cls.build(values, origin="environment")

    @classmethod
    def build(cls, values: Mapping[str, Any], origin: str = "settings") -> Settings:
        """Validate `values`; errors name the field and the accepted range (InputError)."""
        key = values.get("api_key")
        values = {**values, "api_key": Secret(key)} if isinstance(key, str) else values
        try:
            return validate(cls, values)
        except StructError as exc:
            raise InputError(_describe(exc, origin), field=_first_field(exc)) from None

    def public(self) -> dict[str, Any]:
        """The settings without the key (for logs and `--json`)."""
        data = dump(self, exclude={"api_key"})
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
    unknown = sorted(set(values) - set(fields(Settings)))
    if unknown:
        raise InputError(
            f"settings file {path}: unknown key(s) {', '.join(unknown)}",
            field=unknown[0],
            accepted=", ".join(["api_key_env", *fields(Settings)]),
        )
    return values


def _coerce(name: str, text: str, var: str) -> Any:
    """Environment strings to the field's type (the struct does the range checks)."""
    annotation = field_type(Settings, name)
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    text = text.strip()
    if annotation is bool:
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise InputError(f"{var}={text!r} is not a boolean", field=var, accepted="1/0, true/false, yes/no, on/off")
    return text


def _first_field(exc: StructError) -> str | None:
    errors = exc.errors()
    return str(errors[0]["loc"][0]) if errors and errors[0]["loc"] else None


def _describe(exc: StructError, origin: str) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "settings"
        parts.append(f"{field}: {err['msg']} (got {err.get('input')!r})" if field != "api_key" else f"{field}: {err['msg']}")
    return f"invalid LLM settings from {origin}: " + "; ".join(parts)


def load_settings() -> Settings:
    """Settings from the environment and the ADVISOR_SETTINGS file (what the session uses)."""
    return Settings.from_env()
