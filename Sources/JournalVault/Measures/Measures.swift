// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The measures of one entry: named values a person records with it (`jv add --field mood=7
/// --field weather=rain`), sealed together in the entry's `measure` row (FORMAT.md §1.14).
///
/// Names are case-folded: `Mood` and `mood` are one field. They are 1 to ``maximumNameLength``
/// letters, digits, `_` or `-`, starting with a letter.
///
/// ```swift
/// var measures = Measures()
/// try measures.set("Mood", to: .number(7))
/// measures["mood"]           // .number(7)
/// measures.json.serialized() // {"mood":7}
/// ```
public struct Measures: Sendable, Hashable {
    /// The most fields one entry has.
    public static let maximumCount = 64
    /// The longest name, in characters.
    public static let maximumNameLength = 64

    /// By normalised name.
    public private(set) var values: [String: MeasureValue] = [:]

    public init() {}

    public var isEmpty: Bool { values.isEmpty }

    /// The fields that hold a number, with it: what `jv stats` and the report average.
    var numbers: [(name: String, value: Double)] {
        values.compactMap { name, value in value.number.map { (name, $0) } }
    }

    public subscript(name: String) -> MeasureValue? { values[name] }

    /// The fields in the order of their names' UTF-8 bytes (the stored order).
    public var sorted: [(name: String, value: MeasureValue)] {
        values.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map { ($0.key, $0.value) }
    }

    /// Sets the field `name` (normalised here); throws for a bad name or one field too many.
    public mutating func set(_ name: String, to value: MeasureValue) throws(MeasureError) {
        let normal = try Self.normalizedName(name)
        guard values[normal] != nil || values.count < Self.maximumCount else { throw .tooManyFields(limit: Self.maximumCount) }
        values[normal] = value
    }

    /// Removes the field `name` (normalised here); returns whether it was there.
    @discardableResult
    public mutating func remove(_ name: String) throws(MeasureError) -> Bool {
        values.removeValue(forKey: try Self.normalizedName(name)) != nil
    }

    /// The name as stored: letters lower-cased and in NFC. Throws ``MeasureError/invalidName(_:)``
    /// for an empty or too long name, one not starting with a letter, or one with anything but
    /// letters, digits, `_` and `-`.
    ///
    /// ```swift
    /// try Measures.normalizedName("Sleep_Hours")  // "sleep_hours"
    /// ```
    public static func normalizedName(_ name: String) throws(MeasureError) -> String {
        let normal = name.lowercased().precomposedStringWithCanonicalMapping
        let scalars = normal.unicodeScalars
        guard let first = scalars.first, first.properties.isAlphabetic, normal.count <= maximumNameLength,
              scalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-"
                  || $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark })
        else { throw .invalidName(name) }
        return normal
    }

    /// `name=value` as typed after `--field`.
    ///
    /// ```swift
    /// try Measures.assignment("sleep=7.5")  // ("sleep", .number(7.5))
    /// ```
    public static func assignment(_ text: String) throws(MeasureError) -> (name: String, value: MeasureValue) {
        guard let equals = text.firstIndex(of: "=") else { throw .notAnAssignment(text) }
        let name = try normalizedName(text[..<equals].trimmingCharacters(in: .whitespaces))
        return (name, try MeasureValue.parse(String(text[text.index(after: equals)...]), name: name))
    }

    /// Every `name=value` of `texts`, the last of a name repeated winning.
    public static func assignments(_ texts: [String]) throws(MeasureError) -> Measures {
        var measures = Measures()
        for text in texts {
            let (name, value) = try assignment(text)
            try measures.set(name, to: value)
        }
        return measures
    }

    /// `{"name": value, …}`, names in ``sorted`` order: the sealed plaintext, and what `--json`
    /// prints under `fields`.
    public var json: JSONValue {
        .object(sorted.map { ($0.name, $0.value.json) })
    }

    /// Measures read from a JSON object (a stored field, or an import's `fields`); nil when it is
    /// not an object of valid, normalised names, each once, and measure values.
    init?(json: JSONValue) {
        guard case .object(let members) = json, members.count <= Self.maximumCount else { return nil }
        for (name, value) in members {
            guard (try? Self.normalizedName(name)) == name, values[name] == nil, let value = MeasureValue(json: value) else { return nil }
            values[name] = value
        }
    }

    /// The fields one after another: `mood 7 · weather rain`.
    public var line: String {
        sorted.map { "\($0.name) \($0.value.shown)" }.joined(separator: " · ")
    }
}
