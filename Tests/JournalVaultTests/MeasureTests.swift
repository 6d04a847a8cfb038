// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
@testable import JournalVault

/// Measures (FORMAT.md §1.14): values, names and conditions as typed; the canonical plaintext;
/// sealing, the entry they are bound to, rekey and cascades. The tamper rounds every sealed
/// table gets are in ``DescribedTamperTests``.
@Suite struct MeasureTests {
    @Test func valuesAreNumbersFlagsOrShortText() throws {
        #expect(try MeasureValue.parse("7", name: "m") == .number(7))
        #expect(try MeasureValue.parse(" -2.5 ", name: "m") == .number(-2.5))
        #expect(try MeasureValue.parse("1e3", name: "m") == .number(1000))
        #expect(try MeasureValue.parse(".5", name: "m") == .number(0.5))
        for flag in ["yes", "TRUE", "Yes"] { #expect(try MeasureValue.parse(flag, name: "m") == .flag(true)) }
        for flag in ["no", "false"] { #expect(try MeasureValue.parse(flag, name: "m") == .flag(false)) }
        // Only decimal numbers are numbers: Double alone would read these.
        for text in ["nan", "inf", "0x10", "7 hours", "1e", "-"] { #expect(try MeasureValue.parse(text, name: "m") == .text(text)) }
        #expect(throws: MeasureError.invalidValue(name: "m", reason: "is not a finite number")) { try MeasureValue.parse("1e400", name: "m") }
        #expect(throws: MeasureError.self) { try MeasureValue.parse("", name: "m") }
        #expect(throws: MeasureError.self) { try MeasureValue.parse("line\nbreak", name: "m") }
        #expect(try MeasureValue.parse(String(repeating: "a", count: 200), name: "m") == .text(String(repeating: "a", count: 200)))
        #expect(throws: MeasureError.self) { try MeasureValue.parse(String(repeating: "a", count: 201), name: "m") }
    }

    @Test func namesAreCaseFoldedLettersDigitsUnderscoresAndHyphens() throws {
        #expect(try Measures.normalizedName("Sleep_Hours") == "sleep_hours")
        #expect(try Measures.normalizedName("Qualite\u{301}-2") == "qualité-2", "NFC")
        #expect(try Measures.normalizedName(String(repeating: "a", count: 64)).count == 64)
        for bad in ["", "2nd", "-x", "_x", "a b", "a=b", "a.b", "a<b", "a!", String(repeating: "a", count: 65)] {
            #expect(throws: MeasureError.invalidName(bad)) { try Measures.normalizedName(bad) }
        }
        var measures = try Measures.assignments(["Mood=7", "mood=8", "weather = rain"])
        #expect(measures.values == ["mood": .number(8), "weather": .text("rain")], "the last of a name wins")
        #expect(throws: MeasureError.notAnAssignment("mood")) { try Measures.assignment("mood") }
        for index in 2..<Measures.maximumCount { try measures.set("f\(index)", to: .flag(true)) }
        #expect(throws: MeasureError.tooManyFields(limit: Measures.maximumCount)) { try measures.set("one-more", to: .number(1)) }
        try measures.set("mood", to: .number(1))
    }

    @Test func thePlaintextIsCanonicalJSON() throws {
        let measures = try Measures.assignments(["weather=rain", "mood=7", "sleep=7.5", "outside=yes", "big=1e20", "tiny=0.00001", "zé=1", "z=-0"])
        #expect(measures.json.serialized() == #"{"big":1e+20,"mood":7,"outside":true,"sleep":7.5,"tiny":1e-05,"weather":"rain","z":0,"zé":1}"#)
        #expect(Measures(json: try JSONParser.parse(Array(measures.json.serialized().utf8))) == (try Measures.assignments(
            ["weather=rain", "mood=7", "sleep=7.5", "outside=yes", "big=1e20", "tiny=0.00001", "zé=1", "z=0"])))
        let large = try Measures.assignments(["x=9007199254740993"])
        #expect(Measures(json: try JSONParser.parse(Array(large.json.serialized().utf8))) == large, "beyond 2⁵³: a decimal that reads back the same")
        #expect(try Measures.assignments(["x=1e300"]).json.serialized() == #"{"x":1e+300}"#)
        for stored in [#"[]"#, #"{"Mood":7}"#, #"{"mood":null}"#, #"{"mood":[1]}"#, #"{"mood":" x"}"#, #"{"mood":7,"mood":8}"#, #"{"":1}"#] {
            #expect(Measures(json: try JSONParser.parse(Array(stored.utf8))) == nil, "\(stored)")
        }
    }

    @Test func conditionsCompareNumbersTextAndFlags() throws {
        let measures = try Measures.assignments(["mood=7", "weather=Rain", "outside=yes"])
        let expectations: [(String, Bool)] = [
            ("mood>=7", true), ("mood > 7", false), ("mood<8", true), ("mood<=6.5", false), ("mood=7", true), ("mood==7.0", true),
            ("mood!=7", false), ("Mood!=6", true), ("weather=rain", true), ("weather!=rain", false), ("weather=7", false),
            ("weather!=7", true), ("outside=yes", true), ("outside=true", true), ("outside!=yes", false), ("mood=yes", false),
            ("mood", true), ("!mood", false), ("sleep", false), ("!sleep", true), ("sleep<10", false), ("sleep!=1", false),
        ]
        for (text, expected) in expectations {
            #expect(try MeasureCondition.parse(text).matches(measures) == expected, "\(text)")
        }
        for bad in ["", "=7", "mood>", "mood=>7", "mood>>7", "mood<rain", "outside>yes", "mood~7", "a b=1", "!", "!mood=1"] {
            #expect(throws: MeasureError.self, "\(bad)") { try MeasureCondition.parse(bad) }
        }
    }

