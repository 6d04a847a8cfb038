// SPDX-License-Identifier: Apache-2.0
/// Lower-case hexadecimal: the one way jv spells bytes as text (blind-index columns bound as
/// text, FORMAT.md §4.4; ids; session socket names; the high-water file's MACs) and reads them
/// back. Only lower case is read: jv never writes upper case, so anything else is not jv's.
///
/// ```swift
/// Hex.lower([0x0f, 0xa0])        // "0fa0"
/// Hex.bytes(lower: "0fa0".utf8)  // [0x0f, 0xa0]
/// ```
enum Hex {
    /// Two digits per byte, high nibble first.
    static func lower(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var end = 0
            for byte in bytes {
                text[end] = digit(byte >> 4)
                text[end + 1] = digit(byte)
                end += 2
            }
            return end
        }
    }

    /// The bytes `text` spells; nil unless it is an even number of lower-case digits.
    static func bytes(lower text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index != text.endIndex {
            let next = text.index(after: index)
            guard let high = value(text[index]), let low = value(text[next]) else { return nil }
            bytes.append(high << 4 | low)
            index = text.index(after: next)
        }
        return bytes
    }

    /// The lower-case digit (ASCII) of the low four bits of `nibble`.
    static func digit(_ nibble: UInt8) -> UInt8 {
        let digits: StaticString = "0123456789abcdef"
        return digits.utf8Start[Int(nibble & 0x0F)]
    }

    /// The value of the lower-case digit `character` (ASCII); nil for any other byte.
    static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension Collection where Element == UInt8 {
    /// ``Hex/lower(_:)`` of these bytes.
    var lowerHex: String { Hex.lower(self) }
}
