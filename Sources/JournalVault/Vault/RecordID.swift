// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Resolution of the ids people type: a full UUID or a unique prefix of at least 4 characters.
enum RecordID {
    static let minimumPrefix = 4

    /// The one id in `table` that `text` names.
    static func resolve(_ text: String, table: String, kind: String, db: Database) throws -> UUID {
        let prefix = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard prefix.count >= minimumPrefix, prefix.count <= 36,
              prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw VaultError.invalidID(text) }
        // '~' sorts after every character of a UUID, so this range is exactly "starts with prefix".
        let matches = try String.fetchAll(db, sql: "SELECT id FROM \(table) WHERE id >= ? AND id < ? LIMIT 2",
                                          arguments: [prefix, prefix + "~"])
        guard let first = matches.first else { throw VaultError.notFound(kind: kind, id: text) }
        guard matches.count == 1 else {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE id >= ? AND id < ?",
                                         arguments: [prefix, prefix + "~"]) ?? 2
            throw VaultError.ambiguousID(prefix: text, matches: count)
        }
        guard let id = UUID(uuidString: first) else {
            throw VaultError.tamperedRecord(table: table, id: first, detail: "the id is not a UUID")
        }
        return id
    }
}
