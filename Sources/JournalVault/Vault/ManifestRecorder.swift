// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import GRDBSQLite
import VaultCrypto

/// Collects, during one write transaction, what the rows written change in the row-set
/// manifest. The schema's triggers call the SQL function `jv_manifest(op, table, columns…)` for
/// every row inserted, updated or deleted in a covered table — cascades and `SET NULL` included,
/// so no write path can forget one — and ``UnlockedVault/write(_:)`` folds the collected change
/// into the stored manifest just before the transaction commits.
///
/// Outside such a transaction the function refuses, so a write that would bypass the manifest
/// fails instead of leaving it stale.
final class ManifestRecorder: @unchecked Sendable {
    static let functionName = "jv_manifest"
    static let wantsRowsFunctionName = "jv_manifest_wants_rows"

    private enum Mode {
        /// No write of the vault's code is under way: a row change is an error.
        case closed
        /// Inside ``UnlockedVault/write(_:)``: changes are collected.
        case recording(key: SecureBytes)
        /// The manifest is being rebuilt from every row afterwards (upgrade, rekey): changes are ignored.
        case suspended
    }

    // The SQLite writer runs one statement at a time, but the recorder is reached from whichever
    // thread GRDB writes on.
    private let lock = NSLock()
    private var mode = Mode.closed
    /// While recording: rows whose digests the writer has computed itself (``precomputed(_:)``).
    private var precomputing = false
    /// Per table of ``ManifestedTable/all``, by position.
    private var changes = ManifestRecorder.noChanges
    private static let noChanges = [Manifest.TableState](repeating: Manifest.TableState(), count: ManifestedTable.all.count)

    /// Registers the SQL function the triggers call on a connection of the vault. It is a plain
    /// SQLite function rather than GRDB's: the rows' values are digested where SQLite holds
    /// them, without a copy (a bulk import hands over every entry once).
    func register(on db: Database) {
        let recorder = Unmanaged.passRetained(self).toOpaque()
        sqlite3_create_function_v2(db.sqliteConnection, Self.functionName, -1, SQLITE_UTF8, recorder, { context, count, arguments in
            guard let context, let recorder = sqlite3_user_data(context), let arguments else { return }
            do {
                try Unmanaged<ManifestRecorder>.fromOpaque(recorder).takeUnretainedValue()
                    .record(UnsafeBufferPointer(start: arguments, count: Int(count)))
                sqlite3_result_null(context)
            } catch {
                sqlite3_result_error(context, "\(error)", -1)
            }
        }, nil, nil, { recorder in
            recorder.map { Unmanaged<ManifestRecorder>.fromOpaque($0).release() }
        })
        // The triggers' WHEN clause: skipping a row here saves SQLite reading its every column.
        let asked = Unmanaged.passRetained(self).toOpaque()
        sqlite3_create_function_v2(db.sqliteConnection, Self.wantsRowsFunctionName, 0, SQLITE_UTF8, asked,
                                   { context, _, _ in
            guard let context, let recorder = sqlite3_user_data(context) else { return }
            sqlite3_result_int(context, Unmanaged<ManifestRecorder>.fromOpaque(recorder).takeUnretainedValue().wantsRows ? 1 : 0)
        }, nil, nil, { recorder in
            recorder.map { Unmanaged<ManifestRecorder>.fromOpaque($0).release() }
        })
    }

    /// False while rows are ignored (suspended) or their digests come from the writer: true
    /// otherwise, including outside a transaction, where the row then meets the refusal.
    private var wantsRows: Bool {
        lock.withLock {
            switch mode {
            case .suspended: false
            case .recording: !precomputing
            case .closed: true
            }
        }
    }

    /// Runs `insert`, whose rows' digests the caller adds itself with ``add(_:to:)``: the
    /// triggers skip them.
    func precomputed<Result>(_ insert: () throws -> Result) rethrows -> Result {
        lock.withLock { precomputing = true }
        defer { lock.withLock { precomputing = false } }
        return try insert()
    }

    /// A row inserted under ``precomputed(_:)``, whose digest the writer computed.
    func add(_ digest: DigestSum, to table: ManifestedTable) {
        guard let index = ManifestedTable.all.firstIndex(of: table) else { return }
        lock.withLock {
            if case .recording = mode { changes[index].add(digest) }
        }
    }

    func startRecording(key: SecureBytes) {
        lock.withLock {
            mode = .recording(key: key)
            precomputing = false
            changes = Self.noChanges
        }
    }

    func suspend() {
        lock.withLock {
            mode = .suspended
            changes = Self.noChanges
        }
    }

    /// Ends the transaction's recording and returns what changed, per table name.
    func finish() -> [String: Manifest.TableState] {
        lock.withLock {
            defer {
                mode = .closed
                changes = Self.noChanges
            }
            var result: [String: Manifest.TableState] = [:]
            for (table, change) in zip(ManifestedTable.all, changes) where change != Manifest.TableState() { result[table.name] = change }
            return result
        }
    }

    /// `values`: the operation (`+` or `-`), the table's name, then the row's columns. Called
    /// for every row written, so it allocates nothing it can avoid.
    private func record(_ values: UnsafeBufferPointer<OpaquePointer?>) throws {
        guard values.count >= 2, let operation = values[0], let name = values[1], let index = Self.tableIndex(name),
              values.count == ManifestedTable.all[index].columns.count + 2 else {
            throw VaultError.storage("the vault's manifest triggers do not match this jv")
        }
        let adding = sqlite3_value_text(operation)?.pointee == UInt8(ascii: "+")
        try lock.withLock {
            switch mode {
            case .closed:
                throw VaultError.storage("a row of \(ManifestedTable.all[index].name) was written outside a vault transaction")
            case .suspended:
                return
            case .recording(let key):
                var digest = try RowDigest(ManifestedTable.all[index], key: key)
                for value in values.dropFirst(2) {
                    guard let value else { throw VaultError.storage("the vault's manifest triggers do not match this jv") }
                    digest.append(value)
                }
                let sum = try digest.finish()
                // Sums are kept as differences: adding a digest, or adding its negation.
                if adding { changes[index].add(sum) } else { changes[index].remove(sum) }
            }
        }
    }

    /// The position in ``ManifestedTable/all`` of the table a trigger names, compared as bytes.
    private static func tableIndex(_ value: OpaquePointer) -> Int? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else { return nil }
        let name = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
        return tableNames.firstIndex { $0.elementsEqual(name) }
    }

    private static let tableNames = ManifestedTable.all.map { Array($0.name.utf8) }
}

extension Manifest {
    /// This manifest with `changes` (from ``ManifestRecorder/finish()``) applied.
    func applying(_ changes: [String: TableState]) -> Manifest {
        var result = self
        for (name, change) in changes {
            result.tables[name, default: TableState()].absorb(change)
        }
        return result
    }
}
