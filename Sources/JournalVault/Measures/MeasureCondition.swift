// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A condition on an entry's measures, as `jv list --where` takes it: `mood>=7`,
/// `weather=rain`, `outside=yes`, `sleep` (the field is there) or `!sleep` (it is not).
///
/// Numbers compare as numbers with all six of `=`, `!=`, `<`, `<=`, `>`, `>=`; text and yes/no
/// with `=` and `!=` only. An entry without the field matches only `!name`; one whose value is
/// of another kind than the condition's matches only `!=`.
///
/// ```swift
/// let condition = try MeasureCondition.parse("mood >= 7")
/// condition.matches(measures)
/// ```
public struct MeasureCondition: Sendable, Hashable {
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case lessOrEqual = "<=", greaterOrEqual = ">=", notEqual = "!=", equal = "=", less = "<", greater = ">"
    }

    public enum Test: Sendable, Hashable {
        case present
        case absent
        case compare(Comparison, MeasureValue)
    }

    /// The field's normalised name.
    public let name: String
    public let test: Test

    public init(name: String, test: Test) {
        self.name = name
        self.test = test
    }

    /// Reads `name`, `!name` or `name OP value` (white space around the parts allowed; `==` is `=`).
    public static func parse(_ text: String) throws(MeasureError) -> MeasureCondition {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func invalid(_ reason: String) -> MeasureError { .invalidCondition(text, reason: reason) }
        func name(_ typed: Substring) throws(MeasureError) -> String {
            do { return try Measures.normalizedName(typed.trimmingCharacters(in: .whitespaces)) } catch {
                throw invalid("does not start with a field name (letters, digits, '_' or '-', then =, !=, <, <=, > or >= and a value)")
            }
        }
        guard let start = trimmed.firstIndex(where: { "<>=!".contains($0) }) else {
            return MeasureCondition(name: try name(Substring(trimmed)), test: .present)
        }
        if start == trimmed.startIndex, trimmed.hasPrefix("!"), !trimmed.dropFirst().contains(where: { "<>=!".contains($0) }) {
            return MeasureCondition(name: try name(trimmed.dropFirst()), test: .absent)
        }
        let field = try name(trimmed[..<start])
        var rest = trimmed[start...]
        if rest.hasPrefix("==") { rest = "=" + rest.dropFirst(2) }
        guard let comparison = Comparison.allCases.first(where: { rest.hasPrefix($0.rawValue) }) else {
            throw invalid("has no comparison jv knows (=, !=, <, <=, >, >=)")
        }
        let typed = rest.dropFirst(comparison.rawValue.count)
        guard !typed.trimmingCharacters(in: .whitespaces).isEmpty else { throw invalid("has no value after \(comparison.rawValue)") }
        // `mood=<7`, `mood>>7`: a second operator is a typing slip, not text to compare with.
        guard let first = typed.first, !"<>=!".contains(first) else { throw invalid("has no comparison jv knows (=, !=, <, <=, >, >=)") }
        let value: MeasureValue
        do { value = try MeasureValue.parse(String(typed), name: field) } catch { throw invalid("has a value that is not a number, yes/no or a short text") }
        if value.number == nil, ![.equal, .notEqual].contains(comparison) {
            throw invalid("orders a value that is not a number (text and yes/no take = and != only)")
        }
        return MeasureCondition(name: field, test: .compare(comparison, value))
    }

    /// Whether an entry with `measures` meets the condition.
    public func matches(_ measures: Measures) -> Bool {
        let stored = measures[name]
        switch test {
        case .present: return stored != nil
        case .absent: return stored == nil
        case .compare(let comparison, let wanted):
            guard let stored else { return false }
            if let have = stored.number, let want = wanted.number {
                switch comparison {
                case .equal: return have == want
                case .notEqual: return have != want
                case .less: return have < want
                case .lessOrEqual: return have <= want
                case .greater: return have > want
                case .greaterOrEqual: return have >= want
                }
            }
            switch comparison {
            case .equal: return Self.same(stored, wanted)
            case .notEqual: return !Self.same(stored, wanted)
            default: return false
            }
        }
    }

    /// Text compares without regard to case (`rain` is `Rain`).
    private static func same(_ a: MeasureValue, _ b: MeasureValue) -> Bool {
        if case .text(let x) = a, case .text(let y) = b { return x.lowercased() == y.lowercased() }
        return a == b
    }
}
