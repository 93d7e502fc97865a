# roce — build, test and demo.
GO      ?= go
BIN     := bin
PKGS    := ./...
CMDS    := roce-plan roce-apply roce-verify roce-agent roce-lab
export GOFLAGS ?= -mod=mod

.PHONY: all build test vet fmt-check deps-test demo bench bench-peers fuzz clean crash-test interop

all: build

# -version names the commit. Go stamps it itself unless VCS stamping is off
# (GOFLAGS=-buildvcs=false) or git cannot be read; the build also passes
# it with -ldflags, empty outside a git checkout (-version then says
# "commit unknown").
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -X github.com/rocefabric/roce/internal/buildinfo.stampedCommit=$(COMMIT)

build:
	@mkdir -p $(BIN)
	@for c in $(CMDS); do [ -d cmd/$$c ] && [ -n "$$(ls cmd/$$c/*.go 2>/dev/null)" ] && $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/$$c ./cmd/$$c || exit 1; done

# What the tests need from the OS, from Debian: perftest (the real
# ib_write_bw), iproute2 (namespaces), libxml2-utils (xmllint checks JUnit
# reports against the XSD), openssh-client (nxsim is tried with real ssh),
# gcc, libc6-dev and linux-libc-dev (the dcbnl encoder is checked against the kernel's
# own header, compiled).
# Installed here so a clean machine (and CI) gets them.
# ansible (bundles the cisco.nxos collection), python3-netmiko and
# python3-textfsm drive nxsim as third-party clients (nexus/nxsim/interop_test.go).
# libyang-tools (yanglint) checks gNMI payloads against the vendors' YANG
# (providers/gnmi/yanglint_test.go). git: the -version and tutorial tests
# read the checkout's commit and ignore rules.
DEBS := perftest iproute2 libxml2-utils openssh-client gcc libc6-dev linux-libc-dev ansible python3-netmiko python3-textfsm libyang-tools git
deps-test:
	@if ! command -v ib_write_bw >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1 || \
	    ! command -v xmllint >/dev/null 2>&1 || ! command -v ssh >/dev/null 2>&1 || ! command -v yanglint >/dev/null 2>&1 || \
	    ! command -v git >/dev/null 2>&1 || \
	    ! command -v gcc >/dev/null 2>&1 || [ ! -f /usr/include/linux/dcbnl.h ] || [ ! -f /usr/include/stdio.h ] || \
	    ! command -v ansible-playbook >/dev/null 2>&1 || [ ! -d /usr/lib/python3/dist-packages/netmiko ] || [ ! -d /usr/lib/python3/dist-packages/textfsm ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing $(DEBS) (needed by the tests)"; \
			(apt-get install -y -q $(DEBS) >/dev/null 2>&1 || \
			 (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $(DEBS) >/dev/null)) || \
			 { echo "could not install $(DEBS)"; exit 1; }; \
		else echo "warning: $(DEBS) missing and not root: the tests that need them skip"; fi; \
	fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# Every fuzz target also runs briefly (TEST_FUZZTIME each, corpus first),
# so a parser that panics on outside input fails the tests.
# A count of inputs (Go's "Nx" form), not a duration: a duration this short
# can end while the engine is still gathering its baseline on a busy
# machine, and the run then fails with "context deadline exceeded".
TEST_FUZZTIME ?= 200x
test: deps-test fmt-check vet
	$(GO) test -count=1 -timeout 15m $(PKGS)
	@FUZZTIME=$(TEST_FUZZTIME) ./scripts/fuzz.sh

demo: build
	@./scripts/demo.sh

# The kill-9 matrix alone (it also runs in make test): roce-apply SIGKILLed
# mid-push against the lab, then -recover (docs/apply-safety.md).
crash-test:
	$(GO) test -count=1 -timeout 10m -run 'Crash|ElevenInterrupted|ConcurrentAppliesFromTwoCheckouts|DeadListener' ./e2e/

# The third-party clients alone (they also run in make test): netmiko with
# ntc-templates, Ansible cisco.nxos (facts, commands, config in check mode,
# and a check-mode play against a running roce-lab) and scrapligo's stock
# cisco_nxos driver, against nxsim (docs/nxos.md#clients).
interop: deps-test build
	$(GO) test -count=1 -timeout 10m -run 'Interop|Scrapligo' ./nexus/nxsim/ ./e2e/

bench: build
	@./scripts/bench.sh

# The same change on PEERS simulated Nexus switches by roce and by Ansible's
# nxos_config at equal fan-out (docs/performance.md, "roce and Ansible").
bench-peers: build
	@$(GO) build -o $(BIN)/roce-peerbench ./internal/peerbench/cmd/roce-peerbench
	@$(BIN)/roce-peerbench -switches $${PEERS:-8} -bin $(BIN)

fuzz:
	@./scripts/fuzz.sh

clean:
	rm -rf $(BIN) .lab
