// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv import`: bring entries in from our export, jrnl, Day One or a folder of Markdown notes.
struct Import: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a jv export, a jrnl journal (JSON or text), a Day One JSON export or a folder of Markdown notes.",
        discussion: """
            Idempotent: importing the same file again changes nothing (records are matched by id, or by \
            an id derived from the source's own id or from its date and text). A record already in the \
            vault is replaced only by a newer version: an older one is skipped (--overwrite takes it), and \
            another text of the same moment (or of a chat message) is kept as a conflict copy beside it, \
            as sync does. One transaction: a \
            malformed file imports nothing and jv says where it is malformed. jrnl's times carry no \
            time zone; they are read in yours (TZ). An age-encrypted file needs --age-identity. \
            Day One: FILE is the export folder (or its Journal.json); the photos, videos, audio and \
            PDFs in it come as attachments of their entries, each marked in the text where it was \
            linked ([photo: NAME]); one whose file is missing is marked as not imported, and jv says how \
            many. Location and weather become the entry's last lines. A jv export written to a folder \
            (export --output DIR/) brings its attachments back the same way. \
            Markdown (Obsidian's daily notes): FILE is the folder; each note dated by its name \
            (YYYY-MM-DD…) or its front matter's date becomes an entry at 09:00 that day (one per \
            '## HH:MM' heading, at its time), and the files it embeds (![[photo.jpg]], ![](path)) come as \
            attachments; notes without a date, and embedded files not found, are reported.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The file to import ('-' for standard input), or the folder of a Day One or jv export or of Markdown notes.",
              completion: .file())
    var file: String

    @Option(help: "json, jrnl-json, jrnl-txt, dayone-json or markdown-folder.")
    var format: ImportFormat

    @Option(help: ArgumentHelp("An age identity file (AGE-SECRET-KEY-1…) to decrypt an age-encrypted file.", valueName: "path"),
            completion: .file())
    var ageIdentity: String?

    @Flag(help: "Replace a record whose version in the file differs, even with an older one (it reverts later changes).")
    var overwrite = false

    func execute() throws {
        let journal: UnlockedVault
        let snapshot: VaultSnapshot
        if format.readsFolder {
            // The notes' entry ids are derived with the vault's key: it is unlocked first.
            let folder = try notesFolder()
            journal = try options.unlockedVault()
            snapshot = try journal.readMarkdownFolder(folder)
        } else {
            let (path, folder) = try located()
            var bytes = try readBounded(path)
            if let ageIdentity {
                guard let identityFile = FileManager.default.contents(atPath: ageIdentity) else { throw CLIError.inputNotFound("No identity file at \(ageIdentity).") }
                let identities = try AgeIdentity.parseFile(String(decoding: identityFile, as: UTF8.self))
                bytes = try AgeFile.decrypt(bytes, with: identities)
            }
            snapshot = try format.read(bytes, folder: folder)
            journal = try options.unlockedVault()
        }
        let progress = Progress("Imported")
        let summary = try journal.importSnapshot(snapshot, overwrite: overwrite, attachmentLimit: try AttachmentFiles.limit()) { progress.update($0, of: $1) }
        progress.finish()
        let output = options.output
        if output.json {
            func counts(_ values: [String: Int]) -> JSONValue { .object(values.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) }) }
            output.printJSON(.object([("added", counts(summary.added)), ("updated", counts(summary.updated)), ("unchanged", counts(summary.unchanged)),
                                      ("conflict_copies", counts(summary.conflictCopies)), ("skipped", counts(summary.skipped)),
                                      ("not_imported", snapshot.omissions.json)]))
        } else {
            func describe(_ values: [String: Int]) -> String {
                let parts = values.sorted { $0.key < $1.key }.filter { $0.value > 0 }.map { Output.count($0.value, of: $0.key) }
                return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
            }
            var clauses = ["added \(describe(summary.added))", "updated \(describe(summary.updated))", "unchanged \(describe(summary.unchanged))"]
            if summary.conflictCopies.values.contains(where: { $0 > 0 }) {
                clauses.append("conflict copies kept for \(describe(summary.conflictCopies))")
            }
            if summary.skipped.values.contains(where: { $0 > 0 }) {
                clauses.append("skipped \(describe(summary.skipped)) whose stored version is as new or newer (--overwrite imports them)")
            }
            Console.note("Imported \(file): " + clauses.joined(separator: "; ") + ".")
        }
        for sentence in snapshot.omissions.sentences { Console.note("jv: " + sentence) }
    }
}

extension ImportOmissions {
    /// Names of the kinds in the report, and their keys in `--json`.
    private static func names(_ kind: AttachmentKind) -> (one: String, many: String, key: String) {
        switch kind {
        case .photo: ("photo", "photos", "photos")
        case .video: ("video", "videos", "videos")
        case .audio: ("audio recording", "audio recordings", "audio_recordings")
        case .pdf: ("PDF", "PDFs", "pdfs")
        case .other: ("other attachment", "other attachments", "other_attachments")
        }
    }

    private static func count(_ value: Int, _ kind: AttachmentKind) -> String {
        "\(value) \(value == 1 ? names(kind).one : names(kind).many)"
    }

    private static func entries(_ value: Int) -> String { "\(value) \(value == 1 ? "entry" : "entries")" }

    /// "(record 4 in the file)", or "(the first is record 4 in the file)" for several.
    private static func whereFound(_ records: [Int]) -> String {
        "(\(records.count == 1 ? "" : "the first is ")record \(records.min() ?? 0) in the file)"
    }

    /// What the import left behind, one sentence each, for standard error.
    var sentences: [String] {
        var sentences: [String] = []
        if !attachments.isEmpty {
            let parts = attachments.sorted { $0.key < $1.key }.map { Self.count($0.value, $0.key) }
            let list = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
            let one = attachments.values.reduce(0, +) == 1
            let why = if let first = missingAttachmentLinks.first {
                "\(one ? "its file was" : "their files were") not found in the folder; \(one ? "it is" : "the first is") \(first)"
            } else if attachmentFolderSearched {
                "\(one ? "its file is" : "their files are") not in the export folder"
            } else {
                "a file read from standard input brings no attachments"
            }
            let marked = attachmentsMarkedInText ? "; \(one ? "its place is" : "their places are") marked in the text" : ""
            sentences.append("\(list) in \(Self.entries(recordsWithAttachments.count)) \(one ? "was" : "were") not imported (\(why))\(marked).")
        }
        if !recordsWithUnreadableLocationOrWeather.isEmpty {
            sentences.append("An unreadable location or weather value was left out of \(Self.entries(recordsWithUnreadableLocationOrWeather.count)) "
                             + "\(Self.whereFound(recordsWithUnreadableLocationOrWeather)).")
        }
        if !recordsWithoutRoomForNotes.isEmpty {
            sentences.append("The location, weather and attachment lines of \(Self.entries(recordsWithoutRoomForNotes.count)) were left out: "
                             + "the text had no room for them within \(Entry.maximumCharacters) characters \(Self.whereFound(recordsWithoutRoomForNotes)).")
        }
        if !notesWithoutDate.isEmpty {
            let one = notesWithoutDate.count == 1
            sentences.append("\(Self.notes(notesWithoutDate.count)) \(one ? "was" : "were") not imported: neither \(one ? "its" : "their") name "
                             + "(YYYY-MM-DD…) nor \(one ? "its" : "their") front matter (date:) gives a day \(Self.first(notesWithoutDate)).")
        }
        if !notesOutsideFolder.isEmpty {
            let one = notesOutsideFolder.count == 1
            sentences.append("\(Self.notes(notesOutsideFolder.count)) \(one ? "was" : "were") not imported: \(one ? "it is a symbolic link" : "they are symbolic links") "
                             + "to a file outside the folder \(Self.first(notesOutsideFolder)).")
        }
        return sentences
    }

    private static func notes(_ value: Int) -> String { "\(value) \(value == 1 ? "note" : "notes")" }

    /// "(Ideas.md)", or "(the first is Ideas.md)" for several.
    private static func first(_ paths: [String]) -> String {
        "(\(paths.count == 1 ? "" : "the first is ")\(paths[0]))"
    }

    /// `{"attachments": {"photos": 2, …}, "entries_with_attachments": 1, …}`, kinds in a fixed order.
    var json: JSONValue {
        let kinds = attachments.sorted { $0.key < $1.key }.map { (Self.names($0.key).key, JSONValue.integer(Int64($0.value))) }
        return .object([
            ("attachments", .object(kinds)),
            ("entries_with_attachments", .integer(Int64(recordsWithAttachments.count))),
            ("entries_with_unreadable_location_or_weather", .integer(Int64(recordsWithUnreadableLocationOrWeather.count))),
            ("entries_without_room_for_notes", .integer(Int64(recordsWithoutRoomForNotes.count))),
            ("notes_without_date", .integer(Int64(notesWithoutDate.count))),
            ("notes_outside_folder", .integer(Int64(notesOutsideFolder.count))),
        ])
    }
}

extension Import {
    /// The file to read and the folder where the files it names are: for a folder, the document
    /// in it (Day One's `Journal.json`, or its only `.json`; jv's `index.json`).
    private func located() throws -> (path: String, folder: ImportFolder?) {
        var isFolder: ObjCBool = false
        guard file != "-", FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else { return (file, nil) }
        guard isFolder.boolValue else { return (file, ImportFolder(path: URL(fileURLWithPath: file).deletingLastPathComponent().path)) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: file)) ?? []
        let document: String
        switch format {
        case .dayOneJSON:
            let journals = names.filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
            if names.contains("Journal.json") {
                document = "Journal.json"
            } else if journals.count == 1 {
                document = journals[0]
            } else if journals.isEmpty {
                throw CLIError.inputNotFound("No Journal.json in \(file).")
            } else {
                throw CLIError.usage("\(file) holds several journals (\(journals.joined(separator: ", "))): name the one to import.")
            }
        case .json: document = ExportFolder.documentName(of: .json)
        case .jrnlJSON, .jrnlText: throw CLIError.usage("\(file) is a folder; --format \(format.rawValue) reads one file.")
        // Never asked: a folder of notes is read by notesFolder() and the vault (execute()).
        case .markdownFolder: return (file, ImportFolder(path: file))
        }
        let path = (file as NSString).appendingPathComponent(document)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.inputNotFound("No \(document) in \(file).") }
        return (path, ImportFolder(path: file))
    }

    /// The folder of notes `--format markdown-folder` reads: a folder, never standard input or
    /// an encrypted file.
    private func notesFolder() throws -> String {
        guard ageIdentity == nil else { throw CLIError.usage("--age-identity decrypts one file; --format markdown-folder reads a folder of notes.") }
        var isFolder: ObjCBool = false
        guard file != "-", FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw file == "-" ? CLIError.usage("--format markdown-folder reads a folder of notes, not standard input.") : CLIError.inputNotFound("No folder at \(file).")
        }
        guard isFolder.boolValue else { throw CLIError.usage("\(file) is a file; --format markdown-folder reads a folder of notes.") }
        return file
    }

    /// The file (or standard input), refused once it passes ``ImportFormat/maximumFileSize``:
    /// never more than that much is read.
    private func readBounded(_ file: String) throws -> [UInt8] {
        let input: FileHandle
        if file == "-" {
            input = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: file) else {
                throw CLIError.inputNotFound(FileManager.default.fileExists(atPath: file) ? "Cannot read \(file)." : "No file at \(file).")
            }
            input = opened
        }
        defer { if file != "-" { try? input.close() } }
        let limit = ImportFormat.maximumFileSize
        let data = try input.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else {
            throw CLIError.failed("\(file == "-" ? "The input" : file) is larger than \(limit >> 20) MiB, the most jv imports at once "
                                  + "(it checks the whole file before writing anything); split it, for example by year, and import the parts.")
        }
        return Array(data)
    }
}

extension ImportFormat: ExpressibleByArgument {}
