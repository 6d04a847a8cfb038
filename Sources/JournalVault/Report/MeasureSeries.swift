// SPDX-License-Identifier: Apache-2.0
/// One measure (a number the writer records, such as mood or hours slept) over a report's
/// period, from the entries' measures: the report draws each series as a line.
///
/// ```swift
/// let mood = MeasureSeries(name: "mood", lowest: 1, highest: 5,
///                          points: [.init(day: CivilDay(year: 2026, month: 1, day: 3)!, value: 4)])
/// ```
public struct MeasureSeries: Sendable, Hashable {
    /// One recorded value on a day.
    public struct Point: Sendable, Hashable {
        public var day: CivilDay
        public var value: Double

        public init(day: CivilDay, value: Double) {
            self.day = day
            self.value = value
        }
    }

    public var name: String
    /// The scale's bounds, when the measure has one (mood 1–5); else the chart spans the values.
    public var lowest: Double?
    public var highest: Double?
    /// Oldest first.
    public var points: [Point]

    public init(name: String, lowest: Double? = nil, highest: Double? = nil, points: [Point]) {
        self.name = name
        self.lowest = lowest
        self.highest = highest
        self.points = points
    }
}
