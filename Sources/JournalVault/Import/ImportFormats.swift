// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Readers of the import formats, each turning a file into a ``VaultSnapshot``. They read
/// untrusted bytes: every field is checked, and the first problem is reported with where it is.
public enum ImportFormat: String, CaseIterable, Sendable {
    /// The largest file `jv import` reads (256 MiB). A file is read whole and checked before
    /// anything is written, which takes about twice its size in memory: past this, split it.
    public static let maximumFileSize = 256 << 20

    /// Our own `jv-export` document (lossless).
    case json
    /// jrnl's JSON export.
    case jrnlJSON = "jrnl-json"
    /// jrnl's plain-text journal.
    case jrnlText = "jrnl-txt"
    /// Day One's `Journal.json`.
    case dayOneJSON = "dayone-json"
    /// A folder of Markdown notes (Obsidian's daily notes), read by
    /// ``UnlockedVault/readMarkdownFolder(_:zone:)``: its entry ids are derived with the vault's key.
    case markdownFolder = "markdown-folder"

    /// Whether the format is a folder of files rather than one file.
    public var readsFolder: Bool { self == .markdownFolder }

    /// Reads `bytes` in this format; wall-clock times without a zone are read in `zone`. The
    /// files a Day One export or jv's own export names are looked for in `folder` (the one
    /// holding the file), and those found come as attachments; without it, none do.
    public func read(_ bytes: [UInt8], zone: TimeZone = .current, folder: ImportFolder? = nil) throws -> VaultSnapshot {
        switch self {
        case .json: return try JVExportReader.read(bytes, folder: folder)
        case .jrnlJSON:
            var snapshot = VaultSnapshot()
            snapshot.entries = try JrnlFormat.parseJSON(bytes, zone: zone)
            return snapshot
        case .jrnlText:
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw ImportError(line: Self.lineOfFirstInvalidUTF8(bytes), reason: "the text is not valid UTF-8")
            }
            var snapshot = VaultSnapshot()
            snapshot.entries = try JrnlFormat.parseText(text, zone: zone)
            return snapshot
        case .dayOneJSON: return try DayOneReader.read(bytes, folder: folder)
        case .markdownFolder: throw ImportError(reason: "a folder of Markdown notes is read as a folder, not as one file")
        }
    }
}

extension ImportFormat {
    /// The 1-based line holding the first byte that is not part of valid UTF-8.
    static func lineOfFirstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var line = 1
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            if scalar == "\n" { line += 1 }
        }
        return line
    }
}

extension JSONValue {
    func requiredString(_ key: String, _ fail: (String) -> ImportError) throws -> String {
        guard let text = self[key]?.stringValue else { throw fail("\"\(key)\" is missing or not a string") }
        return text
    }

    func requiredID(_ key: String, _ fail: (String) -> ImportError) throws -> UUID {
        guard let id = try optionalID(key, fail) else { throw fail("\"\(key)\" is missing") }
        return id
    }

    func optionalID(_ key: String, _ fail: (String) -> ImportError) throws -> UUID? {
        guard let value = self[key], value != .null else { return nil }
        guard let text = value.stringValue, let id = UUID(uuidString: text) else { throw fail("\"\(key)\" is not a UUID") }
        return id
    }

    func requiredInstant(_ key: String, _ fail: (String) -> ImportError) throws -> Instant {
        guard let instant = try optionalInstant(key, fail) else { throw fail("\"\(key)\" is missing") }
        return instant
    }

    /// An ISO 8601 date-time (`YYYY-MM-DDTHH:MM…`); without an offset it is read as UTC.
    /// Relative forms (`yesterday 10:00`) are not timestamps and are refused.
    func optionalInstant(_ key: String, _ fail: (String) -> ImportError) throws -> Instant? {
        guard let value = self[key], value != .null else { return nil }
        guard let text = value.stringValue, CivilDay(iso: text.prefix(10)) != nil, text.count > 10,
              case .instant(let instant)? = try? DateExpression.parse(text, now: Instant(millis: 0, utcOffsetSeconds: 0), zone: TimeZone(identifier: "UTC")!)
        else { throw fail("\"\(key)\" is not an ISO 8601 date-time") }
        return instant
    }

    /// A boolean member, false when absent; any other type is refused.
    func optionalBool(_ key: String, _ fail: (String) -> ImportError) throws -> Bool {
        guard let value = self[key], value != .null else { return false }
        guard let flag = value.boolValue else { throw fail("\"\(key)\" is not true or false") }
        return flag
    }

    func stringList(_ key: String, _ fail: (String) -> ImportError) throws -> [String] {
        guard let value = self[key], value != .null else { return [] }
        guard let items = value.arrayValue else { throw fail("\"\(key)\" is not a list") }
        return try items.map { item in
            guard let text = item.stringValue else { throw fail("\"\(key)\" holds something that is not a string") }
            return text
        }
    }
}
