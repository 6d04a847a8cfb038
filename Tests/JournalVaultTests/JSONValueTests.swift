// SPDX-License-Identifier: Apache-2.0
import TestSupport
import Testing
@testable import JournalVault

/// JSON text as jv writes and reads it: exact escapes, and any string back as it was.
@Suite struct JSONValueTests {
    @Test func stringsAreEscapedExactlyAsDocumented() throws {
        let text = "a\"b\\c\nd\re\tf\u{0}g\u{1F}h\u{7F}i\u{80}\u{9B}\u{9F}\u{A0}\u{2028}j\u{2029}k é 🦄"
        #expect(JSONValue.string(text).serialized() == #""a\"b\\c\nd\re\tf\u0000g\u001fh\u007fi\u0080\u009b\u009f"# + "\u{A0}" + #"\u2028j\u2029k é 🦄""#)
        #expect(try JSONParser.parse(Array(JSONValue.string(text).serialized().utf8)) == .string(text))
    }

    /// The bidi embeddings, overrides and isolates reorder what a terminal shows ("Trojan
    /// Source"): escaped like the controls, so `--json` read on a terminal shows them.
    /// The neighbours that do nothing of the kind (U+2027, U+202F, U+2065, U+206A, the marks
    /// U+200E/U+200F) stay as they are.
    @Test func bidiControlsAreEscaped() throws {
        for value in Array(0x202A...0x202E) + Array(0x2066...0x2069) {
            let text = "a" + String(try #require(Unicode.Scalar(UInt32(value)))) + "b"
            #expect(JSONValue.string(text).serialized() == "\"a\\u" + String(value, radix: 16) + "b\"")
            #expect(try JSONParser.parse(Array(JSONValue.string(text).serialized().utf8)) == .string(text))
        }
        let untouched = "\u{2027}\u{202F}\u{2065}\u{206A}\u{200E}\u{200F}\u{2029}"
        #expect(JSONValue.string(untouched).serialized() == "\"\u{2027}\u{202F}\u{2065}\u{206A}\u{200E}\u{200F}\\u2029\"")
    }

    /// An escaped character that starts a grapheme cluster (a quote with a combining accent)
    /// keeps the rest of its cluster after the escape.
    @Test func anEscapeInsideAGraphemeClusterKeepsTheCluster() {
        #expect(JSONValue.string("\"\u{301}x").serialized() == "\"\\\"\u{301}x\"")
        #expect(JSONValue.string("e\u{301}\n\u{301}").serialized() == "\"e\u{301}\\n\u{301}\"")
    }

    @Test func anyStringSurvivesWritingAndParsing() throws {
        var random = SeededGenerator(seed: 11)
        let pieces = ["a", "\"", "\\", "\n", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "\u{301}", "東京", "🦄",
                      "\u{2028}", "\u{2029}", "\u{2027}", "\u{202A}", "\u{E2}", "/", " "]
        for _ in 0..<5_000 {
            let text = (0..<Int(random.next() % 16)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let written = JSONValue.string(text).serialized()
            #expect(try JSONParser.parse(Array(written.utf8)) == .string(text), "\(written)")
            #expect(!written.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        }
    }
}
