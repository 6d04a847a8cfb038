// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VaultCrypto
@testable import JournalVault

/// Queries over time, local days, tags, stars, text and limits, on entries written in
/// different UTC offsets. In UTC order:
///
/// | entry | writer's wall clock           | UTC               | local day  |
/// |-------|-------------------------------|-------------------|------------|
/// | e4    | 2026-01-04 23:30 −05:00       | 01-05 04:30       | 2026-01-04 |
/// | e3    | 2026-01-05 00:30 −05:00       | 01-05 05:30       | 2026-01-05 |
/// | e1    | 2026-01-05 23:30 +09:00       | 01-05 14:30       | 2026-01-05 |
/// | e5    | 2026-01-06 08:30 +09:00       | 01-05 23:30       | 2026-01-06 |
/// | e2    | 2026-01-06 00:30 −05:00       | 01-06 05:30       | 2026-01-06 |
///
/// A UTC-day reading would put e4 and e5 on 2026-01-05; the writer's local day must win.
@Suite struct EntryQueryTests {
    let vault: TemporaryVault
    let e1, e2, e3, e4, e5: Entry

    init() throws {
        vault = try TemporaryVault()
        let journal = vault.journal
        e4 = try journal.addEntry("E4 late night in New York. #night", at: moment(hoursAfterJan5UTC: 4.5, offsetHours: -5))
        e3 = try journal.addEntry("E3 just after midnight. #night with @Anna", at: moment(hoursAfterJan5UTC: 5.5, offsetHours: -5),
                                  starred: true)
        e1 = try journal.addEntry("E1 Tokyo, late. Café visit.", at: moment(hoursAfterJan5UTC: 14.5, offsetHours: 9), tags: ["Travel"])
        e5 = try journal.addEntry("E5 Tokyo morning. #travel #Cafe\u{301}", at: moment(hoursAfterJan5UTC: 23.5, offsetHours: 9),
                                  starred: true)
        e2 = try journal.addEntry("E2 New York again, Straße Nummer 5.", at: moment(hoursAfterJan5UTC: 29.5, offsetHours: -5))
    }

    var journal: UnlockedVault { vault.journal }

    func names(_ query: EntryQuery) throws -> [String] {
        try journal.entries(query).map { String($0.content.prefix(2)) }
    }

    func query(from: DateExpression? = nil, to: DateExpression? = nil, on: CivilDay? = nil, limit: Int? = nil,
               starred: Bool = false, tags: [String] = [], contains: String? = nil) -> EntryQuery {
        var query = EntryQuery()
        query.from = from
        query.to = to
        query.on = on.map { $0...$0 }
        query.limit = limit
        query.starredOnly = starred
        query.tags = tags
        query.contains = contains
        return query
    }

    @Test func fixtureLocalDaysFollowTheWritersOffset() {
        #expect(e4.localDay == day(2026, 1, 4))
        #expect(e3.localDay == day(2026, 1, 5))
        #expect(e1.localDay == day(2026, 1, 5))
        #expect(e5.localDay == day(2026, 1, 6))
        #expect(e2.localDay == day(2026, 1, 6))
        #expect(e1.created.iso8601 == "2026-01-05T23:30:00.000+09:00")
        #expect(e2.created.iso8601 == "2026-01-06T00:30:00.000-05:00")
    }

    @Test func allEntriesComeInTimeOrderWithTheirOffsets() throws {
        let all = try journal.entries()
        #expect(all == [e4, e3, e1, e5, e2])
        #expect(all.map(\.created.utcOffsetSeconds) == [-18_000, -18_000, 32_400, 32_400, -18_000])
    }

    @Test func onMatchesTheWritersLocalDay() throws {
        #expect(try names(query(on: day(2026, 1, 4))) == ["E4"])
        #expect(try names(query(on: day(2026, 1, 5))) == ["E3", "E1"])
        #expect(try names(query(on: day(2026, 1, 6))) == ["E5", "E2"])
        #expect(try names(query(on: day(2026, 1, 7))) == [])
    }

