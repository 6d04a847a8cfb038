// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The sealed `details` field of a blob (FORMAT.md §1.11): what the content is, its exact length
/// and its plain BLAKE2b-256 digest, from which the keyed content tag is derived.
struct AttachmentDetails: Sendable, Equatable {
    var media: AttachmentMedia
    var size: Int64
    /// BLAKE2b-256 of the content (unpadded).
    var digest: [UInt8]

    /// `{"media_type", "kind", "size", "digest", "width"?, "height"?, "taken_at"?, "location"?}`.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("media_type", .string(media.mediaType)), ("kind", .string(media.kind.rawValue)),
                                              ("size", .integer(size)), ("digest", .string(Data(digest).lowerHex))]
        if let width = media.width { members.append(("width", .integer(Int64(width)))) }
        if let height = media.height { members.append(("height", .integer(Int64(height)))) }
        if let takenAt = media.takenAt { members.append(("taken_at", .string(takenAt))) }
        if let location = media.location {
            members.append(("location", .object([("latitude", .number(location.latitude)), ("longitude", .number(location.longitude))])))
        }
        return .object(members)
    }

    init(media: AttachmentMedia, size: Int64, digest: [UInt8]) {
        self.media = media
        self.size = size
        self.digest = digest
    }

    /// Reads an opened `details` field; anything but the shape above is tampering.
    init(decrypted bytes: [UInt8], table: String, id: UUID) throws {
        let value = try JSONValue(decrypted: bytes, table: table, id: id)
        func malformed(_ what: String) -> VaultError { .tamperedRecord(table: table, id: id.storageText, detail: "its details \(what)") }
        func integer(_ key: String) throws -> Int64? {
            guard let member = value[key] else { return nil }
            guard case .integer(let integer) = member, integer >= 0 else { throw malformed("have a \(key) that is not a count") }
            return integer
        }
        guard let mediaType = value["media_type"]?.stringValue, let kindText = value["kind"]?.stringValue,
              let kind = MediaKind(rawValue: kindText) else { throw malformed("have no media type and kind") }
        guard let size = try integer("size") else { throw malformed("have no size") }
        guard let digestText = value["digest"]?.stringValue, digestText.utf8.count == 64, let digest = Hex.bytes(lower: digestText.utf8) else {
            throw malformed("have no digest")
        }
        var location: GeoLocation?
        if let place = value["location"] {
            guard let latitude = place["latitude"]?.doubleValue, let longitude = place["longitude"]?.doubleValue else {
                throw malformed("have a location that is not a latitude and a longitude")
            }
            location = GeoLocation(latitude: latitude, longitude: longitude)
        }
        let width = try integer("width"), height = try integer("height")
        let takenAt: String?
        switch value["taken_at"] {
        case nil: takenAt = nil
        case .string(let text): takenAt = text
        default: throw malformed("have a time taken that is not text")
        }
        media = AttachmentMedia(mediaType: mediaType, kind: kind, width: width.map { Int($0) }, height: height.map { Int($0) },
                                takenAt: takenAt, location: location)
        self.size = size
        self.digest = digest
    }
}
