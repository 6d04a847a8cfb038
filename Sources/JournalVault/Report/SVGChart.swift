// SPDX-License-Identifier: Apache-2.0
/// The report's charts, drawn with ``SVGWriter``: bars, a sparkline, a line between two bounds,
/// a calendar heat map and a grid of counts. Each mark carries its number in `data-value` (and
/// its month, week or day in `data-label` or `data-day`) and a tooltip; colours come from the
/// page's style sheet through classes (`bar`, `level0`…`level4`, `line`, `point`, `cell`).
///
/// ```swift
/// let svg = SVGChart.bars([.init(key: "2026-01", short: "Jan", value: 310)], label: "Words per month", unit: "words")
/// ```
public enum SVGChart {
    /// One mark: its key (`2026-01`, `2026-W05`), the short label under it (`Jan`, or empty),
    /// and its value (nil: none, as a month without a sentiment).
    public struct Point: Sendable, Hashable {
        public var key: String
        public var short: String
        public var value: Double?

        public init(key: String, short: String, value: Double?) {
            self.key = key
            self.short = short
            self.value = value
        }
    }

    /// The width every chart is drawn at (the page scales it down on a narrow screen).
    public static let width = 760.0

    /// Vertical bars scaled to the largest value, a short label under each.
    public static func bars(_ points: [Point], label: String, unit: String) -> String {
        let height = 150.0, top = 14.0, bottom = 18.0
        var svg = SVGWriter(width: width, height: height, label: label)
        let most = max(points.compactMap(\.value).max() ?? 0, 1)
        let step = width / Double(max(points.count, 1))
        for (index, point) in points.enumerated() {
            let value = point.value ?? 0
            let barHeight = (height - top - bottom) * value / most
            let x = Double(index) * step
            svg.element("rect", ["class": "bar", "x": .number(x + step * 0.1), "y": .number(height - bottom - barHeight),
                                 "width": .number(step * 0.8), "height": .number(barHeight),
                                 "data-label": .text(point.key), "data-value": .number(value)],
                        title: "\(point.key): \(SVGWriter.number(value)) \(unit)")
            if value == most, value > 0 {
                svg.text(SVGWriter.number(value), ["class": "note", "x": .number(x + step / 2), "y": .number(height - bottom - barHeight - 3),
                                                   "text-anchor": "middle"])
            }
            svg.text(point.short, ["class": "axis", "x": .number(x + step / 2), "y": .number(height - 4), "text-anchor": "middle"])
        }
        return svg.markup
    }

    /// A line through every point from 0 to the largest value, a dot on each: a sparkline.
    public static func sparkline(_ points: [Point], label: String, unit: String) -> String {
        let most = max(points.compactMap(\.value).max() ?? 0, 1)
        return line(points, lowest: 0, highest: most, label: label, unit: unit, height: 70)
    }

    /// A line between `lowest` and `highest` (a dashed rule at 0 when it lies between them),
    /// broken where a point has no value; a dot with the value on each point that has one.
    public static func line(_ points: [Point], lowest: Double, highest: Double, label: String, unit: String,
                            height: Double = 130) -> String {
        let top = 6.0, bottom = 18.0
        var svg = SVGWriter(width: width, height: height, label: label)
        let step = width / Double(max(points.count, 1))
        func y(_ value: Double) -> Double {
            let span = highest - lowest
            let share = span > 0 ? (min(max(value, lowest), highest) - lowest) / span : 0
            return height - bottom - (height - top - bottom) * share
        }
        if lowest < 0, highest > 0 {
            svg.element("line", ["class": "rule", "x1": 0, "x2": .number(width), "y1": .number(y(0)), "y2": .number(y(0))])
        }
        var run: [String] = []
        func endRun() {
            if run.count > 1 { svg.element("polyline", ["class": "line", "points": .text(run.joined(separator: " "))]) }
            run = []
        }
        for (index, point) in points.enumerated() {
            guard let value = point.value else {
                endRun()
                continue
            }
            let x = (Double(index) + 0.5) * step
            run.append("\(SVGWriter.number(x)),\(SVGWriter.number(y(value)))")
        }
        endRun()
        for (index, point) in points.enumerated() {
            let x = (Double(index) + 0.5) * step
            if let value = point.value {
                svg.element("circle", ["class": "point", "cx": .number(x), "cy": .number(y(value)), "r": 2.5,
                                       "data-label": .text(point.key), "data-value": .number(value)],
                            title: "\(point.key): \(SVGWriter.number(value)) \(unit)")
            }
            if !point.short.isEmpty {
                svg.text(point.short, ["class": "axis", "x": .number(x), "y": .number(height - 4), "text-anchor": "middle"])
            }
        }
        return svg.markup
    }

