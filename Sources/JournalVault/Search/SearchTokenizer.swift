// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The one definition of a search token, used by the scan, the index and the query parser.
///
/// The text is folded exactly as ``TextMatcher`` folds it (case, diacritics, width), scalar by
/// scalar. Then a token is a maximal run of scalars whose general category is a letter, a
/// number or a mark — except scalars of scripts written without spaces between words (Han,
/// Bopomofo, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar: ``isUnspaced(_:)``) and symbols
/// (`So`, which holds the emoji), each of which is a token of its own. Everything else
/// separates tokens. A token never holds an ASCII space or punctuation, so tokens joined by
/// spaces split back into the same tokens under FTS5's `ascii` tokenizer. A token longer than
/// ``maximumTokenBytes`` keeps its first scalars that fit (FTS5 would cut it mid-scalar).
///
/// ```swift
/// SearchTokenizer.tokens("Café au lait, 東京タワー 👍")
/// // ["cafe", "au", "lait", "東", "京", "タ", "ワ", "ー", "👍"]
/// ```
public enum SearchTokenizer {
    /// The most folded bytes a token keeps.
    public static let maximumTokenBytes = 1024

    /// The folded tokens of `text`, in order.
    public static func tokens(_ text: String) -> [String] {
        withTokens(of: text) { list in (0..<list.count).map { String(decoding: list[$0], as: UTF8.self) } }
    }

    /// The folded tokens of `text` joined by single spaces, as the index stores a document:
    /// written into one string, without a string per token.
    public static func joinedTokens(_ text: String) -> String {
        withTokens(of: text) { list in
            guard list.count > 0 else { return "" }
            let length = list.tokens.reduce(list.count - 1) { $0 + $1.count }
            return String(unsafeUninitializedCapacity: length) { out in
                var written = 0
                for index in 0..<list.count {
                    if index > 0 {
                        out[written] = 0x20
                        written += 1
                    }
                    let token = list[index]
                    _ = UnsafeMutableBufferPointer(rebasing: out[written..<written + token.count]).initialize(from: token)
                    written += token.count
                }
                return written
            }
        }
    }

    /// The tokens of `text`, each with the range of `text`'s UTF-8 bytes it was folded from
    /// (for highlighting).
    public static func tokensWithSourceRanges(_ text: String) -> [(token: String, utf8Range: Range<Int>)] {
        withTokens(of: text) { list in (0..<list.count).map { (String(decoding: list[$0], as: UTF8.self), list.sourceRange($0)) } }
    }

    /// Calls `body` with the tokens of `text` in temporary memory, wiped afterwards: the scan
    /// must not leave the folded text of the records it rejects behind in freed memory.
    static func withTokens<Result>(of text: String, _ body: (TokenList) throws -> Result) rethrows -> Result {
        var text = text
        return try text.withUTF8 { try withTokens(utf8: $0, body) }
    }

