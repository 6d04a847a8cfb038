// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// Digest periods (ISO weeks, months, years and their edges), what a digest gathers of a period,
/// and the reflections stored on it.
@Suite struct DigestTests {
    private static func period(_ name: String, _ kind: DigestPeriod.Kind) throws -> DigestPeriod {
        try #require(DigestPeriod(named: name, kind: kind), "\(name)")
    }

    /// A moment of `day` at `hour` local time, written `offsetHours` from UTC.
    private static func at(_ day: CivilDay, hour: Int, offsetHours: Int) -> Instant {
        let start = Instant.startOf(day, utcOffsetSeconds: offsetHours * 3600)
        return Instant(millis: start.millis + Int64(hour) * 3_600_000, utcOffsetSeconds: offsetHours * 3600)
    }

    @Test func isoWeeksStartOnMondayAndBelongToTheYearOfTheirThursday() throws {
        // 2027-01-01 is a Friday: its week is the 53rd of 2026, which began on 2026-12-28.
        let late = DigestPeriod(containing: day(2027, 1, 1), kind: .week)
        #expect((late.name, late.first, late.last) == ("2026-W53", day(2026, 12, 28), day(2027, 1, 3)))
        // 2025-12-29 is a Monday in week 1 of 2026.
        let early = try Self.period("2026-W01", .week)
        #expect((early.first, early.last) == (day(2025, 12, 29), day(2026, 1, 4)))
        #expect(DigestPeriod(containing: day(2026, 1, 4), kind: .week) == early)
        #expect(DigestPeriod(containing: day(2025, 12, 28), kind: .week).name == "2025-W52")
        #expect(try Self.period("2026-W48", .week).first == day(2026, 11, 23))
        // 2025 has 52 weeks, 2026 has 53; week 0 is no week.
        #expect(DigestPeriod(named: "2025-W53", kind: .week) == nil)
        #expect(DigestPeriod(named: "2026-W00", kind: .week) == nil)
        #expect(DigestPeriod(named: "2026-W1", kind: .week) == nil)
        #expect(ISOWeek.monday(ofWeek: 53, in: 2026) == day(2026, 12, 28))
        #expect(ISOWeek.monday(ofWeek: 54, in: 2026) == nil)
    }

    @Test func monthsAndYearsHaveTheirCalendarLengths() throws {
        #expect(try Self.period("2024-02", .month).last == day(2024, 2, 29), "a leap year")
        #expect(try Self.period("2026-02", .month).last == day(2026, 2, 28))
        #expect(try Self.period("1900-02", .month).last == day(1900, 2, 28), "a century that is no leap year")
        #expect(try Self.period("2000-02", .month).last == day(2000, 2, 29))
        #expect(try Self.period("2026-12", .month).days == day(2026, 12, 1)...day(2026, 12, 31))
        #expect(try Self.period("2024", .year).days == day(2024, 1, 1)...day(2024, 12, 31))
        #expect(try Self.period("2025", .year).last.daysSinceEpoch - Self.period("2025", .year).first.daysSinceEpoch == 364)
        #expect(try Self.period("2024", .year).last.daysSinceEpoch - Self.period("2024", .year).first.daysSinceEpoch == 365)
        #expect(DigestPeriod(containing: day(2026, 12, 31), kind: .year).name == "2026")
        #expect(DigestPeriod(containing: day(2026, 2, 14), kind: .month).name == "2026-02")
        for bad in ["2026-13", "2026-00", "2026-1", "26-11", "2026-11-01", "2026"] {
            #expect(DigestPeriod(named: bad, kind: .month) == nil, "\(bad)")
        }
        #expect(DigestPeriod(named: "2026-11", kind: .year) == nil)
        #expect(DigestPeriod(named: "0000", kind: .year) == nil)
    }

    @Test func periodsMoveAcrossYearEnds() throws {
        #expect(try Self.period("2026-W01", .week).moved(by: -1)?.name == "2025-W52")
        #expect(try Self.period("2026-W53", .week).moved(by: 1)?.name == "2027-W01")
        #expect(try Self.period("2026-01", .month).moved(by: -1)?.name == "2025-12")
        #expect(try Self.period("2026-11", .month).moved(by: -23)?.name == "2024-12")
        #expect(try Self.period("2026", .year).moved(by: -26)?.name == "2000")
        #expect(try Self.period("2026", .year).moved(by: 0)?.name == "2026")
        #expect(try Self.period("0001-01", .month).moved(by: -1) == nil)
        #expect(try Self.period("9999", .year).moved(by: 1) == nil)
        #expect(try Self.period("2026-W48", .week).moved(by: Int.min) == nil)
    }

