// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// What the session's agent learns of how a table changed since its last look, from the
/// row-set manifest rather than from every row: without it, each look after a write read every
/// record's fingerprint and compared them all (some 350 ms at 100,000 entries, paid by the
/// search typed right after a `jv add`).
///
/// The manifest keeps each table's row count and the sum of its rows' keyed digests (FORMAT.md
/// §11). A table whose state is the one the last look saw holds the rows it held. Otherwise, when
/// the rows after the last look's last rowid, digested and added to the state it saw, give the
/// state now, those rows are all that changed: each was added, and nothing else was added,
/// changed or removed. Anything else (an edit, a deletion, a rowid reused) is `unknown`, and the
/// caller compares every fingerprint as before.
///
/// ```swift
/// var looks = SessionTableLooks()
/// let changes = try looks.changes(of: [.entry], db, keys: keys)   // .unknown at the first look
/// // … the index brought up to date …
/// looks.commit()
/// ```
struct SessionTableLooks {
    enum Change: Equatable {
        /// The table holds the rows it held at the last look.
        case unchanged
        /// Only these rows (their ids) were added since the last look.
        case added(ids: [String])
        /// Something else changed, or there was no look before: every row is to be compared.
        case unknown
    }

    /// What one look saw of a table: the manifest's state of it and its last rowid.
    private struct Look {
        let state: Manifest.TableState
        let lastRowID: Int64
    }

    private var seen: [String: Look] = [:]
    private var pending: [String: Look] = [:]

    /// How each of `tables` changed since the last look that was committed, read in the one
    /// snapshot of `db` (the caller's read): what a look brings the index up to is then at least
    /// what it records having seen. A vault without a manifest is `unknown` throughout.
    mutating func changes(of tables: [SealedTable], _ db: Database, keys: VaultKeys) throws -> [String: Change] {
        pending = [:]
        guard let manifest = try Manifest.load(db, keys: keys) else { return [:] }
        var changes: [String: Change] = [:]
        for table in tables {
            let state = manifest.tables[table.name] ?? Manifest.TableState()
            let lastRowID = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \(table.name)") ?? 0
            pending[table.name] = Look(state: state, lastRowID: lastRowID)
            guard let before = seen[table.name] else {
                changes[table.name] = .unknown
                continue
            }
            if state == before.state {
                changes[table.name] = .unchanged
                continue
            }
            changes[table.name] = try added(to: ManifestedTable(table), since: before, makeState: state, db, key: keys.manifestKey)
                .map { .added(ids: $0) } ?? .unknown
        }
        return changes
    }

    /// The ids of the rows after `before`'s last rowid when their digests take `before`'s state to
    /// `state`; nil otherwise.
    private func added(to table: ManifestedTable, since before: Look, makeState state: Manifest.TableState, _ db: Database,
                       key: SecureBytes) throws -> [String]? {
        var reached = before.state
        var ids: [String] = []
        let columns = table.columns.joined(separator: ", ")
        let rows = try Row.fetchCursor(db, sql: "SELECT \(columns), id FROM \(table.name) WHERE rowid > ?", arguments: [before.lastRowID])
        while let row = try rows.next() {
            let values = Array(row.databaseValues)
            reached.add(try RowDigest.of(values.prefix(table.columns.count), in: table, key: key))
            guard let id = String.fromDatabaseValue(values[table.columns.count]) else { return nil }
            ids.append(id)
            // More rows than the state gained: not additions alone.
            guard reached.count <= state.count else { return nil }
        }
        return reached == state ? ids : nil
    }

    /// The look whose changes were last asked for is the one the index now reflects.
    mutating func commit() {
        seen = pending
    }
}
