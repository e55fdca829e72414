# clapper: `make run` starts the terminal UI (on the embedded sandbox without an API key);
# `make test` runs vet, the gofmt check, `go mod tidy -diff`, staticcheck and every test.
GO      ?= go
BIN     ?= bin/clapper
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
DATA_DIR ?=
# staticcheck at a pinned version, fetched through the module proxy by `go run`.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: run build test bench fmt vet lint fuzz clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

run: build
	./$(BIN) $(if $(DATA_DIR),--data-dir $(DATA_DIR))

test: vet lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...

# lint fails when go.mod or go.sum is not tidy, or staticcheck finds anything
# (dead code included).
lint:
	$(GO) mod tidy -diff
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run=NONE -bench=. -benchmem ./...

fuzz:
	$(GO) test -run=NONE -fuzz=FuzzValidate -fuzztime=60s ./api/catalog/
	$(GO) test -run=NONE -fuzz=FuzzSplitPauses -fuzztime=30s ./api/catalog/

fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')

clean:
	rm -rf bin