    @Test func runsOfDaysBoundByTheirFirstAndLastLocalDay() throws {
        var several = EntryQuery()
        several.on = day(2026, 1, 5)...day(2026, 1, 6)
        #expect(try names(several) == ["E3", "E1", "E5", "E2"])
        // As `from` a run starts on its first day; as `to` it ends with its last.
        let fourthToFifth = DateExpression.days(day(2026, 1, 4)...day(2026, 1, 5))
        #expect(try names(query(from: fourthToFifth)) == ["E4", "E3", "E1", "E5", "E2"])
        #expect(try names(query(to: fourthToFifth)) == ["E4", "E3", "E1"])
        #expect(try names(query(from: .days(day(2026, 1, 6)...day(2026, 1, 31)))) == ["E5", "E2"])
    }

    @Test func dayBoundsUseTheLocalDayAndToIsInclusive() throws {
        #expect(try names(query(from: .day(day(2026, 1, 5)))) == ["E3", "E1", "E5", "E2"])
        #expect(try names(query(to: .day(day(2026, 1, 5)))) == ["E4", "E3", "E1"])
        #expect(try names(query(from: .day(day(2026, 1, 5)), to: .day(day(2026, 1, 5)))) == ["E3", "E1"])
        #expect(try names(query(from: .day(day(2026, 1, 6)), to: .day(day(2026, 1, 4)))) == [])
        #expect(try names(query(to: .day(day(2026, 1, 3)))) == [])
    }

    @Test func instantBoundsUseTheExactMomentInclusively() throws {
        let e3Moment = moment(hoursAfterJan5UTC: 5.5, offsetHours: 0).millis
        // The bound's own offset does not matter: the same moment seen from Tokyo.
        #expect(try names(query(from: .instant(Instant(millis: e3Moment, utcOffsetSeconds: 32_400)))) == ["E3", "E1", "E5", "E2"])
        #expect(try names(query(from: .instant(Instant(millis: e3Moment + 1, utcOffsetSeconds: 0)))) == ["E1", "E5", "E2"])
        let e1Moment = moment(hoursAfterJan5UTC: 14.5, offsetHours: 0).millis
        #expect(try names(query(to: .instant(Instant(millis: e1Moment, utcOffsetSeconds: -18_000)))) == ["E4", "E3", "E1"])
        #expect(try names(query(to: .instant(Instant(millis: e1Moment - 1, utcOffsetSeconds: 0)))) == ["E4", "E3"])
    }

    @Test func dayAndInstantBoundsCombine() throws {
        let e5Moment = moment(hoursAfterJan5UTC: 23.5, offsetHours: 0)
        #expect(try names(query(from: .day(day(2026, 1, 6)), to: .instant(e5Moment))) == ["E5"])
        #expect(try names(query(from: .instant(e5Moment), to: .day(day(2026, 1, 6)))) == ["E5", "E2"])
        #expect(try names(query(from: .day(day(2026, 1, 5)), on: day(2026, 1, 6))) == ["E5", "E2"])
    }

    @Test func starredFilter() throws {
        #expect(try names(query(starred: true)) == ["E3", "E5"])
        #expect(try names(query(on: day(2026, 1, 5), starred: true)) == ["E3"])
    }

    @Test func tagsMatchInlineAndExplicitTagsInAnySpelling() throws {
        for spelling in ["travel", "Travel", "#TRAVEL", "@travel", " #travel "] {
            #expect(try names(query(tags: [spelling])) == ["E1", "E5"], "\(spelling)")
        }
        #expect(try names(query(tags: ["night"])) == ["E4", "E3"])
        #expect(try names(query(tags: ["@ANNA"])) == ["E3"])
        // E1 mentions the café in its text but not as a tag.
        for spelling in ["café", "CAFÉ", "cafe\u{301}", "#Caf\u{e9}"] {
            #expect(try names(query(tags: [spelling])) == ["E5"], "\(spelling)")
        }
        #expect(try names(query(tags: ["cafe"])) == [])
        #expect(try names(query(tags: ["nosuchtag"])) == [])
    }

    @Test func severalTagsMustAllMatch() throws {
        #expect(try names(query(tags: ["travel", "café"])) == ["E5"])
        #expect(try names(query(tags: ["travel", "night"])) == [])
        #expect(try names(query(starred: true, tags: ["night"])) == ["E3"])
    }

