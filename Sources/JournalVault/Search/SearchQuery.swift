// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A parsed search: groups that must all match, each one phrase or several joined by `OR`,
/// and phrases that must not match. The one definition both the scan and the index evaluate.
///
/// The language: whitespace-separated atoms, all of which must match. An atom is a word
/// (`tea`), a prefix (`tea*`: its last token is a prefix) or a phrase (`"green tea"`,
/// `"green te"*`); a word of several tokens (`don't`, `e-mail`, `東京`) is a phrase. `A OR B`
/// (OR in capitals, between two atoms) matches either and binds tighter than the implicit
/// AND. `-atom` excludes. A query of exclusions only matches every record but those.
/// Words are tokenized and folded by ``SearchTokenizer``, so `Café` and `cafe` are one query.
///
/// ```swift
/// let query = try SearchQuery.parse(#"tea OR coffee "early morning" -rain"#)
/// query.required.count   // 2: (tea OR coffee), "early morning"
/// query.excluded.count   // 1
/// ```
public struct SearchQuery: Sendable, Equatable {
    /// Tokens that must occur at consecutive positions; with `prefix`, the last one is a
    /// prefix of the token at its position. A word is a phrase of one token.
    public struct Phrase: Sendable, Equatable, Hashable {
        public var tokens: [String]
        public var prefix: Bool

        public init(tokens: [String], prefix: Bool = false) {
            self.tokens = tokens
            self.prefix = prefix
        }
    }

    /// Groups that must all match; a group matches when any of its phrases does.
    public var required: [[Phrase]]
    /// Phrases none of which may match.
    public var excluded: [Phrase]

    public init(required: [[Phrase]], excluded: [Phrase] = []) {
        self.required = required
        self.excluded = excluded
    }

    /// Whether the query has only exclusions (it then matches every record but theirs).
    public var isExclusionOnly: Bool { required.isEmpty }

    /// The required phrases in the order FTS5 numbers them (and bm25 sums them).
    public var rankedPhrases: [Phrase] { required.flatMap { $0 } }

    /// The UTF-8 byte ranges of `text` holding the words its required phrases matched (in
    /// order, not overlapping): what a terminal shows in bold.
    ///
    /// ```swift
    /// try SearchQuery.parse("cafe").matchedUTF8Ranges(in: "Le Café")   // [3..<8]
    /// ```
    public func matchedUTF8Ranges(in text: String) -> [Range<Int>] {
        SearchScan(self).matchedRanges(in: text)
    }

    /// Parses the query language above.
    ///
    /// ```swift
    /// try SearchQuery.parse("tea*")          // one group: the prefix "tea"
    /// try SearchQuery.parse("tea OR")        // throws SearchQueryError.orWithoutAtom
    /// ```
    public static func parse(_ text: String) throws(SearchQueryError) -> SearchQuery {
        var required: [[Phrase]] = []
        var excluded: [Phrase] = []
        // The group being read: its atoms, nil for one without tokens (`&`, `""`), which only
        // OR cares about; and what came last, which decides whether an OR may follow.
        var group: [Phrase?] = []
        enum Last { case nothing, atom, exclusion, or }
        var last = Last.nothing
        for lexeme in try lex(text) {
            switch (lexeme, last) {
            case (.or, .exclusion):
                throw .exclusionInOr
            case (.or, .atom):
                guard group.last! != nil else { throw .orWithoutAtom }
                last = .or
            case (.or, _):
                throw .orWithoutAtom
            case (.atom(_, negated: true), .or):
                throw .exclusionInOr
            case (.atom(let phrase, negated: true), _):
                flush(&group, into: &required)
                if let phrase { excluded.append(phrase) }
                last = .exclusion
            case (.atom(let phrase, negated: false), .or):
                guard phrase != nil else { throw .orWithoutAtom }
                group.append(phrase)
                last = .atom
            case (.atom(let phrase, negated: false), _):
                flush(&group, into: &required)
                group = [phrase]
                last = .atom
            }
        }
        guard last != .or else { throw .orWithoutAtom }
        flush(&group, into: &required)
        guard !required.isEmpty || !excluded.isEmpty else { throw .noWords }
        return SearchQuery(required: required, excluded: excluded)
    }

    private static func flush(_ group: inout [Phrase?], into required: inout [[Phrase]]) {
        let phrases = group.compactMap { $0 }
        if !phrases.isEmpty { required.append(phrases) }
        group = []
    }

    private enum Lexeme {
        case or
        /// A word or quoted phrase, `nil` when it has no token; `negated` for `-atom`.
        case atom(Phrase?, negated: Bool)
    }

    /// Splits at whitespace, reading quotes: `"…"` is one atom whatever it holds.
    private static func lex(_ text: String) throws(SearchQueryError) -> [Lexeme] {
        var lexemes: [Lexeme] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index].properties.isWhitespace {
                index += 1
                continue
            }
            var negated = false
            if scalars[index] == "-", index + 1 < scalars.count, !scalars[index + 1].properties.isWhitespace {
                negated = true
                index += 1
            }
            if scalars[index] == "\"" {
                guard let close = scalars[(index + 1)...].firstIndex(of: "\"") else { throw .unclosedQuote }
                let inner = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
                var end = close + 1
                let prefix = end < scalars.count && scalars[end] == "*"
                if prefix { end += 1 }
                lexemes.append(.atom(phrase(inner, prefix: prefix), negated: negated))
                index = end
                continue
            }
            var end = index
            while end < scalars.count, !scalars[end].properties.isWhitespace { end += 1 }
            var word = String(String.UnicodeScalarView(scalars[index..<end]))
            index = end
            if word == "OR" && !negated {
                lexemes.append(.or)
                continue
            }
            let prefix = word.hasSuffix("*")
            if prefix { word.removeLast() }
            lexemes.append(.atom(phrase(word, prefix: prefix), negated: negated))
        }
        return lexemes
    }

    private static func phrase(_ text: String, prefix: Bool) -> Phrase? {
        let tokens = SearchTokenizer.tokens(text)
        return tokens.isEmpty ? nil : Phrase(tokens: tokens, prefix: prefix)
    }
}

/// Why a search query cannot be read. Each description is one sentence naming no command.
public enum SearchQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Empty, or nothing in it is a word (only punctuation or spaces).
    case noWords
    /// A `"` that no second `"` closes.
    case unclosedQuote
    /// `OR` at the start or end of the query, after another `OR` or an exclusion, or beside an atom without a word.
    case orWithoutAtom
    /// `-atom` inside an `OR` group (`a OR -b`).
    case exclusionInOr

    public var description: String {
        switch self {
        case .noWords: "The search has no word to look for."
        case .unclosedQuote: "The search has a quote that is not closed."
        case .orWithoutAtom: "OR in a search needs a word or phrase on each side."
        case .exclusionInOr: "An excluded word (-word) cannot be part of an OR."
        }
    }
}
