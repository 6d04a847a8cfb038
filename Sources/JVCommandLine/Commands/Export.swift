// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv export`: the vault in readable or interchange formats.
struct Export: VaultCommand, ReplacingWithForce {
    static let configuration = CommandConfiguration(
        abstract: "Export entries (and chats, analyses, the graph) as plaintext, or encrypted to age recipients.",
        discussion: """
            Formats: json (the lossless jv-export document that 'jv import --format json' reads), markdown, \
            txt (jrnl's plain-text journal, for 'jrnl --import') and jrnl-json (jrnl's JSON export). \
            With --age-recipient the output is an age-encrypted file that 'age -d -i KEY' decrypts. \
            --output files are created 0600 and never replace an existing file without --force.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "json, markdown, txt or jrnl-json.")
    var format: ExportFormat = .json

    @Option(help: "Entries from this date on.")
    var from: String?

    @Option(help: "Entries up to this date (inclusive).")
    var to: String?

    @Option(help: ArgumentHelp("Write to this file instead of standard output.", valueName: "path"), completion: .file())
    var output: String?

    @Flag(help: "Replace --output if it exists.")
    var force = false

    @Option(name: .customLong("age-recipient"), help: ArgumentHelp("Encrypt to this age recipient (age1…; repeatable).", valueName: "key"))
    var ageRecipients: [String] = []

    func execute() throws {
        let (from, to) = try DateArgument.range(from: from, to: to)
        let recipients: [AgeRecipient]
        do {
            recipients = try ageRecipients.map(AgeRecipient.init(text:))
        } catch let error as AgeError {
            // Typed on the command line: a usage error, not bad data.
            throw CLIError.usage("--age-recipient: \(error.reason); 'age-keygen -y KEYFILE' prints a key's recipient.")
        }
        if let output { try OutputFile.check(output, replace: force) }
        let journal = try options.unlockedVault(access: .readOnly, onDamage: .warn)
        // Written as the entries are decrypted: to standard output as it comes, to --output
        // through a temporary file that takes the name only when complete.
        func export(_ put: ([UInt8]) throws -> Void) throws {
            var encryptor = try recipients.isEmpty ? nil : AgeFile.Encryptor(to: recipients)
            if let encryptor { try put(encryptor.header) }
            let toTerminal = output == nil && encryptor == nil && Console.stdoutIsTerminal
            if toTerminal { Console.note("jv: warning: writing decrypted journal text to the terminal.") }
            var buffer: [UInt8] = []
            try journal.export(format, from: from, to: to) { piece in
                buffer += (toTerminal ? TerminalText.visible(piece) : piece).utf8
                guard buffer.count >= 64 * 1024 else { return }
                try put(encryptor?.add(buffer) ?? buffer)
                buffer = []
            }
            try put(encryptor?.add(buffer) ?? buffer)
            if encryptor != nil { try put(encryptor!.finish()) }
        }
        if let output {
            try PrivateOutput.write(to: output, replace: force) { put in try export(put) }
        } else {
            try StandardOutput.with { stream in try export(stream.write) }
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