    @Test func invalidQueryTagIsRefused() {
        #expect(throws: VaultError.invalidTag("two words")) { try journal.entries(query(tags: ["two words"])) }
        #expect(throws: VaultError.invalidTag("#")) { try journal.entries(query(tags: ["#"])) }
    }

    @Test func containsIsCaseAndDiacriticInsensitive() throws {
        #expect(try names(query(contains: "CAFE")) == ["E1", "E5"])
        #expect(try names(query(contains: "café")) == ["E1", "E5"])
        #expect(try names(query(contains: "tokyo")) == ["E1", "E5"])
        #expect(try names(query(contains: "new york")) == ["E4", "E2"])
        #expect(try names(query(contains: "STRASSE")) == ["E2"])
        #expect(try names(query(contains: "zebra")) == [])
        #expect(try journal.searchEntries("NEW YORK").map(\.id) == [e4.id, e2.id])
        #expect(try journal.searchEntries("tokyo", in: query(on: day(2026, 1, 6))).map(\.id) == [e5.id])
    }

    @Test func limitReturnsTheNewestMatchesOldestFirst() throws {
        #expect(try names(query(limit: 2)) == ["E5", "E2"])
        #expect(try names(query(limit: 1)) == ["E2"])
        #expect(try names(query(limit: 0)) == [])
        #expect(try names(query(limit: 5)) == ["E4", "E3", "E1", "E5", "E2"])
        #expect(try names(query(limit: 100)) == ["E4", "E3", "E1", "E5", "E2"])
        // The limit counts matches, not rows looked at.
        #expect(try names(query(limit: 1, contains: "new york")) == ["E2"])
        #expect(try names(query(limit: 1, contains: "midnight")) == ["E3"])
        #expect(try names(query(on: day(2026, 1, 5), limit: 1)) == ["E1"])
        #expect(try names(query(limit: 2, starred: true)) == ["E3", "E5"])
        #expect(try names(query(limit: 1, tags: ["night"])) == ["E3"])
    }

    /// Day bounds also bound created_at by the widest offset (±18 h) so SQLite can walk the
    /// time index; entries at the very edges of a local-day range, written at the extreme
    /// offsets, must still be in it, and their neighbours outside it must not.
    @Test func dayRangeHoldsItsEdgesAtTheExtremeOffsets() throws {
        let widest = Instant.offsetRange.upperBound
        let jan5 = Int64(day(2026, 1, 5).daysSinceEpoch) * 86_400_000
        let jan7 = jan5 + 2 * 86_400_000
        func local(_ millis: Int64, offset: Int) -> Instant {
            Instant(millis: millis - Int64(offset) * 1000, utcOffsetSeconds: offset)
        }
        let edges = [
            ("in: first moment, east", local(jan5, offset: widest)),
            ("in: first moment, west", local(jan5, offset: -widest)),
            ("in: last moment, west", local(jan7 - 1, offset: -widest)),
            ("in: last moment, east", local(jan7 - 1, offset: widest)),
            ("out: before, west", local(jan5 - 1, offset: -widest)),
            ("out: after, east", local(jan7, offset: widest)),
        ]
        for (text, at) in edges { try journal.addEntry(text, at: at) }
        let found = try journal.entries(query(from: .day(day(2026, 1, 5)), to: .day(day(2026, 1, 6)))).map(\.content)
        #expect(Set(found.filter { $0.hasPrefix("in:") || $0.hasPrefix("out:") }) == Set(edges.map(\.0).filter { $0.hasPrefix("in:") }))
    }
}

