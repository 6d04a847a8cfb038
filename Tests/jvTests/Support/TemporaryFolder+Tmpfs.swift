// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
import TestSupport
#endif

extension TemporaryFolder {
    /// Mounts a tmpfs of `size` (as mount(8) writes it: "2m") on the folder, private to root;
    /// the caller unmounts it. Only root may, so the suites that call this are
    /// `.enabled(if: getuid() == 0)`: not being root is the one reason they skip. Root that
    /// cannot mount (a container without CAP_SYS_ADMIN) makes the test fail instead: `make test`
    /// runs as root on CI, where a full-disk test that quietly did nothing would hide the very
    /// failure it is there to catch.
    func mountTmpfs(size: String) throws {
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0700") == 0 else {
            let reason = String(cString: strerror(errno))
            throw HarnessError("root could not mount a \(size) tmpfs on \(path) (\(reason)): this test needs CAP_SYS_ADMIN")
        }
    }
}
