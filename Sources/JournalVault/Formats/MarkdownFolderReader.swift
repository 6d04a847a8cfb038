// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A folder of Markdown notes as Obsidian keeps daily notes (`2024-05-01.md`, also in
/// sub-folders such as `Daily/2024/2024-05-01.md`), read as entries with their embedded files as
/// attachments (README "Exports and imports" says what users get):
///
/// - A note is dated by its front matter's `date` (else `created`), else by its name when that
///   starts with `YYYY-MM-DD`. A note with neither is left out and reported: its modification
///   time says when it was last saved (or copied), not which day it is about.
/// - A note is one entry at 09:00 that day (jv's time for a day without one), or at the front
///   matter's time. A note with `## HH:MM` headings is one entry per heading at that time, and
///   the text before the first heading (if any) one more.
/// - An entry's `modifiedAt` is the note's modification time, so a note edited since an import
///   replaces its entry when imported again, and an entry edited in jv since is kept.
/// - Each `![[file]]` or `![alt](path)` naming a file that is not a note comes as an attachment
///   of its entry, found as Obsidian finds it; one not found is counted in the omissions.
/// - Nothing outside the folder is read: a link or a symbolic link that leads out names nothing,
///   hidden files and folders (`.obsidian`, `.trash`) are skipped, and the notes read add up to
///   at most ``ImportFormat/maximumFileSize``.
///
/// ```swift
/// let snapshot = try journal.readMarkdownFolder("/home/me/Obsidian/Daily")
/// try journal.importSnapshot(snapshot)
/// ```
enum MarkdownFolderReader {
    /// jv's time of day for a date without one (as `--at 2026-01-05` and jrnl): 09:00.
    static let defaultSecondsOfDay = 9 * 3600
    /// How deep sub-folders are looked into.
    static let maximumDepth = 64

    /// The entries of the notes in `folder`, times without an offset read in `zone`, each entry's
    /// id made by `entryID` from where it is in the folder (see ``origin(path:part:)``).
    static func read(folder path: String, zone: TimeZone, entryID: (String) -> UUID) throws -> VaultSnapshot {
        guard let root = realpath(path, nil).map({ pointer in defer { free(pointer) }; return String(cString: pointer) }) else {
            throw ImportError(reason: "the folder \(path) cannot be read")
        }
        let folder = ImportFolder(path: root)
        let files = try walk(root)
        var reader = Reader(folder: folder, files: files, zone: zone, attachmentFolder: attachmentFolder(in: folder))
        for note in files where note.lowercased().hasSuffix(".md") {
            try reader.read(note, entryID: entryID)
        }
        reader.snapshot.omissions.attachmentFolderSearched = true
        return reader.snapshot
    }

    /// What tells an entry apart among the folder's: the note's path in the folder, and for a
    /// `## HH:MM` part, `0x00`, its time and how many parts before it in the note had that time.
    static func origin(path: String, part: MarkdownNote.Part) -> String {
        guard let seconds = part.secondsOfDay else { return path }
        return path + "\u{0}" + hourMinute(seconds) + "\u{0}\(part.repeatOfTime)"
    }

    /// The regular files and symbolic links under `root`, relative to it, sorted; hidden names
    /// are skipped, and a symbolic link to a folder is not followed (it could lead out, or loop).
    private static func walk(_ root: String) throws -> [String] {
        var found: [String] = []
        var folders: [(relative: String, depth: Int)] = [("", 0)]
        while let (relative, depth) = folders.popLast() {
            let absolute = relative.isEmpty ? root : root + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else {
                throw ImportError(reason: "the folder \(relative.isEmpty ? root : relative) cannot be read")
            }
            for name in names where !name.hasPrefix(".") {
                let path = relative.isEmpty ? name : relative + "/" + name
                var status = stat()
                guard lstat(root + "/" + path, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR where depth < maximumDepth: folders.append((path, depth + 1))
                case S_IFREG, S_IFLNK: found.append(path)
                default: break
                }
            }
        }
        return found.sorted()
    }

    /// Obsidian's attachment folder (`attachmentFolderPath` in `.obsidian/app.json`), when the
    /// folder is an Obsidian vault that sets one: `./assets` is relative to each note.
    private static func attachmentFolder(in folder: ImportFolder) -> String? {
        guard let settings = folder.file(".obsidian/app.json"),
              let bytes = FileManager.default.contents(atPath: settings), bytes.count < 1 << 20,
              let value = try? JSONParser.parse(Array(bytes)), let path = value["attachmentFolderPath"]?.stringValue else { return nil }
        // `/` is the folder itself and `./` the note's own folder: both are looked in anyway.
        let parts = path.split(separator: "/").filter { $0 != "." }
        return parts.isEmpty ? nil : (path.hasPrefix("./") ? "./" : "") + parts.joined(separator: "/")
    }

