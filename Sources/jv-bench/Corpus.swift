// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// A deterministic journal: entries of 300–1,500 characters with inline and explicit tags,
/// accents, other scripts and emoji, spread over five years with several entries on some days
/// and none on others, written from a handful of UTC offsets.
struct Corpus {
    /// SplitMix64: small, fast and the same on every machine.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let words = ("the a walk morning coffee river work meeting friend talk quiet evening dinner book read wrote "
        + "tired happy calm rain sun garden train city home family call letter plan week weekend music film "
        + "café Zürich naïve résumé crème brûlée façade jalapeño São Paulo Kraków Ærøskøbing "
        + "東京 夜 雨 😀 🎉 ☕️ Москва Αθήνα").split(separator: " ").map(String.init)
    static let tags = ["work", "family", "health", "travel", "reading", "garden", "music", "friends", "ideas", "café"]
    static let offsets = [0, 3600, 7200, 32400, -18000, 19800]
    /// The word every search looks for: in about one entry in 200.
    static let needle = "quokka"
    /// A tag as rare as tags mostly are (each of `tags` is on ≈ 39 % of the entries): given
    /// explicitly to the entries with the needle, one in 200.
    static let rareTag = "sighting"

    let entries: [Entry]

    /// Whether a text of the corpus holds the needle (written upper-case, so only the search's
    /// folding finds it).
    static func mentionsNeedle(_ content: String) -> Bool { content.contains(needle.uppercased()) }

    init(count: Int, seed: UInt64 = 2026) {
        var random = Generator(state: seed)
        let start = CivilDay(year: 2021, month: 11, day: 1)!.daysSinceEpoch
        let days = 5 * 365
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        // Entries per day vary: most days 0–2, some busy days up to 8.
        let perDay = max(1, count / days)
        var day = 0
        while entries.count < count {
            let busy = Int.random(in: 0..<20, using: &random) == 0
            let today = busy ? Int.random(in: 3...(4 + 4 * perDay), using: &random) : Int.random(in: 0...(2 * perDay), using: &random)
            for _ in 0..<today where entries.count < count {
                let offset = Self.offsets[Int.random(in: 0..<Self.offsets.count, using: &random)]
                let secondOfDay = Int64(Int.random(in: 6 * 3600..<23 * 3600, using: &random))
                let localMillis = (Int64(start + day % days) * 86_400 + secondOfDay) * 1000
                let created = Instant(millis: localMillis - Int64(offset) * 1000, utcOffsetSeconds: offset)
                let id = UUID(uuid: Self.uuid(&random)), content = Self.text(&random)
                let starred = Int.random(in: 0..<25, using: &random) == 0
                var explicitTags = Int.random(in: 0..<4, using: &random) == 0 ? [Self.tags[Int.random(in: 0..<Self.tags.count, using: &random)]] : []
                // The rare tag: on the entries that mention the needle (no random draw, so the
                // rest of the corpus is what it was before it).
                if Self.mentionsNeedle(content) { explicitTags.append(Self.rareTag) }
                entries.append(Entry(id: id, content: content, created: created, modifiedAt: created.millis, starred: starred,
                                     explicitTags: explicitTags))
            }
            day += 1
        }
        self.entries = entries.sorted { $0.created.millis < $1.created.millis }
    }

    private static func text(_ random: inout Generator) -> String {
        let target = Int.random(in: 300...1500, using: &random)
        var text = "Day note"
        var length = text.count
        while length < target {
            let roll = Int.random(in: 0..<100, using: &random)
            let piece = roll < 3 ? " #" + tags[Int.random(in: 0..<tags.count, using: &random)]
                : roll < 4 ? ". " : " " + words[Int.random(in: 0..<words.count, using: &random)]
            text += piece
            length += piece.count
        }
        if Int.random(in: 0..<200, using: &random) == 0 { text += " " + needle.uppercased() }
        return text + "."
    }

    private static func uuid(_ random: inout Generator) -> uuid_t {
        var bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
    }
}
