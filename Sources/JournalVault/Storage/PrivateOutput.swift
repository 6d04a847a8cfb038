// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation

/// Files a person asked for (exports): created 0600 beside their final name and renamed into
/// place only when complete and synced.
public enum PrivateOutput {
    /// A writable folder in memory (tmpfs or ramfs) for files that must never reach a disk:
    /// `$XDG_RUNTIME_DIR`, else `/dev/shm`; nil if neither is usable. The file system is checked
    /// (`statfs`), not assumed: `$XDG_RUNTIME_DIR` may name any folder.
    public static func tmpfsFolder() -> String? {
        tmpfsFolders().first
    }

    /// Every such folder, in that order (where an earlier jv may have put a file).
    public static func tmpfsFolders() -> [String] {
        var candidates: [String] = []
        if let runtime = XDGDirectories().runtime, runtime != "/dev/shm" { candidates.append(runtime) }
        candidates.append("/dev/shm")
        return candidates.filter { folder in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue
                && access(folder, W_OK) == 0 && jv_is_memory_filesystem(folder) == 1
        }
    }

    /// Writes to `path` what `body` puts, as it comes, into a temporary file that takes the
    /// name only once `body` has returned and the file is synced: if `body` throws, nothing is
    /// left. Replaces an existing file only when `replace`, else throws ``VaultError/vaultExists(path:)``.
    /// `put` takes bytes lent for the call (an attachment's chunk where it was opened), written
    /// before it returns.
    ///
    /// ```swift
    /// try PrivateOutput.write(to: "journal.md", replace: false) { put in try journal.export(.markdown) { try Array($0.utf8).withUnsafeBytes(put) } }
    /// ```
    public static func write(to path: String, replace: Bool, _ body: (_ put: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        if !replace, FileManager.default.fileExists(atPath: path) { throw VaultError.vaultExists(path: path) }
        // An export killed midway left a partial plaintext copy; its lock died with it.
        PrivateFiles.removeAbandoned(beside: path, purposes: .writing)
        let (temporary, file) = try PrivateFiles.createLockedTemporary(beside: path, purpose: .writing)
        defer { try? file.close() }
        // Removed before the lock goes: the file is never there unlocked while this write lives.
        defer { unlink(temporary) }
        try PrivateFiles.reportingDiskFull(writing: path) {
            var writeback = Writeback(descriptor: file.fileDescriptor)
            try body { bytes in
                try file.write(contentsOf: bytes)
                writeback.wrote(bytes.count)
            }
            try file.synchronize()
        }
        try PrivateFiles.commit(temporary, to: path, replace: replace)
    }

    /// Asks the kernel to start writing a file out as it grows (`sync_file_range`, without
    /// waiting), every ``step`` bytes: a large output (a gigabyte attachment) then reaches the
    /// disk while the rest is still being decrypted, instead of all of it at the final sync, which
    /// still makes it durable. Only a hint: where the kernel refuses it, nothing changes.
    struct Writeback {
        static let step = 8 << 20
        let descriptor: Int32
        private var started: Int64 = 0
        private var written: Int64 = 0

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Counts `count` more bytes written; returns the range it asked the kernel to write out, if it did.
        @discardableResult
        mutating func wrote(_ count: Int) -> Range<Int64>? {
            written += Int64(count)
            guard written - started >= Int64(Self.step) else { return nil }
            _ = jv_start_writeback(descriptor, started, written - started)
            defer { started = written }
            return started..<written
        }
    }
}
