// SPDX-License-Identifier: Apache-2.0
import CSodium

/// libsodium's `crypto_secretstream_xchacha20poly1305`: a sequence of authenticated chunks
/// whose order, count and end are all authenticated — a dropped, repeated, reordered or
/// truncated chunk fails, and only a chunk tagged final may end the stream.
///
/// ```swift
/// let (writer, header) = try SecretStream.Writer.start(key: key)
/// let sealed = try writer.push(chunk, final: true)
/// let reader = try SecretStream.Reader(key: key, header: header)
/// let (plain, isFinal) = try reader.pull(sealed)
/// ```
public enum SecretStream {
    public static let keyLength = Int(crypto_secretstream_xchacha20poly1305_KEYBYTES)
    public static let headerLength = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    /// Bytes each chunk gains when sealed.
    public static let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)

    /// The stream state, in memory that is wiped when released (it holds key material).
    final class State {
        let pointer: UnsafeMutablePointer<crypto_secretstream_xchacha20poly1305_state>

        init() {
            pointer = .allocate(capacity: 1)
        }

        deinit {
            sodium_memzero(pointer, MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.size)
            pointer.deallocate()
        }
    }

    /// Seals chunks in order.
    public final class Writer {
        private let state = State()

        private init() {}

        /// A new stream under `key` and the header to store before its chunks.
        public static func start(key: SecureBytes) throws -> (Writer, header: [UInt8]) {
            Sodium.ready()
            guard key.count == keyLength else { throw CryptoError.invalidKeyLength }
            let writer = Writer()
            var header = [UInt8](repeating: 0, count: headerLength)
            key.withUnsafeBytes { key in
                _ = crypto_secretstream_xchacha20poly1305_init_push(writer.state.pointer, &header,
                                                                    key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            return (writer, header)
        }

        /// Seals the next chunk; the last one must be pushed with `final: true`.
        public func push(_ chunk: [UInt8], associatedData: [UInt8] = [], final: Bool) throws -> [UInt8] {
            var sealed = [UInt8](repeating: 0, count: chunk.count + overhead)
            try chunk.withUnsafeBytes { chunk in
                try sealed.withUnsafeMutableBytes { try push(chunk, associatedData: associatedData, final: final, into: $0) }
            }
            return sealed
        }

        /// ``push(_:associatedData:final:)`` into `sealed`, which must hold exactly `chunk.count + overhead`
        /// bytes and not overlap `chunk`: for a caller that reuses its buffers (an attachment's
        /// megabyte chunks, sealed one after another without allocating).
        ///
        /// ```swift
        /// try writer.push(UnsafeRawBufferPointer(plain), associatedData: ad, final: false, into: sealedBuffer)
        /// ```
        public func push(_ chunk: UnsafeRawBufferPointer, associatedData: [UInt8] = [], final: Bool,
                         into sealed: UnsafeMutableRawBufferPointer) throws {
            guard sealed.count == chunk.count + overhead, let output = sealed.baseAddress else { throw CryptoError.malformedCiphertext }
            let tag = final ? UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL) : UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
            var length: UInt64 = 0
            // An empty buffer may have no address; libsodium touches no byte of an empty message but wants one.
            var nothing: UInt8 = 0
            _ = withUnsafeMutablePointer(to: &nothing) { nothing in
                crypto_secretstream_xchacha20poly1305_push(state.pointer, output.assumingMemoryBound(to: UInt8.self), &length,
                                                           chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(nothing),
                                                           UInt64(chunk.count), associatedData, UInt64(associatedData.count), tag)
            }
        }
    }

    /// Opens chunks in order.
    public final class Reader {
        private let state = State()

        /// Starts reading the stream whose header is `header`.
        public init(key: SecureBytes, header: [UInt8]) throws {
            Sodium.ready()
            guard key.count == keyLength else { throw CryptoError.invalidKeyLength }
            guard header.count == headerLength else { throw CryptoError.malformedCiphertext }
            let status = key.withUnsafeBytes { key in
                crypto_secretstream_xchacha20poly1305_init_pull(state.pointer, header, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard status == 0 else { throw CryptoError.malformedCiphertext }
        }

        /// Opens the next chunk: its plaintext and whether it was the final one. Any other tag
        /// than "message" or "final" is refused.
        public func pull<Chunk: Collection>(_ sealed: Chunk, associatedData: [UInt8] = []) throws -> (plaintext: [UInt8], isFinal: Bool)
        where Chunk.Element == UInt8 {
            let sealed = Array(sealed)
            guard sealed.count >= overhead else { throw CryptoError.malformedCiphertext }
            var plaintext = [UInt8](repeating: 0, count: sealed.count - overhead)
            let isFinal = try sealed.withUnsafeBytes { sealed in
                try plaintext.withUnsafeMutableBytes { try pull(sealed, associatedData: associatedData, into: $0).isFinal }
            }
            return (plaintext, isFinal)
        }

        /// ``pull(_:associatedData:)`` into `plaintext`, which must hold at least `sealed.count − overhead`
        /// bytes: the count written and whether the chunk was the final one. Nothing is written
        /// where the chunk does not authenticate.
        ///
        /// ```swift
        /// let (count, isFinal) = try reader.pull(sealedBytes, associatedData: ad, into: plainBuffer)
        /// ```
        public func pull(_ sealed: UnsafeRawBufferPointer, associatedData: [UInt8] = [],
                         into plaintext: UnsafeMutableRawBufferPointer) throws -> (count: Int, isFinal: Bool) {
            guard sealed.count >= overhead, let input = sealed.baseAddress else { throw CryptoError.malformedCiphertext }
            guard plaintext.count >= sealed.count - overhead else { throw CryptoError.malformedCiphertext }
            var length: UInt64 = 0
            var tag: UInt8 = 0
            // As in push: an address for an empty plaintext.
            var nothing: UInt8 = 0
            let status = withUnsafeMutablePointer(to: &nothing) { nothing in
                crypto_secretstream_xchacha20poly1305_pull(state.pointer, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? nothing,
                                                           &length, &tag, input.assumingMemoryBound(to: UInt8.self),
                                                           UInt64(sealed.count), associatedData, UInt64(associatedData.count))
            }
            guard status == 0 else { throw CryptoError.authenticationFailed }
            switch tag {
            case UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE): return (Int(length), false)
            case UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL): return (Int(length), true)
            default: throw CryptoError.authenticationFailed
            }
        }
    }
}
