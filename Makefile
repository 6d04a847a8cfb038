# JournalVault — `make demo` and `make test` are all a fresh Debian machine with Swift needs.
SWIFT ?= swift
PREFIX ?= /usr/local
# Build needs: libsodium and SQLite headers, pkg-config to find libsodium.
APT_PACKAGES := libsodium-dev libsqlite3-dev pkg-config
# Tests also use the sqlite3 shell to tamper with vault files.
TEST_APT_PACKAGES := sqlite3

.PHONY: all deps test-deps build demo test install bench clean

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

clean:
	rm -rf .build
