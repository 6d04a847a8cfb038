# JournalVault — `make demo` and `make test` are all a fresh Debian machine with Swift needs.
SWIFT ?= swift
PREFIX ?= /usr/local
# Build needs: libsodium and SQLite headers, pkg-config to find libsodium.
APT_PACKAGES := libsodium-dev libsqlite3-dev pkg-config
# Tests also use the sqlite3 shell to tamper with vault files.
TEST_APT_PACKAGES := sqlite3

.PHONY: all deps test-deps build demo test install bench fuzz clean

all: build

# Installs missing Debian packages with apt-get when run as root; otherwise says what to install.
deps:
	@scripts/ensure-packages.sh $(APT_PACKAGES)

test-deps: deps
	@scripts/ensure-packages.sh $(TEST_APT_PACKAGES)

build: deps
	$(SWIFT) build

demo: build
	@scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/jv"

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

install: deps
	$(SWIFT) build -c release --product jv
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/jv" "$(DESTDIR)$(PREFIX)/bin/jv"

# The release benchmark (SPEC §7): vaults of 10,000 and 100,000 entries against plain SQLite.
bench: deps
	$(SWIFT) build -c release --product jv
	$(SWIFT) build -c release --product jv-bench
	"$$($(SWIFT) build -c release --show-bin-path)/jv-bench" $(BENCH_ARGS)

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
	rm -rf .build
