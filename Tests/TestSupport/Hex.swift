// SPDX-License-Identifier: Apache-2.0
import Foundation

// Hexadecimal in tests: test vectors written the way the standards print them, and bytes read
// from or written for the sqlite3 shell.

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits a byte.
    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension Array where Element == UInt8 {
    /// Bytes from hexadecimal text in either case, or nil if it is anything else (an odd number
    /// of digits, a character that is no digit). White space is ignored.
    public init?(hexDigits text: String) {
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in text.unicodeScalars where !scalar.properties.isWhitespace {
            guard scalar.isASCII, let nibble = UInt8(String(scalar), radix: 16) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { return nil }
        self = bytes
    }

    /// Bytes from a hexadecimal test vector; white space is ignored. Traps on anything else,
    /// which in a vector is a typo in the test.
    public init(hex text: String) {
        guard let bytes = Self(hexDigits: text) else { preconditionFailure("not a hexadecimal vector: \(text)") }
        self = bytes
    }
}

extension Data {
    /// Bytes from a hexadecimal test vector; traps on anything else (see `[UInt8](hex:)`).
    public init(hex text: String) { self.init([UInt8](hex: text)) }

    /// Bytes from hexadecimal text read from elsewhere (as sqlite3's `hex()` prints), or nil.
    public init?(hexString text: String) {
        guard let bytes = [UInt8](hexDigits: text) else { return nil }
        self.init(bytes)
    }
}

/// `first…last` as bytes (vectors often use a key of consecutive bytes).
public func byteRange(_ range: ClosedRange<UInt8>) -> [UInt8] { Array(range) }
