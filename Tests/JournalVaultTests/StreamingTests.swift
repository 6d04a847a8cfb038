// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// Answers given a piece at a time: the same bytes and the same records as the
/// answers gathered first, in the promised order.
@Suite struct StreamingTests {
    @Test func jsonStreamWriterWritesWhatSerializedWrites() {
        let entry: JSONValue = .object([("id", .string("a")), ("tags", .strings(["x", "y"])), ("empty", .array([])), ("none", .object([]))])
        for pretty in [true, false] {
            for count in [0, 1, 3] {
                var json = JSONStreamWriter(pretty: pretty)
                var text = json.openArray()
                for _ in 0..<count { text += json.value(entry) }
                text += json.close()
                #expect(text == JSONValue.array(Array(repeating: entry, count: count)).serialized(pretty: pretty))
            }
            // An object whose middle member is an array written element by element.
            var json = JSONStreamWriter(pretty: pretty)
            var text = json.openObject() + json.value(.integer(1), "version") + json.openArray("entries")
            text += json.value(entry) + json.value(.null)
            text += json.close() + json.value(.array([]), "after") + json.close()
            let whole: JSONValue = .object([("version", .integer(1)), ("entries", .array([entry, .null])), ("after", .array([]))])
            #expect(text == whole.serialized(pretty: pretty))
        }
    }

    /// Entries whose wall-clock order differs from their order in time: jrnl's formats reorder them.
    private static func zonedVault() throws -> TemporaryVault {
        let vault = try TemporaryVault()
        let times = [(0.0, 9.0), (1, -5), (2, 14), (3, 0), (20, -12), (21, 13), (40, 0), (40, 0), (41, 18), (42, -18)]
        for (index, (hours, offset)) in times.enumerated() {
            try vault.journal.addEntry("Entry \(index) #tag\(index % 3)\nbody", at: moment(hoursAfterJan5UTC: hours, offsetHours: offset))
        }
        return vault
    }

    @Test func everyExportStreamedIsTheExportOfTheSnapshot() throws {
        let vault = try Self.zonedVault()
        let at = Instant(millis: 0, utcOffsetSeconds: 0)
        for format in ExportFormat.allCases {
            var pieces: [String] = []
            try vault.journal.export(format, exportedAt: at) { pieces.append($0) }
            #expect(pieces.count > 10, "\(format) is written entry by entry")
            #expect(pieces.joined() == (try vault.journal.snapshot().export(format, exportedAt: at)), "\(format)")
        }
        let period = (DateExpression.day(day(2026, 1, 5)), DateExpression.day(day(2026, 1, 6)))
        var text = ""
        try vault.journal.export(.txt, from: period.0, to: period.1) { text += $0 }
        #expect(text == (try vault.journal.snapshot(from: period.0, to: period.1).export(.txt)))
        #expect(text == JrnlFormat.text(of: try vault.journal.snapshot(from: period.0, to: period.1).entries))
    }

    @Test func forEachEntryGivesTheOrderAndTheLimitAskedFor() throws {
        let vault = try Self.zonedVault()
        let all = try vault.journal.entries()
        #expect(all.map(\.created.millis) == all.map(\.created.millis).sorted())
        var newest: [Entry] = []
        try vault.journal.forEachEntry(order: .newestFirst) { newest.append($0) }
        #expect(newest == all.reversed())
        var query = EntryQuery()
        query.limit = 3
        var lastThree: [Entry] = []
        try vault.journal.forEachEntry(matching: query) { lastThree.append($0) }
        #expect(lastThree == Array(all.suffix(3)))
        lastThree = []
        try vault.journal.forEachEntry(matching: query, order: .newestFirst) { lastThree.append($0) }
        #expect(lastThree == all.suffix(3).reversed())
        // An error of the body stops the walk.
        struct Enough: Error {}
        var seen = 0
        #expect(throws: Enough.self) { try vault.journal.forEachEntry { _ in seen += 1; if seen == 2 { throw Enough() } } }
        #expect(seen == 2)
    }

    @Test func entriesSpanZonesLooksAtWhatTheQuerySelects() throws {
        let vault = try Self.zonedVault()
        #expect(try vault.journal.entriesSpanZones(EntryQuery()))
        var query = EntryQuery()
        query.limit = 2  // the two newest: +18 and -18
        #expect(try vault.journal.entriesSpanZones(query))
        query.limit = nil
        query.from = .instant(moment(hoursAfterJan5UTC: 40, offsetHours: 0))
        query.to = .instant(moment(hoursAfterJan5UTC: 40.5, offsetHours: 0))  // the two at 40 h, both at UTC+0
        #expect(!(try vault.journal.entriesSpanZones(query)))
        query.contains = "Entry"  // a text filter: still the selection by dates
        #expect(!(try vault.journal.entriesSpanZones(query)))
    }

    @Test func ageEncryptorInPiecesMakesAFileAgeDecrypts() throws {
        let identity = try AgeIdentity.generate()
        for length in [0, 1, AgeFile.chunkLength, AgeFile.chunkLength + 1, 3 * AgeFile.chunkLength] {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
            var encryptor = try AgeFile.Encryptor(to: [try identity.recipient])
            var file = encryptor.header
            for start in stride(from: 0, to: length, by: 5000) { file += try encryptor.add(Array(plaintext[start..<min(start + 5000, length)])) }
            file += try encryptor.finish()
            #expect(try AgeFile.decrypt(file, with: [identity]) == plaintext, "\(length) bytes")
            #expect(file.count == (try AgeFile.encrypt(plaintext, to: [try identity.recipient])).count)
        }
    }
}
