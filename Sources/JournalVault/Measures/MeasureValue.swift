// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The value of one of an entry's measures: a finite number, a short line of text, or yes/no.
///
/// ```swift
/// try MeasureValue.parse("7.5", name: "sleep")   // .number(7.5)
/// try MeasureValue.parse("yes", name: "outside") // .flag(true)
/// try MeasureValue.parse("rain", name: "weather") // .text("rain")
/// ```
public enum MeasureValue: Sendable, Hashable {
    case number(Double)
    case text(String)
    case flag(Bool)

    /// The longest text value, in bytes of UTF-8.
    public static let maximumTextBytes = 200

    /// A value as typed: `yes`, `no`, `true` or `false` (any case) a flag; a decimal number
    /// (`7`, `-2.5`, `1e3`) a number; anything else text, its white space at both ends removed.
    /// `name` is the field's, for the error.
    public static func parse(_ typed: String, name: String) throws(MeasureError) -> MeasureValue {
        let text = typed.trimmingCharacters(in: .whitespaces)
        switch text.lowercased() {
        case "yes", "true": return .flag(true)
        case "no", "false": return .flag(false)
        default: break
        }
        if Self.looksNumeric(text) {
            guard let number = Double(text), number.isFinite else { throw .invalidValue(name: name, reason: "is not a finite number") }
            return .number(number)
        }
        return try checkedText(text, name: name)
    }

    /// `text` as a text value, if it is one: not empty, one line, at most ``maximumTextBytes``.
    static func checkedText(_ text: String, name: String) throws(MeasureError) -> MeasureValue {
        guard !text.isEmpty else { throw .invalidValue(name: name, reason: "is empty (--unfield removes a field)") }
        guard text.utf8.count <= maximumTextBytes else {
            throw .invalidValue(name: name, reason: "is longer than \(maximumTextBytes) bytes")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidValue(name: name, reason: "holds a control character (a value is one line of text)")
        }
        return .text(text)
    }

    /// Digits with an optional sign, decimal point and exponent: only these are read as numbers
    /// (`Double` alone would also take `nan`, `inf` and hexadecimal).
    private static func looksNumeric(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            let count = scalars.prefix { ("0"..."9").contains($0) }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
        var mantissa = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    /// The value in JSON: a number integral and below 2⁵³ in magnitude as an integer (`7`, not
    /// `7.0`), any other as the shortest decimal that reads back as the same number.
    public var json: JSONValue {
        switch self {
        case .number(let number):
            number.rounded() == number && abs(number) < 9_007_199_254_740_992 ? .integer(Int64(number)) : .number(number)
        case .text(let text): .string(text)
        case .flag(let flag): .bool(flag)
        }
    }

    /// A JSON value as a measure value (a stored one, or one of an import), nil when it is not
    /// one: a finite number, a boolean, or text ``parse(_:name:)`` would keep as text.
    init?(json: JSONValue) {
        switch json {
        case .integer(let integer): self = .number(Double(integer))
        case .number(let number) where number.isFinite: self = .number(number)
        case .bool(let flag): self = .flag(flag)
        case .string(let text):
            guard text == text.trimmingCharacters(in: .whitespaces), let value = try? Self.checkedText(text, name: "") else { return nil }
            self = value
        default: return nil
        }
    }

    /// How a listing shows it: `7`, `7.5`, `rain`, `yes`.
    public var shown: String {
        switch self {
        case .number: json.serialized()
        case .text(let text): text
        case .flag(let flag): flag ? "yes" : "no"
        }
    }

    /// The number, for a numeric value.
    public var number: Double? {
        if case .number(let number) = self { number } else { nil }
    }
}
