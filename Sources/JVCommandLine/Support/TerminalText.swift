// SPDX-License-Identifier: Apache-2.0
/// Text from the vault as a terminal may show it. An entry, a chat message or an analysis can
/// hold bytes a terminal acts on — `ESC ]0;…BEL` retitles the window, `ESC [2J` clears the
/// screen, U+009B starts a sequence on its own — so on a terminal each control character is
/// shown instead: C0 and DEL in caret notation (`^[`, `^M`, `^?`), C1 as `<U+009B>`. Newline
/// and tab stay. So are the characters that make a terminal show text other than in its order
/// (the "Trojan Source" trick: U+202E turns `abc` into `cba` up to the line's end): the bidi
/// embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 — the ones Rust and
/// compilers warn of; the marks U+200E, U+200F and U+061C open no span and are ordinary in
/// right-to-left writing, so they stay — and the line and paragraph separators U+2028 and
/// U+2029, shown as `<U+202E>`. Pipes and files get the text exactly (``Output/shown(_:)``).
///
/// ```swift
/// TerminalText.visible("a\u{1B}[2Jb")   // "a^[[2Jb"
/// TerminalText.visible("x\u{202E}cba")  // "x<U+202E>cba"
/// ```
enum TerminalText {
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                shown.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x00..<0x20: shown.append(contentsOf: "^".unicodeScalars + [Unicode.Scalar(UInt8(scalar.value) + 0x40)])
            case 0x7F: shown.append(contentsOf: "^?".unicodeScalars)
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                shown.append(contentsOf: ("<U+" + String(repeating: "0", count: 4 - hex.count) + hex + ">").unicodeScalars)
            }
        }
        return String(shown)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00..<0x20, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