    /// Days are the writers' local days: an entry written late on Sunday in New York belongs to
    /// that week though it was Monday in UTC, and one written early on Monday in Tokyo to the next.
    @Test func theDigestGathersThePeriodsEntriesByTheirLocalDay() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let week = try Self.period("2026-W48", .week)
        let sundayNight = try journal.addEntry("Late swim with @anna.\nThe sea was cold and calm.",
                                               at: Self.at(day(2026, 11, 29), hour: 23, offsetHours: -5))
        let monday = try journal.addEntry("Back at #work.", at: Self.at(day(2026, 11, 23), hour: 1, offsetHours: 9))
        let wednesday = try journal.addEntry("Rain all day. #home", at: Self.at(day(2026, 11, 25), hour: 9, offsetHours: 0))
        _ = try journal.addEntry("Next week already.", at: Self.at(day(2026, 11, 30), hour: 0, offsetHours: 9))
        _ = try journal.addEntry("The week before.", at: Self.at(day(2026, 11, 22), hour: 23, offsetHours: 0))
        // The newest analysis of an entry counts; the graph's people are those of the week's relations.
        try journal.addAnalysis(Analysis(entryID: sundayNight.id, model: "m", processedAt: .now(), sentiment: "negative", themes: ["sea"]))
        try journal.addAnalysis(Analysis(entryID: sundayNight.id, model: "m", processedAt: Instant(millis: Instant.now().millis + 1000, utcOffsetSeconds: 0),
                                         sentiment: "positive", themes: ["sea", "friends"]),
                                relations: [RelationDraft(from: NodeReference(type: "person", name: "me"), to: NodeReference(type: "person", name: "Anna"),
                                                          type: "swims with", strength: 0.9)])
        try journal.addAnalysis(Analysis(entryID: wednesday.id, model: "m", processedAt: .now(), sentiment: "calm", themes: ["sea"]))

        let digest = try journal.digest(of: week)
        #expect(digest.items.map(\.id) == [monday.id, wednesday.id, sundayNight.id])
        #expect(digest.items.map(\.day) == [day(2026, 11, 23), day(2026, 11, 25), day(2026, 11, 29)])
        #expect((digest.words, digest.daysWritten) == (17, 3))
        #expect(digest.tags.map(\.tag) == ["anna", "home", "work"])
        #expect(digest.sentiments == [Digest.Count(name: "calm", entries: 1), Digest.Count(name: "positive", entries: 1)])
        #expect(digest.meanSentiment?.score == 1 && digest.meanSentiment?.entries == 1, "calm has no score")
        #expect(digest.themes == [Digest.Count(name: "sea", entries: 2), Digest.Count(name: "friends", entries: 1)])
        #expect(digest.people == ["Anna", "me"])

        let text = digest.text
        #expect(text.hasPrefix("Digest of week 2026-W48, 2026-11-23 to 2026-11-29\n3 entries, 17 words, 3 days written\n"), "\(text)")
        #expect(text.contains("\nSentiment: calm (1), positive (1); mean +1.00 over 1 entry\n"), "\(text)")
        #expect(text.contains("\nThemes: sea (2), friends (1)\nPeople: Anna, me\n"), "\(text)")
        #expect(text.hasSuffix("## 2026-11-29 Late swim with @anna.  [anna]\nThe sea was cold and calm."), "\(text)")
        #expect(!text.contains("Next week") && !text.contains("week before"))

