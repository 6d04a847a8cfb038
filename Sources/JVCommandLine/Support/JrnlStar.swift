// SPDX-License-Identifier: Apache-2.0
/// jrnl's star marks in the text of a new entry: `yesterday *: text` (before the leading date's
/// colon), `*text` and `text*` (the first line's first or last character) star it, and the mark
/// is not kept. Text that merely uses stars (`*emphasis* here`, `**bold**`, `2*3`) is left alone.
///
/// ```swift
/// JrnlStar.read("*Big day")               // ("Big day", true)
/// JrnlStar.read("Big day*\nmore")         // ("Big day\nmore", true)
/// JrnlStar.unmarkingDate("last sunday *: Walk")   // ("last sunday: Walk", true)
/// ```
enum JrnlStar {
    static func read(_ text: String) -> (text: String, starred: Bool) {
        let firstLine = text.prefix { !$0.isNewline }
        let marks = firstLine.filter { $0 == "*" }.count
        var unmarked = Substring(text)
        if marks == 1, firstLine.hasPrefix("*") {
            unmarked = unmarked.dropFirst().drop { $0 == " " }
        } else if marks == 1, firstLine.hasSuffix("*") {
            let line = firstLine.dropLast().reversed().drop { $0 == " " }
            unmarked = Substring(String(line.reversed())) + text[firstLine.endIndex...]
        } else {
            return (text, false)
        }
        return unmarked.allSatisfy(\.isWhitespace) ? (text, false) : (String(unmarked), true)
    }

    /// The text with a star before its leading date's `: ` taken out, and whether there was one.
    static func unmarkingDate(_ text: String) -> (text: String, starred: Bool) {
        guard let colon = text.prefix(200).firstRange(of: ": ") else { return (text, false) }
        let date = text[..<colon.lowerBound]
        guard date.hasSuffix("*"), !date.contains(where: \.isNewline) else { return (text, false) }
        let withoutStar = date.dropLast().reversed().drop { $0 == " " }
        return (String(withoutStar.reversed()) + text[colon.lowerBound...], true)
    }
}

