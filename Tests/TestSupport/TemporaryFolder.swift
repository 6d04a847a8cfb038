// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private temporary folder (mode 0700, made by `mkdtemp(3)`), removed with everything in it
/// when the value goes away. Keep the value alive for as long as the folder is used.
public final class TemporaryFolder: Sendable {
    /// The folder's absolute path.
    public let path: String

    /// Makes `<parent>/<prefix>.XXXXXX`; throws the `POSIXError` of `mkdtemp` if it cannot.
    public init(prefix: String = "jvTests", in parent: String = NSTemporaryDirectory()) throws {
        var template = Array((parent as NSString).appendingPathComponent(prefix + ".XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The folder as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` inside the folder (which need not exist).
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `name` (creating folders) and returns its path.
    @discardableResult
    public func write(_ name: String, _ contents: Data) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try contents.write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes `text` as UTF-8 to `name` (creating folders) and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String { try write(name, Data(text.utf8)) }
}
