// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Secret bytes (keys, passphrases) in `sodium_malloc` memory: guard pages, locked when the
/// process may lock memory, kept out of core dumps, and wiped with `sodium_memzero` when the
/// last reference goes away.
///
/// Allocation costs ≈ 30 µs, so create these for long-lived secrets only, never per record.
///
/// ```swift
/// let key = try SecureBytes.random(count: 32)
/// key.withUnsafeBytes { bytes in /* use bytes */ }
/// ```
public final class SecureBytes: @unchecked Sendable {
    // Sendable: the bytes are only written while the object is being built (init and the
    // `filling` factories) and are read-only afterwards.
    private let pointer: UnsafeMutableRawPointer
    /// Number of bytes held.
    public let count: Int

    /// Allocates `count` zeroed bytes.
    public init(count: Int) throws {
        Sodium.ready()
        guard let pointer = sodium_malloc(max(count, 1)) else { throw CryptoError.outOfSecureMemory }
        sodium_memzero(pointer, max(count, 1))
        self.pointer = pointer
        self.count = count
    }

    /// Copies `bytes` into secure memory. The caller should wipe its own copy.
    public convenience init<Bytes: Collection>(copying bytes: Bytes) throws where Bytes.Element == UInt8 {
        try self.init(count: bytes.count)
        let destination = pointer.assumingMemoryBound(to: UInt8.self)
        for (offset, byte) in bytes.enumerated() { destination[offset] = byte }
    }

    /// Allocates `count` bytes and lets `body` fill them (for example, from a KDF or a prompt).
    public static func filling(count: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Void) throws -> SecureBytes {
        let secret = try SecureBytes(count: count)
        try body(UnsafeMutableRawBufferPointer(start: secret.pointer, count: count))
        return secret
    }

    /// `count` bytes from the system's CSPRNG.
    public static func random(count: Int) throws -> SecureBytes {
        try filling(count: count) { randombytes_buf($0.baseAddress!, $0.count) }
    }

    deinit {
        sodium_free(pointer)  // sodium_free zeroes before releasing
    }

    /// Read access to the secret bytes; do not let the pointer escape `body`.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Constant-time comparison.
    public func constantTimeEquals(_ other: SecureBytes) -> Bool {
        count == other.count && sodium_memcmp(pointer, other.pointer, count) == 0
    }
}

extension SecureBytes {
    /// The first `length` bytes, in a new secure buffer.
    public func prefix(_ length: Int) throws -> SecureBytes {
        try withUnsafeBytes { bytes in try SecureBytes(copying: bytes.prefix(max(0, min(length, count)))) }
    }
}