/// Calendar counts read only plaintext columns: they work on a locked vault.
@Suite struct CalendarCountsTests {
    @Test func countsPerLocalDayOnALockedVault() throws {
        let vault = try TemporaryVault()
        try vault.journal.addEntries([
            (4.5, -5.0), (5.5, -5.0), (14.5, 9.0), (23.5, 9.0), (29.5, -5.0),
            // 2026-12-31 23:30 −10:00 is 2027-01-01 09:30 UTC: still 2026 for the writer.
            (Double(361 * 24) + 9.5, -10.0),
            // 2025-12-31 23:59 UTC.
            (-(96 + 1.0 / 60), 0.0),
        ].map { hours, offset in
            let created = moment(hoursAfterJan5UTC: hours, offsetHours: offset)
            return Entry(content: "x", created: created, modifiedAt: created.millis)
        })
        let locked = try Vault.open(at: vault.path)  // never unlocked
        let january = try locked.calendar(year: 2026, month: 1)
        #expect(january.year == 2026)
        #expect(january.month == 1)
        #expect(january.days == [day(2026, 1, 4): 1, day(2026, 1, 5): 2, day(2026, 1, 6): 2])
        #expect(january.range == day(2026, 1, 1)...day(2026, 1, 31))
        let year = try locked.calendar(year: 2026)
        #expect(year.month == nil)
        #expect(year.days == [day(2026, 1, 4): 1, day(2026, 1, 5): 2, day(2026, 1, 6): 2, day(2026, 12, 31): 1])
        #expect(year.range == day(2026, 1, 1)...day(2026, 12, 31))
        #expect(try locked.calendar(year: 2026, month: 12).days == [day(2026, 12, 31): 1])
        #expect(try locked.calendar(year: 2027).days == [:])
        #expect(try locked.calendar(year: 2025, month: 12).days == [day(2025, 12, 31): 1])
        #expect(try locked.calendar(year: 2026, month: 2).days == [:])
    }

    @Test func februaryRangeFollowsLeapYears() {
        #expect(CalendarCounts(year: 2024, month: 2, days: [:]).range.upperBound == day(2024, 2, 29))
        #expect(CalendarCounts(year: 2026, month: 2, days: [:]).range.upperBound == day(2026, 2, 28))
        #expect(CalendarCounts(year: 2000, month: 2, days: [:]).range.upperBound == day(2000, 2, 29))
        #expect(CalendarCounts(year: 2100, month: 2, days: [:]).range.upperBound == day(2100, 2, 28))
    }

    @Test func impossibleMonthIsRefused() throws {
        let vault = try TemporaryVault()
        for (year, month) in [(2026, 0), (2026, 13), (0, 1), (10_000, 1)] {
            #expect(throws: VaultError.self, "\(year)-\(month)") { try vault.vault.calendar(year: year, month: month) }
        }
    }

    @Test("only from and to leave a query selecting by dates alone (what the session agent answers); each other condition does not")
    func selectsByDatesOnly() throws {
        var dates = EntryQuery()
        (dates.from, dates.to) = (.day(CivilDay(year: 2026, month: 1, day: 1)!), .days(CivilDay(year: 2026, month: 2, day: 1)!...CivilDay(year: 2026, month: 2, day: 28)!))
        #expect(EntryQuery().selectsByDatesOnly && dates.selectsByDatesOnly)
        let conditions: [(String, (inout EntryQuery) throws -> Void)] = [
            ("on", { $0.on = CivilDay(year: 2026, month: 1, day: 5)!...CivilDay(year: 2026, month: 1, day: 5)! }),
            ("limit", { $0.limit = 10 }), ("starredOnly", { $0.starredOnly = true }), ("tags", { $0.tags = ["work"] }),
            ("anyTags", { $0.anyTags = ["work"] }), ("withoutTags", { $0.withoutTags = ["work"] }), ("contains", { $0.contains = "tea" }),
            ("onThisDay", { $0.onThisDay = CivilDay(year: 2026, month: 1, day: 5)! }),
            ("measureConditions", { $0.measureConditions = [try MeasureCondition.parse("mood>=7")] }),
        ]
        for (name, set) in conditions {
            var query = dates
            try set(&query)
            #expect(!query.selectsByDatesOnly, "\(name) is a condition besides the dates")
        }
        // A condition added to EntryQuery must be added above and to selectsByDatesOnly, or the
        // agent would answer for entries the condition leaves out.
        let properties = Set(Mirror(reflecting: EntryQuery()).children.compactMap(\.label))
        #expect(properties == Set(conditions.map(\.0) + ["from", "to"]), "EntryQuery's conditions changed: \(properties.sorted())")
    }
}

