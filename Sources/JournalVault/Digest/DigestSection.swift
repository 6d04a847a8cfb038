// SPDX-License-Identifier: Apache-2.0
/// A part of a digest that another feature writes from its own records of the period (custom
/// measures such as `mood=7`, …): a title, the lines shown under it, and its structured form for
/// `--json`. It goes into the digest's text, and so to the model asked for a reflection.
///
/// ```swift
/// DigestSection(title: "Measures", lines: ["mood: mean 6.5 over 4 days"],
///               json: .object([("mood", .object([("mean", .number(6.5)), ("days", .integer(4))]))]))
/// ```
public struct DigestSection: Sendable, Hashable {
    public var title: String
    public var lines: [String]
    public var json: JSONValue

    public init(title: String, lines: [String], json: JSONValue = .null) {
        self.title = title
        self.lines = lines
        self.json = json
    }

    /// `{title, lines, data}`.
    var jsonObject: JSONValue {
        .object([("title", .string(title)), ("lines", .strings(lines)), ("data", json)])
    }
}

/// What gives a digest a ``DigestSection``: asked once per digest, with the period and the
/// entries already read (so it decrypts them no second time); nil leaves the section out.
///
/// ```swift
/// struct WordsPerDay: DigestSectionSource {
///     func section(for period: DigestPeriod, entries: [Entry], in vault: UnlockedVault) throws -> DigestSection? {
///         DigestSection(title: "Words per day", lines: ["\(entries.map(\.wordCount).reduce(0, +) / 7)"])
///     }
/// }
/// let digest = try journal.digest(of: week, sections: [WordsPerDay()])
/// ```
public protocol DigestSectionSource: Sendable {
    func section(for period: DigestPeriod, entries: [Entry], in vault: UnlockedVault) throws -> DigestSection?
}
