// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// What a search reads of one record: its kind, id, time, a fingerprint of its sealed text and
/// the text itself. Made by one constructor per kind, for the scan and the index alike.
///
/// The fingerprint is the nonce of the record's sealed text field, which every seal draws
/// anew: when it is unchanged, so is the text, and an index can be refreshed by comparing
/// fingerprints read from the file without decrypting anything.
///
/// ```swift
/// let document = SearchDocument(entryID: entry.id, created: entry.created, content: entry.content, fingerprint: nonce)
/// SearchTokenizer.tokens(document.text)
/// ```
public struct SearchDocument: Sendable, Equatable {
    public var kind: SearchKind
    /// The record's id as stored (`UUID.storageText`).
    public var key: String
    public var time: Instant
    public var fingerprint: [UInt8]
    public var text: String

    public init(kind: SearchKind, key: String, time: Instant, fingerprint: [UInt8], text: String) {
        self.kind = kind
        self.key = key
        self.time = time
        self.fingerprint = fingerprint
        self.text = text
    }

    /// An entry's document: its content, at its time of writing (``Entry/created``).
    public init(entryID: UUID, created: Instant, content: String, fingerprint: [UInt8]) {
        self.init(kind: .entry, key: entryID.storageText, time: created, fingerprint: fingerprint, text: content)
    }

    /// A chat message's document: its content, at its time.
    public init(message: ChatMessage, fingerprint: [UInt8]) {
        self.init(kind: .chatMessage, key: message.id.storageText, time: message.timestamp, fingerprint: fingerprint,
                  text: message.content)
    }

    /// An analysis's document: its sentiment, themes and the strings and numbers of its
    /// entities, one per line, at its processing time.
    public init(analysis: Analysis, fingerprint: [UInt8]) {
        let parts = [analysis.sentiment ?? ""] + analysis.themes + [analysis.entities.searchableText]
        self.init(kind: .analysis, key: analysis.id.storageText, time: analysis.processedAt, fingerprint: fingerprint,
                  text: parts.joined(separator: "\n"))
    }

    /// How many bytes of a sealed field's nonce make its fingerprint.
    static let fingerprintLength = 16

    /// The fingerprint of a sealed field (the start of its nonce).
    static func fingerprint(ofSealed box: Data) -> [UInt8] {
        Array(box.prefix(fingerprintLength))
    }

    /// Each stored id of `table` with the fingerprint of its sealed `field`, read without
    /// decrypting anything.
    static func fingerprints(table: String, field: String, _ db: Database) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, substr(\(field), 1, \(fingerprintLength)) FROM \(table)")
        while let row = try rows.next() { result[row[0]] = (row[1] as Data?).map { [UInt8]($0) } ?? [] }
        return result
    }
}
