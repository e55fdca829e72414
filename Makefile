# clapper: `make run` starts the terminal UI (on the embedded sandbox without an API key);
# `make test` runs vet, the gofmt check, `go mod tidy -diff`, staticcheck and every test.
GO      ?= go
BIN     ?= bin/clapper
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
DATA_DIR ?=
# staticcheck at a pinned version, fetched through the module proxy by `go run`.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Mutation testing (`make mutate`, not part of `make test`): gremlins at a
# pinned version, installed once into bin/tools, and the hand-made mutants
# of mutants/PKG.txt for the packages gremlins cannot drive well (ui, mcp).
# MUTATE_PKGS narrows the run (e.g. MUTATE_PKGS=scenes; every package when
# empty), CHANGED=main~5 to what changed since that commit; MUTATE_WORKERS
# and MUTATE_TIMEOUT bound its load.
GREMLINS       ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE_PKGS    ?=
MUTATE_WORKERS ?= 1
MUTATE_TIMEOUT ?= 5
CHANGED        ?=

.PHONY: run build test test-go test-pg bench fmt vet lint fuzz mutate clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

run: build
	./$(BIN) $(if $(DATA_DIR),--data-dir $(DATA_DIR))

# The race detector watches our code, not SQLite's: modernc's SQLite is C
# turned into Go, and instrumenting it (sqlite/lib and the libc under it)
# was two thirds of every -race test's CPU (studio 22.6 s against 7.0 s,
# history 99 s against 19 s) while any race found there would be its to
# fix, not ours. Our calls into it are still checked on both sides.
RACE := -race -gcflags=modernc.org/sqlite/...=-race=false -gcflags=modernc.org/libc/...=-race=false

# The store's tests run twice: on a history file and on a team's PostgreSQL
# (a throwaway server from Debian's postgresql package, or the one at
# CLAPPER_TEST_PG_URL). Without PostgreSQL they are skipped, and said so,
# unless CLAPPER_TEST_PG_REQUIRED is set (.ci/run sets it): then they fail.
HAVE_PG := $(if $(CLAPPER_TEST_PG_URL),yes,$(if $(wildcard /usr/lib/postgresql/*/bin/initdb),yes,$(shell command -v initdb >/dev/null 2>&1 && echo yes)))

# The polling simulations replay hundreds of task lives on a fake clock in
# one goroutine's worth of logic: under -race they cost 35 s each for no
# race to find (the watcher's own goroutines are raced by the track tests
# that start them), so they run plainly.
PLAIN_ONLY := ^(TestWatcherBeatsFixedPoller|TestPollingAgainstAFiveSecondPoller)$$

# TEST_TIMEOUT is per package: the slowest under -race take a few minutes on
# two busy cores, near go test's default of ten when the machine is shared;
# a hang still ends the run.
TEST_TIMEOUT ?= 20m

# The team store's tests mostly wait on PostgreSQL (a database cloned and
# dropped per test: 4 s of CPU in 70 s), so they run beside the others.
test: vet lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@$(MAKE) --no-print-directory -j2 test-go test-pg

test-go:
	$(GO) test $(RACE) -count=1 -timeout $(TEST_TIMEOUT) -skip '$(PLAIN_ONLY)' ./...
	$(GO) test -count=1 -run '$(PLAIN_ONLY)' ./track

test-pg:
ifeq ($(HAVE_PG)$(CLAPPER_TEST_PG_REQUIRED),)
	@echo "SKIPPED: the PostgreSQL tests (the team store): no PostgreSQL here; install Debian's postgresql or set CLAPPER_TEST_PG_URL"
else
	$(GO) test $(RACE) -count=1 -timeout $(TEST_TIMEOUT) ./history -args -store=postgres
endif

vet:
	$(GO) vet ./...

# lint fails when go.mod or go.sum is not tidy, or staticcheck finds anything
# (dead code included). The second run leaves the tests out: code that only
# a test calls is dead too.
lint:
	$(GO) mod tidy -diff
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tests=false ./...

bench:
	$(GO) test -run=NONE -bench=. -benchmem ./...

fuzz:
	$(GO) test -run=NONE -fuzz=FuzzValidate -fuzztime=60s ./api/catalog/
	$(GO) test -run=NONE -fuzz=FuzzSplitPauses -fuzztime=30s ./api/catalog/

# mutate runs mutants/mutate.sh in a private copy of the tree: gremlins or
# the hand-made mutants on each package, its own tests only, ending with the
# efficacy (killed / (killed + lived)) and time per package. The surviving
# mutants judged equivalent are listed in mutate-equivalents.md.
mutate:
	@mkdir -p bin/tools
	@test -x bin/tools/gremlins || GOBIN=$(CURDIR)/bin/tools $(GO) install $(GREMLINS)
	@MUTATE_PKGS='$(MUTATE_PKGS)' CHANGED='$(CHANGED)' MUTATE_WORKERS='$(MUTATE_WORKERS)' \
		MUTATE_TIMEOUT='$(MUTATE_TIMEOUT)' GREMLINS_BIN=$(CURDIR)/bin/tools/gremlins sh mutants/mutate.sh

fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')

clean:
	rm -rf bin