    /// The same over valid UTF-8 bytes (a truncated last sequence is dropped).
    static func withTokens<Result>(utf8 bytes: UnsafeBufferPointer<UInt8>, _ body: (TokenList) throws -> Result) rethrows -> Result {
        let needed = FoldTable.isNeeded(for: bytes)
        let capacity = max(1, bytes.count * FoldTable.maximumExpansion(needed: needed))
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { folded in
            var tokens: [TokenList.Token] = []
            let used = tokenize(bytes, into: folded.baseAddress!, needed: needed, tokens: &tokens)
            defer { Sodium.wipe(UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(folded)[..<used])) }
            return try body(TokenList(folded: UnsafeBufferPointer(start: folded.baseAddress, count: used), tokens: tokens))
        }
    }

    /// The tokens of one text: each a run of the folded buffer, and the source bytes it came from.
    struct TokenList {
        struct Token {
            var start: Int
            var count: Int
            var sourceStart: Int
            var sourceEnd: Int
        }

        let folded: UnsafeBufferPointer<UInt8>
        let tokens: [Token]

        var count: Int { tokens.count }

        subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
            let token = tokens[index]
            return UnsafeBufferPointer(rebasing: folded[token.start..<token.start + token.count])
        }

        func sourceRange(_ index: Int) -> Range<Int> { tokens[index].sourceStart..<tokens[index].sourceEnd }
    }

    /// Calls `body` with `bytes` folded as the tokenizer folds them, separators kept, in
    /// temporary memory wiped afterwards: an unranked scan finds a phrase in it without
    /// building the token list (``SearchScan``'s patterns, through ``FoldedText``).
    static func withFoldedText<Result>(utf8 bytes: UnsafeBufferPointer<UInt8>, _ body: (FoldedText) throws -> Result) rethrows -> Result {
        try TextMatcher.withFolded(utf8: bytes) { try body(FoldedText(bytes: $0, classes: ClassTable.forText(needed: FoldTable.isNeeded(for: $0)))) }
    }

    /// Folded text read as the tokenizer reads it: what a scalar is, and where a token may begin.
    struct FoldedText {
        let bytes: UnsafeBufferPointer<UInt8>
        let classes: ClassTable

        /// The class and UTF-8 length of the scalar at `offset`.
        @inline(__always)
        func scalar(at offset: Int) -> (class: ScalarClass, length: Int) {
            let lead = bytes[offset]
            if lead < 0x80 { return (ClassTable.isASCIIWord(lead) ? .word : .separator, 1) }
            guard let (value, length) = UTF8Scalar.decode(at: offset, in: bytes) else { return (.separator, bytes.count - offset) }
            return (classes.classify(value), length)
        }

        /// Whether the scalar just before `offset` is a word scalar (a word token cannot begin there).
        func followsWordScalar(_ offset: Int) -> Bool {
            guard offset > 0 else { return false }
            var lead = offset - 1
            while lead > 0 && bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
            return scalar(at: lead).class == .word
        }
    }

    /// What a folded scalar is to the tokenizer.
    enum ScalarClass: UInt8 {
        case separator = 0, word, single
    }

    /// Folds `bytes` into `out` and records the tokens; returns the folded length. `needed`:
    /// ``FoldTable/isNeeded(for:)`` of `bytes`.
    private static func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, needed: Bool,
                                 tokens: inout [TokenList.Token]) -> Int {
        let classes = ClassTable.forText(needed: needed)
        return FoldTable.withLookup(needed: needed) { lookup in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * FoldTable.maximumExpansion(needed: needed)) { scratch in
                defer { Sodium.wipe(UnsafeMutableRawBufferPointer(scratch)) }
                return gather(bytes, into: out, scratch: scratch.baseAddress!, lookup: lookup, classes: classes, tokens: &tokens)
            }
        }
    }

    /// The token being gathered: where it starts in the folded buffer (-1: none) and in the source.
    private struct Gathering {
        var start = -1, sourceStart = 0, sourceEnd = 0
        /// At ``maximumTokenBytes``: the rest of the run is left out.
        var full = false

        mutating func begin(at written: Int, source: Int) {
            guard start < 0 else { return }
            start = written
            sourceStart = source
        }

        mutating func flush(written: Int, into tokens: inout [TokenList.Token]) {
            if start >= 0 { tokens.append(.init(start: start, count: written - start, sourceStart: sourceStart, sourceEnd: sourceEnd)) }
            start = -1
            full = false
        }
    }

    /// The loop of ``tokenize(_:into:tokens:)``, its state in locals (no captured variables, so
    /// no exclusivity checks at run time).
    private static func gather(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<UInt8>,
                               lookup: FoldTable.Lookup, classes: ClassTable, tokens: inout [TokenList.Token]) -> Int {
        var written = 0
        var token = Gathering()
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                guard ClassTable.isASCIIWord(lead) else {
                    token.flush(written: written, into: &tokens)
                    index += 1
                    continue
                }
                // A run of ASCII letters and digits at once (most of most texts): found first,
                // then copied lower-cased as far as the token has room.
                token.begin(at: written, source: index)
                var end = index + 1
                while end < bytes.count, ClassTable.isASCIIWord(bytes[end]) { end += 1 }
                let kept = token.full ? 0 : min(end - index, max(0, maximumTokenBytes - (written - token.start)))
                for offset in 0..<kept { out[written + offset] = ASCIIWord.lowercased(bytes[index + offset]) }
                written += kept
                if kept < end - index { token.full = true }
                token.sourceEnd = end
                index = end
                continue
            }
            guard let (value, length) = UTF8Scalar.decode(at: index, in: bytes) else { break }
            // One source scalar folds to at most a few scalars (ß → ss), each classified.
            let foldedCount = lookup.fold(value, encodedAs: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), into: scratch)
            let folded = UnsafeBufferPointer(start: scratch, count: foldedCount)
            var offset = 0
            while offset < foldedCount {
                guard let (scalar, scalarLength) = UTF8Scalar.decode(at: offset, in: folded) else { break }
                switch classes.classify(scalar) {
                case .separator:
                    token.flush(written: written, into: &tokens)
                case .single:
                    token.flush(written: written, into: &tokens)
                    tokens.append(.init(start: written, count: scalarLength, sourceStart: index, sourceEnd: index + length))
                    copy(folded, offset, scalarLength, to: out + written)
                    written += scalarLength
                case .word:
                    token.begin(at: written, source: index)
                    if !token.full && written - token.start + scalarLength <= maximumTokenBytes {
                        copy(folded, offset, scalarLength, to: out + written)
                        written += scalarLength
                    } else {
                        token.full = true
                    }
                    token.sourceEnd = index + length
                }
                offset += scalarLength
            }
            index += length
        }
        token.flush(written: written, into: &tokens)
        return written
    }

    /// Copies one folded scalar, lower-casing ASCII (FTS5's `ascii` tokenizer folds ASCII case,
    /// so a token must already be lower case for both paths to agree).
    @inline(__always)
    private static func copy(_ folded: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int, to out: UnsafeMutablePointer<UInt8>) {
        for position in 0..<count { out[position] = ASCIIWord.lowercased(folded[offset + position]) }
    }

    /// Whether `value` belongs to a script written without spaces between words: each of its
    /// letters, marks and digits is a token of its own, so a word of it is found as a phrase.
    /// By block: CJK ideographs (and extensions, compatibility ideographs, the iteration and
    /// Hangzhou marks of CJK Symbols), Bopomofo, Hiragana, Katakana (and its extensions),
    /// Kanbun, Thai, Lao, Khmer, Myanmar (and its extensions).
    public static func isUnspaced(_ value: UInt32) -> Bool {
        unspacedRanges.contains { $0.contains(value) }
    }

    static let unspacedRanges: [ClosedRange<UInt32>] = [
        0x0E00...0x0E7F, 0x0E80...0x0EFF,                   // Thai, Lao
        0x1000...0x109F, 0x1780...0x17FF, 0x19E0...0x19FF,  // Myanmar, Khmer, Khmer symbols
        0x2E80...0x2FDF,                                    // CJK radicals, Kangxi radicals
        0x3005...0x3007, 0x3021...0x3029, 0x3038...0x303B,  // 々 〆 〇, Hangzhou numerals, 〸…〻
        0x3040...0x309F, 0x30A0...0x30FF, 0x3100...0x312F,  // Hiragana, Katakana, Bopomofo
        0x3190...0x319F, 0x31A0...0x31BF, 0x31F0...0x31FF,  // Kanbun, Bopomofo extended, Katakana extensions
        0x3400...0x4DBF, 0x4E00...0x9FFF,                   // CJK extension A, unified ideographs
        0xA9E0...0xA9FF, 0xAA60...0xAA7F,                   // Myanmar extensions B, A
        0xF900...0xFAFF,                                    // CJK compatibility ideographs
        0x1B000...0x1B16F,                                  // Kana supplement, extended A
        0x20000...0x2FA1F, 0x30000...0x323AF,               // CJK extensions B–I, compatibility supplement
    ]

    /// The class of a folded scalar from its Unicode properties (the table's source).
    static func classOf(_ value: UInt32) -> ScalarClass {
        guard let scalar = Unicode.Scalar(value) else { return .separator }
        switch scalar.properties.generalCategory {
        case .otherSymbol:
            return value < 0x80 ? .separator : .single
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return value >= 0x80 && isUnspaced(value) ? .single : .word
        default:
            return .separator
        }
    }
}

