// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import JournalVault

@Suite("search tokens")
struct SearchTokenizerTests {
    private func tokens(_ text: String) -> [String] { SearchTokenizer.tokens(text) }

    @Test("Latin: folded as TextMatcher folds (case, diacritics, ß), split at spaces and punctuation")
    func latin() {
        #expect(tokens("Café crème, NAÏVE résumé!") == ["cafe", "creme", "naive", "resume"])
        #expect(tokens("Straße STRASSE") == ["strasse", "strasse"])
        // Decomposed accents fold like composed ones (the combining mark is dropped).
        #expect(tokens("Cafe\u{301}") == ["cafe"])
        #expect(tokens("don't e-mail x_y 3.14 #tag @home") == ["don", "t", "e", "mail", "x", "y", "3", "14", "tag", "home"])
        #expect(tokens("Ｆｕｌｌｗｉｄｔｈ１２") == ["fullwidth12"], "width folds")
        #expect(tokens("Øre Łódź Ærø") == TextMatcher.foldedWords("Øre Łódź Ærø"))
    }

    @Test("Greek and Cyrillic: words, folded")
    func greekAndCyrillic() {
        #expect(tokens("Καλημέρα ΚΌΣΜΕ") == ["καλημερα", "κοσμε"])
        #expect(tokens("Привет, МИР! Ёлка") == ["привет", "мир", "елка"])
    }

    @Test("Han, kana, Thai: one token per character; Hangul: words")
    func unspacedScripts() {
        #expect(tokens("東京タワー") == ["東", "京", "タ", "ワ", "ー"])
        #expect(tokens("ひらがな、カタカナ。") == ["ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"])
        #expect(tokens("ｶﾀｶﾅ") == ["カ", "タ", "カ", "ナ"], "halfwidth katakana folds to fullwidth")
        #expect(tokens("สวัสดี") == ["ส", "ว", "ส", "ด"], "Thai vowel and tone marks are dropped by folding")
        #expect(tokens("한국어 문장") == ["한국어", "문장"])
        #expect(tokens("東京2026年") == ["東", "京", "2026", "年"])
    }

    @Test("emoji and other symbols are tokens of their own; modifiers and joiners separate")
    func emoji() {
        #expect(tokens("tea☕️time") == ["tea", "☕", "time"])
        #expect(tokens("👍🏽 👨‍👩‍👧 ❤️") == ["👍", "👨", "👩", "👧", "❤"])
        #expect(tokens("🇫🇷") == ["🇫", "🇷"])
        #expect(tokens("price: $5 + 3 = 8 ≠ 9") == ["price", "5", "3", "8", "9"], "currency and maths symbols separate")
    }

    @Test("odd input: empty, controls, private use, noncharacters, long tokens")
    func oddInput() {
        #expect(tokens("").isEmpty)
        #expect(tokens(" \t\n\r\u{0}\u{7F}\u{200B}").isEmpty)
        #expect(tokens("a\u{0}b\u{E000}c\u{FFFF}d") == ["a", "b", "c", "d"])
        let long = String(repeating: "é", count: 2000)
        let cut = tokens(long + " next")
        #expect(cut == [String(repeating: "e", count: SearchTokenizer.maximumTokenBytes), "next"])
        let wide = String(repeating: "ж", count: 1000)   // 2 bytes each: cut at a scalar boundary
        #expect(tokens(wide).first?.utf8.count == SearchTokenizer.maximumTokenBytes)
        #expect(tokens(String(repeating: "ж", count: 1000) + "x").first == String(repeating: "ж", count: 512))
        #expect(SearchTokenizer.joinedTokens("") == "" && SearchTokenizer.joinedTokens(" ,; ") == "")
        #expect(SearchTokenizer.joinedTokens("Ünïcode, 東京!") == "unicode 東 京")
    }

    @Test("a token holds no ASCII space or punctuation, so FTS5's ascii tokenizer splits tokens joined by spaces back the same")
    func asciiSafe() {
        var generator = SeededGenerator(seed: 24)
        for _ in 0..<200 {
            let text = String(String.UnicodeScalarView((0..<40).compactMap { _ in Unicode.Scalar(UInt32.random(in: 0..<0x3000, using: &generator)) }))
            #expect(SearchTokenizer.joinedTokens(text) == tokens(text).joined(separator: " "), "what the index stores")
            for token in tokens(text) {
                #expect(!token.isEmpty)
                #expect(token.utf8.allSatisfy { $0 >= 0x80 || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }, "\(token.unicodeScalars.map(\.value))")
            }
        }
    }

    @Test("source ranges point at the original text of each token")
    func sourceRanges() {
        let text = "Le Café Zürich 東京"
        let found = SearchTokenizer.tokensWithSourceRanges(text)
        let bytes = Array(text.utf8)
        #expect(found.map { String(decoding: bytes[$0.utf8Range], as: UTF8.self) } == ["Le", "Café", "Zürich", "東", "京"])
        #expect(found.map(\.token) == ["le", "cafe", "zurich", "東", "京"])
    }

    @Test("the class table agrees with the Unicode data for every scalar of the BMP")
    func classTable() {
        for byte in UInt8(0)..<0x80 {
            #expect(ClassTable.isASCIIWord(byte) == (SearchTokenizer.classOf(UInt32(byte)) == .word), "\(byte)")
        }
        for value in UInt32(0)..<0x10000 {
            let expected = SearchTokenizer.classOf(value)
            if ClassTable.shared.classify(value) != expected {
                Issue.record("U+\(String(value, radix: 16)): table \(ClassTable.shared.classify(value)), Unicode \(expected)")
                return
            }
        }
    }

    @Test("the unspaced ranges hold the scripts they name")
    func unspacedRanges() {
        for (scalar, unspaced) in [("東", true), ("〆", true), ("あ", true), ("ア", true), ("ㄅ", true), ("ก", true), ("ກ", true),
                                   ("ក", true), ("က", true), ("𠀋", true), ("한", false), ("a", false), ("é", false), ("я", false)] {
            #expect(SearchTokenizer.isUnspaced(scalar.unicodeScalars.first!.value) == unspaced, "\(scalar)")
        }
    }
}

extension TextMatcher {
    /// The folding of `text` split at spaces: what the tokenizer must give for words of letters alone.
    static func foldedWords(_ text: String) -> [String] {
        String(decoding: fold(Array(text.utf8)), as: UTF8.self).split(separator: " ").map(String.init)
    }
}
