// SPDX-License-Identifier: Apache-2.0
/// What a terminal answered to ``TerminalProbe``'s questions, read from the bytes it sent back:
/// kitty's graphics answer (`ESC _ G i=31;OK ESC \`), its name and version (XTVERSION:
/// `ESC P > | name ESC \`) and its primary device attributes (DA1: `ESC [ ? 62;4 c`). Terminals
/// answer in the order asked and every one answers DA1, which is asked last: once its answer
/// is in, nothing more is coming. Other bytes (keys typed meanwhile) are passed over.
struct TerminalAnswers: Equatable, Sendable {
    /// Whether the terminal draws kitty graphics: it answered the query image with `OK`.
    var kittyGraphics = false
    /// The XTVERSION answer, such as `WezTerm 20240203` or `iTerm2 3.5.0`.
    var version: String?
    /// DA1's parameters: the terminal's class, then its features (4: sixel graphics).
    var deviceAttributes: [Int]?

    /// The id of the query image, which the answer repeats.
    static let queryID = 31

    /// Whether the DA1 answer came, which ends the answers.
    var complete: Bool { deviceAttributes != nil }

    /// Whether the terminal draws sixel graphics: DA1 lists feature 4.
    var sixel: Bool { deviceAttributes?.dropFirst().contains(4) ?? false }
}

extension TerminalAnswers {
    /// The answers in `bytes`, as far as they have come.
    init(parsing bytes: [UInt8]) {
        var index = 0
        while let escape = bytes[index...].firstIndex(of: 0x1B), escape + 1 < bytes.count {
            switch bytes[escape + 1] {
            case UInt8(ascii: "_"), UInt8(ascii: "P"):
                guard let (body, end) = Self.string(in: bytes, from: escape + 2) else { return }
                if bytes[escape + 1] == UInt8(ascii: "_") { readGraphics(body) } else { readVersion(body) }
                index = end
            case UInt8(ascii: "["):
                guard let final = bytes[(escape + 2)...].firstIndex(where: { (0x40...0x7E).contains($0) }) else { return }
                let parameters = bytes[(escape + 2)..<final]
                if bytes[final] == UInt8(ascii: "c"), parameters.first == UInt8(ascii: "?") {
                    deviceAttributes = parameters.dropFirst().split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
                        .map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
                }
                index = final + 1
            default:
                index = escape + 1
            }
        }
    }

    /// The body of an APC or DCS string from `start` to its terminator (`ESC \` or BEL), and the
    /// index after it; nil until the terminator has come.
    private static func string(in bytes: [UInt8], from start: Int) -> (ArraySlice<UInt8>, Int)? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x07 { return (bytes[start..<index], index + 1) }
            if bytes[index] == 0x1B, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\") {
                return (bytes[start..<index], index + 2)
            }
            index += 1
        }
        return nil
    }

    /// `G i=31;OK`: the query image was understood.
    private mutating func readGraphics(_ body: ArraySlice<UInt8>) {
        guard body.first == UInt8(ascii: "G"), let semicolon = body.firstIndex(of: UInt8(ascii: ";")) else { return }
        let keys = body[(body.startIndex + 1)..<semicolon].split(separator: UInt8(ascii: ","))
        guard keys.contains(where: { $0.elementsEqual("i=\(Self.queryID)".utf8) }) else { return }
        kittyGraphics = body[(semicolon + 1)...].starts(with: "OK".utf8)
    }

    /// `>|name version`.
    private mutating func readVersion(_ body: ArraySlice<UInt8>) {
        guard body.starts(with: ">|".utf8) else { return }
        version = String(decoding: body.dropFirst(2), as: UTF8.self)
    }
}
