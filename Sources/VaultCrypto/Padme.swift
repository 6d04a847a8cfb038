// SPDX-License-Identifier: Apache-2.0
/// Padmé (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files and Communication
/// with PURBs", PETS 2019): the length a plaintext of `length` bytes is padded to, so that a
/// stored size reveals only O(log log L) bits of the true one, at most 12 % more bytes.
///
/// `L' = L` rounded up so that only its top ⌊log₂ E⌋ + 1 bits below the leading one may be
/// set, `E = ⌊log₂ L⌋`; lengths 0 and 1 stay as they are.
///
/// ```swift
/// Padme.paddedLength(1000)   // 1024
/// Padme.paddedLength(9)      // 10
/// ```
public enum Padme {
    public static func paddedLength(_ length: UInt64) -> UInt64 {
        guard length >= 2 else { return length }
        let exponent = UInt64(63 - length.leadingZeroBitCount)
        let significantBits = UInt64(64 - exponent.leadingZeroBitCount)
        let mask = (UInt64(1) << (exponent - significantBits)) - 1
        return (length + mask) & ~mask
    }
}
