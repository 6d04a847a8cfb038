// SPDX-License-Identifier: Apache-2.0
import Glibc

/// How jv-thumbnail ends (jv's `Thumbnailer` reads the status).
enum ExitStatus: Int32 {
    /// Described (with or without a thumbnail), or decoded.
    case done = 0
    /// Not an image this program can decode: unknown, truncated, damaged, lying or too large.
    case notDecodable = 1
    /// Usage, or a failure of the program itself (writing its output, starting libvips).
    case failure = 2

    /// Says `message` on standard error and exits with ``failure``.
    static func fail(_ message: String) -> Never {
        StandardOutput.write(Array((message + "\n").utf8), to: STDERR_FILENO)
        exit(failure.rawValue)
    }
}

/// Writes whole buffers to a descriptor through short writes and interruptions.
enum StandardOutput {
    @discardableResult
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32 = STDOUT_FILENO) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    @discardableResult
    static func write(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) -> Bool {
        bytes.withUnsafeBytes { write($0, to: descriptor) }
    }
}
