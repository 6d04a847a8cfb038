// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
import VaultCrypto

/// Case- and diacritic-insensitive substring matching ("cafe" finds "Café", "STRASSE" finds
/// "straße"), on UTF-8 bytes so a search over 100,000 entries never builds their `String`s.
///
/// Folding follows Foundation's `folding(options: [.caseInsensitive, .diacriticInsensitive,
/// .widthInsensitive])` scalar by scalar: ASCII is lower-cased inline; other scalars of the
/// Latin, Greek, Cyrillic and fullwidth blocks come from a table built once with Foundation;
/// combining marks are dropped; anything else is lower-cased by its Unicode case mapping.
///
/// ```swift
/// let matcher = TextMatcher("cafe")
/// matcher.matches("Coffee at the Café")   // true
/// ```
public struct TextMatcher: Sendable {
    private let needle: [UInt8]

    public init(_ query: String) {
        needle = Self.fold(Array(query.utf8))
    }

    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    /// Matches valid UTF-8 bytes.
    /// The folded text lives in temporary memory, wiped afterwards: a search must not leave
    /// the rows it rejects behind in freed memory.
    public func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        return Self.withFolded(utf8: bytes) { folded in needle.withUnsafeBytes { Self.contains(UnsafeRawBufferPointer(folded), $0) } }
    }

    /// Calls `body` with the folded form of UTF-8 `bytes` in temporary memory, wiped afterwards:
    /// a search must not leave the rows it rejects behind in freed memory.
    static func withFolded<Result>(utf8 bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let needed = FoldTable.isNeeded(for: bytes)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, bytes.count * FoldTable.maximumExpansion(needed: needed))) { buffer in
            let count = fold(bytes, into: buffer.baseAddress!, needed: needed)
            defer { Sodium.wipe(UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[..<count])) }
            return try body(UnsafeBufferPointer(start: buffer.baseAddress, count: count))
        }
    }

    /// Whether `needle` occurs in `haystack`: memchr for each candidate first byte, memcmp to confirm.
    private static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard let base = haystack.baseAddress, let needleBase = needle.baseAddress, needle.count <= haystack.count else { return false }
        let first = Int32(needle[0])
        var offset = 0
        let lastStart = haystack.count - needle.count
        while offset <= lastStart {
            guard let found = memchr(base + offset, first, lastStart - offset + 1) else { return false }
            let position = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + position, needleBase, needle.count) == 0 { return true }
            offset = position + 1
        }
        return false
    }

    static func fold(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer(fold)
    }

    /// The folded form of UTF-8 `bytes`; a truncated last sequence is dropped, other invalid
    /// bytes pass through (decrypted fields are valid UTF-8; this only must not crash).
    static func fold(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let needed = FoldTable.isNeeded(for: bytes)
        return [UInt8](unsafeUninitializedCapacity: bytes.count * FoldTable.maximumExpansion(needed: needed)) { output, written in
            guard let out = output.baseAddress else { return }
            written = fold(bytes, into: out, needed: needed)
        }
    }

    /// Folds into `out` (room for `bytes.count × maximumExpansion`) and returns the length;
    /// `needed`: ``FoldTable/isNeeded(for:)`` of `bytes`.
    private static func fold(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, needed: Bool) -> Int {
        let count = bytes.count
        var written = 0
        FoldTable.withLookup(needed: needed) { lookup in
            var index = 0
            while index < count {
                // Eight ASCII bytes at a time: most text is mostly ASCII.
                if index + 8 <= count {
                    let word = ASCIIWord.load(from: bytes.baseAddress! + index)
                    if ASCIIWord.isASCII(word) {
                        UnsafeMutableRawPointer(out + written).storeBytes(of: ASCIIWord.lowercased(word), as: UInt64.self)
                        written += 8
                        index += 8
                        continue
                    }
                }
                let lead = bytes[index]
                if lead < 0x80 {
                    out[written] = ASCIIWord.lowercased(lead)
                    written += 1
                    index += 1
                    continue
                }
                guard let (value, length) = UTF8Scalar.decode(at: index, in: bytes) else { break }
                written += lookup.fold(value, encodedAs: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), into: out + written)
                index += length
            }
        }
        return written
    }
}

/// Per-scalar foldings, computed once: a flat table over the Basic Multilingual Plane, so the
/// search loop does one array read per scalar and allocates nothing.
///
/// Building it (and ``ClassTable``) costs some 40 M instructions, most of a short `jv search`
/// process; ASCII text needs neither table (lower-cased inline, classified by byte), so they are
/// built only once a text that is not ASCII is folded: ``isNeeded(for:)``.
final class FoldTable: Sendable {
    static let shared = FoldTable()
    /// Set once ``shared`` is built: from then on no text is looked over first.
    private static let built = Atomic<Bool>(false)

    /// Whether folding or tokenizing `bytes` needs the tables: once they are built, always (no
    /// pass over the text first); before, only for text that is not all ASCII.
    static func isNeeded(for bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        built.load(ordering: .relaxed) || !ASCIIWord.isASCII(bytes)
    }

    /// The most output bytes one input byte of `bytes` can become (ASCII: one).
    static func maximumExpansion(needed: Bool) -> Int {
        needed ? shared.maximumExpansion : 1
    }

