# JournalVault — `make demo` and `make test` are all a fresh Debian machine with Swift needs.
SWIFT ?= swift
PREFIX ?= /usr/local
# Build needs: libsodium and SQLite headers, pkg-config to find libsodium, libvips for jv-thumbnail.
APT_PACKAGES := libsodium-dev libsqlite3-dev pkg-config libvips-dev
# Tests also use the sqlite3 shell to tamper with vault files, rclone for `jv sync` to remotes,
# groff to check that the man pages render without warnings, bash-completion, zsh and fish
# to try the completion scripts in each shell, libvips' vips command to draw test images, and
# curl and jq for the Ollama examples (examples/ollama-*.sh, tested against a fake server), and
# chromium (with fonts-liberation, which it only recommends) to render `jv report`'s page headless.
TEST_APT_PACKAGES := sqlite3 rclone groff-base bash-completion zsh fish libvips-tools strace curl jq chromium fonts-liberation
# `make deb` takes the package's Depends from dpkg-shlibdeps.
DEB_APT_PACKAGES := dpkg-dev

.PHONY: all deps test-deps build demo test test-fast test-previous static install uninstall deb check-deb bench fuzz clean

# `make` builds what `sudo make install` copies.
all: static

# Installs missing Debian packages with apt-get when run as root; otherwise says what to install.
deps:
	@scripts/ensure-packages.sh $(APT_PACKAGES)

# jrnl 4.6 (PyPI, in .build-tools/jrnl) for the tests that compare jv with jrnl, and VADER
# (PyPI, in .build-tools/vader) for the example analyser's end-to-end test.
test-deps: deps
	@scripts/ensure-packages.sh $(TEST_APT_PACKAGES)
	@scripts/ensure-jrnl.sh
	@examples/vader/setup.sh >/dev/null

build: deps
	$(SWIFT) build

demo: build
	@scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/jv"

test: test-deps
	@scripts/spdx.sh --check
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The quick run while working: every test but the `.slow` ones, which JV_TEST_QUICK=1 skips
# (each is reported skipped). `make test`, the whole run, is what CI and a merge need.
test-fast: test-deps
	$(SWIFT) build --build-tests
	JV_TEST_QUICK=1 $(SWIFT) test --skip-build

# Files written by this tree read by the jv of PREVIOUS (a commit or tag), and the other way
# round (PreviousReleaseTests; the committed fixtures cover the forward direction in `make test`).
PREVIOUS ?= db81df6
test-previous: test-deps
	@rm -rf .build-previous/src && git worktree prune
	git worktree add --detach .build-previous/src $(PREVIOUS)
	$(SWIFT) build --package-path .build-previous/src --scratch-path .build-previous/build --product jv
	$(SWIFT) build --build-tests
	JV_PREVIOUS_JV=$(CURDIR)/.build-previous/build/debug/jv $(SWIFT) test --skip-build --filter PreviousReleaseTests
	git worktree remove --force .build-previous/src

# What is installed is built in its own scratch path, with the Swift runtime and Foundation
# linked in, so that it runs without the toolchain (and debug builds are left alone). Hardened
# as Debian builds C: symbols bound at start (-z now: the whole relocation table read-only) and
# the C parts' buffer calls checked (_FORTIFY_SOURCE).
STATIC_SCRATCH := .build-static
STATIC_OPTIONS := --scratch-path $(STATIC_SCRATCH) -Xswiftc -static-stdlib -Xlinker -z -Xlinker now -Xcc -D_FORTIFY_SOURCE=2
STATIC_JV := $(STATIC_SCRATCH)/release/jv
# `make` fills STAGE with every file `make install` copies, laid out as under PREFIX.
STAGE := $(STATIC_SCRATCH)/stage
DEB_ROOT := $(STATIC_SCRATCH)/deb-root

# Every date in what is staged and packaged is the last commit's, so that two builds of one
# commit give the same .deb (https://reproducible-builds.org/specs/source-date-epoch/).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || stat -c %Y Package.swift)
export SOURCE_DATE_EPOCH