    /// The reading of one folder: its files, and the snapshot as it grows, a note at a time.
    private struct Reader {
        let folder: ImportFolder
        let zone: TimeZone
        let attachmentFolder: String?
        /// Every file of the folder, and by lower-cased name, for links that give a name only.
        let files: Set<String>
        let byName: [String: [String]]
        var snapshot = VaultSnapshot()
        /// Bytes of notes read so far.
        var bytesRead = 0

        init(folder: ImportFolder, files: [String], zone: TimeZone, attachmentFolder: String?) {
            self.folder = folder
            self.zone = zone
            self.attachmentFolder = attachmentFolder
            self.files = Set(files)
            byName = Dictionary(grouping: files) { lastComponent($0).lowercased() }
        }

        mutating func read(_ path: String, entryID: (String) -> UUID) throws {
            guard let file = folder.file(path) else {
                snapshot.omissions.notesOutsideFolder.append(path)
                return
            }
            let text = try contents(of: file, path: path)
            let note = MarkdownNote(text)
            var kept = note.keptProperties
            let date = note.frontMatterDate.flatMap { MarkdownFolderReader.date($0.value, zone: zone) }
            if let written = note.frontMatterDate, date == nil { kept.insert(written.line, at: 0) }
            guard let day = date?.day ?? MarkdownFolderReader.day(fromName: lastComponent(path)) else {
                snapshot.omissions.notesWithoutDate.append(path)
                return
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date).map { Instant($0, zone: zone).millis }
            let folderOfNote = parentFolder(path)
            let firstTime = note.parts.compactMap(\.secondsOfDay).min()
            var properties = kept.isEmpty ? nil : "---\n" + kept.joined(separator: "\n") + "\n---"
            for part in note.parts {
                let body = ContentRules.trimmed(part.text)
                // The note's properties go with its first entry (or make one, if all else is blank).
                guard !body.isEmpty || (properties != nil && part == note.parts.last) else { continue }
                let text = [body, properties].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: "\n\n")
                properties = nil
                let created: Instant
                if let seconds = part.secondsOfDay {
                    created = instant(day, seconds)
                } else if let moment = date?.moment, firstTime.map({ $0 >= Int(moment.localMillisOfDay / 1000) }) ?? true {
                    created = moment
                } else {
                    created = instant(day, min(MarkdownFolderReader.defaultSecondsOfDay, firstTime ?? .max))
                }
                let place = part.secondsOfDay.map { " (## \(MarkdownFolderReader.hourMinute($0)))" } ?? ""
                let content: String
                do { content = try ContentRules.validated(text) } catch let error as VaultError { throw ImportError(reason: "\(path)\(place): \(error.description)") }
                let inline = Set(Tags.inline(in: content))
                let id = entryID(MarkdownFolderReader.origin(path: path, part: part))
                snapshot.entries.append(Entry(id: id, content: content, created: created, modifiedAt: max(created.millis, modified ?? created.millis),
                                              explicitTags: note.frontMatterTags.filter { !inline.contains($0) }))
                attach(part.embeds, of: id, linkedFrom: path, noteFolder: folderOfNote)
            }
        }

