// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import Testing

/// Text from a vault (or a command line) as a terminal is shown it: the characters a terminal
/// acts on are shown instead, everything else is left exactly as it is.
@Suite("Terminal text", .tags(.inProcess))
struct TerminalTextTests {
    @Test("C0 controls and DEL in caret notation, C1 controls as <U+…>", arguments: [
        ("a\u{1B}[2Jb", "a^[[2Jb"),
        ("\u{1B}]0;title\u{07}", "^[]0;title^G"),
        ("cr\rlf", "cr^Mlf"),
        ("nul\u{0}", "nul^@"),
        ("del\u{7F}", "del^?"),
        ("csi\u{9B}31m", "csi<U+009B>31m"),
        ("\u{85}", "<U+0085>"),
    ])
    func controls(text: String, shown: String) {
        #expect(TerminalText.visible(text) == shown)
    }

    @Test("Bidi overrides, embeddings and isolates and the line separators are shown; the marks stay")
    func bidi() {
        #expect(TerminalText.visible("x\u{202E}cba") == "x<U+202E>cba")
        #expect(TerminalText.visible("\u{2066}a\u{2069}") == "<U+2066>a<U+2069>")
        #expect(TerminalText.visible("one\u{2028}two\u{2029}") == "one<U+2028>two<U+2029>")
        #expect(TerminalText.visible("שלום\u{200F} abc\u{200E}\u{061C}") == "שלום\u{200F} abc\u{200E}\u{061C}")
    }

    @Test("Line breaks, tabs and every printable character stay exactly")
    func unchanged() {
        let text = "Line one\n\tindented — ½ café 🌊 漢字 e\u{301}"
        #expect(TerminalText.visible(text) == text)
        #expect(TerminalText.visible("") == "")
    }

    @Test("Bytes that were not UTF-8 reach the terminal as U+FFFD, the controls among them still shown")
    func invalidUTF8() {
        let decoded = String(decoding: [0x61, 0xFF, 0x1B, 0x5B, 0x32, 0x4A, 0xC3, 0x62, 0xC2, 0x9B], as: UTF8.self)
        #expect(TerminalText.visible(decoded) == "a\u{FFFD}^[[2J\u{FFFD}b<U+009B>")
    }
}
