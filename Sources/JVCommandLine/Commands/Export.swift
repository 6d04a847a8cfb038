// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv export`: the vault in readable or interchange formats.
struct Export: VaultCommand, ReplacingWithForce {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export entries (and chats, analyses, the graph) as plaintext, or encrypted to age recipients.",
        discussion: """
            Formats: json (the lossless jv-export document that 'jv import --format json' reads), markdown, \
            txt (jrnl's plain-text journal, for 'jrnl --import') and jrnl-json (jrnl's JSON export). \
            With --age-recipient the output is an age-encrypted file that 'age -d -i KEY' decrypts. \
            --output files are created 0600 and never replace an existing file without --force. \
            An --output that is a folder, or ends in '/', receives the document as index.md or \
            index.json and the entries' attachments under attachments/ (folders 0700), linked from \
            the Markdown and listed in the JSON; --no-attachments leaves them out. A single file \
            cannot carry them: jv says how many it left out.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "json, markdown, txt or jrnl-json.")
    var format: ExportFormat = .json

    @Option(help: "Entries from this date on.")
    var from: String?

    @Option(help: "Entries up to this date (inclusive).")
    var to: String?

    @Option(help: ArgumentHelp("Write to this file instead of standard output, or into this folder (ending in '/') with the attachments.",
                               valueName: "path"), completion: .file())
    var output: String?

    @Flag(help: "Replace --output if it exists (in a folder: the document and attachment files jv writes).")
    var force = false

    @Flag(help: "Leave the entries' attachments out of a folder export.")
    var noAttachments = false

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
        let folder = try exportFolder(encrypted: !recipients.isEmpty)
        let document = folder.map { ($0 as NSString).appendingPathComponent(ExportFolder.documentName(of: format)) } ?? output
        if let folder, !FileManager.default.fileExists(atPath: folder) {
            // Made only once the vault is open: a refused passphrase leaves nothing behind.
            try OutputFile.check(folder, replace: false)
        } else if let document {
            try OutputFile.check(document, replace: force)
        }
        let journal = try options.unlockedVault(access: .readOnly, onDamage: .warn)
        if let folder { try makePrivateFolder(folder) }
        // Written as the entries are decrypted: to standard output as it comes, to --output
        // through a temporary file that takes the name only when complete.
        var attachments = ExportedAttachments()
        func export(_ put: ([UInt8]) throws -> Void) throws {
            var encryptor = try recipients.isEmpty ? nil : AgeFile.Encryptor(to: recipients)
            if let encryptor { try put(encryptor.header) }
            let toTerminal = output == nil && encryptor == nil && Console.stdoutIsTerminal
            if toTerminal { Console.warnOfDecryptedTextOnTerminal() }
            var buffer: [UInt8] = []
            attachments = try journal.export(format, from: from, to: to, linkingAttachments: folder != nil && !noAttachments) { piece in
                buffer += (toTerminal ? TerminalText.visible(piece) : piece).utf8
                guard buffer.count >= 64 * 1024 else { return }
                try put(encryptor?.add(buffer) ?? buffer)
                buffer = []
            }
            try put(encryptor?.add(buffer) ?? buffer)
            if encryptor != nil { try put(encryptor!.finish()) }
        }
        if let document {
            try PrivateOutput.write(to: document, replace: force) { put in
                try export { try $0.withUnsafeBytes(put) }
                // The document takes its name last, once every file it links is there.
                if let folder { try write(attachments.linked, into: folder, from: journal) }
            }
        } else {
            try StandardOutput.with { stream in try export(stream.write) }
        }
        if attachments.leftOut > 0, !noAttachments {
            let many = attachments.leftOut != 1
            Console.note("jv: \(attachments.leftOut) \(many ? "attachments" : "attachment") of the exported entries \(many ? "were" : "was") left out: "
                         + (folder == nil ? "a single file cannot carry them; --output DIR/ writes them beside the document."
                                          : "sync left \(many ? "their content" : "its content") at the sync location ('jv attachment get' fetches it)."))
        }
    }

    /// The folder --output names (it is one, or ends in '/'; made 0700 if missing, in a folder
    /// that exists, as a file's must); nil for a file or standard output.
    private func exportFolder(encrypted: Bool) throws -> String? {
        guard let output else { return nil }
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isFolder)
        guard output.hasSuffix("/") || (exists && isFolder.boolValue) else { return nil }
        guard !encrypted else { throw CLIError.usage("--age-recipient writes one encrypted file: --output must name a file, not the folder \(output).") }
        guard format == .markdown || format == .json else {
            throw CLIError.usage("--format \(format.rawValue) writes one file: --output must name a file, not the folder \(output).")
        }
        if exists && !isFolder.boolValue { throw CLIError.cannotCreate("Cannot create the folder \(output): a file has that name.") }
        return output
    }

    /// Writes each attachment's content to its path in `folder`, each file complete before it takes its name.
    private func write(_ attachments: [Attachment], into folder: String, from journal: UnlockedVault) throws {
        guard !attachments.isEmpty else { return }
        try makePrivateFolder((folder as NSString).appendingPathComponent(ExportFolder.attachmentsFolder))
        for attachment in attachments {
            let path = (folder as NSString).appendingPathComponent(ExportFolder.attachmentPath(id: attachment.id, name: attachment.name))
            try PrivateOutput.write(to: path, replace: force) { put in try journal.readAttachment(id: attachment.id, put) }
        }
    }

    private func makePrivateFolder(_ path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return }
        guard mkdir(path, 0o700) == 0 else {
            throw CLIError.cannotCreate("Cannot create the folder \(path): \(String(cString: strerror(errno))).")
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