/// ``SearchTokenizer/classOf(_:)`` for every scalar of the Basic Multilingual Plane, computed
/// once: the tokenizer does one array read per non-ASCII scalar.
final class ClassTable: Sendable {
    static let shared = ClassTable()
    /// For text that is all ASCII, which is classified by byte and never looks into the table.
    private static let empty = ClassTable(bmp: [])

    /// The shared table where a text needs it (``FoldTable/isNeeded(for:)``), else an empty one.
    static func forText(needed: Bool) -> ClassTable {
        needed ? shared : empty
    }

    private let bmp: [UInt8]

    private init(bmp: [UInt8]) {
        self.bmp = bmp
    }

    /// Blocks whose class is known without asking each scalar (a test checks them against the
    /// Unicode data in use): CJK ideographs are each a token, Hangul syllables are letters,
    /// surrogates and private use separate. They are most of the plane, skipped at start-up.
    static let knownBMPRanges: [(Range<UInt32>, SearchTokenizer.ScalarClass)] = [
        (0x4E00..<0xA000, .single), (0x3400..<0x4DC0, .single), (0xAC00..<0xD7A4, .word), (0xD800..<0xF900, .separator),
    ]

    private convenience init() {
        var bmp = [UInt8](repeating: 0, count: 0x10000)
        for (range, known) in Self.knownBMPRanges {
            for value in range { bmp[Int(value)] = known.rawValue }
        }
        var value: UInt32 = 0
        while value < 0x10000 {
            if let known = Self.knownBMPRanges.first(where: { $0.0.contains(value) }) {
                value = known.0.upperBound
                continue
            }
            bmp[Int(value)] = SearchTokenizer.classOf(value).rawValue
            value += 1
        }
        self.init(bmp: bmp)
    }

    @inline(__always)
    func classify(_ value: UInt32) -> SearchTokenizer.ScalarClass {
        if value < 0x10000 { return SearchTokenizer.ScalarClass(rawValue: bmp[Int(value)])! }
        return SearchTokenizer.classOf(value)
    }

    @inline(__always)
    static func isASCIIWord(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }
}
