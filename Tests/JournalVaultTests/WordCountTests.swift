// SPDX-License-Identifier: Apache-2.0
import Testing
import TestSupport
@testable import JournalVault

// `JournalStats.words(in:)`, counted on scalars, against its definition: runs of characters
// between characters that are white space.

@Suite("JournalStats.words")
struct WordCountTests {
    /// The definition, on Swift's characters.
    private static func byCharacters(_ text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count
    }

    @Test("plain text, every kind of white space, marks and joiners after white space")
    func examples() {
        let cases: [(String, Int)] = [("", 0), ("   ", 0), ("one", 1), (" two  words\t", 2), ("a\r\nb\u{0B}c\u{0C}d", 4),
                                      ("no\u{A0}break\u{3000}ideographic\u{2028}line\u{85}next", 5), ("e\u{301}té café", 2),
                                      (" \u{301} ", 0), ("👩‍👩‍👧 family", 2), ("👍🏽 \u{1F3FD}", 1), ("\u{600} 5", 1), ("\u{600}\n5", 2)]
        for (text, words) in cases {
            #expect(JournalStats.words(in: text) == words, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(Self.byCharacters(text) == words, "the definition: \(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("random texts of tricky scalars count as their characters do")
    func randomTexts() {
        let alphabet: [Unicode.Scalar] = [" ", "\t", "\n", "\r", "\u{0B}", "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}", "a", "Z", "é", "\u{301}",
                                          "\u{903}", "\u{20DD}", "\u{200C}", "\u{200D}", "\u{1F3FB}", "\u{1F44D}", "\u{1F1E6}", "\u{600}",
                                          "\u{FF9E}", "\u{E0061}", "\u{1100}", "\u{1161}", "\u{D55C}", "\u{FE0F}", "\u{7F}", "\u{0}", "-"]
        var generator = SeededGenerator(seed: 28)
        for _ in 0..<5_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &generator) { scalars.append(alphabet.randomElement(using: &generator)!) }
            let text = String(scalars)
            #expect(JournalStats.words(in: text) == Self.byCharacters(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("the table of the plane's scalars says what their properties say; the ranges it skips hold letters only")
    func table() {
        for value in UInt32(0x80)..<0x10000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let computed = JournalStats.WordBreaks.of(scalar)
            if JournalStats.WordBreaks.lettersOnly.contains(where: { $0.contains(value) }) {
                #expect(computed.isEmpty, "U+\(String(value, radix: 16))")
            } else if JournalStats.WordBreaks.table[Int(value)] != computed {
                Issue.record("U+\(String(value, radix: 16)): the table says \(JournalStats.WordBreaks.table[Int(value)].rawValue)")
            }
        }
    }
}
