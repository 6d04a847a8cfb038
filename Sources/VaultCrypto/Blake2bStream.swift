// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Keyed BLAKE2b fed piece by piece (`crypto_generichash_init/update/final`): for digests of
/// rows read straight from SQLite's buffers, with no copy of the row. The state lives in its
/// own 64-byte-aligned allocation (libsodium's state type asks for that alignment) and is
/// wiped when the stream is finished or dropped.
///
/// ```swift
/// var stream = try Blake2bStream(key: key)
/// stream.update(header)
/// stream.update(blob)
/// let digest = try stream.finalize()
/// ```
public struct Blake2bStream: ~Copyable {
    public static let digestLength = 32
    private let state: UnsafeMutableRawPointer
    private let stateLength = crypto_generichash_statebytes()

    public init(key: UnsafeRawBufferPointer) throws {
        state = try Self.startedState(key: key)
    }

    public init(key: SecureBytes) throws {
        state = try key.withUnsafeBytes { try Self.startedState(key: $0) }
    }

    /// Unkeyed BLAKE2b-256: a plain digest of content.
    public init() throws {
        state = try Self.startedState(key: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    private static func startedState(key: UnsafeRawBufferPointer) throws -> UnsafeMutableRawPointer {
        Sodium.ready()
        guard key.count == 0 || (key.count >= Int(crypto_generichash_KEYBYTES_MIN) && key.count <= Int(crypto_generichash_KEYBYTES_MAX)) else {
            throw CryptoError.invalidKeyLength
        }
        let state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        guard crypto_generichash_init(OpaquePointer(state), key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, digestLength) == 0 else {
            state.deallocate()
            throw CryptoError.hashFailed
        }
        return state
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // Cannot fail for a state made by init (libsodium returns 0 unconditionally for BLAKE2b updates).
        _ = crypto_generichash_update(OpaquePointer(state),
                                      base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest; the stream is used up.
    public consuming func finalize() throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Self.digestLength)
        let status = crypto_generichash_final(OpaquePointer(state), &digest, Self.digestLength)
        guard status == 0 else { throw CryptoError.hashFailed }
        return digest
    }

    deinit {
        Sodium.wipe(UnsafeMutableRawBufferPointer(start: state, count: stateLength))
        state.deallocate()
    }
}
