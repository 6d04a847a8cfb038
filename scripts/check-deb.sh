#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks jv's Debian package and `make install`:   scripts/check-deb.sh PATH.deb
# (as root; `make check-deb` builds the package first). It installs what it needs (lintian,
# man-db, the package's Depends) with apt-get. lintian finds no error or warning; a second
# packaging of the same build gives the same bytes; the manual pages render without a groff
# warning; `make install` into a folder copies without compiling and `make uninstall` takes
# exactly those files away again. Then the package is installed with dpkg -i, jv runs where the
# toolchain's runtime libraries cannot be seen, and the package is removed again.
set -euo pipefail
deb=${1:?usage: scripts/check-deb.sh PATH.deb}
deb=$(realpath "$deb")
cd "$(dirname "$0")/.."
fail() { echo "check-deb: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    echo "check-deb: skipped: installing $deb with dpkg -i needs root (sudo make check-deb)."
    exit 0
fi
if dpkg-query -W -f='${Status}' jv 2>/dev/null | grep -q "ok installed" || [ -e /usr/bin/jv ]; then
    fail "jv is already installed here; remove it first so that the check can leave the machine as it found it."
fi
IFS=', ' read -r -a depends <<<"$(dpkg-deb --field "$deb" Depends | sed 's/([^)]*)//g')"
scripts/ensure-packages.sh "${depends[@]}" man-db lintian
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_quietly() { make --silent --no-print-directory "$@"; }

# Everything lintian reports is shown; an error or a warning fails the check.
lintian --fail-on error,warning --display-info --pedantic "$deb" || fail "lintian reports the errors or warnings above"
echo "check-deb: lintian: no error or warning"

# The same build products, staged afresh and packaged again, give the same bytes.
make_quietly install DESTDIR="$work/again" PREFIX=/usr
scripts/build-deb.sh "$work/again" "$work" >/dev/null
cmp "$deb" "$work/$(basename "$deb")" || fail "packaging the same build twice gives two different packages"
echo "check-deb: reproducible: a second packaging of the build is identical"

# Manual pages as lintian reads them: any groff warning is a defect.
dpkg-deb -x "$deb" "$work/contents"
for page in "$work"/contents/usr/share/man/man*/*; do
    warnings=$(env -i PATH="$PATH" LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=120 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "man ${page##*/} warns: $warnings"
done
echo "check-deb: manual pages render without warnings"

# make install only copies, and make uninstall removes exactly what it copied; neither runs
# the compiler (SWIFT is a stand-in that leaves a mark), not even when nothing was built.
printf '#!/bin/sh\ntouch "%s"\n' "$work/compiled" > "$work/swift" && chmod +x "$work/swift"
tree="$work/tree/usr/local"
install -d "$tree/bin" && touch "$tree/bin/other-program"
make_quietly install DESTDIR="$work/tree" PREFIX=/usr/local SWIFT="$work/swift"
installed=$(find "$tree" -type f ! -name other-program | wc -l)
[ "$installed" -eq "$(dpkg-deb --contents "$deb" | grep -vc -e '/$' -e '/copyright$' -e '/changelog.gz$')" ] ||
    fail "make install put $installed files in place, the package holds another number"
make_quietly uninstall DESTDIR="$work/tree" PREFIX=/usr/local SWIFT="$work/swift"
left=$(cd "$tree" && find . ! -type d)
[ "$left" = ./bin/other-program ] || fail "make uninstall left or took other files than it installed: $left"
[ ! -e "$tree/share/doc/jv" ] || fail "make uninstall left the folder share/doc/jv"
[ ! -e "$tree/lib/jv" ] || fail "make uninstall left the folder lib/jv"
if message=$(make_quietly install DESTDIR="$work/unbuilt" STAGE="$work/nothing-built" SWIFT="$work/swift" 2>&1); then
    fail "make install without build products succeeded"
fi
[ ! -e "$work/unbuilt" ] || fail "make install without build products installed something"
grep -q "run 'make' first" <<<"$message" || fail "make install without build products says: $message"
[ ! -e "$work/compiled" ] || fail "make install or uninstall ran the compiler"
echo "check-deb: make install copies $installed files, make uninstall removes them, and neither compiles"

trap 'rm -rf "$work"; dpkg -r jv >/dev/null' EXIT
dpkg -i "$deb" >/dev/null

