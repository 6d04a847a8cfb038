// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A file kept with an entry (FORMAT.md §1.12, §15): what is known of it without reading its
/// content. The content is read with ``UnlockedVault/readAttachment(id:_:)``.
///
/// ```swift
/// for attachment in try journal.attachments(AttachmentQuery(entryID: entry.id)) {
///     print(attachment.name, attachment.mediaType, attachment.size)
/// }
/// ```
public struct Attachment: Sendable, Equatable, Identifiable {
    public let id: UUID
    public let entryID: UUID
    /// The stored content it shares with every attachment of the same bytes.
    public let blobID: UUID
    /// The file name as given, without a folder.
    public let name: String
    /// When it was attached (its order within the entry).
    public let created: Instant
    /// The content's length in bytes.
    public let size: Int64
    /// What the content is; the thumbnail, where there is one, is read with ``UnlockedVault/attachmentThumbnail(id:)``
    /// (or listed with ``UnlockedVault/attachmentsWithThumbnails(_:)``).
    public let media: AttachmentMedia
    /// Whether the content is in this vault file (false where sync left it at the location).
    public let stored: Bool

    public var mediaType: String { media.mediaType }
    public var kind: MediaKind { media.kind }
}

/// What sort of file an attachment is, as `jv attachments --type` filters them.
public enum MediaKind: String, Sendable, CaseIterable {
    case image, video, audio, other

    /// The kind of a media type (`image/jpeg` is an image).
    public init(mediaType: String) {
        let family = mediaType.split(separator: "/").first.map(String.init) ?? ""
        self = MediaKind(rawValue: family) ?? .other
    }
}

/// Where a photo was taken, in degrees (WGS 84).
public struct GeoLocation: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What is known of a file's content besides its bytes, sealed with it: given by the caller that
/// looked inside the file (a thumbnailer), or, without one, guessed from the file name
/// (``guessed(fromName:)``).
public struct AttachmentMedia: Sendable, Equatable {
    public var mediaType: String
    public var kind: MediaKind
    /// Pixel size, for an image or a video.
    public var width: Int?
    public var height: Int?
    /// When a photo says it was taken (ISO 8601 as the file gives it, e.g. `2024-05-01T12:00:00+02:00`).
    public var takenAt: String?
    public var location: GeoLocation?

    public init(mediaType: String, kind: MediaKind? = nil, width: Int? = nil, height: Int? = nil, takenAt: String? = nil,
                location: GeoLocation? = nil) {
        self.mediaType = mediaType
        self.kind = kind ?? MediaKind(mediaType: mediaType)
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.location = location
    }

    /// The media type a file name's extension suggests (``MediaTypes``), nothing else known.
    public static func guessed(fromName name: String) -> AttachmentMedia {
        AttachmentMedia(mediaType: MediaTypes.mediaType(forName: name))
    }
}
