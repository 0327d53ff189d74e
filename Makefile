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

.PHONY: web test install browser bench clean

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: Python 3.11 or 3.12 is required (python3.12, python3.11 or python3)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

install: $(STAMP)

web: $(STAMP)
	$(BIN)/gpu-advisor web $(ARGS)

# What the tests need from Debian, never from a download: headless Chromium for the browser tests, a CJK font so it
# renders Chinese, and PostgreSQL's server binaries for the store tests (each test starts its own throwaway cluster).
DEBS := chromium fonts-noto-cjk postgresql
browser:
	@missing=$$(for d in $(DEBS); do dpkg -s $$d >/dev/null 2>&1 || echo $$d; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

test: $(STAMP) browser
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	@for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache
