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

    /// Fills the disk the folder is on with a file `filler` in it, to the last byte or to `free`
    /// bytes before it; removing `filler` makes the room again.
    func fill(leaving free: Int = 0) {
        let filler = open(file("filler"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(filler) }
        // Large writes first, then single bytes.
        for size in [65_536, 4_096, 1] {
            let block = [UInt8](repeating: 0x55, count: size)
            while block.withUnsafeBytes({ Glibc.write(filler, $0.baseAddress, size) }) == size {}
        }
        if free > 0 { ftruncate(filler, max(0, lseek(filler, 0, SEEK_END) - off_t(free))) }
    }
}