        /// The note's text, within what is left of the bytes an import reads.
        private mutating func contents(of file: String, path: String) throws -> String {
            guard let handle = FileHandle(forReadingAtPath: file) else { throw ImportError(reason: "the note \(path) cannot be read") }
            defer { try? handle.close() }
            let left = ImportFormat.maximumFileSize - bytesRead
            guard let data = try? handle.read(upToCount: left + 1) ?? Data() else { throw ImportError(reason: "the note \(path) cannot be read") }
            guard data.count <= left else {
                throw ImportError(reason: "the notes add up to more than \(ImportFormat.maximumFileSize >> 20) MiB, the most jv imports at once "
                                  + "(it checks them all before writing anything); import one sub-folder at a time")
            }
            bytesRead += data.count
            let bytes = Array(data)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw ImportError(reason: "the note \(path) is not valid UTF-8 (line \(ImportFormat.lineOfFirstInvalidUTF8(bytes)))")
            }
            return text
        }

        private func instant(_ day: CivilDay, _ seconds: Int) -> Instant {
            let (utc, offset) = DateExpression.resolve(localSeconds: Int64(day.daysSinceEpoch) * 86_400 + Int64(seconds), in: zone)
            return Instant(millis: utc * 1000, utcOffsetSeconds: offset)
        }

        /// The files `embeds` name, as attachments of the entry `entryID`, each file once; a link
        /// to a file not found is counted as not imported.
        private mutating func attach(_ embeds: [MarkdownNote.Embed], of entryID: UUID, linkedFrom note: String, noteFolder: String) {
            var attached = Set<String>()
            var lost = false
            for embed in embeds {
                let name = lastComponent(embed.target)
                // `![[Other note]]` shows a note, not a file: it stays a link in the text.
                guard let dot = name.lastIndex(of: "."), name.index(after: dot) < name.endIndex,
                      name[name.index(after: dot)...].lowercased() != "md" else { continue }
                guard let found = resolve(embed, noteFolder: noteFolder), let file = folder.file(found) else {
                    snapshot.omissions.attachments[AttachmentKind(.guessed(fromName: name)), default: 0] += 1
                    snapshot.omissions.missingAttachmentLinks.append("\(embed.target) in \(note)")
                    lost = true
                    continue
                }
                guard attached.insert(found).inserted else { continue }
                let kept = lastComponent(found)
                snapshot.attachments.append(ImportedAttachment(entryID: entryID, path: file, name: kept, media: .guessed(fromName: kept), origin: found))
            }
            if lost { snapshot.omissions.recordsWithAttachments.append(snapshot.entries.count) }
        }

        /// The file of the folder an embed names, as Obsidian resolves it: a path (relative to the
        /// note for a Markdown link or a `./`, `../` one; else from the folder), then the files of
        /// that name (or ending in that path) — in the note's folder first, then the attachment
        /// folder, then the shortest path. A path that leads out of the folder names nothing.
        private func resolve(_ embed: MarkdownNote.Embed, noteFolder: String) -> String? {
            let target = embed.target
            var paths: [String?] = []
            if target.hasPrefix("/") {
                paths.append(Self.normalized(String(target.drop { $0 == "/" }), in: ""))
            } else {
                if !embed.isWikiLink || target.hasPrefix("./") || target.hasPrefix("../") { paths.append(Self.normalized(target, in: noteFolder)) }
                paths.append(Self.normalized(target, in: ""))
            }
            if let path = paths.compactMap({ $0 }).first(where: files.contains) { return path }
            let wanted = target.drop { $0 == "." || $0 == "/" }.lowercased()
            guard !wanted.isEmpty else { return nil }
            let attachments = attachmentFolder.flatMap { $0.hasPrefix("./") ? Self.normalized(String($0.dropFirst(2)), in: noteFolder) : $0 }
            let candidates = (byName[lastComponent(target).lowercased()] ?? []).filter { candidate in
                let lowered = candidate.lowercased()
                return lowered == wanted || lowered.hasSuffix("/" + wanted)
            }
            func rank(_ path: String) -> (Int, Int, Int, String) {
                let parent = parentFolder(path)
                return (parent == noteFolder ? 0 : 1, parent == attachments ? 0 : 1, path.split(separator: "/").count, path)
            }
            return candidates.min { rank($0) < rank($1) }
        }

        /// `target` joined to `base`, `.` and `..` resolved; nil when it climbs out of the folder.
        static func normalized(_ target: String, in base: String) -> String? {
            var parts = base.split(separator: "/").map(String.init)
            for part in target.split(separator: "/") {
                switch part {
                case ".": continue
                case "..":
                    guard !parts.isEmpty else { return nil }
                    parts.removeLast()
                default: parts.append(String(part))
                }
            }
            return parts.isEmpty ? nil : parts.joined(separator: "/")
        }
    }

    /// A front matter date: `2024-05-01` (a day), or a date and time (`2024-05-01T08:30`,
    /// `2024-05-01 08:30`, with or without an offset; without one, in `zone`).
    static func date(_ text: String, zone: TimeZone) -> (day: CivilDay, moment: Instant?)? {
        guard let day = CivilDay(iso: text.prefix(10)) else { return nil }
        if text.count == 10 { return (day, nil) }
        guard case .instant(let moment)? = try? DateExpression.parse(text, now: Instant.now(zone: zone), zone: zone) else { return nil }
        return (moment.localDay, moment)
    }

    /// `HH:MM` for seconds after midnight.
    static func hourMinute(_ seconds: Int) -> String {
        String(format: "%02d:%02d", seconds / 3600, seconds / 60 % 60)
    }

    /// The day a note's name starts with (`2024-05-01.md`, `2024-05-01 Wednesday.md`).
    static func day(fromName name: String) -> CivilDay? {
        let next = name.dropFirst(10).first
        guard next == nil || next?.isNumber == false else { return nil }
        return CivilDay(iso: name.prefix(10))
    }
}

/// The last part of a slash-separated path.
private func lastComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// The folder of a path relative to the folder imported (`""` at its top).
private func parentFolder(_ path: String) -> String {
    path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
}
