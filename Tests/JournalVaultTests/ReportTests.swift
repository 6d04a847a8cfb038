// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

// `jv report`'s library side: the SVG writer's escaping and numbers, the charts' marks, the
// report's aggregates from one walk, and the page's escaping of hostile entry text.

@Suite("SVGWriter and SVGChart")
struct SVGWriterTests {
    @Test("numbers are written with a point, at most two decimals, no exponent, no minus zero")
    func numbers() {
        let cases: [(Double, String)] = [(0, "0"), (12, "12"), (-3, "-3"), (0.5, "0.5"), (0.05, "0.05"), (1234.5678, "1234.57"),
                                         (2.999, "3"), (-0.001, "0"), (-0.75, "-0.75"), (1_000_000, "1000000"),
                                         (.nan, "0"), (.infinity, "0"), (1e20, "0"), (0.1 + 0.2, "0.3")]
        for (value, written) in cases {
            #expect(SVGWriter.number(value) == written, "\(value)")
        }
    }

    @Test("attribute values and texts are escaped; attributes are written in name order")
    func escaping() {
        var svg = SVGWriter(width: 10, height: 5, label: "a \"label\" <b>")
        svg.element("rect", ["y": 1.25, "x": 0, "data-label": .text("\"><script>alert(1)</script>")], title: "</title><g onload=x>")
        svg.text("Tom & Jerry's <tag>", ["x": 1])
        let markup = svg.markup
        #expect(markup.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"5\" viewBox=\"0 0 10 5\" role=\"img\" aria-label=\"a &quot;label&quot; &lt;b&gt;\">"))
        #expect(markup.contains("<rect data-label=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\" x=\"0\" y=\"1.25\"><title>&lt;/title&gt;&lt;g onload=x&gt;</title></rect>"), "\(markup)")
        #expect(markup.contains("<text x=\"1\">Tom &amp; Jerry&#39;s &lt;tag&gt;</text>"))
        #expect(!markup.contains("<script") && !markup.contains("<g "))
    }

    @Test("bars carry each value in data-value, scaled to the largest; the largest is labelled")
    func bars() throws {
        let svg = SVGChart.bars([.init(key: "2026-01", short: "Jan", value: 100), .init(key: "2026-02", short: "Feb", value: 25),
                                 .init(key: "2026-03", short: "Mar", value: nil)], label: "Words", unit: "words")
        let values = svg.matches(of: /data-label="([0-9-]+)" data-value="([0-9.]+)"/).map { "\($0.output.1)=\($0.output.2)" }
        #expect(values == ["2026-01=100", "2026-02=25", "2026-03=0"])
        let heights = svg.matches(of: /height="([0-9.]+)" width/).compactMap { Double($0.output.1) }
        #expect(heights.count == 3 && heights[0] == 4 * heights[1] && heights[2] == 0, "\(heights)")
        #expect(svg.contains(">Jan</text>") && svg.contains("<title>2026-02: 25 words</title>"))
    }

    @Test("the heat map has one cell per day of the period, shaded as jv calendar shades entries")
    func heatMap() {
        let first = CivilDay(year: 2026, month: 2, day: 1)!, last = CivilDay(year: 2026, month: 3, day: 31)!
        let svg = SVGChart.heatMap(first...last, label: "Entries") { day in
            day.month == 3 && day.day <= 6 ? (day.day - 1, 10 * day.day) : (0, 0)
        }
        let cells = svg.matches(of: /class="level(\d)" data-day="([0-9-]+)" data-value="(\d+)" data-words="(\d+)"/)
        #expect(cells.count == 28 + 31)
        let march = cells.filter { $0.output.2.hasPrefix("2026-03-0") && Int($0.output.2.suffix(1))! <= 6 }
        #expect(march.map { String($0.output.1) } == ["0", "1", "2", "3", "3", "4"], "0, 1, 2, 3–4, 5+")
        #expect(march.map { String($0.output.4) } == ["10", "20", "30", "40", "50", "60"])
        #expect(svg.contains(">Feb</text>") && svg.contains(">Mar</text>"))
    }

    @Test("a line breaks where a point has no value, and marks a rule at 0 between -1 and 1")
    func line() {
        let svg = SVGChart.line([.init(key: "a", short: "", value: -1), .init(key: "b", short: "", value: 1),
                                 .init(key: "c", short: "", value: nil), .init(key: "d", short: "", value: 0.5)],
                                lowest: -1, highest: 1, label: "Sentiment", unit: "mean")
        #expect(svg.matches(of: /<polyline/).count == 1, "one run of two points; the lone last point is a dot only")
        #expect(svg.matches(of: /<circle/).count == 3 && svg.contains("class=\"rule\""))
        #expect(svg.contains("data-label=\"d\" data-value=\"0.5\""))
    }
}

