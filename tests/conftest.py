"""Shared test set-up. Keep this file small: one fixture per concern, each with its reason."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _snapshot_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory):
    """Catalog snapshots (knowledge/snapshot.py) go to a per-session temporary directory, never the user's
    ~/.cache; CLI subprocesses inherit the variable. Tests that need an empty cache set their own directory."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPU_ADVISOR_CACHE_DIR", str(tmp_path_factory.mktemp("gpu-advisor-cache")))
        mp.delenv("GPU_ADVISOR_NO_CACHE", raising=False)
        yield


LLM_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "ADVISOR_SETTINGS", "ADVISOR_MODEL",
           "ADVISOR_API_KEY", "ADVISOR_READER", "LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach a real model: a developer's OPENAI_API_KEY or ADVISOR_MODEL would otherwise switch the
    conversation to LLM mode. Tests that want LLM mode set these variables themselves (to a local mock)."""
    for key in LLM_ENV:
        monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session", autouse=True)
def _data_dir_in_tmp(tmp_path_factory: pytest.TempPathFactory):
    """The conversation store's default SQLite file (advisor/store) goes to a per-session temporary directory,
    never the user's ~/.local/share; servers started as subprocesses inherit the variable."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path_factory.mktemp("gpu-advisor-data")))
        mp.delenv("GPU_ADVISOR_DATABASE_URL", raising=False)
        yield


@pytest.fixture(scope="session")
def pg_cluster():
    """One throwaway PostgreSQL server for the whole test session (tests/pg_cluster.py), started on first use;
    tests take a fresh database each with `pg_cluster.new_database()`. Skips when the binaries are missing."""
    from tests.pg_cluster import PgCluster, missing_reason

    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    cluster = PgCluster()
    with cluster:
        yield cluster
