// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// Receiving: other devices' packs applied in causal order, each in one transaction.
extension SyncEngine {
    /// Other devices' packs present and not applied yet, as (device, number, path).
    func unappliedPacks(layout: SyncLayout, state: SyncState) throws -> [(device: UUID, number: UInt64, path: String)] {
        let applied = try database.read { db in try SyncState.applied(db) }
        return layout.devices().filter { $0 != state.device }.flatMap { device in
            layout.numbers(of: .pack, device: device).filter { $0 > applied[device] ?? 0 }.sorted()
                .map { (device, $0, layout.file(.pack, of: device, number: $0)) }
        }
    }

    /// Merges every change of `reader` (sealed under `packKeys`) in one transaction, which also
    /// records what is then applied of each device: `applied` for a pack, and for a snapshot
    /// what it holds, where that is more than was applied here.
    func apply(_ reader: SyncPack.Reader, keys packKeys: VaultKeys, applied: [UUID: UInt64],
               progress: (Int) -> Void) throws -> MergeTally {
        var tally = MergeTally()
        let snapshot = reader.header.clocks
        try database.syncCapture.applyingOtherDevices {
            try vault.write { db in
                let rows = SyncRows(db: db)
                guard var state = try SyncState.load(db) else { return }
                let held = snapshot == nil ? [:] : try SyncState.clocks(db)
                var seen: [UUID: UInt64] = [:]
                var count = 0
                while var change = try reader.next() {
                    state.clock.observe(change.stamp.hlc)
                    seen[change.stamp.device] = max(seen[change.stamp.device] ?? 0, change.stamp.hlc)
                    if packKeys.keyVersion != keys.keyVersion { change = try change.resealed(from: packKeys, to: keys) }
                    if let snapshot {
                        try mergeFromSnapshot(change, clocks: snapshot, held: held, rows: rows, tally: &tally)
                    } else {
                        try merge(change, rows: rows, tally: &tally)
                    }
                    count += 1
                    if count % 1024 == 0 { progress(reader.bytesRead) }
                }
                try rows.unparkReady()
                let before = try SyncState.applied(db)
                for (device, number) in applied where device != state.device && number > before[device] ?? 0 {
                    try SyncState.setApplied(number, of: device, db)
                }
                for (device, clock) in seen.merging(snapshot ?? [:], uniquingKeysWith: max) where device != state.device {
                    try SyncState.raiseClock(clock, of: device, db)
                }
                try state.save(db)
            }
        }
        return tally
    }

    /// Moves back to their tables the parked records that can be (``SyncRows/unparkReady()``),
    /// in a transaction of its own, made only when records are parked.
    func unparkReady() throws {
        guard try database.read({ db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_parked)") }) == true else { return }
        try database.syncCapture.applyingOtherDevices {
            try vault.write { db in try SyncRows(db: db).unparkReady() }
        }
    }

    /// Applies, in causal order, every other device's next pack that is there and whose
    /// dependencies are met, until none is left; one transaction per pack.
    /// Returns the engine to go on with: this one, or after following another device's rekey
    /// one of the vault under the new key.
    func pull(layout: SyncLayout, device me: UUID, report: inout SyncReport, progress: ((SyncProgress) -> Void)?) throws -> SyncEngine {
        let state = try database.read { db in try SyncState.load(db) }
        guard let state else { return self }
        let available = try unappliedPacks(layout: layout, state: state)
        var applied = try database.read { db in try SyncState.applied(db) }
        let total = available.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int) ?? 0) }
        var bytesDone = 0
        var refused: Set<UUID> = []
        // Devices whose next pack is under a key not at hand yet, and why.
        var blocked: [UUID: String] = [:]
        let devices = layout.devices().filter { $0 != me }.sorted { $0.storageText < $1.storageText }
        var progressed = true
        while progressed {
            progressed = false
            for device in devices where !refused.contains(device) && blocked[device] == nil {
                let next = (applied[device] ?? 0) + 1
                guard let pack = available.first(where: { $0.device == device && $0.number == next }) else {
                    // Removed by that device's compaction: its snapshot holds it.
                    do {
                        if try recoverFromSnapshot(of: device, layout: layout, after: next - 1, progress: progress) {
                            applied = try database.read { db in try SyncState.applied(db) }
                            report.packsReceived += 1
                            progressed = true
                        }
                    } catch VaultError.syncPackRefused(let reason) {
                        refused.insert(device)
                        report.refused.append("the snapshot of device \(device.storageText.prefix(8)): \(reason)")
                    }
                    continue
                }
                do {
                    var packKeys = keys
                    let reader = try SyncPack.open(pack.path, kind: .pack, expected: (keys.vaultID, device, next)) { version in
                        packKeys = try self.keys(forPacksOf: version, layout: layout)
                        return packKeys.syncKey
                    }
                    guard reader.header.dependencies.allSatisfy({ $0.key == me || (applied[$0.key] ?? 0) >= $0.value }) else { continue }
                    let base = bytesDone
                    let tally = try apply(reader, keys: packKeys, applied: [device: next]) { read in
                        progress?(SyncProgress(phase: .receiving, done: base + read, total: total))
                    }
                    bytesDone += reader.bytesRead
                    progress?(SyncProgress(phase: .receiving, done: bytesDone, total: total))
                    applied[device] = next
                    report.packsReceived += 1
                    report.changesReceived += tally.applied
                    report.conflictCopies += tally.conflictCopies
                    progressed = true
                } catch PackKeyUnavailable.newer(let version) {
                    // Another device ran `jv rekey`: follow it, then go on under the new key.
                    if let rekeyed = try followRotation(layout: layout) {
                        report.rekeyedTo = rekeyed.keys.keyVersion
                        _ = try? vault.vault.lockSession() // as after jv rekey: the agent holding the old key wipes it
                        return try SyncEngine(rekeyed).pull(layout: layout, device: me, report: &report, progress: progress)
                    }
                    blocked[device] = "pack \(next) is under key version \(version) (a jv rekey on another device), whose key files have not all arrived"
                } catch PackKeyUnavailable.older(let version) {
                    blocked[device] = "pack \(next) is under the earlier key version \(version), whose rotation file has not arrived"
                } catch let error as VaultError {
                    switch error {
                    case .syncPackRefused(let reason), .tamperedRecord(_, _, let reason):
                        refused.insert(device)
                        report.refused.append("pack \(next) of device \(device.storageText.prefix(8)): \(reason)")
                    default:
                        throw error
                    }
                }
            }
        }
        for device in devices where !refused.contains(device) {
            if let reason = blocked[device] {
                report.waiting.append("device \(device.storageText.prefix(8)): \(reason)")
                continue
            }
            let next = (applied[device] ?? 0) + 1
            let later = available.filter { $0.device == device && $0.number >= next }
            guard let first = later.map(\.number).min() else { continue }
            report.waiting.append(first == next
                ? "device \(device.storageText.prefix(8)): pack \(next) waits for packs of another device that have not arrived"
                : "device \(device.storageText.prefix(8)): pack \(next) has not arrived yet; \(later.count) later pack\(later.count == 1 ? "" : "s") wait for it")
        }
        return self
    }
}
