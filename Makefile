# ftools: build, install, test, bench.
# make                  build every command into bin/ (BUILDDIR)
# make install          install the commands, man pages and completion under
#                       $(DESTDIR)$(PREFIX): bin/, share/man/man1/,
#                       share/bash-completion/completions/, share/zsh/site-functions/
# make test             bash scripts/test (vet, unit, end-to-end, fuzz)
# make bench            bash scripts/bench
#
# `make && sudo make install` works when root's PATH has no go: install
# copies what `make` built, and a rebuild uses the go that `make` used.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
BUILDDIR ?= bin

# go: the one on PATH; else the one the last build used (recorded in
# $(BUILDDIR)/.go); else where Go's installers put it.
GO ?= $(firstword $(shell command -v go 2>/dev/null) $(shell cat $(BUILDDIR)/.go 2>/dev/null) \
	$(wildcard /usr/local/go/bin/go /usr/lib/go/bin/go $(HOME)/go/bin/go $(HOME)/sdk/go/bin/go))

# The commit --version names, for builds Go cannot stamp itself (a git
# worktree, GOFLAGS=-buildvcs=false); Go's own stamp wins where it has one.
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
COMMIT_DATE := $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS := $(if $(COMMIT),-X github.com/ftools/ftools/cmd/internal/cmdutil.buildCommit=$(COMMIT) -X github.com/ftools/ftools/cmd/internal/cmdutil.buildDate=$(COMMIT_DATE))

COMMANDS := $(sort $(notdir $(wildcard cmd/f*)))
BINS := $(addprefix $(BUILDDIR)/,$(COMMANDS))
GOFILES := $(shell find cmd pkg -name '*.go' ! -name '*_test.go') go.mod go.sum
MANPAGES := $(wildcard man/*.1)

.PHONY: all build install install-bin install-man install-completion test bench clean

all: build

build: $(BUILDDIR)/.built

$(BUILDDIR)/.built: $(GOFILES)
	@test -n "$(GO)" || { echo "make: go is not on PATH (and no earlier build recorded one): give GO=/path/to/go" >&2; exit 1; }
	@echo "building $(words $(COMMANDS)) commands into $(BUILDDIR)/ with $(GO) ($$($(GO) env GOVERSION)); the first build downloads the modules"
	$(GO) build -buildvcs=auto -ldflags "$(LDFLAGS)" -o $(BUILDDIR)/ ./cmd/...
	@echo "$(GO)" >$(BUILDDIR)/.go
	@touch $@

install: install-bin install-man install-completion

install-bin: build
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/

install-man:
	install -d $(DESTDIR)$(MANDIR)
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/

# bash-completion loads a command's completion from a file named after it:
# one script, linked under every command's name.
install-completion:
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 completion/ftools.bash $(DESTDIR)$(BASHCOMPDIR)/ftools
	for c in $(COMMANDS); do ln -sf ftools $(DESTDIR)$(BASHCOMPDIR)/$$c; done
	install -m 0644 completion/_ftools $(DESTDIR)$(ZSHCOMPDIR)/_ftools

test:
	bash scripts/test

bench:
	bash scripts/bench

clean:
	rm -rf $(BUILDDIR)
