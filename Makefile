# agentgrid — developer commands. `make test` is what CI runs (see .ci/run).
GO ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build test vet staticcheck unit bench bench-go fuzz demo clean live

all: build

## build: a static binary, as the README installs it: agentgrid needs no C library, and
## without the dynamic loader every agentgrid process (each hook call, each tmux command
## in a pane, each attach) starts about 0.8 ms sooner.
build:
	CGO_ENABLED=0 $(GO) build -o agentgrid .

## test: go vet, staticcheck, and every test with the race detector (needs tmux for the
## differential and end-to-end suites; they skip with a message when tmux is absent).
test: vet staticcheck unit

vet:
	$(GO) vet ./...

staticcheck:
	$(STATICCHECK) ./...

unit:
	$(GO) test -race -timeout 25m ./...

## bench: the performance tables, each figure beside tmux measured in the same run.
bench: bench-go
	$(GO) run ./bench all

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem -count 3 ./panes/vterm/ ./ui/ ./hooks/ ./config/

## fuzz: run each fuzz target for FUZZTIME (default 1m); CI runs the committed seeds only.
FUZZTIME ?= 1m
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzTerminal -fuzztime $(FUZZTIME) ./panes/vterm/
	$(GO) test -run '^$$' -fuzz FuzzCompute -fuzztime $(FUZZTIME) ./layout/
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) ./config/
	$(GO) test -run '^$$' -fuzz FuzzServerHandleLine -fuzztime $(FUZZTIME) ./internal/control/
	$(GO) test -run '^$$' -fuzz FuzzMCPInput -fuzztime $(FUZZTIME) ./internal/mcpserver/

demo:
	$(GO) run . demo

clean:
	rm -f agentgrid

## live: the real agent CLIs (pinned in live/versions, installed from npm into
## ~/.cache/agentgrid-live) inside agentgrid against a scripted model server on
## 127.0.0.1. Skips with a message when npm or its registry cannot be reached.
live:
	AGENTGRID_LIVE=1 $(GO) test -count=1 -timeout 20m -v ./live/
