#!/usr/bin/env bash
# Checks that jv's Debian package works on a machine without the Swift toolchain:
#   scripts/check-deb.sh PATH.deb      (as root; `make check-deb` builds the package first)
# Installs it with dpkg -i (and its missing Depends and man-db with apt-get), runs jv where
# the toolchain's runtime libraries cannot be seen, then removes the package again.
set -euo pipefail
deb=${1:?usage: scripts/check-deb.sh PATH.deb}
cd "$(dirname "$0")/.."
fail() { echo "check-deb: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    echo "check-deb: skipped: installing $deb with dpkg -i needs root (sudo make check-deb)."
    exit 0
fi
if dpkg-query -W -f='${Status}' jv 2>/dev/null | grep -q "ok installed" || [ -e /usr/bin/jv ]; then
    fail "jv is already installed here; remove it first so that the check can leave the machine as it found it."
fi

IFS=', ' read -r -a depends <<<"$(dpkg-deb --field "$deb" Depends)"
scripts/ensure-packages.sh "${depends[@]}" man-db
work=$(mktemp -d)
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
[ "$version" = "$(dpkg-deb --field "$deb" Version)" ] || fail "jv --version says '$version', the package '$(dpkg-deb --field "$deb" Version)'"
if ldd /usr/bin/jv | grep -E 'libswift|libFoundation|libdispatch|not found'; then
    fail "/usr/bin/jv needs the libraries above, which the package does not provide"
fi
if ! man -w jv >/dev/null 2>&1; then
    # Slim Debian images tell dpkg to leave manual pages out; then the package must still hold it.
    grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/* || fail "man -w jv finds no manual page"
    dpkg-deb --contents "$deb" | grep -q 'usr/share/man/man1/jv.1.gz$' || fail "the package holds no manual page"
    echo "check-deb: dpkg here leaves out /usr/share/man; the package does hold jv.1.gz"
fi

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