# The hand-written manual pages, by section: man/jv.1 is installed as share/man/man1/jv.1.gz.
MAN_PAGES := $(wildcard man/*.[1-8])
# The documents (README links to those in docs/).
DOCS := README.md FORMAT.md SECURITY.md docs/performance.md docs/packaging.md
# The example commands installed beside the documents, each runnable where it is installed (the
# VADER example needs its checkout's scripts to set up its environment, so it stays in the source).
EXAMPLES := examples/analyser.py examples/ollama-analyser.sh examples/ollama-chat.sh
# The thumbnailer jv runs to look at an attached file (Sources/jv-thumbnail), where jv finds it.
THUMBNAILER := lib/jv/jv-thumbnail
# What `make install` puts under $(DESTDIR)$(PREFIX), and so what `make uninstall` removes.
INSTALLED := bin/jv $(THUMBNAILER) \
	$(foreach page,$(MAN_PAGES),share/man/man$(subst .,,$(suffix $(page)))/$(notdir $(page)).gz) \
	share/bash-completion/completions/jv share/zsh/site-functions/_jv \
	share/fish/vendor_completions.d/jv.fish \
	$(DOCS:%=share/doc/jv/%.gz) $(EXAMPLES:examples/%=share/doc/jv/examples/%)
# Those of them that run: the examples too, so that `jv analyze --command` and `jv chat ask --command` take them.
EXECUTABLES := bin/jv $(THUMBNAILER) $(EXAMPLES:examples/%=share/doc/jv/examples/%)
# The folders that hold only jv's files, deepest first: uninstall removes them once empty.
INSTALLED_FOLDERS := share/doc/jv/examples share/doc/jv/docs share/doc/jv lib/jv

# The static jv (stripped as dh_strip strips), the thumbnailer (its Swift runtime linked in as
# jv's, libvips linked dynamically: jv itself never links libvips), its man pages, its completion scripts (bash's
# without the hashbang argument-parser writes: bash-completion sources it) and its documents,
# in STAGE. Pages and documents are compressed as Debian keeps them (gzip -9n: no name, no date).
static: deps
	$(SWIFT) build -c release --product jv $(STATIC_OPTIONS)
	$(SWIFT) build -c release --product jv-thumbnail $(STATIC_OPTIONS)
	@rm -rf $(STAGE)
	@install -d $(STAGE)/bin $(STAGE)/lib/jv $(STAGE)/share/bash-completion/completions $(STAGE)/share/zsh/site-functions \
	    $(STAGE)/share/fish/vendor_completions.d $(STAGE)/share/doc/jv/examples $(STAGE)/share/doc/jv/docs
	@cp $(STATIC_JV) $(STAGE)/bin/jv
	@cp $(STATIC_SCRATCH)/release/jv-thumbnail $(STAGE)/$(THUMBNAILER)
	@strip --remove-section=.comment --remove-section=.note $(STAGE)/bin/jv $(STAGE)/$(THUMBNAILER)
	@for page in $(MAN_PAGES); do section=$${page##*.}; install -d $(STAGE)/share/man/man$$section; \
	    gzip -9n < $$page > $(STAGE)/share/man/man$$section/$${page##*/}.gz || exit 1; done
	@$(STAGE)/bin/jv --generate-completion-script bash | sed '1{/^#!/d}' > $(STAGE)/share/bash-completion/completions/jv
	@$(STAGE)/bin/jv --generate-completion-script zsh > $(STAGE)/share/zsh/site-functions/_jv
	@$(STAGE)/bin/jv --generate-completion-script fish > $(STAGE)/share/fish/vendor_completions.d/jv.fish
	@for doc in $(DOCS); do gzip -9n < $$doc > $(STAGE)/share/doc/jv/$$doc.gz || exit 1; done
	@cp $(EXAMPLES) $(STAGE)/share/doc/jv/examples/
	@chmod 0644 $(addprefix $(STAGE)/,$(filter-out $(EXECUTABLES),$(INSTALLED)))
	@chmod 0755 $(addprefix $(STAGE)/,$(EXECUTABLES))
	@echo "Built $(STAGE); 'sudo make install' copies it under $(PREFIX)."

# $(call install_into,ROOT): copies what `make` staged under ROOT (a prefix such as /usr/local),
# without building anything: as root, only the user's build is copied.
define install_into
	@for file in $(INSTALLED); do [ -f "$(STAGE)/$$file" ] || { \
	    echo "make install: $(STAGE)/$$file is missing: run 'make' first (as yourself, not root)." >&2; exit 1; }; done
	@for file in $(INSTALLED); do \
	    install -D -m "$$(stat -c %a "$(STAGE)/$$file")" "$(STAGE)/$$file" "$(1)/$$file" || exit 1; done
endef

install:
	$(call install_into,$(DESTDIR)$(PREFIX))

uninstall:
	@for file in $(INSTALLED); do rm -f "$(DESTDIR)$(PREFIX)/$$file" || exit 1; done
	@for folder in $(INSTALLED_FOLDERS); do \
	    [ ! -d "$(DESTDIR)$(PREFIX)/$$folder" ] || rmdir --ignore-fail-on-non-empty "$(DESTDIR)$(PREFIX)/$$folder" || exit 1; done

# A Debian package of the same files under /usr: .build-static/jv_VERSION_ARCH.deb.
deb: static
	@scripts/ensure-packages.sh $(DEB_APT_PACKAGES)
	rm -rf $(DEB_ROOT)
	$(call install_into,$(DEB_ROOT)/usr)
	@scripts/build-deb.sh $(DEB_ROOT) $(STATIC_SCRATCH)

# lintian, two packagings of one build compared, install and uninstall into a folder, then the
# package installed (as root) and run where the toolchain cannot be seen, and removed.
check-deb: deb
	scripts/check-deb.sh $(STATIC_SCRATCH)/jv_*.deb

# The release benchmark (docs/performance.md): vaults of 10,000 and 100,000 entries against plain SQLite.
# Built as `make` builds jv for `make install` (static Swift runtime), so the process rows time the jv
# people run; jv-thumbnail beside it, for the attachment rows (jv runs it for each file attached).
bench: deps
	$(SWIFT) build -c release --product jv $(STATIC_OPTIONS)
	$(SWIFT) build -c release --product jv-thumbnail $(STATIC_OPTIONS)
	$(SWIFT) build -c release --product jv-bench $(STATIC_OPTIONS)
	"$(STATIC_SCRATCH)/release/jv-bench" $(BENCH_ARGS)

# Coverage-guided fuzzing (libFuzzer) of every parser of untrusted bytes, FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := date json jv-export jrnl-txt jrnl-json dayone-json markdown-note backup age recovery-key \
	sync-pack sync-snapshot sync-keys sync-acks sync-rotation sync-blob terminal-answers jpeg-size session-request session-answer session-stats-answer
fuzz: deps
	$(SWIFT) build -c release --product jv-fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
	@mkdir -p .build-fuzz/corpus
	@for target in $(FUZZ_TARGETS); do \
	    mkdir -p .build-fuzz/corpus/$$target; \
	    echo "fuzzing $$target for $(FUZZ_SECONDS) s"; \
	    JV_FUZZ_TARGET=$$target .build-fuzz/release/jv-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	        -artifact_prefix=.build-fuzz/$$target- .build-fuzz/corpus/$$target || exit 1; \
	done

clean:
	rm -rf .build $(STATIC_SCRATCH)
