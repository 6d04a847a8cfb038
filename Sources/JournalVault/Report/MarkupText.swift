// SPDX-License-Identifier: Apache-2.0
/// Text made safe to stand in HTML or SVG, as an element's text or inside a quoted attribute:
/// the five characters markup gives a meaning to become references, and the characters HTML
/// and XML do not allow in a document (controls other than tab, line feed and carriage return,
/// C1 controls, noncharacters) become U+FFFD. An entry's text then shows as written, and no
/// text can close an element, open a tag or end an attribute.
///
/// ```swift
/// MarkupText.escaped("</p><img src=x onerror=alert(1)>")
/// // "&lt;/p&gt;&lt;img src=x onerror=alert(1)&gt;"
/// ```
public enum MarkupText {
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default: result.unicodeScalars.append(isAllowed(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return result
    }

    /// Whether HTML's parser takes `scalar` in text without an error (and XML at all).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return false }
        // Noncharacters: U+FDD0–U+FDEF and the last two code points of every plane.
        if (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE { return false }
        return true
    }
}
