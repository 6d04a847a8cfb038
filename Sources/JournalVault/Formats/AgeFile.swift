// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// An age X25519 recipient (`age1…`): whom an export is encrypted to.
public struct AgeRecipient: Sendable, Hashable {
    public let publicKey: [UInt8]

    public init(text: String) throws {
        guard let (hrp, data) = Bech32.decode(text.trimmingCharacters(in: .whitespaces)), hrp == "age", data.count == 32 else {
            throw AgeError(reason: "'\(text)' is not an age X25519 recipient (age1…)")
        }
        publicKey = data
    }

    public init(publicKey: [UInt8]) {
        self.publicKey = publicKey
    }

    public var text: String { Bech32.encode(hrp: "age", data: publicKey) }
}

/// An age X25519 identity (`AGE-SECRET-KEY-1…`): what decrypts a file sent to its recipient.
public struct AgeIdentity: Sendable {
    let secret: SecureBytes

    public init(text: String) throws {
        guard let (hrp, data) = Bech32.decode(text.trimmingCharacters(in: .whitespaces)), hrp == "age-secret-key-", data.count == 32 else {
            throw AgeError(reason: "that is not an age X25519 identity (AGE-SECRET-KEY-1…)")
        }
        secret = try SecureBytes(copying: data)
    }

    /// A new random identity (for tests and for people without the age tool).
    public static func generate() throws -> AgeIdentity { AgeIdentity(secret: try SecureBytes.random(count: 32)) }

    private init(secret: SecureBytes) { self.secret = secret }

    public var recipient: AgeRecipient {
        get throws { AgeRecipient(publicKey: try X25519.publicKey(for: secret)) }
    }

    public var text: String {
        Bech32.encode(hrp: "age-secret-key-", data: secret.withUnsafeBytes { Array($0) }).uppercased()
    }

    /// The identities in an identity file: one per line, `#` comments and blank lines ignored.
    public static func parseFile(_ text: String) throws -> [AgeIdentity] {
        let identities = try text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }.map(AgeIdentity.init(text:))
        guard !identities.isEmpty else { throw AgeError(reason: "the identity file holds no AGE-SECRET-KEY-1… line") }
        return identities
    }
}

/// Why an age file could not be made or read.
public struct AgeError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "age: \(reason)." }
}

/// The age v1 file format (C2SP age.md) with X25519 recipients: a text header of recipient
/// stanzas sealed by an HMAC, then the payload in 64 KiB ChaCha20-Poly1305 STREAM chunks.
/// The standard `age -d -i KEY` decrypts what ``encrypt(_:to:)`` writes.
public enum AgeFile {
    static let intro = "age-encryption.org/v1"
    static let stanzaInfo = "age-encryption.org/v1/X25519"
    static let chunkLength = 64 * 1024

    public static func encrypt(_ plaintext: [UInt8], to recipients: [AgeRecipient]) throws -> [UInt8] {
        var encryptor = try Encryptor(to: recipients)
        return try encryptor.header + encryptor.add(plaintext) + encryptor.finish()
    }

    /// An age file made a piece at a time: its ``header``, then what ``add(_:)`` and
    /// ``finish()`` return, in order. A chunk is sealed once the plaintext after it has begun
    /// (the last chunk is marked), so at most one chunk is held.
    ///
    /// ```swift
    /// var encryptor = try AgeFile.Encryptor(to: recipients)
    /// write(encryptor.header)
    /// for piece in pieces { write(try encryptor.add(piece)) }
    /// write(try encryptor.finish())
    /// ```
    public struct Encryptor {
        /// The file's header and payload nonce: the file's first bytes.
        public let header: [UInt8]
        private let payloadKey: SecureBytes
        private var counter: UInt64 = 0
        private var pending: [UInt8] = []

        public init(to recipients: [AgeRecipient]) throws {
            guard !recipients.isEmpty else { throw AgeError(reason: "no recipients") }
            let fileKey = try SecureBytes.random(count: 16)
            var header = intro + "\n"
            for recipient in recipients {
                let ephemeral = try SecureBytes.random(count: 32)
                let share = try X25519.publicKey(for: ephemeral)
                let shared = try X25519.sharedSecret(ephemeral, recipient.publicKey)
                let wrapKey = try HKDF.derive(inputKey: shared, salt: share + recipient.publicKey, info: stanzaInfo, length: 32)
                let body = try fileKey.withUnsafeBytes { try ChaCha20Poly1305.seal(Array($0), key: wrapKey, nonce: [UInt8](repeating: 0, count: 12)) }
                header += "-> X25519 \(base64(share))\n" + wrapped(base64(body)) + "\n"
            }
            header += "---"
            let macKey = try HKDF.derive(inputKey: fileKey, salt: [], info: "header", length: 32)
            let mac = macKey.withUnsafeBytes { HKDF.hmac(key: $0, Array(header.utf8)) }
            let nonce = SecureRandom.bytes(16)
            self.header = Array((header + " " + base64(mac) + "\n").utf8) + nonce
            payloadKey = try HKDF.derive(inputKey: fileKey, salt: nonce, info: "payload", length: 32)
        }

