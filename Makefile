# JournalVault — `make demo` and `make test` are all a fresh Debian machine with Swift needs.
SWIFT ?= swift
PREFIX ?= /usr/local
# Build needs: libsodium and SQLite headers, pkg-config to find libsodium.
APT_PACKAGES := libsodium-dev libsqlite3-dev pkg-config
# Tests also use the sqlite3 shell to tamper with vault files, rclone for `jv sync` to remotes,
# groff to check that the man pages render without warnings, and bash-completion, zsh and fish
# to try the completion scripts in each shell.
TEST_APT_PACKAGES := sqlite3 rclone groff-base bash-completion zsh fish

.PHONY: all deps test-deps build demo test static install deb check-deb bench fuzz clean

all: build

# Installs missing Debian packages with apt-get when run as root; otherwise says what to install.
deps:
	@scripts/ensure-packages.sh $(APT_PACKAGES)

# jrnl 4.6 (PyPI, in .build-tools/jrnl) for the tests that compare jv with jrnl.
test-deps: deps
	@scripts/ensure-packages.sh $(TEST_APT_PACKAGES)
	@scripts/ensure-jrnl.sh

build: deps
	$(SWIFT) build

demo: build
	@scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/jv"

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# What is installed is built in its own scratch path, with the Swift runtime and Foundation
# linked in, so that it runs without the toolchain (and debug builds are left alone).
STATIC_SCRATCH := .build-static
STATIC_OPTIONS := --scratch-path $(STATIC_SCRATCH) -Xswiftc -static-stdlib
STATIC_JV := $(STATIC_SCRATCH)/release/jv
MANUAL := $(STATIC_SCRATCH)/plugins/GenerateManual/outputs/jv/jv.1
COMPLETIONS := $(STATIC_SCRATCH)/completions
DEB_ROOT := $(STATIC_SCRATCH)/deb-root

# The static jv, its man page (argument-parser's generate-manual plugin, dated by the last commit
# so that rebuilding gives the same page) and its bash, zsh and fish completion scripts.
static: deps
	$(SWIFT) build -c release --product jv $(STATIC_OPTIONS)
	$(SWIFT) package $(STATIC_OPTIONS) plugin generate-manual --date "$$(git log -1 --format=%cs 2>/dev/null || date +%F)"
	@mkdir -p $(COMPLETIONS)
	@for shell in bash zsh fish; do "$(STATIC_JV)" --generate-completion-script $$shell > $(COMPLETIONS)/jv.$$shell || exit 1; done

# $(call install_into,ROOT): the binary (stripped), the man page and the completion scripts
# where man, bash-completion, zsh and fish look under ROOT (a prefix such as /usr/local).
define install_into
	install -d "$(1)/bin" "$(1)/share/man/man1" "$(1)/share/bash-completion/completions" \
	    "$(1)/share/zsh/site-functions" "$(1)/share/fish/vendor_completions.d"
	install -s -m 0755 "$(STATIC_JV)" "$(1)/bin/jv"
	install -m 0644 "$(MANUAL)" "$(1)/share/man/man1/jv.1"
	install -m 0644 $(COMPLETIONS)/jv.bash "$(1)/share/bash-completion/completions/jv"
	install -m 0644 $(COMPLETIONS)/jv.zsh "$(1)/share/zsh/site-functions/_jv"
	install -m 0644 $(COMPLETIONS)/jv.fish "$(1)/share/fish/vendor_completions.d/jv.fish"
endef

install: static
	$(call install_into,$(DESTDIR)$(PREFIX))

# A Debian package of the same files under /usr: .build-static/jv_VERSION_ARCH.deb.
deb: static
	rm -rf $(DEB_ROOT)
	$(call install_into,$(DEB_ROOT)/usr)
	@scripts/build-deb.sh $(DEB_ROOT) $(STATIC_SCRATCH)

# Installs that package (as root), runs it where the toolchain cannot be seen, removes it.
check-deb: deb
	scripts/check-deb.sh $(STATIC_SCRATCH)/jv_*.deb

# The release benchmark (README "Performance"): vaults of 10,000 and 100,000 entries against plain SQLite.
# Built as `make install` builds jv (static Swift runtime), so the process rows time the jv
# people run.
bench: deps
	$(SWIFT) build -c release --product jv $(STATIC_OPTIONS)
	$(SWIFT) build -c release --product jv-bench $(STATIC_OPTIONS)
	"$(STATIC_SCRATCH)/release/jv-bench" $(BENCH_ARGS)

# Coverage-guided fuzzing (libFuzzer) of every parser of untrusted bytes, FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := date json jv-export jrnl-txt jrnl-json dayone-json backup age recovery-key
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