    @Test func measuresAreSealedWithTheirEntryAndChangedWithoutIt() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let entry = try journal.addEntry("Measured.", measures: Measures.assignments(["mood=7", "weather=rain"]))
        let plain = try journal.addEntry("Not measured.")
        #expect(try journal.measures(of: entry.id) == (try Measures.assignments(["mood=7", "weather=rain"])))
        #expect(try journal.measures(of: plain.id).isEmpty)
        #expect(try journal.measures().keys.sorted { $0.uuidString < $1.uuidString } == [entry.id])
        let stored = try vault.count("measure", where: "entry_id = ? AND id = ?",
                                     [entry.id.storageText, MeasureRow.id(entryID: entry.id, syncKey: journal.keys.syncKey).storageText])
        #expect(stored == 1, "under the id derived from the entry's")

        let revised = try journal.updateEntry(id: entry.id, settingMeasures: Measures.assignments(["mood=8"]), removingMeasures: ["Weather"])
        #expect(revised == entry, "a change of measures alone leaves the entry as it was")
        #expect(try journal.measures(of: entry.id) == (try Measures.assignments(["mood=8"])))
        #expect(try journal.entry(id: entry.id) == entry)
        try journal.updateEntry(id: entry.id, removingMeasures: ["mood"])
        #expect(try vault.count("measure") == 0, "no measures: no row")
        #expect(throws: VaultError.notFound(kind: "entry", id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)).storageText)) {
            try journal.measures(of: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)))
        }

        try journal.updateEntry(id: plain.id, settingMeasures: Measures.assignments(["steps=9000"]))
        try journal.deleteEntry(id: plain.id)
        #expect(try vault.count("measure") == 0, "deleting the entry deleted its measures")
        #expect(try journal.check().isClean)
    }

    @Test func measuresMovedToAnotherEntryOrOutOfTheFileAreSeen() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let first = try journal.addEntry("First.", measures: Measures.assignments(["mood=9"]))
        let second = try journal.addEntry("Second.", measures: Measures.assignments(["mood=1"]))
        // The two rows' entries swapped (through a third value: entry_id is unique).
        try journal.writeBehindTheVaultsBack { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            for (from, to) in [(first.id.storageText, "swap"), (second.id.storageText, first.id.storageText), ("swap", second.id.storageText)] {
                try db.execute(sql: "UPDATE measure SET entry_id = ? WHERE entry_id = ?", arguments: [to, from])
            }
        }
        expectTampered { try journal.measures(of: first.id) }
        expectTampered { try journal.measures() }
        var query = EntryQuery()
        query.measureConditions = [try MeasureCondition.parse("mood>5")]
        expectTampered { try journal.entries(query) }
        let report = try journal.check()
        #expect(report.problems.filter { $0.contains("measure") }.count >= 2, "\(report.problems)")
    }

    @Test func rekeyReSealsMeasuresAndKeepsThem() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let entry = try journal.addEntry("Before the rotation.", measures: Measures.assignments(["mood=6", "note=calm"]))
        let before = try vault.journal.database.read { db in try Data.fetchOne(db, sql: "SELECT fields FROM measure") }
        let (rotated, _) = try vault.unlock().rekey()
        let after = try rotated.database.read { db in try Data.fetchOne(db, sql: "SELECT fields FROM measure") }
        #expect(before != nil && after != nil && before != after)
        #expect(try rotated.measures(of: entry.id) == (try Measures.assignments(["mood=6", "note=calm"])))
        #expect(try rotated.check().isClean)
        // A first measure written after the rotation still finds the entry's row (under its old id).
        try rotated.updateEntry(id: entry.id, settingMeasures: Measures.assignments(["mood=7"]))
        #expect(try rotated.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM measure") } == 1)
        #expect(try rotated.measures(of: entry.id)["mood"] == .number(7))
    }

    @Test func summariesCountEntriesNumbersTextsAndFlags() throws {
        let summaries = MeasureSummary.of([
            try Measures.assignments(["mood=8", "weather=rain", "outside=yes"]),
            try Measures.assignments(["mood=4", "weather=sun", "outside=no"]),
            try Measures.assignments(["mood=good", "weather=rain"]),
        ])
        #expect(summaries.map(\.name) == ["mood", "outside", "weather"])
        #expect(summaries[0].entries == 3 && summaries[0].numbers?.count == 2 && summaries[0].numbers?.mean == 6)
        #expect(summaries[0].json.serialized()
                == #"{"name":"mood","entries":3,"numbers":{"count":2,"min":4,"max":8,"mean":6.0},"texts":{"count":1,"distinct":1,"most_common":"good"}}"#)
        #expect(summaries[1].yes == 1 && summaries[1].no == 1 && summaries[1].numbers == nil)
        #expect(summaries[2].texts.map(\.text) == ["rain", "sun"] && summaries[2].texts.map(\.count) == [2, 1])
    }
}
