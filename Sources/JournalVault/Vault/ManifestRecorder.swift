import Foundation
import GRDB
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

    /// The SQL function the triggers call; registered on every connection of the vault.
    var function: DatabaseFunction {
        DatabaseFunction(Self.functionName, argumentCount: nil, pure: false) { values in
            try self.record(values)
            return nil
        }
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

    private func record(_ values: [DatabaseValue]) throws {
        guard values.count >= 2, let operation = String.fromDatabaseValue(values[0]), let name = String.fromDatabaseValue(values[1]),
              let table = ManifestedTable.byName[name], values.count == table.columns.count + 2 else {
            throw VaultError.storage("the vault's manifest triggers do not match this jv")
        }
        try lock.withLock {
            switch mode {
            case .closed:
                throw VaultError.storage("a row of \(name) was written outside a vault transaction")
            case .suspended:
                return
            case .recording(let key):
                // Sums are kept as differences: adding a digest, or adding its negation.
                let digest = try Manifest.digest(of: values.dropFirst(2), in: name, key: key)
                var change = changes[name] ?? Manifest.TableState()
                if operation == "+" { change.add(digest) } else { change.remove(digest) }
                changes[name] = change
            }
        }
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
