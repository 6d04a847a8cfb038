// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// What `jv attach` and `jv add --attach` share: the files named on the command line, the
/// configured limit, and what is printed.
enum AttachmentFiles {
    /// The inputs for `paths` (`-` is standard input, kept as `stdinName`); a missing file is
    /// said before the passphrase is asked for. Each file is described by the thumbnailer where
    /// one is installed (media type, pixel size, EXIF time and place, a thumbnail); standard
    /// input, which can be read only once, is described once stored (the `thumbnailer` of
    /// ``UnlockedVault/attach(_:to:limit:thumbnailer:)``), and files it cannot describe keep what
    /// their name says.
    static func inputs(_ paths: [String], stdinName: String?, thumbnailer: Thumbnailer? = Thumbnailer.located()) throws -> [AttachmentInput] {
        try paths.map { path in
            if path == "-" { return .stream(STDIN_FILENO, name: stdinName ?? "") }
            guard FileManager.default.fileExists(atPath: path) else { throw CLIError.inputNotFound("No file at \(path) to attach.") }
            guard let details = thumbnailer.flatMap({ describe(path, with: $0) }) else { return .file(path) }
            return .file(path, media: details.media, thumbnail: details.thumbnail)
        }
    }

    private static func describe(_ path: String, with thumbnailer: Thumbnailer) -> MediaDetails? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return thumbnailer.describe(fileDescriptor: descriptor)
    }

    /// `[attachments] max_size` of the config file, else the library's default.
    static func limit() throws -> Int64 {
        try Config.current.attachmentMaxSize ?? UnlockedVault.defaultAttachmentLimit
    }

    /// Each attachment's id on a line, or with `--json` their array.
    static func print(_ attached: [Attachment], _ output: Output) {
        if output.json {
            output.printJSON(.array(attached.map(\.json)))
        } else {
            for attachment in attached { Console.out(attachment.id.storageText) }
        }
    }
}

extension Attachment {
    /// One line of `jv attachments` and `jv show`: short id, name, kind and media type, size,
    /// pixel size and when it was taken where known.
    func line(_ output: Output, withEntry: Bool) -> String {
        var parts = [Output.shortID(id)]
        if withEntry { parts.append(output.dim("entry " + Output.shortID(entryID))) }
        parts += [output.shown(name), mediaType, Attachment.sizeText(size)]
        if let width = media.width, let height = media.height { parts.append("\(width)×\(height)") }
        if let takenAt = media.takenAt { parts.append("taken " + output.shown(takenAt)) }
        if !stored { parts.append(output.dim("(not on this device)")) }
        return parts.joined(separator: "  ")
    }

    /// `1.5 MB`: bytes in powers of 1000, one decimal from kB on.
    static func sizeText(_ bytes: Int64) -> String {
        guard bytes >= 1000 else { return "\(bytes) B" }
        var value = Double(bytes), unit = 0
        let units = ["B", "kB", "MB", "GB", "TB"]
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }
}

extension JSONValue {
    /// An entry's JSON with its attachments' (`jv show`, `jv add --attach`): `"attachments": [{…}]`.
    func adding(attachments: [Attachment]) -> JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members + [("attachments", .array(attachments.map(\.json)))])
    }

    /// An entry's JSON in `jv list` with how many attachments it has, where it has some: `"attachments": n`.
    func adding(attachmentCount count: Int) -> JSONValue {
        guard count > 0, case .object(let members) = self else { return self }
        return .object(members + [("attachments", .integer(Int64(count)))])
    }
}

extension Output {
    /// An entry as `jv list` prints it in `format`, its first line ending in `[n files]` where it
    /// has attachments (in the text and short formats; the others are left as they are).
    func marked(_ text: String, attachments count: Int, format: EntryFormat) -> String {
        guard count > 0, [.text, .short].contains(format) else { return text }
        let mark = dim(count == 1 ? "[1 file]" : "[\(count) files]")
        guard let newline = text.firstIndex(of: "\n") else { return text + " " + mark }
        return text[..<newline] + " " + mark + text[newline...]
    }
}
