/// Text from the vault as a terminal may show it. An entry, a chat message or an analysis can
/// hold bytes a terminal acts on — `ESC ]0;…BEL` retitles the window, `ESC [2J` clears the
/// screen, U+009B starts a sequence on its own — so on a terminal each control character is
/// shown instead: C0 and DEL in caret notation (`^[`, `^M`, `^?`), C1 as `<U+009B>`. Newline
/// and tab stay. Pipes and files get the text exactly (``Output/shown(_:)``).
///
/// ```swift
/// TerminalText.visible("a\u{1B}[2Jb")   // "a^[[2Jb"
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
            default: shown.append(contentsOf: ("<U+00" + String(scalar.value, radix: 16, uppercase: true) + ">").unicodeScalars)
            }
        }
        return String(shown)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00..<0x20, 0x7F...0x9F: true
        default: false
        }
    }
}
