import Foundation

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
    public func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        let folded = Self.fold(bytes)
        return folded.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in Self.contains(haystack, needle) }
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

    static func fold<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8, Bytes.Index == Int {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            if lead < 0x80 {
                output.append(lead &- 0x41 < 26 ? lead | 0x20 : lead)
                index += 1
                continue
            }
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard index + length <= bytes.endIndex else { break }
            var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
            if let folded = FoldTable.shared.folding(of: value) {
                output += folded
            } else {
                output += bytes[index..<index + length]
            }
            index += length
        }
        return output
    }
}

/// Per-scalar foldings for the scalars that need one, computed once.
private final class FoldTable: Sendable {
    static let shared = FoldTable()

    /// Blocks folded by table: Latin-1 Supplement to Cyrillic, Latin Extended Additional,
    /// general punctuation (for width), and the half/fullwidth forms.
    private static let ranges: [ClosedRange<UInt32>] = [0x80...0x52F, 0x1E00...0x1FFF, 0xFF00...0xFFEF]
    private let table: [ClosedRange<UInt32>: [[UInt8]?]]

    private init() {
        var table: [ClosedRange<UInt32>: [[UInt8]?]] = [:]
        for range in Self.ranges {
            let scalars = range.map { Unicode.Scalar($0) }
            // One Foundation call per block: the scalars separated by newlines, which folding keeps.
            let joined = scalars.map { $0.map { String($0) } ?? "" }.joined(separator: "\n")
            let folded = joined.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                .split(separator: "\n", omittingEmptySubsequences: false)
            table[range] = zip(scalars, folded.count == scalars.count ? folded.map(Optional.some) : Array(repeating: nil, count: scalars.count))
                .map { scalar, folding -> [UInt8]? in
                    guard let scalar else { return nil }
                    let result = folding.map { Array($0.utf8) } ?? Self.fallback(scalar)
                    return result == Array(String(scalar).utf8) ? nil : result
                }
        }
        self.table = table
    }

    /// The folded UTF-8 of `value`, or nil if it folds to itself.
    func folding(of value: UInt32) -> [UInt8]? {
        for (range, foldings) in table where range.contains(value) {
            return foldings[Int(value - range.lowerBound)]
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }
        return Self.fallback(scalar)
    }

    private static func fallback(_ scalar: Unicode.Scalar) -> [UInt8]? {
        let properties = scalar.properties
        if properties.generalCategory == .nonspacingMark { return [] }
        guard properties.changesWhenLowercased else { return nil }
        return Array(properties.lowercaseMapping.utf8)
    }
}
