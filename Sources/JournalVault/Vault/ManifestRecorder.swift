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
    private var changes: [String: Manifest.TableState] = [:]

    /// Registers the SQL function the triggers call on a connection of the vault. It is a plain
    /// SQLite function rather than GRDB's: the rows' values are digested where SQLite holds
    /// them, without a copy (a bulk import hands over every entry once).
    func register(on db: Database) {
        let recorder = Unmanaged.passRetained(self).toOpaque()
        sqlite3_create_function_v2(db.sqliteConnection, Self.functionName, -1, SQLITE_UTF8, recorder, { context, count, arguments in
            guard let context, let recorder = sqlite3_user_data(context) else { return }
            let values = UnsafeBufferPointer(start: arguments, count: Int(count)).map { $0! }
            do {
                try Unmanaged<ManifestRecorder>.fromOpaque(recorder).takeUnretainedValue().record(values)
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
            changes = [:]
        }
    }

    func suspend() {
        lock.withLock {
            mode = .suspended
            changes = [:]
        }
    }

    /// Ends the transaction's recording and returns what changed, per table.
    func finish() -> [String: Manifest.TableState] {
        lock.withLock {
            defer {
                mode = .closed
                changes = [:]
            }
            return changes
        }
    }

    /// `values`: the operation (`+` or `-`), the table's name, then the row's columns.
    private func record(_ values: [OpaquePointer]) throws {
        guard values.count >= 2, let name = Self.text(values[1]), let table = ManifestedTable.byName[name],
              values.count == table.columns.count + 2 else {
            throw VaultError.storage("the vault's manifest triggers do not match this jv")
        }
        let adding = Self.text(values[0]) == "+"
        try lock.withLock {
            switch mode {
            case .closed:
                throw VaultError.storage("a row of \(name) was written outside a vault transaction")
            case .suspended:
                return
            case .recording(let key):
                var digest = try RowDigest(table: name, columnCount: table.columns.count, key: key)
                for value in values.dropFirst(2) { digest.append(value) }
                let sum = try digest.finish()
                // Sums are kept as differences: adding a digest, or adding its negation.
                var change = changes[name] ?? Manifest.TableState()
                if adding { change.add(sum) } else { change.remove(sum) }
                changes[name] = change
            }
        }
    }

    private static func text(_ value: OpaquePointer) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else { return nil }
        return String(cString: text)
    }
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
