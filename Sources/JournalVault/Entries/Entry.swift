// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A journal entry, decrypted.
///
/// ```swift
/// let entry = try journal.addEntry("Lunch with @anna. Long talk about #work.", starred: true)
/// entry.title   // "Lunch with @anna."
/// entry.tags    // ["anna", "work"]
/// ```
public struct Entry: Sendable, Hashable, Identifiable {
    /// The largest content accepted, in characters.
    public static let maximumCharacters = 50_000

    /// The largest content accepted, in bytes of UTF-8, besides ``maximumCharacters``: a
    /// character (a grapheme cluster) has no size limit of its own, and one letter followed by
    /// a million combining marks was a "1-character" text of 2 MB. 20 bytes a character on
    /// average: a character of any script takes at most a dozen or so (a Devanagari conjunct
    /// with its vowel sign, a Tibetan stack), an emoji 4 to 18 (a family of three), so no text
    /// of 50,000 characters a person writes comes near it.
    public static let maximumBytes = 1_000_000

    public let id: UUID
    /// The text, as written (white space at both ends removed).
    public var content: String
    /// When it was written, with the writer's UTC offset then; fixes ``localDay``.
    public var created: Instant
    /// When it was last changed (milliseconds, UTC).
    public var modifiedAt: Int64
    public var starred: Bool
    /// Tags given with `--tag`, normalised (see ``Tags``); inline tags live in ``content``.
    public var explicitTags: [String]
    /// The data-model version of the release that last wrote the entry.
    public var version: Int

    public init(id: UUID = UUID(), content: String, created: Instant, modifiedAt: Int64,
                starred: Bool = false, explicitTags: [String] = [], version: Int = Entry.currentVersion) {
        self.id = id
        self.content = content
        self.created = created
        self.modifiedAt = modifiedAt
        self.starred = starred
        self.explicitTags = explicitTags
        self.version = version
    }

    /// The data-model version this release writes.
    public static let currentVersion = 1

    /// The writer's calendar day.
    public var localDay: CivilDay { created.localDay }

    /// When it was last changed, shown with the writer's offset.
    public var modified: Instant { Instant(millis: modifiedAt, utcOffsetSeconds: created.utcOffsetSeconds) }

    /// The first line, or for one-line text its first sentence (jrnl's `split_title`).
    public var title: String { Tags.title(of: content) }

    /// The text after the title (jrnl's body).
    public var body: String { Tags.split(content).body }

    /// Words, counted as runs of anything but white space (what `jv stats`, `jv report` and
    /// `jv digest` count: ``JournalStats/words(in:)``).
    public var wordCount: Int { JournalStats.words(in: content) }

    /// ``title`` and ``body`` at once: the title is looked for once.
    public var titleAndBody: (title: String, body: String) { Tags.split(content) }

    /// Inline `@tag`/`#tag` words followed by explicit tags, normalised, without repeats.
    public var tags: [String] { Tags.all(inline: content, explicit: explicitTags) }

    /// The explicit tags the text does not show inline, in order (a listing prints them under
    /// the text). A quick look settles most; the text is scanned only for the others.
    public var explicitTagsNotInText: [String] {
        var seen = Set<String>()
        let unsure = explicitTags.filter { seen.insert($0).inserted && !Tags.quicklyShowsInline($0, in: content) }
        guard !unsure.isEmpty else { return [] }
        let inline = Set(Tags.inline(in: content))
        return unsure.filter { !inline.contains($0) }
    }

    /// Whether the entry has the normalised tag `tag`: explicit, or written inline. The
    /// entry's tags are gathered (the text scanned once) only when a quick look does not
    /// settle it, into `tags`, for the next question about the same entry.
    func hasTag(_ tag: String, gathered tags: inout Set<String>?) -> Bool {
        if explicitTags.contains(tag) || Tags.quicklyShowsInline(tag, in: content) { return true }
        if tags == nil { tags = matchableTags }
        return tags!.contains(tag)
    }

    /// Every form a query's normalised tag can meet this entry's tags in: the inline tags
    /// (normalised by the scan), and each explicit tag as stored and normalised again (one
    /// stored by an older normal form).
    private var matchableTags: Set<String> {
        var tags = Set(Tags.inline(in: content))
        for tag in explicitTags {
            tags.insert(tag)
            if let normal = Tags.normalize(tag) { tags.insert(normal) }
        }
        return tags
    }
}