        /// The sealed chunks `plaintext` completes.
        public mutating func add(_ plaintext: [UInt8]) throws -> [UInt8] {
            pending += plaintext
            var sealed: [UInt8] = []
            var start = 0
            // Only a chunk with plaintext after it is known not to be the last.
            while pending.count - start > chunkLength {
                sealed += try seal(pending[start..<start + chunkLength], last: false)
                start += chunkLength
            }
            pending.removeFirst(start)
            return sealed
        }

        /// The last chunk (empty only when the whole plaintext is).
        public mutating func finish() throws -> [UInt8] {
            defer { pending = [] }
            return try seal(pending[...], last: true)
        }

        private mutating func seal(_ chunk: ArraySlice<UInt8>, last: Bool) throws -> [UInt8] {
            defer { counter += 1 }
            return try ChaCha20Poly1305.seal(Array(chunk), key: payloadKey, nonce: StreamChunk.nonce(index: counter, last: last))
        }
    }

    public static func decrypt(_ file: [UInt8], with identities: [AgeIdentity]) throws -> [UInt8] {
        guard let headerEnd = headerEnd(file) else { throw AgeError(reason: "not an age file (no header)") }
        let headerText = String(decoding: file[..<headerEnd], as: UTF8.self)
        var lines = headerText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.first == intro, let macLine = lines.popLast(), macLine.hasPrefix("--- ") else { throw AgeError(reason: "not an age v1 file") }
        var fileKey: SecureBytes?
        var index = 1
        while index < lines.count {
            let arguments = lines[index].split(separator: " ").map(String.init)
            guard arguments.first == "->" else { throw AgeError(reason: "malformed header") }
            var body = ""
            index += 1
            while index < lines.count {
                body += lines[index]
                index += 1
                if lines[index - 1].count < 64 { break }
            }
            guard fileKey == nil, arguments.count == 3, arguments[1] == "X25519", let share = unbase64(arguments[2]), share.count == 32,
                  let sealed = unbase64(body), sealed.count == 32 else { continue }
            for identity in identities {
                guard let shared = try? X25519.sharedSecret(identity.secret, share) else { continue }
                let wrapKey = try HKDF.derive(inputKey: shared, salt: share + identity.recipient.publicKey, info: stanzaInfo, length: 32)
                if let key = try? ChaCha20Poly1305.open(sealed, key: wrapKey, nonce: [UInt8](repeating: 0, count: 12)) {
                    fileKey = try SecureBytes(copying: key)
                    break
                }
            }
        }
        guard let fileKey else { throw AgeError(reason: "none of the identities can decrypt this file") }
        let macKey = try HKDF.derive(inputKey: fileKey, salt: [], info: "header", length: 32)
        let macInput = Array(headerText.utf8.dropLast(macLine.utf8.count - 3))
        guard let mac = unbase64(String(macLine.dropFirst(4))),
              try SecureBytes(copying: mac).constantTimeEquals(try SecureBytes(copying: macKey.withUnsafeBytes { HKDF.hmac(key: $0, macInput) })) else {
            throw AgeError(reason: "the header does not authenticate")
        }
        let payload = file[(headerEnd + 1)...]
        guard payload.count >= 16 else { throw AgeError(reason: "the payload is truncated") }
        let payloadKey = try HKDF.derive(inputKey: fileKey, salt: Array(payload.prefix(16)), info: "payload", length: 32)
        var plaintext: [UInt8] = []
        var offset = payload.startIndex + 16
        var counter: UInt64 = 0
        let sealedLength = chunkLength + ChaCha20Poly1305.tagLength
        while true {
            let end = min(offset + sealedLength, payload.endIndex)
            let isLast = end == payload.endIndex
            guard let chunk = try? ChaCha20Poly1305.open(payload[offset..<end], key: payloadKey, nonce: StreamChunk.nonce(index: counter, last: isLast)),
                  isLast || !chunk.isEmpty else {
                throw AgeError(reason: "the payload does not authenticate (damaged or truncated)")
            }
            plaintext += chunk
            if isLast { return plaintext }
            offset = end
            counter += 1
        }
    }

    /// The index of the newline ending the `--- MAC` line.
    private static func headerEnd(_ file: [UInt8]) -> Int? {
        var lineStart = 0
        for index in file.indices where file[index] == UInt8(ascii: "\n") {
            if file[lineStart..<min(lineStart + 4, file.count)].elementsEqual("--- ".utf8) { return index }
            lineStart = index + 1
        }
        return nil
    }

    /// Standard base64 without padding (age's encoding).
    private static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// Decodes canonical unpadded base64 only: re-encoding must give the same text, so no
    /// unused bits can be flipped to make a different-looking header that still verifies.
    private static func unbase64(_ text: String) -> [UInt8]? {
        guard !text.contains("=") else { return nil }
        let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let bytes = Data(base64Encoded: padded).map(Array.init), base64(bytes) == text else { return nil }
        return bytes
    }

    /// A stanza body wrapped at 64 columns; a body filling whole lines ends with an empty line.
    private static func wrapped(_ text: String) -> String {
        var lines: [String] = []
        var rest = Substring(text)
        while rest.count >= 64 {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append(String(rest))
        return lines.joined(separator: "\n")
    }
}
