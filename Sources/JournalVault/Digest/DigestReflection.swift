// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// What a local model wrote about the digest of a period (`jv digest --command`): one per period
/// and model, written again by the next run for the same period and model.
///
/// ```swift
/// let reflection = try journal.reflect(on: try journal.digest(of: week), with: ChatResponder(command: "examples/ollama-chat.sh"))
/// print(reflection.text)
/// ```
public struct DigestReflection: Sendable, Hashable, Identifiable {
    /// Derived from the period and the model (``derivedID(period:model:)``).
    public let id: UUID
    public var period: DigestPeriod
    /// The model's name (plaintext, as an analysis's).
    public var model: String
    public var created: Instant
    public var text: String
    /// ``Digest/textDigest`` of the digest the model was sent.
    public var digestOfInput: String
    /// The version of the record's form this release writes.
    public var version: Int

    public init(period: DigestPeriod, model: String, created: Instant, text: String, digestOfInput: String,
                version: Int = DigestReflection.currentVersion) {
        id = Self.derivedID(period: period, model: model)
        self.period = period
        self.model = model
        self.created = created
        self.text = text
        self.digestOfInput = digestOfInput
        self.version = version
    }

    public static let currentVersion = 1

    /// `UUIDv8(BLAKE2b-256("JVLT-reflection-id" ‖ u8 len ‖ kind ‖ first day[10] ‖ model)[0…15])`
    /// (FORMAT.md §1.15): not keyed, since every part of it is stored in plaintext beside it.
    /// Two devices that reflect on the same period with the same model make the same record, and
    /// sync keeps the later of the two.
    static func derivedID(period: DigestPeriod, model: String) -> UUID {
        var writer = ByteWriter(capacity: 48 + model.utf8.count)
        writer.raw("JVLT-reflection-id".utf8)
        writer.shortString(period.kind.rawValue)
        writer.raw(period.first.description.utf8)
        writer.raw(model.utf8)
        return UUID(version8From: Blake2b.hash(writer.bytes))
    }

    /// `{id, period, model, created_at, text, digest_of_input}`.
    public var json: JSONValue {
        .object([
            ("id", .string(id.storageText)),
            ("period", period.json),
            ("model", .string(model)),
            ("created_at", .string(created.iso8601)),
            ("text", .string(text)),
            ("digest_of_input", .string(digestOfInput)),
        ])
    }

    /// The sealed payload: `{text, digest_of_input}`.
    var payload: JSONValue {
        .object([("text", .string(text)), ("digest_of_input", .string(digestOfInput))])
    }
}
