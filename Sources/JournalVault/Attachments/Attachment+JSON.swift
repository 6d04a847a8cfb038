// SPDX-License-Identifier: Apache-2.0
extension Attachment {
    /// The attachment shape of README "JSON": `{id, entry_id, name, media_type, kind, size,
    /// width?, height?, taken_at?, location? {latitude, longitude}, created_at, stored}`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(id.storageText)), ("entry_id", .string(entryID.storageText)), ("name", .string(name)),
            ("media_type", .string(mediaType)), ("kind", .string(kind.rawValue)), ("size", .integer(size)),
        ]
        if let width = media.width { members.append(("width", .integer(Int64(width)))) }
        if let height = media.height { members.append(("height", .integer(Int64(height)))) }
        if let takenAt = media.takenAt { members.append(("taken_at", .string(takenAt))) }
        if let location = media.location {
            members.append(("location", .object([("latitude", .number(location.latitude)), ("longitude", .number(location.longitude))])))
        }
        members += [("created_at", .string(created.iso8601)), ("stored", .bool(stored))]
        return .object(members)
    }
}
