// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The text rules of entries: tags, titles and the limits on content.
///
/// A tag is `@word` or `#word` at the start of the text or after white space or `(`, where a
/// word is letters, digits, `_` and `-` (e-mail addresses and `# headings` are not tags).
/// Tags compare case-insensitively: their normal form is NFC, Unicode case-folded (FORMAT.md §5),
/// without the symbol.
///
/// ```swift
/// Tags.inline(in: "Met @Anna at the #café.")   // ["anna", "café"]
/// ```
public enum Tags {
    /// The normal form of a tag, or nil if it is not one word.
    public static func normalize(_ tag: String) -> String? {
        var text = ContentRules.trimmed(tag)
        if let first = text.first, first == "@" || first == "#" { text.removeFirst() }
        guard !text.isEmpty, text.unicodeScalars.allSatisfy(isWordScalar) else { return nil }
        return normalForm(ofWord: text)
    }

    /// The normal form of `word`, which is made of word scalars only (so there is nothing to
    /// trim); nil when it has no letter or digit. Inline tags come here straight from the scan.
    private static func normalForm(ofWord word: String) -> String? {
        guard word.unicodeScalars.contains(where: isLetterOrDigit) else { return nil }
        if word.utf8.allSatisfy({ $0 < 0x80 }) { return word.lowercased() }
        // Full case folding, not lower-casing: ΟΔΟΣ and οδος, STRASSE and Straße are one tag.
        return CaseFolding.folded(word.precomposedStringWithCanonicalMapping).precomposedStringWithCanonicalMapping
    }

