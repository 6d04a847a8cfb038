// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@Suite("jv calendar", .tags(.e2e))
struct CalendarTests {
    private let noPassphrase: [String: String?] = ["JV_PASSPHRASE_FILE": nil]

    private static let fixture = Result {
        try Fixture { sandbox in
            try sandbox.add("one", ["--at", "2026-03-05T09:00"])
            try sandbox.add("two", ["--at", "2026-03-05T21:00"])
            try sandbox.add("three", ["--at", "2026-03-05T22:00"])
            // 2026-03-31T23:30-05:00 is April 1st in UTC: it belongs to March 31st, its writer's day.
            try sandbox.add("west", ["--at", "2026-03-31T23:30-05:00"])
            // 2026-04-01T00:30+09:00 is March 31st in UTC: it belongs to April 1st.
            try sandbox.add("east", ["--at", "2026-04-01T00:30+09:00"])
            try sandbox.add("other year", ["--at", "2025-03-05"])
            return [:]
        }
    }

    private func journal() throws -> Sandbox { try Sandbox(from: Self.fixture.get()) }

    @Test("calendar --json YYYY-MM counts entries per writer's local day, without a passphrase")
    func monthJSON() throws {
        let sandbox = try journal()
        let result = try sandbox.run(["calendar", "--json", "2026-03"], env: noPassphrase)
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        #expect(object["year"] as? Int == 2026)
        #expect(object["month"] as? Int == 3)
        let days = try #require(object["days"] as? [String: Int])
        #expect(days == ["2026-03-05": 3, "2026-03-31": 1])
        let april = try sandbox.run(["calendar", "--json", "2026-04"], env: noPassphrase).object()
        #expect(april["days"] as? [String: Int] == ["2026-04-01": 1])
    }

    @Test("calendar --json YYYY covers the whole year")
    func yearJSON() throws {
        let sandbox = try journal()
        let result = try sandbox.run(["calendar", "2026", "--json"], env: noPassphrase)
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        #expect(object["year"] as? Int == 2026)
        #expect(object["month"] == nil || object["month"] is NSNull)
        #expect(object["days"] as? [String: Int] == ["2026-03-05": 3, "2026-03-31": 1, "2026-04-01": 1])
    }

    @Test("the month grid marks days with entries and sums them up")
    func monthGrid() throws {
        let sandbox = try journal()
        let result = try sandbox.run(["calendar", "2026-03"], env: noPassphrase)
        #expect(result.status == 0, "\(result)")
        #expect(result.out.contains("March 2026"), "\(result)")
        #expect(result.out.contains("4 entries on 2 days"), "\(result)")
        #expect(result.out.contains("5³"), "the 5th carries its count: \(result)")
        #expect(result.out.contains("31¹"), "\(result)")
        let empty = try sandbox.run(["calendar", "2026-07"], env: noPassphrase)
        #expect(empty.out.contains("0 entries on 0 days"), "\(empty)")
    }

    @Test("the year heat map has a row per month")
    func yearHeatMap() throws {
        let sandbox = try journal()
        let result = try sandbox.run(["calendar", "2026"], env: noPassphrase)
        #expect(result.status == 0, "\(result)")
        for month in ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] {
            #expect(result.lines.contains { $0.hasPrefix(month) }, "\(month): \(result)")
        }
        #expect(result.out.contains("5 entries on 3 days"), "\(result)")
    }

    @Test("calendar works even with a wrong passphrase source around, and never unlocks")
    func noUnlock() throws {
        let sandbox = try journal()
        let wrong = try sandbox.folder.write("wrong.txt", "nope\n")
        let result = try sandbox.run(["calendar", "--json", "2025"], env: ["JV_PASSPHRASE_FILE": wrong])
        #expect(result.status == 0, "\(result)")
        #expect(try result.object()["days"] as? [String: Int] == ["2025-03-05": 1])
    }

    @Test("a malformed period exits 64", arguments: ["2026-13", "26-03", "2026-3", "March", "2026-03-05"])
    func badPeriod(period: String) throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let result = try sandbox.run(["calendar", period], env: noPassphrase)
        #expect(result.status == 64, "\(result)")
        #expect(result.out.isEmpty)
    }
}
