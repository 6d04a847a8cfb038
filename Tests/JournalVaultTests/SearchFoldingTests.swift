// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// Search folding must agree with Foundation's case-, diacritic- and width-insensitive folding,
/// which it replaces for speed.
@Suite struct SearchFoldingTests {
    static func foundationFold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    @Test(arguments: [
        ("cafe", "Coffee at the Café", true),
        ("CAFÉ", "a cafe", true),
        ("strasse", "Die Straße", true),
        ("ÉTÉ", "un été chaud", true),
        ("zurich", "Zürich", true),
        ("ｔｏｋｙｏ", "tokyo", true),
        ("москва", "МОСКВА", true),
        ("αθηνα", "Αθήνα", true),
        ("tiếng", "TIENG viet", true),
        ("cafe", "caff", false),
        ("", "anything", true),
        ("longer than text", "short", false),
    ])
    func matchesLikeAPersonWouldExpect(query: String, text: String, expected: Bool) {
        #expect(TextMatcher(query).matches(text) == expected)
    }

    @Test func foldingAgreesWithFoundationOnMixedScripts() {
        let latin = "aAzZ09 .,!?éÉèàÀçÇñÑöÖüÜßøØåÅæÆœŒłŁžŽčČšŠğĞıİőŐąĄęĘ"
        let greekAndCyrillic = "ΑαΒβΓγΔδΕεΆάΈέΉήΊίΌόΎύΏώϊΪ" + "АаБбВвЁёЖжЙйЩщЫыЭэЮюЯя"
        let others = "ẠạẢảẤấẦầỆệỐốỮữ" + "ＡＢＣａｂｃ１２３" + "日本語中文한국어" + "😀🎉" + "e\u{301}a\u{308}"
        let pool: [Character] = Array(latin) + Array(greekAndCyrillic) + Array(others)
        var seed: UInt64 = 0x5EED
        for _ in 0..<2_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(seed >> 58) + 1
            var text = ""
            for step in 0..<length {
                let mixed = seed &+ UInt64(step) &* 0x9E3779B97F4A7C15
                text.append(pool[Int((mixed >> 33) % UInt64(pool.count))])
            }
            let ours = String(decoding: TextMatcher.fold(Array(text.utf8)), as: UTF8.self)
            #expect(ours == Self.foundationFold(text), "folding differs for \(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// The fold loop's shortcuts rest on two facts of the Unicode data: nothing in the skipped
    /// astral range folds, and no astral scalar folds to more bytes than it has.
    @Test func astralShortcutsHoldForThisUnicodeVersion() {
        for value in UInt32(0x10000)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), let folding = FoldTable.propertyFolding(scalar) else { continue }
            #expect(!FoldTable.unchangedAstralRange.contains(value), "U+\(String(value, radix: 16)) folds")
            #expect(folding.count <= 4, "U+\(String(value, radix: 16)) grows when folded")
        }
    }

    /// The table skips these blocks when it is built.
    /// The search tokenizer compares its (lower-case) tokens with folded text byte for byte.
    @Test func foldedTextHoldsNoUpperCaseASCII() {
        for value in UInt32(0)...0x10FFFF where !FoldTable.unchangedAstralRange.contains(value) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let folded = TextMatcher.fold(Array(String(scalar).utf8))
            #expect(!folded.contains { (0x41...0x5A).contains($0) }, "U+\(String(value, radix: 16)) folds to \(folded)")
        }
    }

    @Test func skippedBMPBlocksHoldNothingThatFolds() {
        for range in FoldTable.unchangedBMPRanges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                #expect(FoldTable.propertyFolding(scalar) == nil, "U+\(String(value, radix: 16)) folds")
                #expect(Self.foundationFold(String(scalar)) == String(scalar), "U+\(String(value, radix: 16)) folds in Foundation")
            }
        }
    }

    /// Every byte value in every position of a word of eight: ASCII letters lower-cased, all
    /// else kept, as one byte at a time would.
    @Test func eightASCIIBytesAtATimeLowerCaseLikeOne() {
        for byte in UInt8(0)..<0x80 {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "Q"), count: 8)
                bytes[position] = byte
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                let lowered = withUnsafeBytes(of: ASCIIWord.lowercased(word)) { Array($0) }
                #expect(lowered == bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
            }
        }
        #expect(TextMatcher.fold(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ[@`{ Zürich".utf8)) == Array("abcdefghijklmnopqrstuvwxyz[@`{ zurich".utf8))
    }

    @Test func astralScalarsFoldByTheirProperties() {
        // Deseret capital → small; a variation selector (a combining mark) vanishes; emoji stay.
        #expect(TextMatcher.fold(Array("\u{10400}\u{1F600}\u{E0100}".utf8)) == Array("\u{10428}\u{1F600}".utf8))
        #expect(TextMatcher("\u{10428}").matches("x\u{10400}y"))
    }

    @Test func invalidOrTruncatedUTF8NeverCrashes() {
        for bytes: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFF, 0xFE, 0x41], [0x80, 0x80]] {
            _ = TextMatcher.fold(bytes)
        }
    }
}
