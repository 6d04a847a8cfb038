// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import JournalVault
import Testing

/// The date options (`--at`, `--from`/`--to`, `--on`, `--on-this-day`) as the commands read them.
/// ISO dates only here: they read the same in every date order and locale.
@Suite("Date arguments", .tags(.inProcess))
struct DateArgumentTests {
    @Test("A date alone for --at is 09:00 that day, as in jrnl; a date and time is that moment")
    func instants() throws {
        let morning = try #require(try DateArgument.instant("2026-11-22"))
        #expect(morning.localDay.description == "2026-11-22")
        #expect(morning.timeOfDayText == "09:00")
        let evening = try #require(try DateArgument.instant("2026-11-22 21:15"))
        #expect(evening.minuteText == "2026-11-22 21:15")
        #expect(try DateArgument.instant(nil) == nil)
    }

    @Test("--on takes a day or a run of days; --at and --on-this-day one day only")
    func days() throws {
        let month = try #require(try DateArgument.days("2026-02"))
        #expect(month.lowerBound.description == "2026-02-01" && month.upperBound.description == "2026-02-28")
        #expect(try DateArgument.day("2026-11-22")?.description == "2026-11-22")
        #expect(usageRefusal { try DateArgument.instant("2026-11") } == "'2026-11' names several days; give one day or a moment here.")
    }

    @Test("--from after --to is refused rather than answered with nothing")
    func reversedRange() throws {
        #expect(usageRefusal { try DateArgument.range(from: "2026-11-20", to: "2026-11-01") }
                == "--from 2026-11-20 is after --to 2026-11-01; give the earlier date first.")
        // A run of days reaches its last day: a range within one month is not reversed.
        let range = try DateArgument.range(from: "2026-11", to: "2026-11-15")
        #expect(range.from != nil && range.to != nil)
        #expect(usageRefusal { try DateArgument.range(from: "2026-12", to: "2026-11-30") }
                == "--from 2026-12 is after --to 2026-11-30; give the earlier date first.")
    }

    @Test("Words before ': ' that look like a date jv did not read are noticed; a title is not")
    func unreadDates() {
        #expect(DateArgument.looksLikeAnUnreadDate("next friday: dinner at Anna's"))
        #expect(DateArgument.looksLikeAnUnreadDate("5.11.2026: the harbour"))
        #expect(!DateArgument.looksLikeAnUnreadDate("Note to self: buy milk"))
        #expect(!DateArgument.looksLikeAnUnreadDate("A long walk: nothing to report"))
    }
}
