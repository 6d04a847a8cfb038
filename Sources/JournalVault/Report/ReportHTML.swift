// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A ``YearReport`` as one self-contained HTML page: the charts inline SVG (``SVGChart``), the
/// photos `data:` URIs, the style sheet in the page, no script at all. Its Content-Security-
/// Policy (`default-src 'none'; img-src data:; style-src 'unsafe-inline'`) keeps a browser
/// from fetching anything or running anything even if a bug let markup through; and none can:
/// every text from the journal (entries, tags, names, file names) is escaped (``MarkupText``).
///
/// ```swift
/// let html = ReportHTML.page(try journal.report(of: year, today: today))
/// try PrivateOutput.write(to: "report.html", replace: false) { put in try Array(html.utf8).withUnsafeBytes(put) }
/// ```
public enum ReportHTML {
    /// The policy the page declares, in a `meta` element before anything else it holds.
    public static let contentSecurityPolicy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    /// Names shown per month in the tags and people tables (and in `jv report --json`).
    public static let topPerMonth = 5
    /// Rows of the tags' and people's grids.
    static let topRows = 10
    /// Characters of an on-this-day entry shown (starred entries are shown whole).
    static let excerptLength = 600

    public static func page(_ report: YearReport) -> String {
        let title = "Journal · " + periodName(report.period)
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
            <meta name="referrer" content="no-referrer">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(MarkupText.escaped(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>\(MarkupText.escaped(title))</h1>
            <p class="note">\(report.period.lowerBound) – \(report.period.upperBound). This page holds decrypted journal text: keep it private.</p>
            \(figures(report.stats))
            </header>

            """
        html += section("calendar", "Calendar", calendar(report))
        let months = monthPoints(report.months)
        let words = Dictionary(report.stats.wordsPerMonth.map { ($0.month, $0.words) }, uniquingKeysWith: +)
        html += section("words", "Words per month",
                        SVGChart.bars(months.map { .init(key: $0.key, short: $0.short, value: Double(words[$0.key] ?? 0)) },
                                      label: "Words per month", unit: "words"))
        let entries = Dictionary(report.stats.perMonth.map { ($0.month, $0.entries) }, uniquingKeysWith: +)
        html += section("entries-per-month", "Entries per month",
                        SVGChart.bars(months.map { .init(key: $0.key, short: $0.short, value: Double(entries[$0.key] ?? 0)) },
                                      label: "Entries per month", unit: "entries"))
        html += section("weeks", "Entries per week", SVGChart.sparkline(weekPoints(report.weeks), label: "Entries per week", unit: "entries"))
        html += section("sentiment", "Sentiment per month", sentiment(report, months: months))
        html += section("tags", "Tags over time", names(report.tags, months: months, kind: "tags", unit: "entries"))
        html += section("people", "People over time", names(report.people, months: months, kind: "people", unit: "entries"))
        if !report.measures.isEmpty { html += section("measures", "Measures", measures(report.measures)) }
        html += section("on-this-day", "On this day, \(monthDay(report.onThisDayReference))", onThisDay(report))
        html += section("starred", "Starred entries", starred(report))
        html += section("photos", "Photos", photos(report))
        html += "<footer class=\"note\">Made by jv report: one file, no script, nothing fetched.</footer>\n</body>\n</html>\n"
        return html
    }

    // MARK: Sections

    private static func section(_ id: String, _ heading: String, _ content: String) -> String {
        "<section id=\"\(id)\">\n<h2>\(MarkupText.escaped(heading))</h2>\n\(content)\n</section>\n"
    }

    private static func figures(_ stats: JournalStats) -> String {
        let items = [("entries", stats.entries), ("words", stats.words), ("days written", stats.daysWritten),
                     ("longest streak (days)", stats.longestStreak)]
        return "<dl class=\"figures\">" + items.map { "<div><dt>\($0.0)</dt><dd data-value=\"\($0.1)\">\($0.1)</dd></div>" }.joined() + "</dl>"
    }

    /// A heat map per calendar year of the period, and the shades' legend.
    private static func calendar(_ report: YearReport) -> String {
        var maps: [String] = []
        for year in report.period.lowerBound.year...report.period.upperBound.year {
            let first = max(report.period.lowerBound, CivilDay(year: year, month: 1, day: 1)!)
            let last = min(report.period.upperBound, CivilDay(year: year, month: 12, day: 31)!)
            let map = SVGChart.heatMap(first...last, label: "Entries per day, \(year)") { day in
                report.days[day].map { ($0.entries, $0.words) } ?? (0, 0)
            }
            maps.append("<h3>\(year)</h3>\n<div class=\"chart\">\(map)</div>")
        }
        let legend = ["none", "1", "2", "3–4", "5+"].enumerated().map { "<span class=\"key level\($0.offset)\"></span>\($0.element)" }
        return maps.joined(separator: "\n") + "\n<p class=\"note legend\">Entries per day: " + legend.joined(separator: " ") + "</p>"
    }

    private static func sentiment(_ report: YearReport, months: [SVGChart.Point]) -> String {
        guard !report.stats.sentimentPerMonth.isEmpty else {
            return "<p class=\"note\">No entry of the period has a scored sentiment.</p>"
        }
        let means = Dictionary(report.stats.sentimentPerMonth.map { ($0.month, $0.mean) }, uniquingKeysWith: { first, _ in first })
        let chart = SVGChart.line(months.map { .init(key: $0.key, short: $0.short, value: means[$0.key]) }, lowest: -1, highest: 1,
                                  label: "Mean sentiment per month, from -1 to 1", unit: "mean sentiment")
        return "<div class=\"chart\">\(chart)</div>\n<p class=\"note\">The mean per month of each entry's newest analysis: −1 negative … +1 positive.</p>"
    }

    /// A grid of the most frequent names over the months, and each month's top names.
    private static func names(_ counts: NameCounts, months: [SVGChart.Point], kind: String, unit: String) -> String {
        let rows = counts.top(topRows)
        guard !rows.isEmpty else { return "<p class=\"note\">No \(kind) in this period.</p>" }
        var html = "<div class=\"chart\">" + SVGChart.grid(rows, columns: months, label: "\(kind.capitalized) over time", unit: unit) + "</div>\n"
        html += "<table class=\"tops\">\n"
        for (index, month) in counts.months.enumerated() {
            let top = counts.top(topPerMonth, inMonth: index)
            guard !top.isEmpty else { continue }
            let cells = top.map { "<span class=\"name\">\(MarkupText.escaped($0.name))</span> <span class=\"count\">\($0.count)</span>" }
            html += "<tr><th>\(month)</th><td>\(cells.joined(separator: " · "))</td></tr>\n"
        }
        return html + "</table>"
    }

    private static func measures(_ series: [MeasureSeries]) -> String {
        series.map { measure in
            let values = measure.points.map(\.value)
            let lowest = measure.lowest ?? min(values.min() ?? 0, 0), highest = measure.highest ?? max(values.max() ?? 1, lowest + 1)
            let chart = SVGChart.line(measure.points.map { .init(key: $0.day.description, short: "", value: $0.value) },
                                      lowest: lowest, highest: highest, label: measure.name, unit: measure.name)
            return "<h3>\(MarkupText.escaped(measure.name))</h3>\n<div class=\"chart\">\(chart)</div>"
        }.joined(separator: "\n")
    }

    private static func onThisDay(_ report: YearReport) -> String {
        guard !report.onThisDay.isEmpty else {
            return "<p class=\"note\">No entry of \(monthDay(report.onThisDayReference)) in the years before \(report.onThisDayReference.year).</p>"
        }
        return report.onThisDay.map { entry(_: $0, excerpt: true) }.joined(separator: "\n")
    }

    private static func starred(_ report: YearReport) -> String {
        guard !report.starred.isEmpty else { return "<p class=\"note\">No starred entry in this period.</p>" }
        var html = report.starred.map { entry(_: $0, excerpt: false) }.joined(separator: "\n")
        if report.starredLeftOut > 0 {
            html += "\n<p class=\"note\">\(report.starredLeftOut) more starred \(report.starredLeftOut == 1 ? "entry" : "entries") "
                + "of the period not shown (the first \(YearReport.starredLimit) are).</p>"
        }
        return html
    }

    private static func photos(_ report: YearReport) -> String {
        guard !report.photos.isEmpty else { return "<p class=\"note\">No photo in this period.</p>" }
        var html = "<div class=\"photos\">\n" + report.photos.map { photo in
            "<figure><img src=\"data:\(photo.mediaType);base64,\(Data(photo.bytes).base64EncodedString())\" alt=\"\(MarkupText.escaped(photo.name))\">"
                + "<figcaption>\(photo.day)</figcaption></figure>"
        }.joined(separator: "\n") + "\n</div>"
        if report.photosLeftOut > 0 {
            html += "\n<p class=\"note\">\(report.photosLeftOut) more \(report.photosLeftOut == 1 ? "image" : "images") not shown.</p>"
        }
        return html
    }

    /// An entry: its day (and star), its text whole or its first ``excerptLength`` characters.
    private static func entry(_ entry: Entry, excerpt: Bool) -> String {
        let text = excerpt && entry.content.count > excerptLength ? entry.content.prefix(excerptLength) + "…" : entry.content
        let tags = entry.tags.isEmpty ? "" : "\n<p class=\"tags\">" + entry.tags.map { "#" + MarkupText.escaped($0) }.joined(separator: " ") + "</p>"
        return "<article class=\"entry\"><h3><time datetime=\"\(entry.localDay)\">\(entry.localDay)</time>\(entry.starred ? " ★" : "")</h3>\n"
            + "<div class=\"text\">\(MarkupText.escaped(String(text)))</div>\(tags)</article>"
    }

    // MARK: Labels

    /// `2026` for a whole year, else `2026-03-01 – 2026-06-30`.
    static func periodName(_ period: ClosedRange<CivilDay>) -> String {
        let (first, last) = (period.lowerBound, period.upperBound)
        if first.year == last.year, first.month == 1, first.day == 1, last.month == 12, last.day == 31 { return String(first.year) }
        return "\(first) – \(last)"
    }

    private static func monthDay(_ day: CivilDay) -> String {
        "\(SVGChart.monthNames[day.month - 1]) \(day.day)"
    }

    /// The months as chart points: each labelled with its name, in a period of more than two
    /// years only January, labelled with its year.
    private static func monthPoints(_ months: [String]) -> [SVGChart.Point] {
        months.map { key in
            let month = Int(key.suffix(2)) ?? 1
            let short = months.count > 24 ? (month == 1 ? String(key.prefix(4)) : "") : SVGChart.monthNames[month - 1]
            return SVGChart.Point(key: key, short: short, value: nil)
        }
    }

    /// The weeks as chart points, each labelled with its month's name when its Monday is in the
    /// month's first seven days (not in a period of more than two years).
    private static func weekPoints(_ weeks: [(week: String, monday: CivilDay, entries: Int)]) -> [SVGChart.Point] {
        weeks.map { week in
            let labelled = week.monday.day <= 7 && weeks.count <= 110
            return SVGChart.Point(key: week.week, short: labelled ? SVGChart.monthNames[week.monday.month - 1] : "", value: Double(week.entries))
        }
    }

    private static let style = """
        body{font:15px/1.5 system-ui,sans-serif;color:#1d2125;background:#fafaf7;max-width:800px;margin:0 auto;padding:24px}\
        h1{font-size:28px;margin:0 0 4px}h2{font-size:20px;margin:32px 0 8px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:12px 0 4px}\
        .note{color:#5f6b76;font-size:13px}.figures{display:flex;gap:24px;margin:16px 0}.figures div{display:flex;flex-direction:column-reverse}\
        .figures dt{color:#5f6b76;font-size:13px}.figures dd{margin:0;font-size:24px;font-weight:600}\
        .chart{overflow-x:auto}svg{max-width:100%;height:auto}svg text{font:10px system-ui,sans-serif;fill:#5f6b76}svg text.name{font-size:12px;fill:#1d2125}\
        .bar{fill:#3f8f6b}.line{fill:none;stroke:#3f6f8f;stroke-width:2}.point{fill:#3f6f8f}.rule{stroke:#bbb;stroke-dasharray:4 3}.cell{fill:#8f3f6f}\
        .level0{fill:#e8eae6}.level1{fill:#b9dfc4}.level2{fill:#7fc497}.level3{fill:#3f9f6b}.level4{fill:#1f6f45}\
        .key{display:inline-block;width:11px;height:11px;margin:0 3px 0 8px;vertical-align:middle;border-radius:2px}\
        span.level0{background:#e8eae6}span.level1{background:#b9dfc4}span.level2{background:#7fc497}span.level3{background:#3f9f6b}span.level4{background:#1f6f45}\
        .tops{border-collapse:collapse;font-size:13px}.tops th{text-align:left;padding:2px 12px 2px 0;color:#5f6b76;font-weight:500}.tops .count{color:#5f6b76}\
        .entry{background:#fff;border:1px solid #e2e2dc;border-radius:6px;padding:8px 14px;margin:10px 0}.entry h3{color:#5f6b76;font-weight:500}\
        .entry .text{white-space:pre-wrap;overflow-wrap:anywhere}.tags{color:#3f6f8f;font-size:13px;margin:4px 0}\
        .photos{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}\
        footer{margin-top:32px}figure{margin:0}figure img{width:100%;height:150px;object-fit:cover;border-radius:4px;display:block}figcaption{font-size:12px;color:#5f6b76}
        """
}
