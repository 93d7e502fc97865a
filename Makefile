# roce — build, test and demo.
GO      ?= go
BIN     := bin
PKGS    := ./...
CMDS    := roce-plan roce-apply roce-verify roce-agent roce-lab
export GOFLAGS ?= -mod=mod

.PHONY: all build test vet fmt-check deps-test demo bench fuzz clean

all: build

build:
	@mkdir -p $(BIN)
	@for c in $(CMDS); do [ -d cmd/$$c ] && [ -n "$$(ls cmd/$$c/*.go 2>/dev/null)" ] && $(GO) build -o $(BIN)/$$c ./cmd/$$c || exit 1; done

# What the tests need from the OS: Debian's perftest (the real ib_write_bw)
# and iproute2. Installed here so a clean machine (and CI) gets them.
deps-test:
	@if ! command -v ib_write_bw >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing perftest iproute2 (needed by the tests)"; \
			(apt-get install -y -q perftest iproute2 >/dev/null 2>&1 || \
			 (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q perftest iproute2 >/dev/null)) ; \
		else echo "warning: perftest not installed and not root: probe tests will skip"; fi; \
	fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

test: deps-test fmt-check vet
	$(GO) test -count=1 -timeout 25m $(PKGS)

demo: build
	@./scripts/demo.sh

bench: build
	@./scripts/bench.sh

fuzz:
	@./scripts/fuzz.sh

clean:
	rm -rf $(BIN) .lab
