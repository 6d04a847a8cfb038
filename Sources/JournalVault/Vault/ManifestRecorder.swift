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
    }

    func startRecording(key: SecureBytes) {
        lock.withLock {
            mode = .recording(key: key)
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
            var state = result.tables[name] ?? TableState()
            state.count &+= change.count
            state.sum = state.sum.adding(change.sum)
            result.tables[name] = state
        }
        return result
    }
}
