#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian package of jv from a staged /usr tree (`make deb` fills it):
#   scripts/build-deb.sh ROOT OUTPUT_DIR   ->   OUTPUT_DIR/jv_VERSION_ARCH.deb
# The package is reproducible: every date is SOURCE_DATE_EPOCH (the Makefile sets it to the last
# commit's), every owner root, and dpkg-deb writes the members sorted and dated by it too.
set -euo pipefail
root=${1:?usage: scripts/build-deb.sh ROOT OUTPUT_DIR}
output=${2:?usage: scripts/build-deb.sh ROOT OUTPUT_DIR}
: "${SOURCE_DATE_EPOCH:?build-deb: set SOURCE_DATE_EPOCH, as make deb does (the date of the last commit)}"
sources=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$root" && pwd)
binary="$root/usr/bin/jv"
thumbnailer="$root/usr/lib/jv/jv-thumbnail"
fail() { echo "build-deb: $*" >&2; exit 1; }

version=$("$binary" --version)
architecture=$(dpkg --print-architecture)
changelog_version=$(dpkg-parsechangelog --file "$sources/debian/changelog" --show-field Version)
[ "$changelog_version" = "$version" ] ||
    fail "debian/changelog's latest entry is for $changelog_version, but jv is $version: add an entry for $version."

# The Swift runtime is linked into jv and the thumbnailer (-static-stdlib); a package depending
# on the toolchain's libraries would install but not run.
for program in "$binary" "$thumbnailer"; do
    if readelf -d "$program" | grep -E '\(NEEDED\).*\[(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime)'; then
        fail "${program##*/} needs the Swift libraries above; was it built with -static-stdlib?"
    fi
done
# jv itself never links libvips: image decoders run only in the thumbnailer's process.
if readelf -d "$binary" | grep -E '\(NEEDED\).*\[libvips'; then fail "jv links libvips"; fi
# Depends, with the versions the programs need, from the shlibs files of the libraries they link
# (the thumbnailer's give libvips42).
shlibdeps=$(mktemp -d)
trap 'rm -rf "$shlibdeps"' EXIT
mkdir "$shlibdeps/debian"
printf 'Source: jv\n\nPackage: jv\nArchitecture: any\n' > "$shlibdeps/debian/control"
depends=$(cd "$shlibdeps" && dpkg-shlibdeps -O -e"$binary" -e"$thumbnailer" 2>"$shlibdeps/errors" | sed -n 's/^shlibs:Depends=//p') ||
    fail "dpkg-shlibdeps failed: $(cat "$shlibdeps/errors")"
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies of $binary: $(cat "$shlibdeps/errors")"

install -d "$root/usr/share/doc/jv"
install -m 0644 "$sources/debian/copyright" "$root/usr/share/doc/jv/copyright"
# A native package's changelog is changelog.gz (Debian policy 12.7); -n keeps the date out.
gzip -9n < "$sources/debian/changelog" > "$root/usr/share/doc/jv/changelog.gz"
chmod 0644 "$root/usr/share/doc/jv/changelog.gz"

rm -rf "$root/DEBIAN"
install -d "$root/DEBIAN"
# Installed-Size as dpkg-gencontrol counts it (KiB per file rounded up, 1 per folder), so that
# it does not depend on the file system the package was staged on.
installed_size=$(cd "$root" && find usr -printf '%y %s\n' | awk '{ size += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print size }')
# The Maintainer is who answers for the package: whoever builds it for a distribution sets
# DEB_MAINTAINER (as dch takes DEBFULLNAME and DEBEMAIL); left unset, it is the project itself.
cat > "$root/DEBIAN/control" <<CONTROL
Package: jv
Version: $version
Architecture: $architecture
Maintainer: ${DEB_MAINTAINER:-JournalVault maintainers <maintainers@journalvault.org>}
Installed-Size: $installed_size
Depends: $depends
Suggests: curl, jq
Section: utils
Priority: optional
Description: encrypted personal journal vault for the shell
 jv keeps a journal in one SQLite file in which every entry is encrypted on
 its own (XChaCha20-Poly1305 with libsodium, keys from Argon2id) while the
 dates stay readable, so listing a month or drawing a calendar needs no
 decryption. It imports from jrnl and Day One, exports, backs up, syncs and
 checks its vault. Manual page: jv(1).
CONTROL
(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

# Modes and dates that do not depend on the umask or the clock of the build.
find "$root" -type d -exec chmod 0755 {} +
find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

rm -f "$output"/jv_*.deb
package="$output/jv_${version}_${architecture}.deb"
# xz: what every dpkg and lintian reads (bookworm's lintian calls zstd members malformed).
dpkg-deb -Zxz --build --root-owner-group "$root" "$package" >/dev/null
echo "$package"
