// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// A period's entries gathered into one text (``UnlockedVault/digest(of:sections:)``, `jv
/// digest`): counts, tags, what the analyses of its entries found, the sections other features
/// add (``DigestSection``), then every entry. The ``text`` is what a person reads and what a local
/// model is sent to write a reflection on (``UnlockedVault/reflect(on:with:)``).
///
/// ```swift
/// let digest = try journal.digest(of: DigestPeriod(named: "2026-11", kind: .month)!)
/// print(digest.text)
/// ```
public struct Digest: Sendable {
    /// One entry as the digest shows it.
    public struct Item: Sendable, Hashable {
        public var id: UUID
        public var day: CivilDay
        public var title: String
        /// The text after the title.
        public var body: String
        public var tags: [String]
    }

    /// A name (a sentiment, a theme) and how many of the period's entries it is said of.
    public struct Count: Sendable, Hashable {
        public var name: String
        public var entries: Int
    }

    public var period: DigestPeriod
    /// Whether ``text`` and ``json`` give each entry by its title alone.
    public var brief = false
    /// Oldest first.
    public var items: [Item]
    public var words: Int
    public var daysWritten: Int
    public var tags: [TagCount]
    /// The sentiments of the entries' newest analyses, most frequent first.
    public var sentiments: [Count]
    /// The mean ``SentimentScore`` of those that have one, and how many do.
    public var meanSentiment: (score: Double, entries: Int)?
    /// The themes of the entries' newest analyses, most frequent first.
    public var themes: [Count]
    /// The people of the knowledge graph that the relations learnt from the entries join, by name.
    public var people: [String]
    public var sections: [DigestSection]

    /// A name and count list, most frequent first, then by name.
    static func ranked(_ counts: [String: Int]) -> [Count] {
        counts.map { Count(name: $0.key, entries: $0.value) }.sorted { $0.entries != $1.entries ? $0.entries > $1.entries : $0.name < $1.name }
    }

    /// The digest as text: a header, its figures, each section, then the entries by day.
    public var text: String { text(brief: brief) }

    private func text(brief: Bool) -> String {
        var lines = ["Digest of \(periodLabel), \(period.first) to \(period.last)",
                     "\(Self.count(items.count, "entry", "entries")), \(Self.count(words, "word", "words")), "
                        + "\(Self.count(daysWritten, "day", "days")) written"]
        if !tags.isEmpty { lines.append("Tags: " + tags.map { "\($0.tag) (\($0.count))" }.joined(separator: ", ")) }
        if !sentiments.isEmpty {
            let mean = meanSentiment.map { "; mean " + String(format: "%+.2f", $0.score) + " over " + Self.count($0.entries, "entry", "entries") } ?? ""
            lines.append("Sentiment: " + Self.listed(sentiments) + mean)
        }
        if !themes.isEmpty { lines.append("Themes: " + Self.listed(themes)) }
        if !people.isEmpty { lines.append("People: " + people.joined(separator: ", ")) }
        for section in sections {
            lines.append("")
            lines.append(section.title + ":")
            lines += section.lines.map { "  " + $0 }
        }
        for item in items {
            lines.append("")
            lines.append("## \(item.day) \(item.title)" + (item.tags.isEmpty ? "" : "  [" + item.tags.joined(separator: ", ") + "]"))
            if !brief, !item.body.isEmpty { lines.append(item.body) }
        }
        return lines.joined(separator: "\n")
    }

    /// `{period, brief, counts, tags, sentiments, mean_sentiment, themes, people, sections, entries,
    /// reflections}` (an entry without `body` when brief), each of `reflections` with `current`:
    /// whether it was written on this digest as it is now (``isInput(of:)``).
    public func json(reflections: [DigestReflection] = []) -> JSONValue {
        .object([
            ("period", period.json),
            ("brief", .bool(brief)),
            ("counts", .object([("entries", .integer(Int64(items.count))), ("words", .integer(Int64(words))),
                                ("days_written", .integer(Int64(daysWritten)))])),
            ("tags", .array(tags.map { .object([("tag", .string($0.tag)), ("entries", .integer(Int64($0.count)))]) })),
            ("sentiments", Self.json(sentiments)),
            ("mean_sentiment", meanSentiment.map { .object([("score", .number($0.score)), ("entries", .integer(Int64($0.entries)))]) } ?? .null),
            ("themes", Self.json(themes)),
            ("people", .strings(people)),
            ("sections", .array(sections.map(\.jsonObject))),
            ("entries", .array(items.map { item in
                .object([("id", .string(item.id.storageText)), ("local_day", .string(item.day.description)), ("title", .string(item.title))]
                        + (brief ? [] : [("body", .string(item.body))]) + [("tags", .strings(item.tags))])
            })),
            ("reflections", .array(reflections.map { $0.json.adding([("current", .bool(isInput(of: $0)))]) })),
        ])
    }

    /// The hexadecimal BLAKE2b-256 of ``text``: kept, sealed, with a reflection on it, so that a
    /// reflection written before the period's entries changed can be told from a current one.
    public var textDigest: String { Self.digest(of: text) }

    /// Whether `reflection` was written on this digest as it is now, brief or not.
    public func isInput(of reflection: DigestReflection) -> Bool {
        [text(brief: false), text(brief: true)].map(Self.digest).contains(reflection.digestOfInput)
    }

    private static func digest(of text: String) -> String { Hex.lower(Blake2b.hash(Array(text.utf8))) }

    /// "week 2026-W48", "month 2026-11", "year 2026".
    var periodLabel: String { "\(period.kind.rawValue) \(period.name)" }

    private static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    private static func listed(_ counts: [Count]) -> String {
        counts.map { "\($0.name) (\($0.entries))" }.joined(separator: ", ")
    }

    private static func json(_ counts: [Count]) -> JSONValue {
        .array(counts.map { .object([("name", .string($0.name)), ("entries", .integer(Int64($0.entries)))]) })
    }
}

extension DigestPeriod {
    /// `{kind, name, first_day, last_day}`.
    public var json: JSONValue {
        .object([("kind", .string(kind.rawValue)), ("name", .string(name)), ("first_day", .string(first.description)),
                 ("last_day", .string(last.description))])
    }
}
