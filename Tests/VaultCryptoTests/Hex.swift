// SPDX-License-Identifier: Apache-2.0
/// Hexadecimal test vectors, written the way the standards print them.
extension Array where Element == UInt8 {
    /// Bytes from hexadecimal text; white space is ignored. Traps on anything else, which in a
    /// test vector is a typo in the test.
    init(hex text: String) {
        let digits = text.filter { !$0.isWhitespace }
        precondition(digits.count % 2 == 0, "odd number of hex digits")
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        self = bytes
    }

    var hex: String { map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

/// `first…last` as bytes (vectors often use a key of consecutive bytes).
func byteRange(_ range: ClosedRange<UInt8>) -> [UInt8] { Array(range) }
