"""Start-up of the CLI: the catalog snapshot cache (knowledge/snapshot.py) and what the deterministic commands import.

Timings live in benchmarks/bench_cli.py; these tests check behaviour: a warm start reads the snapshot instead of
the YAML, gives the same catalog, and anything stale, corrupted or unwritable falls back to the validated load.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Literal

import msgspec
import pytest

from knowledge import catalog, snapshot
from knowledge.catalog import PACKAGE_DATA, Catalog, build_catalog, clear_cache, load_catalog
from knowledge.errors import CatalogError
from knowledge.structs import Frozen, dump_json, validate

ROOT = Path(__file__).resolve().parents[1]
GiB = 2**30
HEAVY = ("gradio", "langchain", "langchain_core", "langchain_openai", "openai", "slack_bolt", "slack_sdk")
OFFLINE_DROP = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "ADVISOR_MODEL", "ADVISOR_API_KEY",
                "ADVISOR_SETTINGS", "LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2")


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(snapshot.CACHE_ENV, str(directory))
    clear_cache()
    yield directory
    clear_cache()


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(PACKAGE_DATA, root)
    return root


def _fresh(root: Path) -> Catalog:
    """load_catalog as a new process would run it (the in-memory cache forgotten)."""
    clear_cache()
    return load_catalog(root)


def _assert_same(a: Catalog, b: Catalog) -> None:
    assert a.gpus == b.gpus and a.models == b.models
    assert a.sources == b.sources and list(a.sources) == list(b.sources)
    assert a._gpu_index == b._gpu_index and a._model_index == b._model_index


def _forbid_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: object, **__: object) -> None:
        raise AssertionError("a YAML file was parsed although a fresh snapshot exists")

    monkeypatch.setattr(catalog, "read_yaml", fail)


def _snapshot_file(cache: Path) -> Path:
    files = list(cache.glob("catalog-*.json"))
    assert len(files) == 1, files
    return files[0]


# --- the snapshot cache ----------------------------------------------------------------------------------------

def test_warm_load_reads_the_snapshot_and_equals_the_validated_load(data, cache, monkeypatch):
    reference = build_catalog(data)
    cold = _fresh(data)
    _assert_same(cold, reference)
    stored = json.loads(_snapshot_file(cache).read_text(encoding="utf-8"))
    assert stored["format"] == snapshot.FORMAT and len(stored["key"]) == 64
    _forbid_yaml(monkeypatch)
    warm = _fresh(data)
    _assert_same(warm, reference)
    assert warm.gpu("NVIDIA GeForce RTX 4090").memory_bytes == 24 * GiB
    assert warm.model("Qwen/Qwen2.5-72B-Instruct").id == "qwen2.5-72b"


def _tree(value: object) -> object:
    """A value with the type of every part spelled out: 1 and 1.0, a tuple and a list, differ here."""
    if isinstance(value, msgspec.Struct):
        return (type(value).__name__, {name: _tree(getattr(value, name)) for name in value.__struct_fields__})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_tree(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, _tree(v)) for k, v in value.items()])
    return (type(value).__name__, value)


def test_snapshot_of_the_packaged_catalog_equals_the_validated_yaml_in_every_field_and_type(cache, monkeypatch):
    """The warm start constructs the entries from the snapshot without validating them (knowledge.trusted):
    every GPU, model and source must be what validating the cited YAML gives, down to the type of each value
    (an int where the YAML gave 24 and the schema a float would print differently in --json)."""
    reference = build_catalog(PACKAGE_DATA)
    _fresh(PACKAGE_DATA)  # cold: writes the snapshot
    _forbid_yaml(monkeypatch)
    warm = _fresh(PACKAGE_DATA)
    _assert_same(warm, reference)
    assert len(warm.gpus) >= 40 and len(warm.models) >= 30 and len(warm.sources) >= 200
    for got, want in [*zip(warm.gpus, reference.gpus), *zip(warm.models, reference.models),
                      *zip(warm.sources.values(), reference.sources.values())]:
        assert _tree(got) == _tree(want), want.id
        assert dump_json(got) == dump_json(want)


def test_changed_data_file_invalidates_the_snapshot(data, cache):
    _fresh(data)
    path = data / "gpus" / "rtx-4090.yaml"
    text = path.read_text(encoding="utf-8")
    assert "memory_bytes: 25769803776\n" in text
    before = path.stat()
    # same size and, restored below, same mtime: only the contents tell the snapshot is stale
    path.write_text(text.replace("memory_bytes: 25769803776\n", "memory_bytes: 25769803777\n"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _fresh(data).gpu("rtx-4090").memory_bytes == 25769803777
    # a bad value with a warm but stale snapshot: the same one-line error as without a cache
    path.write_text(text.replace("memory_bytes: 25769803776\n", "memory_bytes: -1\n"), encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        _fresh(data)
    msg = str(info.value)
    assert "gpus/rtx-4090.yaml" in msg and "memory_bytes" in msg and "\n" not in msg
    # a removed file is seen too
    path.write_text(text, encoding="utf-8")
    assert _fresh(data).find_model("gpt2") is not None
    (data / "models" / "gpt2.yaml").unlink()
    assert _fresh(data).find_model("gpt2") is None


@pytest.mark.parametrize("garbage", [b"", b"{not json", b"[]", b'{"format": 1, "key": "0", "payload": {}}',
                                     b"\xff\xfe\x00"])
def test_corrupted_snapshot_is_ignored_and_rewritten(data, cache, garbage):
    reference = _fresh(data)
    file = _snapshot_file(cache)
    good = json.loads(file.read_text(encoding="utf-8"))
    file.write_bytes(garbage)
    _assert_same(_fresh(data), reference)
    assert json.loads(file.read_text(encoding="utf-8"))["key"] == good["key"]


def test_snapshot_that_fails_validation_is_ignored(data, cache):
    """A snapshot with the right key but content the schemas or cross-checks reject: the YAML is loaded instead."""
    reference = _fresh(data)
    file = _snapshot_file(cache)
    stored = json.loads(file.read_text(encoding="utf-8"))
    for tamper in (lambda gpu: gpu.update(memory_bytes=-5),
                   lambda gpu: gpu["cite"].update(tdp_w=["no-such-source"]),
                   lambda gpu: gpu.update(unknown_field=1)):
        bad = json.loads(json.dumps(stored))
        tamper(bad["payload"]["gpus"][0][1])
        file.write_text(json.dumps(bad), encoding="utf-8")
        _assert_same(_fresh(data), reference)


def test_no_cache_variable_turns_the_snapshot_off(data, cache, monkeypatch):
    monkeypatch.setenv(snapshot.NO_CACHE_ENV, "1")
    _assert_same(_fresh(data), build_catalog(data))
    assert not cache.exists()
    monkeypatch.setenv(snapshot.NO_CACHE_ENV, "0")
    _fresh(data)
    _snapshot_file(cache)


def test_unwritable_cache_directory_is_skipped(data, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    monkeypatch.setenv(snapshot.CACHE_ENV, str(blocker / "cache"))
    _assert_same(_fresh(data), build_catalog(data))
    clear_cache()


def test_default_cache_directory_is_the_users_cache_not_the_repository(tmp_path, monkeypatch):
    monkeypatch.delenv(snapshot.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert snapshot.cache_dir() == tmp_path / "xdg" / "gpu-advisor"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert snapshot.cache_dir() == tmp_path / "home" / ".cache" / "gpu-advisor"


# --- knowledge.trusted: a validated model back from its JSON dump -------------------------------------------

class _Inner(Frozen):
    when: dt.date
    kind: Literal["a", "b"] = "a"


class _Outer(Frozen):
    pair: tuple[int, str]
    names: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()
    by_gen: dict[int, float] = msgspec.field(default_factory=dict)
    inner: _Inner
    inners: list[_Inner] = msgspec.field(default_factory=list)
    maybe: _Inner | None = None
    ratio: float = 1.0
    note: str | None = None


class _Ambiguous(Frozen):
    value: tuple[int, ...] | list[str]


def test_trusted_construct_gives_back_what_validation_gave_for_every_handled_type():
    from knowledge.trusted import construct, dump

    full = validate(_Outer, {"pair": [3, "x"], "names": ["p", "q"], "tags": ["t"], "by_gen": {"4": 32},
                                  "inner": {"when": "2025-01-02"}, "inners": [{"when": "2024-05-06", "kind": "b"}],
                                  "maybe": {"when": "2023-01-01"}, "ratio": 2})
    sparse = validate(_Outer, {"pair": (1, "y"), "inner": {"when": dt.date(2020, 1, 1)}})
    for original in (full, sparse):
        back = construct(_Outer, json.loads(json.dumps(dump(original))))
        assert back == original and _tree(back) == _tree(original)
        assert dump_json(back) == dump_json(original)
    assert isinstance(construct(_Outer, dump(full)).ratio, float) and construct(_Outer, dump(full)).by_gen == {4: 32.0}


def test_record_json_dump_equals_pydantics_for_the_catalog_and_tables():
    """`--json` output and the snapshots use knowledge.structs.dump(json=True); for every catalog entry and table it
    must equal what pydantic gives for the same data in a pydantic model with the same fields (same keys, order,
    values and types)."""
    from advisor.estimator.calibration import load_calibration, load_economics
    from advisor.estimator.engines import default_engines
    from knowledge.pydantic_models import pydantic_model
    from knowledge.structs import dump

    catalog = build_catalog(PACKAGE_DATA)
    items = [*catalog.gpus[:12], *catalog.models[:12], *list(catalog.sources.values())[:30], load_calibration(),
             load_economics(), default_engines()]
    for item in items:
        twin = pydantic_model(type(item)).model_validate(dump(item))  # validated and dumped by pydantic
        for options in ({}, {"exclude_none": True}):
            got, want = dump(item, json=True, **options), twin.model_dump(mode="json", **options)
            assert json.dumps(got) == json.dumps(want) and _tree(got) == _tree(want)


def test_trusted_construct_refuses_types_it_cannot_read_back():
    from knowledge.trusted import construct

    with pytest.raises(TypeError):
        construct(_Ambiguous, {"value": [1, 2]})


# --- the engine, calibration and economics tables ------------------------------------------------------------

def _tables(root: Path) -> dict[str, tuple[Path, object]]:
    """name -> (copied YAML file, a loader of it that goes through the snapshot cache)."""
    from advisor.estimator import calibration as cal

    return {"calibration": (root / "calibration.yaml", lambda p: cal._load(p, cal.Calibration)),
            "economics": (root / "economics.yaml", lambda p: cal._load(p, cal.Economics))}


@pytest.mark.parametrize("name", ["calibration", "economics"])
def test_table_snapshot_equals_the_validated_yaml_and_follows_edits(name, data, cache, monkeypatch):
    from advisor.estimator import calibration as cal

    path, load = _tables(data)[name]
    schema = cal.Calibration if name == "calibration" else cal.Economics
    reference = cal._parse(path, schema)
    assert load(path) == reference  # cold: parsed, then stored
    assert [f.name for f in cache.glob(f"table-{name}-*.json")]
    monkeypatch.setattr(cal, "_parse", lambda *_: pytest.fail("YAML parsed although a fresh snapshot exists"))
    warm = load(path)  # constructed from the snapshot without validating (knowledge.trusted)
    assert warm == reference and _tree(warm) == _tree(reference)
    assert dump_json(warm) == dump_json(reference)
    monkeypatch.undo()
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\nbogus_key: 1\n", encoding="utf-8")  # an edit makes the snapshot stale
    with pytest.raises(CatalogError):
        load(path)
    path.write_text(text, encoding="utf-8")
    file = next(cache.glob(f"table-{name}-*.json"))
    stored = json.loads(file.read_text(encoding="utf-8"))
    stored["payload"]["bogus_key"] = 1  # right key, payload edited after writing (digest differs): the YAML is parsed
    file.write_text(json.dumps(stored), encoding="utf-8")
    assert load(path) == reference


def test_engine_table_snapshot_equals_the_validated_yaml(cache, monkeypatch):
    from advisor.estimator import engines

    path = PACKAGE_DATA / "engines.yaml"
    reference = engines._parse_file(path)
    engines.default_engines.cache_clear()
    try:
        assert engines.default_engines() == reference
        monkeypatch.setattr(engines, "_parse_file",
                            lambda *_: pytest.fail("YAML parsed although a fresh snapshot exists"))
        engines.default_engines.cache_clear()
        warm = engines.default_engines()
        assert warm == reference and _tree(warm) == _tree(reference)
    finally:
        engines.default_engines.cache_clear()


# --- CLI processes: imports, warm start, errors ---------------------------------------------------------------

PROBE = ("import json, sys\n"
         "from ui.cli.entry import main\n"
         "code = main(sys.argv[2:])\n"
         "with open(sys.argv[1], 'w') as f:\n"
         "    json.dump(sorted(sys.modules), f)\n"
         "sys.exit(code)\n")


def _probe(tmp_path: Path, *argv: str, env: dict[str, str] | None = None, full: bool = False
           ) -> tuple[str, set[str]]:
    """Run one CLI command in a fresh interpreter; its stdout and the top-level packages it imported (`full`:
    every module name)."""
    out = tmp_path / f"modules-{len(list(tmp_path.glob('modules-*')))}.json"
    full_env = {k: v for k, v in os.environ.items() if k not in OFFLINE_DROP}
    full_env.update(env or {})
    result = subprocess.run([sys.executable, "-c", PROBE, str(out), *argv], cwd=ROOT, env=full_env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    modules = json.loads(out.read_text())
    return result.stdout, set(modules) if full else {m.split(".")[0] for m in modules}


COMMANDS = {
    "gpus": ["gpus", "--json"],
    "models": ["models", "show", "llama-3-8b"],
    "estimate": ["estimate", "--model", "llama-3-70b", "--tp", "2", "--gpus", "2", "--gpu", "h100-sxm", "--json"],
    "throughput": ["throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--concurrency", "8", "--json"],
    "train-time": ["train-time", "--model", "llama-3-8b", "--tokens", "1B", "--gpu", "h100-sxm", "--count", "8"],
    "tco": ["tco", "--gpu", "rtx-4090", "--count", "8", "--currency", "CNY", "--json"],
    "recommend": ["recommend", "--model", "qwen2.5-32b", "--concurrency", "30", "--region", "cn", "--json"],
    "ask": ["ask", "--driver", "deterministic", "--json", "Qwen2.5-32B 推理，30 个并发，要几张 4090？"],
}
MAY_USE_RULES = {"recommend", "ask"}  # the rules engine (durable) runs there, nowhere else on these paths


@pytest.mark.parametrize("name", list(COMMANDS))
def test_deterministic_commands_import_no_chat_web_or_slack_stack(name, tmp_path):
    out, packages = _probe(tmp_path, *COMMANDS[name])
    assert out.strip()
    forbidden = set(HEAVY) | (set() if name in MAY_USE_RULES else {"durable", "durable_rules_engine"})
    assert not packages & forbidden, f"`gpu-advisor {name}` imported {sorted(packages & forbidden)}"


@pytest.mark.parametrize("argv", [COMMANDS["ask"], ["ask", "serve llama 3 8b to 10 users", "--json"]])
def test_ask_without_a_model_imports_no_pydantic(argv, tmp_path):
    """pydantic is for the edges that need its schemas (LangChain's tools, FastAPI, MCP): the deterministic dialog,
    its state and its turns are structs, and the LLM settings that say no model is configured are one too."""
    out, modules = _probe(tmp_path, *argv, full=True)
    assert json.loads(out)["answer"]
    hit = sorted(m for m in modules if m.split(".")[0] in NO_PYDANTIC or m == "knowledge.pydantic_models")
    assert not hit, f"`gpu-advisor {' '.join(argv[:1])}` without a model imported {hit}"


@pytest.mark.parametrize("name", ["gpus", "models", "estimate", "throughput", "tco"])
def test_warm_start_parses_no_yaml(name, tmp_path):
    env = {snapshot.CACHE_ENV: str(tmp_path / "cache")}
    first, cold = _probe(tmp_path, *COMMANDS[name], env=env)
    second, warm = _probe(tmp_path, *COMMANDS[name], env=env)
    assert "yaml" in cold, "the cold start should have parsed the catalog's YAML"
    assert "yaml" not in warm, "the warm start should have read the catalog snapshot, not the YAML files"
    assert first == second


def test_bad_data_file_after_a_warm_start_is_one_line_exit_2(data, tmp_path):
    env = {**os.environ, "GPU_ADVISOR_DATA": str(data), snapshot.CACHE_ENV: str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "ui.cli.entry", "gpus", "--json"]
    ok = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and json.loads(ok.stdout)
    path = data / "gpus" / "h20.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("memory_bytes: 103079215104\n", "memory_bytes: lots\n"),
                    encoding="utf-8")
    bad = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert "gpus/h20.yaml" in bad.stderr and "memory_bytes" in bad.stderr


# what a warm start of each scriptable command may not import: the YAML parser, the rules engine, the servers,
# the chat stack, and the parts of the advisor that other commands use
NOT_ON_WARM_PATH = {"yaml", "durable", "durable_rules_engine", "gradio", "langchain", "langchain_core",
                    "langchain_openai", "openai", "slack_bolt", "slack_sdk", "mcp", "fastapi", "uvicorn",
                    "starlette", "httpx", "knowledge.guides", "advisor.recommend.recommender", "advisor.conversation",
                    "rules", "advisor.estimator.planner", "advisor.recommend.training_advice"}
NO_PYDANTIC = {"pydantic", "pydantic_core", "importlib.metadata"}  # the catalog, workload and results are records
WARM_PATH = {  # command -> (argv, allowed from NOT_ON_WARM_PATH, also banned)
    "estimate": (COMMANDS["estimate"], set(), NO_PYDANTIC),
    "throughput": (COMMANDS["throughput"], set(), NO_PYDANTIC),
    "gpus": (["gpus", "--json", "--region", "cn"], set(), NO_PYDANTIC),
    "tco": (COMMANDS["tco"], set(), NO_PYDANTIC),
    # an inference recommendation runs the rules (durable) but never the parallelism planner; it states its
    # assumptions from the catalog's small "recommend" section, never loading the main message tables
    "recommend": (COMMANDS["recommend"], {"durable", "durable_rules_engine", "rules", "advisor.recommend.recommender",
                                          "advisor.recommend.training_advice"},
                  {"knowledge.messages.en", "knowledge.messages.zh"}),
}


@pytest.mark.parametrize("name", list(WARM_PATH))
def test_import_graph_of_a_warm_start(name, tmp_path):
    """The modules a warm start imports (sys.modules in a fresh interpreter: deterministic, unlike a timing)."""
    argv, allowed, also = WARM_PATH[name]
    env = {snapshot.CACHE_ENV: str(tmp_path / "cache")}
    cold_out, _ = _probe(tmp_path, *argv, env=env, full=True)
    warm_out, modules = _probe(tmp_path, *argv, env=env, full=True)
    assert warm_out == cold_out and warm_out.strip()
    banned = (NOT_ON_WARM_PATH - allowed) | also
    hit = sorted(m for m in modules if m in banned or any(m.startswith(b + ".") for b in banned))
    assert not hit, f"a warm `gpu-advisor {name}` imported {hit}"


def test_cli_tells_which_commands_take_their_name_without_inspect():
    import importlib

    from ui.cli import entry as cli

    takes = {name: cli._takes_name(importlib.import_module(mod)) for name, mod in cli.COMMANDS.items()
             if name in ("gpus", "models", "estimate", "throughput", "tco")}
    assert takes == {"gpus": True, "models": True, "estimate": False, "throughput": False, "tco": False}

