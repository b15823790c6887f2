# hookd developer tasks. `make test` installs everything it needs into .venv; `make demo` only
# hookd itself, into .venv-demo.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install agent-clis test lint typecheck imports pytest demo conformance bench fuzz soak schemas clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

imports: $(STAMP)
	$(BIN)/lint-imports --no-logo

typecheck: $(STAMP)
	$(BIN)/mypy

# The other agent CLIs at the versions the tests pin, installed with npm into a reused cache.
agent-clis: $(STAMP)
	$(BIN)/python -m tests.support.agent_clis

# Most tests wait on other processes (the agent CLIs, daemons, timeouts): PYTEST_WORKERS xdist
# workers keep 2 cores busy; a test file stays on one worker (its module fixtures run once).
# The tests marked serial bound wall-clock times of a second or so: they run after, alone.
PYTEST_WORKERS ?= 4

pytest: $(STAMP) agent-clis
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile -m 'not serial'
	$(BIN)/python -m pytest -q -m serial

test: lint typecheck imports pytest

# The demo needs hookd alone: its own small environment, hookd installed as a user would.
DEMO_VENV := .venv-demo

$(DEMO_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install -q --disable-pip-version-check .
	touch $@

demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/hookd demo

conformance: $(STAMP)
	$(BIN)/python -m pytest -q tests/conformance/test_conformance.py

bench: $(STAMP)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.http_server
	$(BIN)/python -m bench.cli_session
	$(BIN)/python -m bench.agent_shim
	$(BIN)/python -m bench.guard

fuzz: $(STAMP)
	HOOKD_FUZZ_LONG=1 $(BIN)/python -m pytest -q tests/fuzz/test_fuzz.py

soak: $(STAMP)
	HOOKD_SOAK_LONG=1 $(BIN)/python -m pytest -q -s tests/soak/test_soak.py

schemas: $(STAMP)
	$(BIN)/hookd schema --write schemas

clean:
	rm -rf $(VENV) $(DEMO_VENV) .mypy_cache .ruff_cache .pytest_cache
