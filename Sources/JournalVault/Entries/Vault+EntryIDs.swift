// SPDX-License-Identifier: Apache-2.0
import GRDB

extension Vault {
    /// The ids of the newest entries whose id text starts with `prefix`, newest first, read
    /// from the plaintext columns without unlocking: for shell completion, which must never ask
    /// for a passphrase.
    ///
    /// ```swift
    /// let ids = try Vault.open(at: path, access: .readOnly).entryIDs(startingWith: "3f", limit: 50)
    /// ```
    public func entryIDs(startingWith prefix: String, limit: Int) throws -> [String] {
        // Ids are stored as lower-case hex with dashes; anything else matches nothing.
        let prefix = prefix.lowercased()
        guard prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return [] }
        return try database.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM entry WHERE id >= ? AND id < ? ORDER BY created_at DESC LIMIT ?",
                                arguments: [prefix, prefix + "\u{7F}", limit])
        }
    }
}
