// SPDX-License-Identifier: Apache-2.0
import GRDB

/// Reads the rows of a table whose stored ids are given, a few hundred ids per statement: the
/// records a refresh found changed, however many they are.
///
/// ```swift
/// try RowsByID.forEachCursor(table: "measure", selection: MeasureRow.selection, ids: changed, db) { rows in
///     while let row = try rows.next() { … }
/// }
/// ```
enum RowsByID {
    /// Ids bound in one statement (SQLite allows 32,766 variables; a short statement plans faster).
    static let idsPerStatement = 500

    /// Calls `body` with the cursor of each statement, the rows of its ids in the table's order.
    static func forEachCursor(table: String, selection: String, ids: [String], _ db: Database, _ body: (RowCursor) throws -> Void) throws {
        for start in stride(from: 0, to: ids.count, by: idsPerStatement) {
            let chunk = Array(ids[start..<min(start + idsPerStatement, ids.count)])
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try body(try Row.fetchCursor(db, sql: "SELECT \(selection) FROM \(table) WHERE id IN (\(placeholders))", arguments: StatementArguments(chunk)))
        }
    }
}