    /// Inline tags in the order they first appear, normalised, without repeats.
    public static func inline(in content: String) -> [String] {
        var content = content
        return content.withUTF8 { utf8 in
            var found: [String] = []
            var seen = Set<String>()
            // `@` and `#` are ASCII, so a byte search finds them and never lands inside a
            // multi-byte scalar; only the scalars around each candidate are decoded.
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                index += 1
                guard byte == UInt8(ascii: "@") || byte == UInt8(ascii: "#") else { continue }
                let previous = index == 1 ? " " : scalar(endingAt: index - 1, in: utf8)
                guard previous.properties.isWhitespace || previous == "(" else { continue }
                var end = index
                var wordEnd = index
                while end < utf8.count {
                    let (scalar, length) = scalar(startingAt: end, in: utf8)
                    guard isWordScalar(scalar) else { break }
                    end += length
                    if scalar != "-" { wordEnd = end }
                }
                if wordEnd > index, let tag = normalForm(ofWord: String(decoding: UnsafeBufferPointer(rebasing: utf8[index..<wordEnd]), as: UTF8.self)),
                   seen.insert(tag).inserted {
                    found.append(tag)
                }
                index = end
            }
            return found
        }
    }

    /// The scalar whose UTF-8 starts at `start` in valid UTF-8, and its length in bytes.
    private static func scalar(startingAt start: Int, in utf8: UnsafeBufferPointer<UInt8>) -> (Unicode.Scalar, Int) {
        guard let (value, length) = UTF8Scalar.decode(at: start, in: utf8) else { return ("\u{FFFD}", utf8.count - start) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// The scalar whose UTF-8 ends just before `end` in valid UTF-8.
    private static func scalar(endingAt end: Int, in utf8: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar {
        var start = end - 1
        while start > 0, utf8[start] & 0xC0 == 0x80 { start -= 1 }
        return scalar(startingAt: start, in: utf8).0
    }

    /// A quick look for `tag` (a normal form) written inline in `content`: true only when an
    /// occurrence certainly makes it one of ``inline(in:)``'s tags — `#` or `@` at the start or
    /// after an ASCII space or `(`, the tag's ASCII letters in any case, then the end or an ASCII
    /// byte that cannot continue a word. False means "not seen this way": ask ``inline(in:)``.
    /// A tag listing confirms every entry's tag; this spares it the full scan for nearly all.
    static func quicklyShowsInline(_ tag: String, in content: String) -> Bool {
        var tag = tag, content = content
        // A tag ending in `-` is never seen this way: the scan leaves trailing hyphens out.
        guard !tag.isEmpty, tag.utf8.allSatisfy({ $0 < 0x80 }), tag.utf8.last != UInt8(ascii: "-") else { return false }
        return tag.withUTF8 { tag in
            content.withUTF8 { text in
                guard text.count > tag.count else { return false }
                for start in 0..<(text.count - tag.count) {
                    guard text[start] == UInt8(ascii: "#") || text[start] == UInt8(ascii: "@") else { continue }
                    guard start == 0 || Self.asciiBeforeTag.contains(text[start - 1]) else { continue }
                    let word = start + 1
                    guard (0..<tag.count).allSatisfy({ ASCIIWord.lowercased(text[word + $0]) == tag[$0] }) else { continue }
                    let end = word + tag.count
                    if end == text.count || (text[end] < 0x80 && !isWordScalar(Unicode.Scalar(text[end]))) { return true }
                }
                return false
            }
        }
    }

    /// ASCII white space and `(`: what may come before an inline tag.
    private static let asciiBeforeTag: Set<UInt8> = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, UInt8(ascii: "(")]

    /// Inline tags then explicit ones, without repeats.
    static func all(inline content: String, explicit: [String]) -> [String] {
        var tags = inline(in: content)
        var seen = Set(tags)
        for tag in explicit where seen.insert(tag).inserted { tags.append(tag) }
        return tags
    }

    /// The title: the first line when the text has several, else its first sentence —
    /// jrnl's `split_title`, so titles agree with jrnl's own for the same text.
    static func title(of content: String) -> String {
        ContentRules.trimmed(String(content.unicodeScalars[..<titleEnd(in: content.unicodeScalars)]))
    }

    /// jrnl's `split_title`: the text up to the first line break, or if there is none, up to the
    /// first sentence terminal (`.!?…` and kin, an optional closing quote and brackets, then
    /// white space; or a CJK full stop) — and the rest, both trimmed.
    static func split(_ text: String) -> (title: String, body: String) {
        let scalars = text.unicodeScalars
        let end = titleEnd(in: scalars)
        return (ContentRules.trimmed(String(scalars[..<end])), ContentRules.trimmed(String(scalars[end...])))
    }

    /// Where the title ends: just past the first line break, else past the first sentence break,
    /// else at the end of the text.
    private static func titleEnd(in scalars: String.UnicodeScalarView) -> String.UnicodeScalarView.Index {
        // Candidates are found in the UTF-8 bytes (every terminal is ASCII or starts with E2, E3
        // or EF), not by decoding every scalar: every listing, export and JSON line asks for
        // titles, and entries are long.
        let base = String(scalars)
        var text = base
        return text.withUTF8 { bytes in
            if let start = bytes.baseAddress, let newline = memchr(start, Int32(UInt8(ascii: "\n")), bytes.count) {
                return base.utf8.index(base.utf8.startIndex, offsetBy: UnsafeRawPointer(start).distance(to: UnsafeRawPointer(newline)) + 1)
            }
            // Eight bytes at a time where none can start a terminal (most of a long one-line
            // entry, whose title may be all of it); byte by byte in the others.
            var chunk = 0
            while chunk < bytes.count {
                let end = min(chunk + 8, bytes.count)
                if end - chunk < 8 || Self.mayHoldTerminal(ASCIIWord.load(from: bytes.baseAddress! + chunk)) {
                    for offset in chunk..<end {
                        switch bytes[offset] {
                        case UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "?"), 0xE2, 0xE3, 0xEF:
                            if let found = sentenceBreak(at: base.utf8.index(base.utf8.startIndex, offsetBy: offset), in: scalars) { return found }
                        default:
                            continue
                        }
                    }
                }
                chunk = end
            }
            return scalars.endIndex
        }
    }

    /// Whether eight UTF-8 bytes hold a byte that may start a sentence terminal: `.`, `!`, `?`
    /// or the lead bytes E2, E3, EF.
    private static func mayHoldTerminal(_ word: UInt64) -> Bool {
        terminalStarts.contains { ASCIIWord.contains($0, in: word) }
    }

    private static let terminalStarts: [UInt8] = [UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "?"), 0xE2, 0xE3, 0xEF]

    private static let terminals: Set<Unicode.Scalar> = [".", "!", "?", "\u{2026}", "\u{203C}", "\u{203D}", "\u{2047}",
                                                         "\u{2048}", "\u{2049}", "\u{22EF}", "\u{FE52}", "\u{FE57}"]
    private static let cjkTerminals: Set<Unicode.Scalar> = ["\u{FF01}", "\u{FF0E}", "\u{FF1F}", "\u{FF61}", "\u{3002}"]
    private static let closingQuotes: Set<Unicode.Scalar> = ["'", "\u{2019}", "\"", "\u{201D}"]

    /// The index just past jrnl's SENTENCE_SPLITTER match at `start`, if there is one there.
    private static func sentenceBreak(at start: String.UnicodeScalarView.Index,
                                      in scalars: String.UnicodeScalarView) -> String.UnicodeScalarView.Index? {
        let scalar = scalars[start]
        var index = scalars.index(after: start)
        if cjkTerminals.contains(scalar) { return index }
        guard terminals.contains(scalar) else { return nil }
        if index < scalars.endIndex, closingQuotes.contains(scalars[index]) { index = scalars.index(after: index) }
        while index < scalars.endIndex, scalars[index] == "]" || scalars[index] == ")" { index = scalars.index(after: index) }
        let spaces = index
        while index < scalars.endIndex, scalars[index].properties.isWhitespace { index = scalars.index(after: index) }
        return index > spaces ? index : nil
    }

    /// Letters, marks, digits and other numbers (Foundation's `alphanumerics`), `_` and `-`.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(UInt8(scalar.value) | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(UInt8(scalar.value)) || scalar == "_" || scalar == "-"
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return isLetterOrDigit(scalar)
        }
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber: return true
        default: return false
        }
    }
}

