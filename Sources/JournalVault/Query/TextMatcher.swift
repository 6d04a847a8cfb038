import Foundation

/// Case- and diacritic-insensitive substring matching ("cafe" finds "Café", "STRASSE" finds
/// "straße").
///
/// ```swift
/// let matcher = TextMatcher("cafe")
/// matcher.matches("Coffee at the Café")   // true
/// ```
public struct TextMatcher: Sendable {
    private let needle: String

    public init(_ query: String) {
        needle = Self.fold(query)
    }

    public func matches(_ text: String) -> Bool {
        needle.isEmpty || Self.fold(text).contains(needle)
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
