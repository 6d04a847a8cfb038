// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
import VaultCrypto

/// The controlling terminal (`/dev/tty`), used for prompts so that standard input stays free
/// for entry text.
struct Terminal {
    private let descriptor: Int32
    static let maximumSecretLength = 4096

    /// The terminal, or nil when the process has none (cron, CI, pipes without a tty).
    static func open() -> Terminal? {
        let descriptor = Foundation.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        return descriptor >= 0 ? Terminal(descriptor: descriptor) : nil
    }

    func close() { Foundation.close(descriptor) }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Reads a line with echo off, straight into secure memory (never a `String`).
    func readSecret(prompt: String) throws -> SecureBytes {
        write(prompt)
        _ = jv_set_echo(descriptor, 0)
        defer {
            _ = jv_set_echo(descriptor, 1)
            write("\n")
        }
        let buffer = try SecureBytes.filling(count: Self.maximumSecretLength) { _ in }
        let length = try buffer.withUnsafeBytes { raw -> Int in
            let bytes = UnsafeMutableRawPointer(mutating: raw.baseAddress!).assumingMemoryBound(to: UInt8.self)
            var length = 0
            while true {
                var byte: UInt8 = 0
                let count = Foundation.read(descriptor, &byte, 1)
                if count <= 0 || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
                guard length < Self.maximumSecretLength else {
                    throw CLIError.usage("The passphrase is longer than \(Self.maximumSecretLength) bytes.")
                }
                bytes[length] = byte
                length += 1
            }
            return length
        }
        return try buffer.prefix(length)
    }

    /// Reads a visible line (for yes/no questions); nil when the terminal ends before a line does.
    func readLine(prompt: String) -> String? {
        write(prompt)
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            guard Foundation.read(descriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Asks a yes/no question; only "y" or "yes" is yes.
    func confirm(_ question: String) -> Bool {
        readLine(prompt: question + " [y/N] ").map { ["y", "yes"].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false
    }

    /// Asks a yes/no question whose answer is yes unless refused: an empty line, "y" or "yes"
    /// is yes; a terminal that ends is no, so that nothing asks again forever.
    func confirmUnlessRefused(_ question: String) -> Bool {
        guard let answer = readLine(prompt: question + " [Y/n] ")?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return ["", "y", "yes"].contains(answer)
    }
}
