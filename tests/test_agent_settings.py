"""LLM settings (advisor/conversation/llm/settings.py): environment, TOML file, precedence, validation, no key leaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.conversation.llm.settings import DEFAULT_MODEL, Settings, load_settings
from knowledge.errors import InputError


def test_defaults_mean_no_model() -> None:
    s = Settings.from_env({})
    assert not s.llm_configured and s.model == DEFAULT_MODEL and s.base_url is None
    assert s.max_retries == 1 and s.request_timeout_s == 20 and s.turn_timeout_s == 15 and s.max_steps == 6
    assert s.first_token_timeout_s == 5 and s.stream is True


def test_environment_variables() -> None:
    s = Settings.from_env({"OPENAI_API_KEY": "sk-abc", "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
                           "ADVISOR_MODEL": "qwen2.5:14b", "ADVISOR_MAX_STEPS": "4", "ADVISOR_STREAM": "yes",
                           "ADVISOR_REQUEST_TIMEOUT_S": "7.5"})
    assert s.llm_configured and s.api_key.get_secret_value() == "sk-abc"
    assert (s.base_url, s.model, s.max_steps, s.stream, s.request_timeout_s) == (
        "http://127.0.0.1:8000/v1", "qwen2.5:14b", 4, True, 7.5)
    assert Settings.from_env({"OPENAI_API_BASE": "http://h/v1"}).base_url == "http://h/v1"


def test_blank_key_is_not_configured() -> None:
    assert not Settings.from_env({"OPENAI_API_KEY": "   "}).llm_configured


def test_settings_file_with_key_from_another_variable(tmp_path: Path) -> None:
    path = tmp_path / "advisor.toml"
    path.write_text('[llm]\nbase_url = "https://api.deepseek.com/v1"\nmodel = "deepseek-chat"\n'
                    'api_key_env = "DEEPSEEK_API_KEY"\nmax_tool_calls = 5\nstream = true\n', encoding="utf-8")
    s = Settings.from_env({"ADVISOR_SETTINGS": str(path), "DEEPSEEK_API_KEY": "sk-ds"})
    assert s.llm_configured and s.api_key.get_secret_value() == "sk-ds"
    assert (s.base_url, s.model, s.max_tool_calls, s.stream) == ("https://api.deepseek.com/v1", "deepseek-chat", 5, True)


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('model = "from-file"\nmax_steps = 3\n', encoding="utf-8")  # top level works too
    s = Settings.from_env({"ADVISOR_SETTINGS": str(path), "ADVISOR_MODEL": "from-env"})
    assert s.model == "from-env" and s.max_steps == 3


@pytest.mark.parametrize("env, field", [
    ({"ADVISOR_MAX_STEPS": "0"}, "max_steps"),
    ({"ADVISOR_MAX_STEPS": "many"}, "max_steps"),
    ({"ADVISOR_TURN_TIMEOUT_S": "-1"}, "turn_timeout_s"),
    ({"ADVISOR_STREAM": "maybe"}, "ADVISOR_STREAM"),
    ({"ADVISOR_SETTINGS": "/nonexistent/advisor.toml"}, "ADVISOR_SETTINGS"),
])
def test_bad_values_name_the_field(env: dict[str, str], field: str) -> None:
    with pytest.raises(InputError) as info:
        Settings.from_env(env)
    assert info.value.field == field and field in str(info.value)


def test_bad_file_contents(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("model = \n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid TOML"):
        Settings.from_env({"ADVISOR_SETTINGS": str(bad)})
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[llm]\nmodle = "typo"\n', encoding="utf-8")
    with pytest.raises(InputError, match="unknown key\\(s\\) modle") as info:
        Settings.from_env({"ADVISOR_SETTINGS": str(unknown)})
    assert "model" in info.value.accepted


def test_the_key_never_shows() -> None:
    s = Settings(api_key="sk-very-secret", model="m")
    assert "sk-very-secret" not in repr(s) and "sk-very-secret" not in str(s.public())
    assert s.public()["api_key_set"] is True
    with pytest.raises(InputError) as info:
        Settings.build({"api_key": "sk-very-secret", "max_steps": -1})
    assert "sk-very-secret" not in str(info.value)


def test_load_settings_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADVISOR_SETTINGS", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("ADVISOR_MODEL", "env-model")
    s = load_settings()
    assert s.llm_configured and s.model == "env-model"