    /// One calendar year's part of `days` as a grid of weeks (columns, Monday on top) and
    /// weekdays (rows), each day shaded by its entries as `jv calendar` shades them — none, 1,
    /// 2, 3–4, 5 or more — with its entries in `data-value` and its words in `data-words`.
    public static func heatMap(_ days: ClosedRange<CivilDay>, label: String, count: (CivilDay) -> (entries: Int, words: Int)) -> String {
        let cell = 13.0, gap = 2.0, left = 28.0, top = 16.0
        let firstMonday = ISOWeek.monday(of: days.lowerBound)
        let weeks = (ISOWeek.monday(of: days.upperBound).daysSinceEpoch - firstMonday.daysSinceEpoch) / 7 + 1
        var svg = SVGWriter(width: left + Double(weeks) * (cell + gap), height: top + 7 * (cell + gap), label: label)
        for (row, name) in ["Mon", "", "Wed", "", "Fri", "", "Sun"].enumerated() where !name.isEmpty {
            svg.text(name, ["class": "axis", "x": 0, "y": .number(top + Double(row) * (cell + gap) + cell - 2)])
        }
        var day = days.lowerBound
        while day <= days.upperBound {
            let column = Double((day.daysSinceEpoch - firstMonday.daysSinceEpoch) / 7)
            let x = left + column * (cell + gap)
            if day.day == 1 || day == days.lowerBound {
                svg.text(monthNames[day.month - 1], ["class": "axis", "x": .number(x), "y": 11])
            }
            let (entries, words) = count(day)
            svg.element("rect", ["class": .text("level\(level(entries))"), "x": .number(x),
                                 "y": .number(top + Double(day.isoWeekday - 1) * (cell + gap)), "width": .number(cell),
                                 "height": .number(cell), "rx": 2, "data-day": .text(day.description),
                                 "data-value": .number(Double(entries)), "data-words": .number(Double(words))],
                        title: "\(day): \(counted(entries, "entry", "entries")), \(counted(words, "word", "words"))")
            day = day.adding(days: 1)
        }
        return svg.markup
    }

    /// Rows of named counts over `columns`: each name on the left, each count a cell whose
    /// opacity grows with it (against the largest count of the grid).
    public static func grid(_ rows: [(name: String, counts: [Int])], columns: [Point], label: String, unit: String) -> String {
        let nameWidth = 150.0, cellHeight = 18.0, bottom = 18.0
        var svg = SVGWriter(width: width, height: Double(rows.count) * cellHeight + bottom, label: label)
        let step = (width - nameWidth) / Double(max(columns.count, 1))
        let most = Double(max(rows.flatMap(\.counts).max() ?? 0, 1))
        for (index, row) in rows.enumerated() {
            let y = Double(index) * cellHeight
            svg.text(row.name, ["class": "name", "x": 0, "y": .number(y + cellHeight - 5)])
            for (column, count) in row.counts.enumerated() where column < columns.count {
                svg.element("rect", ["class": "cell", "x": .number(nameWidth + Double(column) * step + 1), "y": .number(y + 1),
                                     "width": .number(max(step - 2, 1)), "height": .number(cellHeight - 2),
                                     "fill-opacity": .number(count == 0 ? 0.06 : 0.2 + 0.8 * Double(count) / most),
                                     "data-label": .text(columns[column].key), "data-value": .number(Double(count))],
                            title: "\(row.name), \(columns[column].key): \(count) \(unit)")
            }
        }
        for (column, point) in columns.enumerated() where !point.short.isEmpty {
            svg.text(point.short, ["class": "axis", "x": .number(nameWidth + (Double(column) + 0.5) * step),
                                   "y": .number(Double(rows.count) * cellHeight + bottom - 4), "text-anchor": "middle"])
        }
        return svg.markup
    }

    /// The three-letter month names the charts label months with (`Jan` for 1).
    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// A heat map's shade for a day's entries: 0 none, 1, 2, 3 for 3–4, 4 for 5 or more.
    static func level(_ entries: Int) -> Int {
        switch entries {
        case ...0: 0
        case 1: 1
        case 2: 2
        case 3...4: 3
        default: 4
        }
    }

    private static func counted(_ count: Int, _ one: String, _ many: String) -> String {
        "\(count) \(count == 1 ? one : many)"
    }
}
