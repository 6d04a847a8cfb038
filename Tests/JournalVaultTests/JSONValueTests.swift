import Testing
@testable import JournalVault

/// JSON text as jv writes and reads it: exact escapes, and any string back as it was.
@Suite struct JSONValueTests {
    @Test func stringsAreEscapedExactlyAsDocumented() throws {
        let text = "a\"b\\c\nd\re\tf\u{0}g\u{1F}h\u{7F}i\u{80}\u{9B}\u{9F}\u{A0}\u{2028}j\u{2029}k é 🦄"
        #expect(JSONValue.string(text).serialized() == #""a\"b\\c\nd\re\tf\u0000g\u001fh\u007fi\u0080\u009b\u009f"# + "\u{A0}" + #"\u2028j\u2029k é 🦄""#)
        #expect(try JSONParser.parse(Array(JSONValue.string(text).serialized().utf8)) == .string(text))
    }

    /// An escaped character that starts a grapheme cluster (a quote with a combining accent)
    /// keeps the rest of its cluster after the escape.
    @Test func anEscapeInsideAGraphemeClusterKeepsTheCluster() {
        #expect(JSONValue.string("\"\u{301}x").serialized() == "\"\\\"\u{301}x\"")
        #expect(JSONValue.string("e\u{301}\n\u{301}").serialized() == "\"e\u{301}\\n\u{301}\"")
    }

    @Test func anyStringSurvivesWritingAndParsing() throws {
        var random = SeededGenerator(state: 11)
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
