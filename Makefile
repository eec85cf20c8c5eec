# Stud Engine: every entry point a developer or CI needs.
# `make test` and `make run` work on a fresh clone: they create .venv and install into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: all venv run test lint unit bench-engine demo clean

all: test

# ---- set-up -----------------------------------------------------------------------
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

venv: $(STAMP)

# ---- main job ---------------------------------------------------------------------
run: $(STAMP)
	$(BIN)/stud-demo

demo: run

# ---- checks -----------------------------------------------------------------------
lint: $(STAMP)
	$(BIN)/ruff check service tests clients
	$(BIN)/ruff format --check service tests clients
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile

test: lint unit

# ---- benchmarks -------------------------------------------------------------------
bench-engine: $(STAMP)
	$(BIN)/pip install -q -e '.[bench]'
	$(PY) -m studengine.bench.engine

clean:
	rm -rf $(VENV) build dist service/*.egg-info .pytest_cache .mypy_cache .ruff_cache
