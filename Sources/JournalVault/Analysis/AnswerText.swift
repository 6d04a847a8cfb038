// SPDX-License-Identifier: Apache-2.0
/// Where the JSON object is in what an analyser printed (README "Analyser protocol"). Language
/// models asked for JSON often wrap it in a Markdown code fence (```` ```json … ``` ````) or
/// say a sentence before or after it; the object is taken from there, but never guessed at:
///
/// 1. the whole output, if it is one JSON document (anything else it says is judged as today);
/// 2. else the content of its only fenced block, if it has exactly one, and that must be an object;
/// 3. else (no single complete block) the text from its first `{` to its last `}`, if that is
///    one object.
///
/// Two objects, or none, match none of these and are refused with the parse error of the whole
/// output. Each step is one linear pass, so a huge answer costs no more than parsing it.
///
/// ```swift
/// let bytes = Array("Here it is:\n```json\n{\"sentiment\": \"calm\"}\n```\n".utf8)
/// let object = try AnswerText.json(in: bytes)   // .object([("sentiment", .string("calm"))])
/// ```
enum AnswerText {
    /// The JSON value the answer `bytes` holds, by the rules above; throws the whole output's
    /// parse error when none applies.
    static func json(in bytes: [UInt8]) throws(JSONParser.Error) -> JSONValue {
        let whole: JSONParser.Error
        do {
            return try JSONParser.parse(bytes)
        } catch {
            whole = error
        }
        // A fenced block, when there is one, is the answer: what is around it is not looked at.
        if let candidate = fencedBlock(in: bytes) ?? outermostBraces(in: bytes),
           let value = try? JSONParser.parse(Array(candidate)), case .object = value {
            return value
        }
        throw whole
    }

    /// The lines between the only pair of fence lines (a line starting with three backticks
    /// opens, optionally naming a language; a line of only backticks closes), or nil when there
    /// is not exactly one complete block.
    static func fencedBlock(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var openedAfter: Int?
        var block: Range<Int>?
        var lineStart = 0
        while lineStart <= bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = trimmed(bytes[lineStart..<lineEnd])
            if line.starts(with: fence) {
                if let start = openedAfter {
                    guard line.allSatisfy({ $0 == UInt8(ascii: "`") }) else { return nil }  // a fence inside a block
                    guard block == nil else { return nil }                                   // a second block
                    block = start..<lineStart
                    openedAfter = nil
                } else {
                    openedAfter = min(lineEnd + 1, bytes.count)
                }
            }
            lineStart = lineEnd + 1
        }
        guard openedAfter == nil, let block else { return nil }
        return bytes[block]
    }

    /// From the first `{` to the last `}`, or nil when there is no such span.
    static func outermostBraces(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard let first = bytes.firstIndex(of: UInt8(ascii: "{")), let last = bytes.lastIndex(of: UInt8(ascii: "}")),
              first < last else { return nil }
        return bytes[first...last]
    }

    private static let fence = Array("```".utf8)

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let start = line.firstIndex(where: { !isSpace($0) }), let end = line.lastIndex(where: { !isSpace($0) }) else { return [] }
        return line[start...end]
    }
}
