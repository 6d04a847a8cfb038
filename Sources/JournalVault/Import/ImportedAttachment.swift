// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A file an import brings as an attachment of one of its entries: where it is on disk, the name
/// it is kept under and what the file's source says of it. Its bytes are read only inside the
/// import's transaction, one file at a time.
public struct ImportedAttachment: Sendable, Equatable {
    /// The attachment's id in the file (jv's own export keeps it); nil where the source has none
    /// (Day One), and the import derives one from ``origin``.
    public var id: UUID?
    public var entryID: UUID
    /// The file to read.
    public var path: String
    public var name: String
    public var media: AttachmentMedia
    /// The size the source says the file has; a file of another size is refused as damaged.
    public var expectedSize: Int64?
    /// What tells this attachment apart among its entry's in the source (Day One: its place in
    /// the entry's lists and its file), from which the import derives its id, so importing the
    /// same file again adds it once.
    public var origin: String

    public init(id: UUID? = nil, entryID: UUID, path: String, name: String, media: AttachmentMedia, expectedSize: Int64? = nil,
                origin: String = "") {
        self.id = id
        self.entryID = entryID
        self.path = path
        self.name = name
        self.media = media
        self.expectedSize = expectedSize
        self.origin = origin
    }
}

/// The folder an import file was found in, where the files it names are looked for.
public struct ImportFolder: Sendable {
    public var path: String

    public init(path: String) {
        self.path = path
    }

    /// The regular file at `relative` inside the folder, or nil when there is none: a path that
    /// leaves the folder (absolute, through `..`, or through a symbolic link pointing out of
    /// it: the file names it gives are untrusted) names none.
    func file(_ relative: String) -> String? {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.hasPrefix("/"), !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              !relative.utf8.contains(0) else { return nil }
        guard let folder = Self.resolved(path), let file = Self.resolved((path as NSString).appendingPathComponent(relative)),
              file.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") else { return nil }
        var status = stat()
        guard stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return file
    }

    /// The path with every symbolic link resolved; nil when nothing is there.
    private static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