# The toolchain's runtime libraries (…/usr/lib/swift beside …/usr/bin/swift), hidden behind an
# empty tmpfs in a mount namespace of its own where that is allowed; a clean environment else.
toolchain_libraries=$(dirname "$(dirname "$(readlink -f "$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)")")")/lib/swift
hide='mount -t tmpfs none "$0" && exec "$@"'
if [ -d "$toolchain_libraries" ] && unshare --mount sh -c "$hide" "$toolchain_libraries" true 2>/dev/null; then
    run() { unshare --mount sh -c "$hide" "$toolchain_libraries" env -i PATH=/usr/bin:/bin HOME="$work" "$@"; }
    echo "check-deb: running jv with $toolchain_libraries hidden"
else
    run() { env -i PATH=/usr/bin:/bin HOME="$work" "$@"; }
    echo "check-deb: running jv with a clean environment ($toolchain_libraries cannot be hidden here)"
fi

version=$(run jv --version) || fail "jv --version failed once installed"
# The tests' Argon2id cache (VaultCrypto's TestKDFCache) exists in debug builds only.
if grep -q JV_TEST_KDF_CACHE /usr/bin/jv; then fail "/usr/bin/jv reads JV_TEST_KDF_CACHE, which only a debug build may"; fi
[ "$version" = "$(dpkg-deb --field "$deb" Version)" ] || fail "jv --version says '$version', the package '$(dpkg-deb --field "$deb" Version)'"
if ldd /usr/bin/jv | grep -E 'libswift|libFoundation|libdispatch|not found'; then
    fail "/usr/bin/jv needs the libraries above, which the package does not provide"
fi
if ldd /usr/lib/jv/jv-thumbnail | grep -E 'libswift|libFoundation|libdispatch|not found'; then
    fail "/usr/lib/jv/jv-thumbnail needs the libraries above, which the package does not provide"
fi
# The thumbnailer, installed, decodes an image (a 1 × 1 PNG) with the libvips the package depends on.
described=$(base64 -d <<<'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' |
    run /usr/lib/jv/jv-thumbnail describe | sed -n 1p) || fail "jv-thumbnail describe failed once installed"
grep -q '"width":1,"height":1' <<<"$described" || fail "jv-thumbnail describes a 1 × 1 PNG as: $described"
if ! man -w jv >/dev/null 2>&1; then
    # Slim Debian images tell dpkg to leave manual pages out; then the package must still hold it.
    grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/* || fail "man -w jv finds no manual page"
    dpkg-deb --contents "$deb" | grep -q 'usr/share/man/man1/jv.1.gz$' || fail "the package holds no manual page"
    echo "check-deb: dpkg here leaves out /usr/share/man; the package does hold jv.1.gz"
fi

# `jv analyze --help` sends people to the installed README and example: they are there.
named=$(run jv analyze --help | grep -o '/usr/share/doc/jv/[^ ]*[^ .]')
[ -n "$named" ] || fail "jv analyze --help names no installed document"
for file in $named; do [ -s "$file" ] || fail "jv analyze --help names $file, which the package does not install"; done

for file in /usr/share/zsh/site-functions/_jv /usr/share/fish/vendor_completions.d/jv.fish; do
    [ -s "$file" ] || fail "$file is missing"
done
# bash-completion turns extglob on before it loads a script; the script completes 'jv li'.
completion=$(bash -c 'shopt -s extglob; source /usr/share/bash-completion/completions/jv
    COMP_WORDS=(jv li); COMP_CWORD=1; COMP_LINE="jv li"; COMP_POINT=5; _jv jv li jv; echo "${COMPREPLY[*]}"')
[ "$completion" = list ] || fail "bash completion of 'jv li' offers '$completion' instead of 'list'"

printf 'check-deb passphrase\n' > "$work/passphrase"
run jv init --passphrase-file "$work/passphrase" --kdf interactive --vault "$work/journal.vault" >/dev/null
run jv add --passphrase-file "$work/passphrase" --vault "$work/journal.vault" "Packaged and working. #deb" >/dev/null
listing=$(run jv list --passphrase-file "$work/passphrase" --vault "$work/journal.vault")
grep -q "Packaged and working" <<<"$listing" || fail "jv list does not show the entry just added: $listing"

echo "check-deb: ok: jv $version installed from $deb, ran without the toolchain, and is being removed"
