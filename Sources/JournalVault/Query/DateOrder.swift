// SPDX-License-Identifier: Apache-2.0
/// The order of day, month and year in a date written in numbers only (`5/11/2026`,
/// `5.11.2026`): `mdy` reads it as May 11 (as jrnl, through dateutil, always
/// does), `dmy` as 5 November, `ymd` reads only `2026/11/05`. A year written first (`2026/11/05`)
/// is read year, month, day in every order; the year is always written in full, and a date
/// without one (`5/11`) is not read (`1/2: half done` stays text).
///
/// ```swift
/// DateOrder.mdy.day(of: "5/11/2026")    // .day(2026-05-11)
/// DateOrder.dmy.day(of: "5/11/2026")    // .day(2026-11-05)
/// DateOrder.mdy.day(of: "13/05/2026")   // .impossible(otherwise: 2026-05-13)
/// DateOrder.mdy.day(of: "monday")       // .notNumeric
/// ```
public enum DateOrder: String, Sendable, CaseIterable {
    case dmy, mdy, ymd

    /// What a token made a numeric date of.
    public enum Reading: Equatable, Sendable {
        case day(CivilDay)
        /// A numeric date this order cannot read (`13/05/2026` month first: there is no month
        /// 13), never guessed; `otherwise` is the day the other order reads, if it reads one.
        case impossible(otherwise: CivilDay?)
        /// Not a numeric date with its year in full, or no day in any order.
        case notNumeric
    }

    /// How a message says the order: "month first (mdy)".
    public var phrase: String {
        switch self {
        case .dmy: "day first (dmy)"
        case .mdy: "month first (mdy)"
        case .ymd: "year first (ymd)"
        }
    }

    public func day(of token: some StringProtocol) -> Reading {
        day(of: Array(token.utf8))
    }

    func day(of token: [UInt8]) -> Reading {
        guard token.count <= 10, let separator = token.first(where: { Self.separators.contains($0) }) else { return .notNumeric }
        let fields = token.split(separator: separator, omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy { (0x30...0x39).contains($0) } }) else {
            return .notNumeric
        }
        let numbers = fields.map { $0.reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        if fields[0].count == 4, fields[1].count <= 2, fields[2].count <= 2 {
            return CivilDay(year: numbers[0], month: numbers[1], day: numbers[2]).map(Reading.day) ?? .notNumeric
        }
        guard fields[0].count <= 2, fields[1].count <= 2, fields[2].count == 4 else { return .notNumeric }
        let dayFirst = CivilDay(year: numbers[2], month: numbers[1], day: numbers[0])
        let monthFirst = CivilDay(year: numbers[2], month: numbers[0], day: numbers[1])
        let (read, other) = switch self {
        case .dmy: (dayFirst, monthFirst)
        case .mdy: (monthFirst, dayFirst)
        // Year-first writers have no convention for a year written last: only a date that
        // reads the same both ways (5/5/2026) is read.
        case .ymd: (dayFirst == monthFirst ? dayFirst : nil, dayFirst ?? monthFirst)
        }
        if let read { return .day(read) }
        return other.map { Reading.impossible(otherwise: self == .ymd ? nil : $0) } ?? .notNumeric
    }

    /// Not `-`: `2026-11-05` is ISO 8601's, read as such in every order.
    private static let separators: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: ".")]
}
