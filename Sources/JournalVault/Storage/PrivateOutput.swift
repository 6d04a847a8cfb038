import Foundation

/// Files a person asked for (exports): created 0600 beside their final name and renamed into
/// place only when complete and synced.
public enum PrivateOutput {
    /// Writes `bytes` to `path`; replaces an existing file only when `replace`, else throws
    /// ``VaultError/vaultExists(path:)``.
    public static func write(_ bytes: [UInt8], to path: String, replace: Bool) throws {
        if !replace, FileManager.default.fileExists(atPath: path) { throw VaultError.vaultExists(path: path) }
        let temporary = PrivateFiles.temporaryPath(beside: path, purpose: "writing")
        defer { unlink(temporary) }
        let file = try PrivateFiles.create(temporary)
        try file.write(contentsOf: bytes)
        try file.synchronize()
        try file.close()
        try PrivateFiles.commit(temporary, to: path, replace: replace)
    }
}
