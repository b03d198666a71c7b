# Recollect. Two commands on a fresh machine with Go:
#   make run   - build and run everything in one process (embedded NATS, local store, built-in model)
#   make test  - install what the tests need (redis-server, clickhouse-server, node, npm) when root, run every test
#   make image - the container image as a docker-loadable tarball, bin/recollect-image.tar (no Docker needed)

GO        ?= go
BIN       := bin
MODULES   := ingest extractor embedder consolidator topiary query
GOTEST    ?= $(GO) test
TESTFLAGS ?= -count=1 -timeout 20m
DATA_DIR  ?= ./data
# make run HTTP_ADDR=127.0.0.1:8800 listens elsewhere (RECOLLECT_HTTP_ADDR too).
HTTP_ADDR ?= $(or $(RECOLLECT_HTTP_ADDR),127.0.0.1:7700)
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/recollect-dev/recollect/pkg/cli.Version=$(VERSION)
IMAGE_TAR ?= $(BIN)/recollect-image.tar

.PHONY: all build run image test test-sdk test-console test-servers nats-server vet fmt-check bench fuzz clean drill soak

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/recollect ./cmd/recollect
	@for m in $(MODULES); do $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/$$m ./cmd/$$m || exit 1; done

run:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/recollect ./cmd/recollect
	$(BIN)/recollect run --data-dir $(DATA_DIR) --http-addr $(HTTP_ADDR)

# The image: recollect cross-built static (CGO_ENABLED=0), the six module
# names symlinked to it, one layer FROM scratch, user 65532, written with
# go-containerregistry; load it
# with docker load -i $(IMAGE_TAR). The Dockerfile builds the same with Docker.
image:
	GO=$(GO) $(GO) run ./cmd/imagebuild -out $(IMAGE_TAR) -version $(VERSION)

# nats-server built from the same module version as the embedded one, for
# the multi-process tests (Debian's package is older).
nats-server:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/nats-server github.com/nats-io/nats-server/v2

test-servers:
	@scripts/test-servers.sh

test: test-servers nats-server test-sdk test-console
	RECOLLECT_NATS_SERVER_BIN=$(CURDIR)/$(BIN)/nats-server RECOLLECT_REQUIRE_SERVERS=1 $(GOTEST) $(TESTFLAGS) ./...

# The Python and TypeScript SDKs (sdk/python, sdk/typescript) and the
# TypeScript framework adapters (sdk/typescript-integrations: the AI SDK,
# LangGraph/LangChain, OpenAI Agents), each against a real recollect run of
# the binary built here. Python from Debian's
# packages (python3-httpx, python3-pytest), TypeScript with node and npm.
PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
test-sdk: test-servers
	$(GO) build -o $(BIN)/recollect ./cmd/recollect
	cd sdk/python && RECOLLECT_BIN=$(CURDIR)/$(BIN)/recollect $(PYTHON) -m pytest -q -p no:cacheprovider tests
	cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error && RECOLLECT_BIN=$(CURDIR)/$(BIN)/recollect npm test --silent
	cd sdk/typescript-integrations && npm ci --no-audit --no-fund --loglevel=error && RECOLLECT_BIN=$(CURDIR)/$(BIN)/recollect npm test --silent

# The operator console (/ui) in headless Chromium (Debian's chromium,
# installed by test-servers) driven by playwright-core (no browser
# download) against a real recollect run of the binary built here;
# screenshots of every page land in $(CONSOLE_SHOTS).
CONSOLE_SHOTS ?= $(CURDIR)/$(BIN)/console-screenshots
test-console: test-servers
	$(GO) build -o $(BIN)/recollect ./cmd/recollect
	cd test/console && npm ci --no-audit --no-fund --loglevel=error && \
		RECOLLECT_BIN=$(CURDIR)/$(BIN)/recollect RECOLLECT_TEST_OUT=$(dir $(CONSOLE_SHOTS)) npm test --silent

# The chaos drill in full: 10,000 events against a 3-node JetStream cluster
# while every worker, a NATS node, the stream leader and the store are
# killed and Redis (20 s) and ClickHouse (60 s) are stopped. make test runs
# the short drill (600 events, short outages). The summary lands in
# $(DRILL_JSON).
DRILL_JSON ?= $(CURDIR)/$(BIN)/drill-summary.json
drill: test-servers nats-server
	RECOLLECT_NATS_SERVER_BIN=$(CURDIR)/$(BIN)/nats-server RECOLLECT_REQUIRE_SERVERS=1 RECOLLECT_DRILL=full \
		RECOLLECT_DRILL_JSON=$(DRILL_JSON) $(GOTEST) -count=1 -timeout 60m -v -run TestChaosDrill ./test/drill

# A soak against a running server (make run in another terminal):
# SOAK_DURATION of steady ingest, learn and recall; the report lands in
# $(SOAK_JSON).
SOAK_URL      ?= http://127.0.0.1:7700
SOAK_DURATION ?= 30m
SOAK_JSON     ?= $(CURDIR)/$(BIN)/soak-report.json
soak:
	$(GO) build -o $(BIN)/recollect ./cmd/recollect
	$(BIN)/recollect soak --url $(SOAK_URL) --duration $(SOAK_DURATION) --out $(SOAK_JSON)

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

# Every fuzz target for FUZZTIME each, one at a time (make test runs their
# checked-in seeds). Targets that open a store on disk are slow per input:
# minimising their finds is skipped so they keep exploring.
FUZZTIME ?= 60s
fuzz:
	@for t in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs grep -h -o '^func Fuzz[A-Za-z0-9_]*' | sort -u | cut -c6-); do \
		pkg=$$(dirname $$(grep -rl --include='*_test.go' "^func $$t(" . | head -1)); \
		echo "fuzz $$t in $$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 0 $$pkg || exit 1; \
	done

clean:
	rm -rf $(BIN)
