// SPDX-License-Identifier: Apache-2.0
/// Where a report's measures come from: whatever stores measures gives ``UnlockedVault/report(of:today:measures:)``
/// one of these, and the report shows each series it returns in its "Measures" section (none:
/// no section). Called once per report, after the walk over the entries.
///
/// ```swift
/// struct Moods: MeasureSource {
///     func series(in period: ClosedRange<CivilDay>, of journal: UnlockedVault) throws -> [MeasureSeries] { … }
/// }
/// let report = try journal.report(of: period, today: today, measures: [Moods()])
/// ```
public protocol MeasureSource {
    /// The series of the days in `period`, their points oldest first.
    func series(in period: ClosedRange<CivilDay>, of journal: UnlockedVault) throws -> [MeasureSeries]
}
