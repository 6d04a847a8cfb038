// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A file to attach: where its bytes come from, the name it is kept under, and what a caller that
/// looked inside it (a thumbnailer) knows of it. Without `media`, the media type is guessed from
/// the name (``AttachmentMedia/guessed(fromName:)``).
///
/// ```swift
/// try journal.attach([.file("/home/me/ridge.jpg"), .stream(0, name: "memo.ogg")], to: entry.id)
/// ```
public struct AttachmentInput: Sendable {
    public enum Source: Sendable {
        case path(String)
        /// An open descriptor, read to its end and left open (standard input).
        case fileDescriptor(Int32)
    }

    public var source: Source
    public var name: String
    public var media: AttachmentMedia?
    /// A JPEG thumbnail (at most 320 pixels on its long side), or empty.
    public var thumbnail: [UInt8]

    public init(source: Source, name: String, media: AttachmentMedia? = nil, thumbnail: [UInt8] = []) {
        self.source = source
        self.name = name
        self.media = media
        self.thumbnail = thumbnail
    }

    /// The file at `path`, kept under its own name unless `name` is given.
    public static func file(_ path: String, name: String? = nil, media: AttachmentMedia? = nil, thumbnail: [UInt8] = []) -> AttachmentInput {
        AttachmentInput(source: .path(path), name: name ?? URL(fileURLWithPath: path).lastPathComponent, media: media, thumbnail: thumbnail)
    }

    /// What `descriptor` gives until its end, kept as `name`.
    public static func stream(_ descriptor: Int32, name: String, media: AttachmentMedia? = nil, thumbnail: [UInt8] = []) -> AttachmentInput {
        AttachmentInput(source: .fileDescriptor(descriptor), name: name, media: media, thumbnail: thumbnail)
    }

    /// Whether `name` can name an attachment: a file name, not a path (at most 255 bytes, as on Linux).
    static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0)
    }

    /// Opens the source and checks what can be checked before anything is written: the name, and
    /// the size of a regular file against `limit`.
    func opened(limit: Int64) throws -> OpenedSource {
        guard Self.isFileName(name) else { throw VaultError.invalidAttachmentName(name) }
        let source = try OpenedSource(self)
        var status = stat()
        guard fstat(source.descriptor, &status) == 0 else { throw source.unreadable() }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: throw VaultError.attachmentUnreadable(path: source.path, detail: "it is a folder")
        case S_IFREG where Int64(status.st_size) > limit: throw VaultError.attachmentTooLarge(name: name, limit: limit)
        default: return source
        }
    }

    /// An input's bytes, read through its descriptor (closed with it when jv opened it). Read on
    /// the thread that seals them (``AttachmentStream``): nothing in it changes once it is made.
    final class OpenedSource: Sendable {
        let input: AttachmentInput
        let descriptor: Int32
        private let owned: Bool

        init(_ input: AttachmentInput) throws {
            self.input = input
            switch input.source {
            case .path(let path):
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                owned = true
                guard descriptor >= 0 else { throw VaultError.attachmentUnreadable(path: path, detail: String(cString: strerror(errno))) }
            case .fileDescriptor(let given):
                descriptor = given
                owned = false
            }
        }

        deinit {
            if owned { close(descriptor) }
        }

        var path: String {
            switch input.source {
            case .path(let path): path
            case .fileDescriptor: "standard input"
            }
        }

        func unreadable() -> VaultError { .attachmentUnreadable(path: path, detail: String(cString: strerror(errno))) }

        /// Fills `buffer` as far as one read goes; 0 at the end.
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            while true {
                let count = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                if errno != EINTR { throw unreadable() }
            }
        }
    }
}
