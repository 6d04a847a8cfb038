// SPDX-License-Identifier: Apache-2.0
/// What a reader could not bring over from its file, for the report after an import: the
/// attachments whose files are not beside it (Day One's export, jv's own), and a Day One
/// location or weather it cannot read.
///
/// ```swift
/// let snapshot = try ImportFormat.dayOneJSON.read(bytes)
/// snapshot.omissions.attachments[.photo]          // 12 photos, each marked in its entry's text
/// snapshot.omissions.recordsWithAttachments.count // in 9 entries
/// ```
public struct ImportOmissions: Sendable, Equatable {
    /// Attachments left behind because their files were not found, by kind; each of Day One's
    /// is marked in its entry's text, where the entry linked it or else on a line at the end.
    public var attachments: [AttachmentKind: Int] = [:]
    /// Whether the files were looked for in the folder of the file imported; not when it was
    /// read from standard input, which brings no files.
    public var attachmentFolderSearched = false
    /// Whether the text of their entries marks where they were (Day One's does).
    public var attachmentsMarkedInText = false
    /// The 1-based positions in the file of the entries that had attachments.
    public var recordsWithAttachments: [Int] = []
    /// Entries whose location or weather held a value jv could not read (a wrong type, a
    /// number out of range, a text over 200 characters): that value was left out, the rest of
    /// the entry imported.
    public var recordsWithUnreadableLocationOrWeather: [Int] = []
    /// Entries whose text left no room within ``Entry/maximumCharacters`` for the lines jv adds
    /// (location, weather, attachments the text did not link): those lines were left out.
    public var recordsWithoutRoomForNotes: [Int] = []
    /// A folder of Markdown notes: the embeds whose files were not found, as `target in
    /// note`, in the order of the notes.
    public var missingAttachmentLinks: [String] = []
    /// A folder of Markdown notes: the notes left out because neither their name nor their
    /// front matter gives a date (their paths in the folder).
    public var notesWithoutDate: [String] = []
    /// A folder of Markdown notes: the notes left out because they are symbolic links to files
    /// outside the folder (their paths in the folder).
    public var notesOutsideFolder: [String] = []

    public init() {}

    /// True when everything in the file was brought over.
    public var isEmpty: Bool {
        attachments.isEmpty && recordsWithUnreadableLocationOrWeather.isEmpty && recordsWithoutRoomForNotes.isEmpty
            && notesWithoutDate.isEmpty && notesOutsideFolder.isEmpty
    }
}

/// A kind of file a journal entry can carry, as an import reports those it could not bring.
public enum AttachmentKind: String, CaseIterable, Sendable, Comparable {
    case photo, video, audio, pdf
    /// A link of a kind jv does not know (`dayone-moment:/sketch/…`).
    case other

    /// The word in an entry's marker: `[photo: ….jpeg]`, `[photo: photos/….jpeg, not imported]`.
    public var label: String {
        switch self {
        case .photo, .video, .audio: rawValue
        case .pdf: "PDF"
        case .other: "attachment"
        }
    }

    /// The kind an attachment of `media` is reported as.
    init(_ media: AttachmentMedia) {
        switch media.kind {
        case .image: self = .photo
        case .video: self = .video
        case .audio: self = .audio
        case .other: self = media.mediaType == "application/pdf" ? .pdf : .other
        }
    }

    public static func < (lhs: AttachmentKind, rhs: AttachmentKind) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
