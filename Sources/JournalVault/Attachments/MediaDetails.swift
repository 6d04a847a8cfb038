// SPDX-License-Identifier: Apache-2.0

/// What the thumbnailer found out about a file: its media type and kind, and for an image it
/// could decode, the pixel size, when and where it was taken (EXIF) and a small JPEG.
///
/// `media.takenAt` is ISO 8601 as the camera recorded it: `2024-05-01T12:00:00+02:00` when the file
/// gives its offset (EXIF OffsetTimeOriginal), else `2024-05-01T12:00:00`, a local time of
/// unknown offset, kept so rather than guessed into an instant. `media.width` and `height` are the
/// picture as seen, after its EXIF orientation.
///
/// ```swift
/// let details = Thumbnailer.located()?.describe(fileDescriptor: fd)
/// details?.media.kind      // .image
/// details?.thumbnail       // JPEG bytes, ≤ 320 px on the long side; empty if none
/// ```
public struct MediaDetails: Sendable, Equatable, CustomStringConvertible {
    /// What the attachment keeps of the file, sealed with its content.
    public let media: AttachmentMedia
    /// A JPEG, or empty when none was made.
    public let thumbnail: [UInt8]

    public init(media: AttachmentMedia, thumbnail: [UInt8] = []) {
        self.media = media
        self.thumbnail = thumbnail
    }

    /// The largest pixel side believed (libvips' own limit is 10,000,000).
    static let maximumSide = 10_000_000

    /// The thumbnailer's answer — its JSON line (``describe`` reads the line's members) and the
    /// thumbnail bytes after it — checked member by member, since the child read a hostile file:
    /// nil when anything is malformed, out of range or missing.
    init?(line: JSONValue, thumbnail: [UInt8]) {
        guard let mediaType = line["media_type"]?.stringValue, MediaDetails.isMediaType(mediaType),
              let kind = line["kind"]?.stringValue.flatMap(MediaKind.init(rawValue:)) else { return nil }
        let width = line["width"].flatMap(MediaDetails.integer), height = line["height"].flatMap(MediaDetails.integer)
        guard (width == nil) == (line["width"] == nil), (height == nil) == (line["height"] == nil), (width == nil) == (height == nil),
              (width ?? 1) <= MediaDetails.maximumSide, (height ?? 1) <= MediaDetails.maximumSide else { return nil }
        var takenAt: String?
        if let member = line["taken_at"] {
            guard let text = member.stringValue, MediaDetails.isTakenAt(text) else { return nil }
            takenAt = text
        }
        var location: GeoLocation?
        if let member = line["location"] {
            guard let latitude = member["latitude"]?.doubleValue, let longitude = member["longitude"]?.doubleValue,
                  (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
            location = GeoLocation(latitude: latitude, longitude: longitude)
        }
        let declared = line["thumbnail_bytes"].map { MediaDetails.integer($0) ?? -1 } ?? 0
        guard declared == thumbnail.count, thumbnail.isEmpty || thumbnail.starts(with: [0xFF, 0xD8, 0xFF]) else { return nil }
        self.init(media: AttachmentMedia(mediaType: mediaType, kind: kind, width: width, height: height, takenAt: takenAt, location: location),
                  thumbnail: thumbnail)
    }

    /// The members, the thumbnail by its size (its bytes say nothing to a reader).
    public var description: String {
        let members: [String?] = [
            media.mediaType, media.kind.rawValue, media.width.flatMap { width in media.height.map { "\(width)×\($0)" } }, media.takenAt,
            media.location.map { "\($0.latitude),\($0.longitude)" }, thumbnail.isEmpty ? nil : "thumbnail of \(thumbnail.count) bytes",
        ]
        return "MediaDetails(" + members.compactMap { $0 }.joined(separator: ", ") + ")"
    }

    private static func integer(_ value: JSONValue) -> Int? {
        guard case .integer(let number) = value, number >= 1, number <= Int64(Int32.max) else { return nil }
        return Int(number)
    }

    /// `type/subtype` of RFC 6838's restricted name characters, at most 127 bytes.
    static func isMediaType(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        return text.utf8.count <= 127 && parts.count == 2 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "!#$&-^_.+".utf8.contains(byte)
            }
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS`, optionally followed by `+HH:MM` or `-HH:MM`.
    static func isTakenAt(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let shape = Array("0000-00-00T00:00:00".utf8), offsetShape = Array("+00:00".utf8)
        func fits(_ bytes: ArraySlice<UInt8>, _ shape: [UInt8]) -> Bool {
            bytes.count == shape.count && zip(bytes, shape).allSatisfy { byte, expected in
                expected == UInt8(ascii: "0") ? (0x30...0x39).contains(byte)
                    : expected == UInt8(ascii: "+") ? byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") : byte == expected
            }
        }
        guard bytes.count >= shape.count, fits(bytes[..<shape.count], shape) else { return false }
        return bytes.count == shape.count || fits(bytes[shape.count...], offsetShape)
    }
}