@Suite("MarkupText")
struct MarkupTextTests {
    @Test("markup characters become references; controls and noncharacters become U+FFFD; tab and newlines stay")
    func escaped() {
        #expect(MarkupText.escaped("</script><script>alert('x')</script>") == "&lt;/script&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
        #expect(MarkupText.escaped("<img src=x onerror=\"alert(1)\">") == "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;")
        #expect(MarkupText.escaped("a&amp;b") == "a&amp;amp;b")
        #expect(MarkupText.escaped("bell\u{07} esc\u{1B}[31m del\u{7F} csi\u{9B} nul\u{0}") == "bell\u{FFFD} esc\u{FFFD}[31m del\u{FFFD} csi\u{FFFD} nul\u{FFFD}")
        let noncharacters = String(String.UnicodeScalarView([0xFDD0, 0xFFFE, 0x1FFFF].compactMap(Unicode.Scalar.init)))
        #expect(noncharacters.unicodeScalars.count == 3 && MarkupText.escaped(noncharacters) == "\u{FFFD}\u{FFFD}\u{FFFD}")
        #expect(MarkupText.escaped("tab\there\nnext\r\nline, café 😀") == "tab\there\nnext\r\nline, café 😀")
    }
}

@Suite("YearReport")
struct YearReportTests {
    private static func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDay { CivilDay(year: year, month: month, day: day)! }

    private static func moment(_ day: CivilDay, hour: Int = 9) -> Instant {
        Instant(millis: Instant.startOf(day, utcOffsetSeconds: 0).millis + Int64(hour) * 3_600_000, utcOffsetSeconds: 0)
    }

    private static let year2026 = day(2026, 1, 1)...day(2026, 12, 31)
    private static let hostile = "Title </script><script>alert(1)</script>\n<img src=x onerror=alert(2)> & \u{1B}[2J \"quoted\" 'single'"

    /// 2026: three entries in March (one starred and hostile), one in May with a photo and a
    /// person; 2024 and 2025: entries on May 10th (on this day for a report made on 2026-05-10);
    /// 2027: an entry outside the period.
    private static func vault() throws -> (TemporaryVault, [String: UUID]) {
        let vault = try TemporaryVault()
        let journal = vault.journal
        var ids: [String: UUID] = [:]
        ids["march1"] = try journal.addEntry("One two three #work", at: moment(day(2026, 3, 1))).id
        ids["march1b"] = try journal.addEntry("Four five @anna #work", at: moment(day(2026, 3, 1), hour: 18)).id
        ids["hostile"] = try journal.addEntry(hostile, at: moment(day(2026, 3, 20)), starred: true, tags: ["home"]).id
        let photo = try vault.folder.write("ridge.jpg", Data([0xFF, 0xD8, 0xFF, 0xD9]))
        let (may, _) = try journal.addEntry("A walk on the ridge with Anna.", at: moment(day(2026, 5, 2)),
                                            attaching: [.file(photo, media: AttachmentMedia(mediaType: "image/jpeg"), thumbnail: [1, 2, 3, 250])])
        ids["may"] = may.id
        try journal.addAnalysis(Analysis(entryID: may.id, model: "m", processedAt: moment(day(2026, 5, 3)), sentiment: "positive"),
                                relations: [RelationDraft(from: NodeReference(type: "person", name: "Anna"),
                                                          to: NodeReference(type: "place", name: "Ridge"), type: "visited", strength: 0.9)])
        try journal.addAnalysis(Analysis(entryID: ids["march1"]!, model: "m", processedAt: moment(day(2026, 3, 2)), sentiment: "-0.5"))
        ids["2025"] = try journal.addEntry("A year ago today.", at: moment(day(2025, 5, 10))).id
        ids["2024"] = try journal.addEntry("Two years ago today.", at: moment(day(2024, 5, 10))).id
        ids["2027"] = try journal.addEntry("Next year #work", at: moment(day(2027, 1, 1)), starred: true).id
        return (vault, ids)
    }

