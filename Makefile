# ftools: build, install, test, bench.
# make                  build every command into bin/
# make install          go install the commands; man pages and completion
#                       into $(DESTDIR)$(PREFIX)/... and $(DESTDIR)/etc/...
# make test             bash scripts/test (vet, unit, end-to-end, fuzz)
# make bench            bash scripts/bench

PREFIX ?= /usr/local
DESTDIR ?=
GO ?= go
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= /etc/bash_completion.d
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions

MANPAGES := $(wildcard man/*.1)

.PHONY: all build install install-bin install-man install-completion test bench clean

all: build

build:
	$(GO) build -o bin/ ./cmd/...

# With DESTDIR (packaging) the binaries go to $(DESTDIR)$(BINDIR); without
# it, go install puts them where Go installs commands ($GOBIN).
install: install-bin install-man install-completion

install-bin:
ifeq ($(DESTDIR),)
	$(GO) install ./cmd/...
else
	install -d $(DESTDIR)$(BINDIR)
	GOBIN=$(abspath $(DESTDIR)$(BINDIR)) $(GO) install ./cmd/...
endif

install-man:
	install -d $(DESTDIR)$(MANDIR)
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/

install-completion:
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 completion/ftools.bash $(DESTDIR)$(BASHCOMPDIR)/ftools
	install -m 0644 completion/_ftools $(DESTDIR)$(ZSHCOMPDIR)/_ftools

test:
	bash scripts/test

bench:
	bash scripts/bench

clean:
	rm -rf bin
