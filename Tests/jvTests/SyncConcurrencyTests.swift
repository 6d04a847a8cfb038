// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv sync` run twice or three times at once on one vault, and a pack lost from the location
/// after it was recorded as sent: no pack may be lost for good.
@Suite(.tags(.e2e)) struct SyncConcurrencyTests {
    typealias Machines = SyncCommandTests.Machines

    /// This device's folder in the location, and its newest pack.
    static func deviceFolder(_ sandbox: Sandbox, location: String) throws -> (folder: String, lastPack: Int) {
        let place = try SyncFolderTamperingTests.place(sandbox, location: location)
        return ("\(place.root)/\(place.device)", place.lastPack)
    }

    @Test("two and three jv sync at once on one vault, 8 rounds each: every run succeeds, no pack is lost, the other machine gets every entry",
          .tags(.slow), .notInQuickRun)
    func simultaneousSyncsLoseNoPack() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        for round in 0..<16 {
            let batch = (0..<100).map { String(format: "[2026-03-%02d 10:%02d] Entry %d of round %d\n\n", $0 % 28 + 1, $0 % 60, $0, round) }
            let imported = try machines.first.folder.write("batch-\(round).txt", batch.joined())
            try Sandbox.requireSuccess(try machines.first.run(["import", "--format", "jrnl-txt", imported]))
            let runs = try (0..<(round % 2 == 0 ? 2 : 3)).map { _ in try machines.first.start(["sync"]) }
            for result in runs.map({ $0.wait() }) { #expect(result.status == 0, "round \(round): \(result)") }
        }
        let (folder, lastPack) = try Self.deviceFolder(machines.first, location: machines.location)
        let packs = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("pack-") }.sorted()
        #expect(packs == (1...lastPack).map { String(format: "pack-%012d.jvp", $0) }, "every pack recorded as sent is in the location")
        let received = try machines.second.run(["sync", "--json"])
        #expect(received.status == 0, "\(received)")
        let stillWaiting = try received.object()["waiting"] as? [Any]
        #expect(stillWaiting?.isEmpty == true, "\(received)")
        #expect(try machines.second.entryCount() == 1600)
        #expect(try machines.first.hiddenFiles(in: (machines.first.vault as NSString).deletingLastPathComponent).isEmpty,
                "the lock goes with the sync that held it")
    }

    @Test("a pack recorded as sent but gone from the location is sent again: the other machine stops waiting and gets its entries", .tags(.slow), .notInQuickRun)
    func lostPackIsSentAgain() throws {
        let machines = try Machines(location: { $0.folder.file("location") })
        let texts = ["Sent in the pack that survives.", "Sent in the pack that is lost.", "Sent in the pack after it."]
        for text in texts {
            _ = try machines.first.add(text)
            try Sandbox.requireSuccess(try machines.first.run(["sync"]))
        }
        let (folder, lastPack) = try Self.deviceFolder(machines.first, location: machines.location)
        try FileManager.default.removeItem(atPath: folder + String(format: "/pack-%012d.jvp", lastPack - 1))
        let waiting = try machines.second.run(["sync", "--json"])
        #expect(waiting.status == 0, "\(waiting)")
        let waitingFor = try waiting.object()["waiting"] as? [Any]
        #expect(waitingFor?.count == 1, "\(waiting)")
        let status = try machines.second.run(["sync", "status"])
        #expect(status.out.contains("waiting for its pack \(lastPack - 1), which has not arrived"), "jv sync status says so: \(status)")

        let resent = try machines.first.run(["sync"])
        #expect(resent.status == 0 && resent.out.contains("pack \(lastPack - 1)"), "the machine says what it sent again: \(resent)")
        let received = try machines.second.run(["sync", "--json"])
        #expect(received.status == 0, "\(received)")
        let stillWaiting = try received.object()["waiting"] as? [Any]
        #expect(stillWaiting?.isEmpty == true, "\(received)")
        let contents = try machines.second.list(["--json"]).compactMap { $0["content"] as? String }
        for text in texts { #expect(contents.contains(text), "\(text)") }
        try machines.converge()
    }
}
