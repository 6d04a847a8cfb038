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

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case json, markdown, txt
        case jrnlJSON = "jrnl-json"
    }

    @OptionGroup var options: GlobalOptions

    @Option(help: "json, markdown, txt or jrnl-json.")
    var format: Format = .json

    @Option(help: "Entries from this date on.")
    var from: String?

    @Option(help: "Entries up to this date (inclusive).")
    var to: String?

    @Option(help: ArgumentHelp("Write to this file instead of standard output.", valueName: "path"))
    var output: String?

    @Flag(help: "Replace --output if it exists.")
    var force = false

    @Option(name: .customLong("age-recipient"), help: ArgumentHelp("Encrypt to this age recipient (age1…; repeatable).", valueName: "key"))
    var ageRecipients: [String] = []

    func execute() throws {
        let (from, to) = try DateArgument.range(from: from, to: to)
        let recipients = try ageRecipients.map(AgeRecipient.init(text:))
        if let output, !force, FileManager.default.fileExists(atPath: output) { throw VaultError.vaultExists(path: output) }
        let progress = Progress("Exporting")
        defer { progress.finish() }
        let snapshot = try options.unlockedVault(access: .readOnly).snapshot(from: from, to: to)
        progress.update(0, of: snapshot.recordCount, phase: ", formatting…")
        let text: String = switch format {
        case .json: snapshot.jvExport().serialized(pretty: true) + "\n"
        case .markdown: snapshot.markdown()
        case .txt: JrnlFormat.text(of: snapshot.entries)
        case .jrnlJSON: JrnlFormat.json(of: snapshot.entries).serialized(pretty: true) + "\n"
        }
        progress.update(snapshot.recordCount, of: snapshot.recordCount, phase: ", writing…")
        var bytes = Array(text.utf8)
        if !recipients.isEmpty {
            bytes = try AgeFile.encrypt(bytes, to: recipients)
        } else if output == nil, Console.stdoutIsTerminal {
            Console.note("jv: warning: writing decrypted journal text to the terminal.")
            bytes = Array(TerminalText.visible(text).utf8)
        }
        if let output {
            try PrivateOutput.write(bytes, to: output, replace: force)
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
    }
}
