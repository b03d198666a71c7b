# Recollect. Two commands on a fresh machine with Go:
#   make run   - build and run everything in one process (embedded NATS, local store, built-in model)
#   make test  - install missing test servers (redis-server, clickhouse-server) when possible, run every test

GO        ?= go
BIN       := bin
MODULES   := ingest extractor embedder consolidator topiary query
GOTEST    ?= $(GO) test
TESTFLAGS ?= -count=1 -timeout 20m
DATA_DIR  ?= ./data

.PHONY: all build run test test-servers nats-server vet fmt-check bench clean

all: build

build:
	$(GO) build -o $(BIN)/recollect ./cmd/recollect
	@for m in $(MODULES); do $(GO) build -o $(BIN)/$$m ./cmd/$$m || exit 1; done

run:
	$(GO) build -o $(BIN)/recollect ./cmd/recollect
	$(BIN)/recollect run --data-dir $(DATA_DIR)

# nats-server built from the same module version as the embedded one, for
# the multi-process tests (Debian's package is older).
nats-server:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/nats-server github.com/nats-io/nats-server/v2

test-servers:
	@scripts/test-servers.sh

test: test-servers nats-server
	RECOLLECT_NATS_SERVER_BIN=$(CURDIR)/$(BIN)/nats-server RECOLLECT_REQUIRE_SERVERS=1 $(GOTEST) $(TESTFLAGS) ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

clean:
	rm -rf $(BIN)