    /// ``withLookup(_:)`` of the shared table where it is `needed`, else of an empty one, which
    /// ASCII text never looks into.
    static func withLookup<Result>(needed: Bool, _ body: (Lookup) -> Result) -> Result {
        needed ? shared.withLookup(body) : body(Lookup(bmp: UnsafeBufferPointer(start: nil, count: 0), pool: UnsafeBufferPointer(start: nil, count: 0)))
    }

    /// Blocks folded by Foundation: Latin-1 Supplement to Cyrillic, Latin Extended Additional,
    /// general punctuation (for width), and the half/fullwidth forms. Other scalars follow
    /// their Unicode properties (see `propertyFolding`).
    private static let foundationRanges: [ClosedRange<UInt32>] = [0x80...0x52F, 0x1E00...0x1FFF, 0xFF00...0xFFEF]
    /// Above the BMP, this range (symbols, emoji, CJK extensions, unassigned planes) holds no
    /// scalar that changes when folded; a test checks it against the Unicode data in use.
    static let unchangedAstralRange: Range<UInt32> = 0x1F000..<0xE0000
    /// BMP blocks where no scalar changes when folded (CJK ideographs, Hangul syllables,
    /// surrogates, private use): three quarters of the plane, skipped when the table is built,
    /// which every search process does. A test checks it against the Unicode data in use.
    static let unchangedBMPRanges: [Range<UInt32>] = [0x3400..<0x4DC0, 0x4E00..<0xA000, 0xAC00..<0xD7A4, 0xD800..<0xF900]
    static let unchanged = UInt32.max

    /// For each BMP scalar: ``unchanged``, or the folding's offset in `pool` << 8 | its length.
    private let bmp: [UInt32]
    private let pool: [UInt8]
    /// The most output bytes one input byte can become.
    let maximumExpansion: Int

    private init() {
        var foldings: [UInt32: [UInt8]] = [:]
        for range in Self.foundationRanges {
            let scalars = range.map { Unicode.Scalar($0) }
            // One Foundation call per block: the scalars separated by newlines, which folding keeps.
            let joined = scalars.map { $0.map { String($0) } ?? "" }.joined(separator: "\n")
            let folded = joined.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (offset, scalar) in scalars.enumerated() {
                guard let scalar else { continue }
                foldings[scalar.value] = folded.count == scalars.count ? Array(folded[offset].utf8) : Self.propertyFolding(scalar)
            }
        }
        var bmp = [UInt32](repeating: Self.unchanged, count: 0x10000)
        var pool: [UInt8] = []
        var expansion = 1
        for value in UInt32(0x80)..<0x10000 where !Self.unchangedBMPRanges.contains(where: { $0.contains(value) }) {
            // ASCII in a folding is lower-cased too, so that folded text never holds `A`–`Z`
            // (the search tokenizer's tokens are compared with folded text byte for byte).
            guard let scalar = Unicode.Scalar(value),
                  let folding = (foldings[value] ?? Self.propertyFolding(scalar))?.map(ASCIIWord.lowercased),
                  !folding.elementsEqual(scalar.utf8) else { continue }
            bmp[Int(value)] = UInt32(pool.count) << 8 | UInt32(folding.count)
            pool += folding
            expansion = max(expansion, (folding.count + scalar.utf8.count - 1) / scalar.utf8.count)
        }
        self.bmp = bmp
        self.pool = pool
        maximumExpansion = expansion
        Self.built.store(true, ordering: .relaxed)
    }

    /// The table as raw buffers, for the length of one fold: no reference counting per scalar.
    func withLookup<Result>(_ body: (Lookup) -> Result) -> Result {
        bmp.withUnsafeBufferPointer { bmp in pool.withUnsafeBufferPointer { pool in body(Lookup(bmp: bmp, pool: pool)) } }
    }

    struct Lookup {
        let bmp: UnsafeBufferPointer<UInt32>
        let pool: UnsafeBufferPointer<UInt8>

        /// Writes the folding of `value` (whose UTF-8 is `source`) at `output`; returns its length.
        @inline(__always)
        func fold(_ value: UInt32, encodedAs source: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
            if value < 0x10000 {
                let entry = bmp[Int(value)]
                if entry != FoldTable.unchanged {
                    let length = Int(entry & 0xFF)
                    output.initialize(from: pool.baseAddress! + Int(entry >> 8), count: length)
                    return length
                }
            } else if !FoldTable.unchangedAstralRange.contains(value), let scalar = Unicode.Scalar(value),
                      let folding = FoldTable.propertyFolding(scalar), folding.count <= source.count {
                // Astral foldings never grow (a test checks it), so the output's capacity holds.
                output.initialize(from: folding, count: folding.count)
                return folding.count
            }
            output.initialize(from: source.baseAddress!, count: source.count)
            return source.count
        }
    }

    /// A scalar outside Foundation's blocks: combining marks are dropped, others lower-cased.
    static func propertyFolding(_ scalar: Unicode.Scalar) -> [UInt8]? {
        let properties = scalar.properties
        if properties.generalCategory == .nonspacingMark { return [] }
        guard properties.changesWhenLowercased else { return nil }
        return Array(properties.lowercaseMapping.utf8)
    }
}