    @Test("one walk gives jv stats's figures, the days, tags, people, starred entries, on-this-day and photos of the period only")
    func aggregates() throws {
        let (vault, ids) = try Self.vault()
        let today = Self.day(2026, 5, 10)
        let report = try vault.journal.report(of: Self.year2026, today: today)
        var query = EntryQuery()
        (query.from, query.to) = (.day(Self.year2026.lowerBound), .day(Self.year2026.upperBound))
        let stats = try vault.journal.stats(query, today: today)
        #expect(report.stats.entries == stats.entries && report.stats.words == stats.words && report.stats.entries == 4)
        #expect(report.stats.wordsPerMonth.map(\.words) == stats.wordsPerMonth.map(\.words))
        #expect(report.stats.sentimentPerMonth.map(\.mean) == [-0.5, 1])
        #expect(report.months.count == 12 && report.months.first == "2026-01" && report.months.last == "2026-12")
        #expect(report.days[Self.day(2026, 3, 1)] == YearReport.Day(entries: 2, words: 8))
        #expect(report.days.count == 3)
        #expect(report.weeks.count == 53 && report.weeks.first?.week == "2026-W01" && report.weeks.last?.week == "2026-W53")
        #expect(report.weeks.map(\.entries).reduce(0, +) == 4)
        #expect(report.tags.top(5).map(\.name) == ["work", "anna", "home"])
        #expect(report.tags.top(5).first?.counts[2] == 2, "work twice in March")
        #expect(report.tags.top(1, inMonth: 2).map(\.name) == ["work"])
        #expect(report.people.top(5).map(\.name) == ["Anna"] && report.people.top(1, inMonth: 4).first?.count == 1,
                "the person node of the May entry's relation; the place is no person")
        #expect(report.starred.map(\.id) == [ids["hostile"]!] && report.starredLeftOut == 0, "2027's starred entry is outside")
        #expect(report.onThisDayReference == today && report.onThisDay.map(\.id) == [ids["2025"]!, ids["2024"]!])
        #expect(report.photos == [YearReport.Photo(day: Self.day(2026, 5, 2), name: "ridge.jpg", mediaType: "image/jpeg", bytes: [1, 2, 3, 250])])
        #expect(report.measures.isEmpty)
    }

    @Test("on this day looks back from the period's last day when the period does not hold today; a tiny image without a thumbnail is shown itself")
    func pastPeriod() throws {
        let (vault, _) = try Self.vault()
        let entry = try vault.journal.addEntry("Another photo.", at: Self.moment(Self.day(2026, 6, 1)))
        let png = try vault.folder.write("dot.png", Data([0x89, 0x50, 0x4E, 0x47]))
        let big = try vault.folder.write("big.png", Data(count: Int(YearReport.tinyImage) + 1))
        try vault.journal.attach([.file(png, media: AttachmentMedia(mediaType: "image/png")),
                                  .file(big, media: AttachmentMedia(mediaType: "image/png"))], to: entry.id)
        let report = try vault.journal.report(of: Self.year2026, today: Self.day(2030, 1, 1))
        #expect(report.onThisDayReference == Self.day(2026, 12, 31) && report.onThisDay.isEmpty)
        #expect(report.photos.map(\.name) == ["ridge.jpg", "dot.png"] && report.photosLeftOut == 1)
        #expect(report.photos.last?.bytes == [0x89, 0x50, 0x4E, 0x47] && report.photos.last?.mediaType == "image/png")
    }

    @Test("spread keeps the first and the last and spaces the rest evenly")
    func spread() {
        #expect(UnlockedVault.spread(Array(0..<10), keeping: 4) == [0, 3, 6, 9])
        #expect(UnlockedVault.spread(Array(0..<3), keeping: 4) == [0, 1, 2])
        #expect(UnlockedVault.spread(Array(0..<5), keeping: 1) == [0])
    }

    @Test("the page escapes hostile entry text, declares the strict policy first, and fetches nothing")
    func hostileText() throws {
        let (vault, _) = try Self.vault()
        let page = ReportHTML.page(try vault.journal.report(of: Self.year2026, today: Self.day(2026, 5, 10)))
        let head = try #require(page.range(of: "<head>\n<meta charset=\"utf-8\">\n"))
        #expect(page[head.upperBound...].hasPrefix("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">"))
        #expect(!page.contains("<script") && !page.contains("<img src=x") && !page.contains("\u{1B}"))
        #expect(page.contains("Title &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;img src=x onerror=alert(2)&gt; &amp; \u{FFFD}[2J &quot;quoted&quot; &#39;single&#39;"))
        // Every src and href is a data: URI; the only URL is the SVG namespace, which names and fetches nothing.
        let sources = page.matches(of: /(?:src|href)="([^"]*)"/).map { String($0.output.1) }
        #expect(sources.count == 1 && sources.allSatisfy { $0.hasPrefix("data:image/jpeg;base64,") }, "\(sources)")
        #expect(sources.first == "data:image/jpeg;base64," + Data([1, 2, 3, 250]).base64EncodedString())
        #expect(Set(page.matches(of: /https?:\/\/[^"]*/).map { String($0.output) }) == ["http://www.w3.org/2000/svg"])
        #expect(!page.contains("@import") && !page.contains("url("))
        #expect(page.contains("<figcaption>2026-05-02</figcaption>") && page.contains("A year ago today."))
    }

    @Test("a report's measure series are drawn in a Measures section; without one there is none")
    func measures() throws {
        let (vault, _) = try Self.vault()
        var report = try vault.journal.report(of: Self.year2026, today: Self.day(2026, 5, 10))
        let start = Self.year2026.lowerBound
        report.measures = [MeasureSeries(name: "mood <1–5>", lowest: 1, highest: 5,
                                         points: [.init(day: start, value: 4), .init(day: start.adding(days: 1), value: 2)])]
        #expect(report.measures.map(\.points.count) == [2])
        let page = ReportHTML.page(report)
        let section = try #require(page.range(of: "<section id=\"measures\">"))
        #expect(page[section.upperBound...].hasPrefix("\n<h2>Measures</h2>\n<h3>mood &lt;1–5&gt;</h3>"))
        #expect(page.contains("data-label=\"2026-01-01\" data-value=\"4\"") && page.contains("data-label=\"2026-01-02\" data-value=\"2\""))
        #expect(!ReportHTML.page(try vault.journal.report(of: Self.year2026, today: Self.day(2026, 5, 10))).contains("id=\"measures\""))
    }
}