/// Checks on text a person gives the vault.
public enum ContentRules {
    /// Valid UTF-8, trimmed, not blank, at most `limit` characters and ``Entry/maximumBytes`` bytes.
    public static func text(fromUTF8 bytes: [UInt8], limit: Int = Entry.maximumCharacters) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw VaultError.invalidUTF8 }
        return try validated(text, limit: limit)
    }

    /// Whether UTF-8 input is empty or only spaces, tabs and line breaks (checked before
    /// decoding, e.g. to tell "no new text" from text).
    public static func isBlank(utf8 bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    /// `text` trimmed, if it is not blank and within `limit` characters and ``Entry/maximumBytes`` bytes.
    public static func validated(_ text: String, limit: Int = Entry.maximumCharacters) throws -> String {
        let trimmed = trimmed(text)
        guard !trimmed.isEmpty else { throw VaultError.contentBlank }
        let bytes = trimmed.utf8.count
        // Every character is at least one byte, so most texts need no counting.
        guard bytes > limit else { return trimmed }
        // Count lazily: a multi-megabyte paste should fail fast, not be counted in full.
        var characters = 0
        for _ in trimmed {
            characters += 1
            if characters > limit { throw VaultError.contentTooLong(characters: trimmed.count, limit: limit) }
        }
        guard bytes <= Entry.maximumBytes else { throw VaultError.contentTooLarge(bytes: bytes, limit: Entry.maximumBytes) }
        return trimmed
    }

    /// `text` without white space and line breaks at either end, trimmed on its scalars:
    /// Foundation's trimming goes through NSString and UTF-16, and took three quarters of a jrnl
    /// text import (every entry there ends in a blank line). White space and line ends are all
    /// in the BMP, so trimming scalars is trimming UTF-16 units.
    static func trimmed(_ text: String) -> String {
        // Most texts start and end with a printable ASCII character: nothing to trim.
        if let first = text.utf8.first, let last = text.utf8.last, (0x21..<0x7F).contains(first), (0x21..<0x7F).contains(last) {
            return text
        }
        let scalars = text.unicodeScalars
        let isSpace = CharacterSet.whitespacesAndNewlines.contains
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(Substring(scalars[first...last]))
    }

    /// Explicit tags normalised, without repeats; throws on one that is not a word.
    public static func tags(_ tags: [String]) throws -> [String] {
        var result: [String] = []
        for tag in tags {
            guard let normal = Tags.normalize(tag) else { throw VaultError.invalidTag(tag) }
            if !result.contains(normal) { result.append(normal) }
        }
        return result
    }
}
