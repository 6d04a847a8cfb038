// SPDX-License-Identifier: Apache-2.0
extension Entry {
    /// The entry shape of README "JSON":
    /// `{id, created_at, modified_at, local_day, starred, tags, title, content}`.
    public var json: JSONValue {
        .object([
            ("id", .string(id.storageText)),
            ("created_at", .string(created.iso8601)),
            ("modified_at", .string(modified.iso8601)),
            ("local_day", .string(localDay.description)),
            ("starred", .bool(starred)),
            ("tags", .strings(tags)),
            ("title", .string(title)),
            ("content", .string(content)),
        ])
    }
}