        var brief = digest
        brief.brief = true
        #expect(!brief.text.contains("The sea was cold") && brief.text.contains("## 2026-11-29 Late swim with @anna."))
        let json = brief.json()
        #expect(json["period"]?["name"] == .string("2026-W48"))
        #expect(json["counts"]?["days_written"] == .integer(3))
        #expect(json["entries"]?.arrayValue?.last?["body"] == nil && json["entries"]?.arrayValue?.last?["title"] == .string("Late swim with @anna."))
        #expect(digest.json()["entries"]?.arrayValue?.last?["body"] == .string("The sea was cold and calm."))
    }

    /// What another feature gives a digest (measures) goes into its text and its JSON.
    @Test func sectionsFromOtherSourcesGoIntoTheDigest() throws {
        struct Counted: DigestSectionSource {
            func section(for period: DigestPeriod, entries: [Entry], in vault: UnlockedVault) throws -> DigestSection? {
                DigestSection(title: "Measures", lines: ["entries seen: \(entries.count)"], json: .integer(Int64(entries.count)))
            }
        }
        struct Nothing: DigestSectionSource {
            func section(for period: DigestPeriod, entries: [Entry], in vault: UnlockedVault) throws -> DigestSection? { nil }
        }
        let vault = try TemporaryVault()
        _ = try vault.journal.addEntry("One.", at: Self.at(day(2026, 11, 2), hour: 9, offsetHours: 0))
        let digest = try vault.journal.digest(of: try Self.period("2026-11", .month), sections: [Nothing(), Counted()])
        #expect(digest.text.contains("\n\nMeasures:\n  entries seen: 1\n\n## 2026-11-02 One."), "\(digest.text)")
        #expect(digest.json()["sections"] == .array([.object([("title", .string("Measures")), ("lines", .strings(["entries seen: 1"])),
                                                              ("data", .integer(1))])]))
    }

    @Test func aReflectionIsOnePerPeriodAndModelAndSaysWhetherItIsCurrent() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let month = try Self.period("2026-11", .month)
        _ = try journal.addEntry("Swam.", at: Self.at(day(2026, 11, 2), hour: 9, offsetHours: 0))
        let digest = try journal.digest(of: month)
        let first = try journal.storeReflection(DigestReflection(period: month, model: "m", created: .now(), text: "  Calm.  ",
                                                                 digestOfInput: digest.textDigest))
        #expect(first.text == "Calm.")
        try journal.storeReflection(DigestReflection(period: month, model: "other", created: .now(), text: "Other.", digestOfInput: "00"))
        let again = try journal.storeReflection(DigestReflection(period: month, model: "m", created: .now(), text: "Calmer.",
                                                                 digestOfInput: digest.textDigest))
        #expect(again.id == first.id)
        #expect(try journal.reflections(on: month).map(\.text).sorted() == ["Calmer.", "Other."])
        #expect(try journal.reflections(on: try Self.period("2026-W45", .week)) == [])
        #expect(try vault.count("digest_reflection") == 2)
        let stored = try journal.reflection(id: first.id)
        #expect(digest.isInput(of: stored))
        var brief = digest
        brief.brief = true
        #expect(brief.isInput(of: stored), "a brief digest of the same entries is the same input")
        _ = try journal.addEntry("Swam again.", at: Self.at(day(2026, 11, 3), hour: 9, offsetHours: 0))
        #expect(!(try journal.digest(of: month)).isInput(of: stored))
        try journal.deleteReflection(id: first.id)
        #expect(try journal.reflections().map(\.model) == ["other"])
        expectVaultError(where: { if case .notFound = $0 { true } else { false } }) { try journal.deleteReflection(id: first.id) }
        expectVaultError(where: { $0 == .contentBlank }) {
            try journal.storeReflection(DigestReflection(period: month, model: "m", created: .now(), text: " ", digestOfInput: ""))
        }
        #expect(try journal.check().isClean)
    }

    /// A row whose plaintext period is edited (to another whole period, or to days that are none)
    /// is refused: the period is bound into the sealed payload, and its days must be one period.
    @Test func anEditedPeriodIsTampering() throws {
        let vault = try TemporaryVault()
        let journal = vault.journal
        let reflection = try journal.storeReflection(DigestReflection(period: try Self.period("2026-11", .month), model: "m", created: .now(),
                                                                      text: "Calm.", digestOfInput: "00"))
        try journal.writeBehindTheVaultsBack { db in
            try db.execute(sql: "UPDATE digest_reflection SET start_day = '2026-11-02' WHERE id = ?", arguments: [reflection.id.storageText])
        }
        expectTampered { try journal.reflections() }
        #expect(try journal.check().problems.contains { $0.contains(reflection.id.storageText) })
    }
}
