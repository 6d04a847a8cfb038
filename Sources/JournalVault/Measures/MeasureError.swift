// SPDX-License-Identifier: Apache-2.0
/// Why a measure, its name or value, or a condition on measures cannot be used as given
/// (nothing is written then). Each says what is wrong in one sentence; the text quoted is what
/// was typed, never a stored value.
///
/// ```swift
/// do { _ = try Measures.assignment("mood") } catch { print(error) }
/// // "'mood' is not name=value (as in --field mood=7)."
/// ```
public enum MeasureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field name outside ``Measures/normalizedName(_:)``'s rules.
    case invalidName(String)
    /// A value that is not a finite number, yes/no, or a short line of text.
    case invalidValue(name: String, reason: String)
    /// `--field` text without `=`.
    case notAnAssignment(String)
    /// A `--where` expression that does not read as `name`, `!name` or `name OP value`.
    case invalidCondition(String, reason: String)
    /// More fields on one entry than ``Measures/maximumCount``.
    case tooManyFields(limit: Int)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "'\(name)' is not a field name: use 1 to \(Measures.maximumNameLength) letters, digits, '_' or '-', starting with a letter."
        case .invalidValue(let name, let reason):
            "The value of the field '\(name)' \(reason)."
        case .notAnAssignment(let text):
            "'\(text)' is not name=value (as in --field mood=7)."
        case .invalidCondition(let text, let reason):
            "The condition '\(text)' \(reason)."
        case .tooManyFields(let limit):
            "An entry can have at most \(limit) fields."
        }
    }
}
