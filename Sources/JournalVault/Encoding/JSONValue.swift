// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A JSON document whose objects keep their keys in the order written, so output follows the
/// documented shapes field by field (Foundation's encoder does not promise an order).
///
/// ```swift
/// let value: JSONValue = .object([("id", .string("abc")), ("count", .integer(2))])
/// print(value.serialized())   // {"id":"abc","count":2}
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The text of the document; `pretty` indents by two spaces, one member per line, as if
    /// the value were inside `depth` containers (``JSONStreamWriter/value(serialized:_:)``).
    public func serialized(pretty: Bool = false, depth: Int = 0) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: depth)
        return output
    }

    func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value): output += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let items):
            writeContainer("[", "]", count: items.count, to: &output, pretty: pretty, indent: indent) { index, output in
                items[index].write(to: &output, pretty: pretty, indent: indent + 1)
            }
        case .object(let members):
            writeContainer("{", "}", count: members.count, to: &output, pretty: pretty, indent: indent) { index, output in
                Self.writeString(members[index].0, to: &output)
                output += pretty ? ": " : ":"
                members[index].1.write(to: &output, pretty: pretty, indent: indent + 1)
            }
        }
    }

    private func writeContainer(_ open: String, _ close: String, count: Int, to output: inout String, pretty: Bool,
                                indent: Int, member: (Int, inout String) -> Void) {
        output += open
        guard count > 0 else { output += close; return }
        let inner = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        for index in 0..<count {
            if index > 0 { output += "," }
            output += inner
            member(index, &output)
        }
        output += pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        output += close
    }

    /// Runs that need no escape are copied whole; only `"`, `\`, control characters (C0, DEL,
    /// C1), U+2028/U+2029 and the bidi controls are written as escapes (exports are mostly long
    /// runs of text).
    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        let utf8 = text.utf8
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            var length = 1
            let escape: String
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\r"): escape = "\\r"
            case UInt8(ascii: "\t"): escape = "\\t"
            case 0..<0x20: escape = "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            // DEL and the C1 controls (C2 80 … C2 9F): valid JSON as they are, but a terminal may
            // act on them (U+009B is a one-character CSI), so JSON read on a terminal stays inert.
            case 0x7F: escape = "\\u007f"
            case 0xC2 where (0x80...0x9F).contains(utf8[utf8.index(after: index)]):
                escape = "\\u00" + String(utf8[utf8.index(after: index)], radix: 16); length = 2
            // U+2028 and U+2029 (E2 80 A8, E2 80 A9): valid JSON, but not inside JavaScript strings;
            // the bidi embeddings, overrides and isolates (U+202A–U+202E: E2 80 AA…AE; U+2066–U+2069:
            // E2 81 A6…A9) reorder what a terminal shows.
            case 0xE2:
                guard let scalar = escapedScalar(afterE2: utf8[utf8.index(after: index)...]) else {
                    index = utf8.index(after: index)
                    continue
                }
                escape = "\\u" + String(scalar, radix: 16); length = 3
            default:
                index = utf8.index(after: index)
                continue
            }
            // Slices of the scalar view: an escape may sit inside a grapheme cluster, where a
            // slice of the string itself would round to the cluster's start.
            output += Substring(text.unicodeScalars[runStart..<index])
            output += escape
            index = utf8.index(index, offsetBy: length)
            runStart = index
        }
        output += Substring(text.unicodeScalars[runStart..<index])
        output += "\""
    }

    /// The scalar U+2028…U+202E or U+2066…U+2069 whose UTF-8 is E2 and then `rest`'s first two bytes.
    private static func escapedScalar(afterE2 rest: Substring.UTF8View) -> UInt32? {
        guard let second = rest.first, let third = rest.dropFirst().first else { return nil }
        let scalar = 0x2000 | UInt32(second & 0x3F) << 6 | UInt32(third & 0x3F)
        return (0x2028...0x202E).contains(scalar) || (0x2066...0x2069).contains(scalar) ? scalar : nil
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized())
    }
}

extension JSONValue {
    /// `.string` of an optional, or `.null`.
    public static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// An array of strings.
    public static func strings(_ texts: [String]) -> JSONValue { .array(texts.map(JSONValue.string)) }
}
