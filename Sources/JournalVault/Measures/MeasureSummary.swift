// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What the entries' measures hold, field by field (`jv fields`): how many entries have each
/// field, and of its values the range and mean of the numbers, the texts by how often each
/// came, and how many were yes and no.
///
/// ```swift
/// for field in MeasureSummary.of(try journal.measures(matching: query).values) {
///     print(field.name, field.entries, field.numbers?.mean ?? 0)
/// }
/// ```
public struct MeasureSummary: Sendable, Hashable {
    public struct Numbers: Sendable, Hashable {
        public var count = 0
        public var minimum = Double.infinity
        public var maximum = -Double.infinity
        public var sum = 0.0

        public var mean: Double { sum / Double(count) }

        mutating func add(_ number: Double) {
            count += 1
            minimum = min(minimum, number)
            maximum = max(maximum, number)
            sum += number
        }
    }

    public let name: String
    /// Entries that have the field.
    public internal(set) var entries = 0
    /// Its numeric values; nil when none is a number.
    public internal(set) var numbers: Numbers?
    /// Its text values, most common first (ties in the order of their text).
    public internal(set) var texts: [(text: String, count: Int)] = []
    public internal(set) var yes = 0
    public internal(set) var no = 0

    init(name: String) { self.name = name }

    /// One summary per field that any of `measures` has, by name.
    public static func of(_ measures: some Sequence<Measures>) -> [MeasureSummary] {
        var fields: [String: MeasureSummary] = [:]
        var texts: [String: [String: Int]] = [:]
        for entry in measures {
            for (name, value) in entry.values {
                var field = fields[name] ?? MeasureSummary(name: name)
                field.entries += 1
                switch value {
                case .number(let number):
                    var numbers = field.numbers ?? Numbers()
                    numbers.add(number)
                    field.numbers = numbers
                case .text(let text): texts[name, default: [:]][text, default: 0] += 1
                case .flag(true): field.yes += 1
                case .flag(false): field.no += 1
                }
                fields[name] = field
            }
        }
        for (name, counts) in texts {
            fields[name]?.texts = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        return fields.values.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }

    /// `{"name", "entries", "numbers"?: {"count", "min", "max", "mean"}, "texts"?: {"count",
    /// "distinct", "most_common"}, "flags"?: {"yes", "no"}}`, each part only for values of its kind.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("entries", .integer(Int64(entries)))]
        if let numbers {
            members.append(("numbers", .object([("count", .integer(Int64(numbers.count))), ("min", MeasureValue.number(numbers.minimum).json),
                                                ("max", MeasureValue.number(numbers.maximum).json), ("mean", .number(numbers.mean))])))
        }
        if let common = texts.first {
            members.append(("texts", .object([("count", .integer(Int64(texts.reduce(0) { $0 + $1.count }))),
                                              ("distinct", .integer(Int64(texts.count))), ("most_common", .string(common.text))])))
        }
        if yes + no > 0 { members.append(("flags", .object([("yes", .integer(Int64(yes))), ("no", .integer(Int64(no)))]))) }
        return .object(members)
    }

    public static func == (lhs: MeasureSummary, rhs: MeasureSummary) -> Bool { lhs.json == rhs.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}
