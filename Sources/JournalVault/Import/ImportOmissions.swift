// SPDX-License-Identifier: Apache-2.0
/// What a reader could not bring over from its file, for the report after an import. Only Day
/// One's export has anything jv leaves behind (attachments; a location or weather it cannot read).
///
/// ```swift
/// let snapshot = try ImportFormat.dayOneJSON.read(bytes)
/// snapshot.omissions.attachments[.photo]          // 12 photos, each marked in its entry's text
/// snapshot.omissions.recordsWithAttachments.count // in 9 entries
/// ```
public struct ImportOmissions: Sendable, Equatable {
    /// Attachments left behind (jv keeps text only), by kind; each is marked in its entry's
    /// text, where the entry linked it or else on a line at the end.
    public var attachments: [AttachmentKind: Int] = [:]
    /// The 1-based positions in the file of the entries that had attachments.
    public var recordsWithAttachments: [Int] = []
    /// Entries whose location or weather held a value jv could not read (a wrong type, a
    /// number out of range, a text over 200 characters): that value was left out, the rest of
    /// the entry imported.
    public var recordsWithUnreadableLocationOrWeather: [Int] = []
    /// Entries whose text left no room within ``Entry/maximumCharacters`` for the lines jv adds
    /// (location, weather, attachments the text did not link): those lines were left out.
    public var recordsWithoutRoomForNotes: [Int] = []

    public init() {}

    /// True when everything in the file was brought over.
    public var isEmpty: Bool {
        attachments.isEmpty && recordsWithUnreadableLocationOrWeather.isEmpty && recordsWithoutRoomForNotes.isEmpty
    }
}

/// A kind of file a journal entry can carry that jv, which stores text, cannot import.
public enum AttachmentKind: String, CaseIterable, Sendable, Comparable {
    case photo, video, audio, pdf
    /// A link of a kind jv does not know (`dayone-moment:/sketch/…`).
    case other

    /// The word in an entry's placeholder: `[photo: photos/….jpeg, not imported]`.
    public var label: String {
        switch self {
        case .photo, .video, .audio: rawValue
        case .pdf: "PDF"
        case .other: "attachment"
        }
    }

    public static func < (lhs: AttachmentKind, rhs: AttachmentKind) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
