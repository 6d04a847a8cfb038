#!/usr/bin/env bash
# Builds the Debian package of jv from a staged /usr tree (`make deb` fills it):
#   scripts/build-deb.sh ROOT OUTPUT_DIR   ->   OUTPUT_DIR/jv_VERSION_ARCH.deb
# Depends is derived from the libraries the binary needs, and any library without a known
# package fails the build: a Swift runtime library there would mean it was not linked in.
set -euo pipefail
root=${1:?usage: scripts/build-deb.sh ROOT OUTPUT_DIR}
output=${2:?usage: scripts/build-deb.sh ROOT OUTPUT_DIR}
binary="$root/usr/bin/jv"

version=$("$binary" --version)
architecture=$(dpkg --print-architecture)

# The Debian 12 package of each shared library jv may need.
package_of() {
    case "$1" in
        libc.so.6 | libm.so.6 | ld-linux-*.so.*) echo libc6 ;;
        libgcc_s.so.1) echo libgcc-s1 ;;
        libstdc++.so.6) echo libstdc++6 ;;
        libsodium.so.23) echo libsodium23 ;;
        libsqlite3.so.0) echo libsqlite3-0 ;;
        *) return 1 ;;
    esac
}
depends=()
while read -r library; do
    if ! package=$(package_of "$library"); then
        echo "build-deb: jv needs $library, which is not one of the libraries it may depend on (libc, libstdc++, libsqlite3, libsodium); was it built with -static-stdlib?" >&2
        exit 1
    fi
    [[ " ${depends[*]} " == *" $package "* ]] || depends+=("$package")
done < <(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')

# Debian keeps manual pages compressed, without a timestamp so that the package is reproducible.
gzip -9n "$root/usr/share/man/man1/jv.1"

install -d "$root/usr/share/doc/jv"
cat > "$root/usr/share/doc/jv/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: jv (JournalVault)
Comment: /usr/bin/jv also has the Swift runtime, Foundation, ICU, swift-argument-parser and
 GRDB linked into it; their notices follow jv's own.

Files: *
Copyright: JournalVault maintainers
License: none-stated
 No licence has been chosen for JournalVault yet; until one is, its authors keep all rights.

Files: swift-stdlib swift-foundation swift-corelibs-foundation swift-corelibs-libdispatch swift-argument-parser
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
 On Debian systems the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.
 Runtime Library Exception: as an exception, if you use this Software to compile your source
 code and portions of this Software are embedded into the binary product as a result, you may
 redistribute such product without providing attribution as would otherwise be required by
 Sections 4(a), 4(b) and 4(d) of the License.

Files: swift-foundation-icu
Copyright: 2016 and later Unicode, Inc. and others
License: Unicode-DFS-2016
 The ICU licence: https://www.unicode.org/copyright.html

Files: GRDB.swift
Copyright: 2015-2025 Gwendal Roué
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software
 and associated documentation files (the "Software"), to deal in the Software without
 restriction, including without limitation the rights to use, copy, modify, merge, publish,
 distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or
 substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
 BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
 NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
 DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
EOF

install -d "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<EOF
Package: jv
Version: $version
Architecture: $architecture
Maintainer: ${DEB_MAINTAINER:-JournalVault maintainers <maintainers@journalvault.invalid>}
Depends: $(printf '%s, ' "${depends[@]}" | sed 's/, $//')
Section: utils
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Description: encrypted personal journal vault for the shell
 jv keeps a journal in one SQLite file in which every entry is encrypted on its own
 (XChaCha20-Poly1305 with libsodium, keys from Argon2id) while the dates stay readable,
 so listing a month or drawing a calendar needs no decryption. It imports from jrnl and
 Day One, exports, backs up and checks its vault. Man page: jv(1).
EOF

rm -f "$output"/jv_*.deb
package="$output/jv_${version}_${architecture}.deb"
# zstd: 2 s against xz's 2 minutes on a busy 2-core machine, for 24 MB instead of 16; any dpkg
# that could run this binary (glibc 2.36, Debian 12 or later) reads it.
dpkg-deb -Zzstd --build --root-owner-group "$root" "$package" >/dev/null
echo "$package"
