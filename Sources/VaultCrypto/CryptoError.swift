// SPDX-License-Identifier: Apache-2.0
/// What can go wrong inside the crypto layer. The vault maps these to user-facing errors;
/// none of them carries secret material.
public enum CryptoError: Error, Equatable, Sendable {
    /// An AEAD or secret-stream ciphertext failed authentication (wrong key or tampered bytes).
    case authenticationFailed
    /// A ciphertext too short to hold its nonce and tag, or otherwise not of the expected form.
    case malformedCiphertext
    /// Stored Argon2id parameters outside the policy; refused before any work is done.
    case kdfParametersRefused(String)
    /// Argon2id could not run (typically: not enough memory for the requested limit).
    case kdfFailed
    /// A key of the wrong length was supplied.
    case invalidKeyLength
    /// Padding was not of the documented form.
    case invalidPadding
    /// `sodium_malloc` returned no memory.
    case outOfSecureMemory
    /// A hash of a length outside libsodium's limits, or one libsodium failed to compute.
    case hashFailed
    /// libsodium refused to encrypt (a message longer than the cipher allows).
    case encryptionFailed
}
