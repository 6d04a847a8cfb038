// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Non-secret random values (nonces, salts, ids) from libsodium's CSPRNG.
///
/// ```swift
/// let salt = SecureRandom.bytes(16)
/// ```
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        Sodium.ready()
        var output = [UInt8](repeating: 0, count: count)
        output.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return output
    }

    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        Sodium.ready()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }
}
