// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite

/// The SQL function `jv_sync_captures()` that the sync triggers of schema 6 ask before they
/// note a written record as this device's change to send (FORMAT.md §14.6). It answers false
/// only while ``applyingOtherDevices(_:)`` runs: changes that came from other devices are not
/// sent back to them, nor are the rows that applying them cascades to.
final class SyncCapture: @unchecked Sendable {
    static let functionName = "jv_sync_captures"

    /// The triggers of migration 0006 that note each written record as a change to send.
    static let triggerNames: Set<String> = Set(SealedTable.all.flatMap { table in
        ["insert", "delete", "update"].map { "\(table.name)_sync_\($0)" }
    })

    private let lock = NSLock()
    private var applying = false

    func register(on db: Database) {
        let capture = Unmanaged.passRetained(self).toOpaque()
        sqlite3_create_function_v2(db.sqliteConnection, Self.functionName, 0, SQLITE_UTF8, capture, { context, _, _ in
            guard let context, let capture = sqlite3_user_data(context) else { return }
            sqlite3_result_int(context, Unmanaged<SyncCapture>.fromOpaque(capture).takeUnretainedValue().captures ? 1 : 0)
        }, nil, nil, { capture in
            capture.map { Unmanaged<SyncCapture>.fromOpaque($0).release() }
        })
    }

    /// False while ``applyingOtherDevices(_:)`` runs.
    var captures: Bool { lock.withLock { !applying } }

    func applyingOtherDevices<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.withLock { applying = true }
        defer { lock.withLock { applying = false } }
        return try body()
    }
}
