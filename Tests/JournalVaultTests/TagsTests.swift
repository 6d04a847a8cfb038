// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// The text rules of entries: inline tags, tag normal form, titles (FORMAT.md §1).
@Suite struct TagsTests {
    @Test(arguments: [
        ("Met @Anna at the #café.", ["anna", "café"]),
        ("Write to a@b.com or anna@example.org", []),
        ("# heading\n## another heading", []),
        ("#well-being and #snake_case and @co-worker_2", ["well-being", "snake_case", "co-worker_2"]),
        ("#Work #work @WORK #wOrK", ["work"]),
        ("#b #a #b #c #a", ["b", "a", "c"]),
        ("(#paren) and [#bracket]", ["paren"]),
        ("Ends with a hyphen #trailing- and a dash #x--", ["trailing", "x"]),
        ("#-lead and #in-side keep theirs, ##double and #x-#y give none after the first", ["-lead", "in-side", "x"]),
        ("mid#word and mid@word", []),
        ("#2026 and #v2", ["2026", "v2"]),
        ("#- #_ #__ @-", []),
        ("#tag. #other, #third! #fourth?", ["tag", "other", "third", "fourth"]),
        ("first line\n#second\tand\t@third", ["second", "third"]),
        ("#Ärger und #Übermut", ["ärger", "übermut"]),
        ("#cafe\u{301} then #caf\u{e9}", ["caf\u{e9}"]),
        ("#東京 trip", ["東京"]),
        ("wide\u{3000}#space and no\u{A0}#break", ["space", "break"]),
        ("é#after-accent 😀#after-emoji 東#after-kanji", []),
        ("#é-tag-é- #😀", ["é-tag-é"]),
        ("", []),
        ("@", []),
    ])
    func inlineTags(content: String, expected: [String]) {
        #expect(Tags.inline(in: content) == expected)
    }

    /// The byte-level scan against the plain definition (scalar by scalar) on random text.
    @Test func inlineTagsAgreeWithTheScalarDefinition() {
        let pool: [Character] = ["#", "@", " ", "\n", "(", ")", "-", "_", ".", "a", "B", "7", "é", "e\u{301}", "東", "😀", "\u{3000}", "\u{A0}", "ß", "Ω"]
        for text in Self.randomTexts(of: pool, seed: 0x7A65, count: 3_000) {
            #expect(Tags.inline(in: text) == Self.scalarDefinition(text), "\(text.debugDescription)")
        }
    }

    /// `count` texts of 1–32 characters drawn from `pool`, the same for the same seed.
    static func randomTexts(of pool: [Character], seed: UInt64, count: Int) -> [String] {
        var seed = seed
        return (0..<count).map { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return String((0..<Int(seed >> 59) + 1).map { step in
                pool[Int(((seed &+ UInt64(step) &* 0x9E3779B97F4A7C15) >> 29) % UInt64(pool.count))]
            })
        }
    }

    /// The quick look a tag listing takes never sees a tag the full scan does not, and sees
    /// the plain cases; random text with near-misses (hyphens, marks, case, `(`, digits).
    @Test func aQuickLookForATagNeverSeesMoreThanTheScan() {
        #expect(Tags.quicklyShowsInline("garden", in: "In the #Garden today"))
        #expect(Tags.quicklyShowsInline("garden", in: "(@GARDEN)"))
        #expect(Tags.quicklyShowsInline("garden", in: "#garden"))
        for miss in ["#gardens", "#garden-party", "x#garden", "#gardén", "#garde", "#garden\u{301}", "#garden_"] {
            #expect(!Tags.quicklyShowsInline("garden", in: miss), "\(miss)")
        }
        #expect(!Tags.quicklyShowsInline("garden-", in: "#garden- today"), "the scan reads the tag garden there")
        let pool: [Character] = ["#", "@", " ", "\n", "(", "-", "_", ".", "a", "A", "b", "1", "é", "e\u{301}", "\u{212A}", "\u{A0}"]
        for text in Self.randomTexts(of: pool, seed: 0x9A7D, count: 5_000) {
            let scanned = Tags.inline(in: text)
            for tag in ["a", "ab", "a1", "k", "a-b", "a_", "a-", "-a"] where Tags.quicklyShowsInline(tag, in: text) {
                #expect(scanned.contains(tag), "\(text.debugDescription) \(tag)")
            }
        }
    }

    /// A tag is `@`/`#` after the start, white space or `(`, then word scalars without trailing hyphens.
    static func scalarDefinition(_ content: String) -> [String] {
        let scalars = Array(content.unicodeScalars)
        var found: [String] = []
        var index = 0
        while index < scalars.count {
            let previous: Unicode.Scalar = index == 0 ? " " : scalars[index - 1]
            let scalar = scalars[index]
            index += 1
            guard scalar == "@" || scalar == "#", previous.properties.isWhitespace || previous == "(" else { continue }
            var end = index
            while end < scalars.count, Tags.normalize(String(scalars[end])) != nil || ["_", "-"].contains(scalars[end])
                    || [.nonspacingMark, .spacingMark, .enclosingMark].contains(scalars[end].properties.generalCategory) { end += 1 }
            var wordEnd = end
            while wordEnd > index, scalars[wordEnd - 1] == "-" { wordEnd -= 1 }
            if wordEnd > index, let tag = Tags.normalize(String(String.UnicodeScalarView(scalars[index..<wordEnd]))), !found.contains(tag) {
                found.append(tag)
            }
            index = max(index, end)
        }
        return found
    }

    @Test(arguments: [
        ("@Anna", "anna"),
        ("#café", "café"),
        ("cafe\u{301}", "caf\u{e9}"),
        ("  #Travel\n", "travel"),
        ("work", "work"),
        ("Co-Worker_2", "co-worker_2"),
        ("2026", "2026"),
        ("x-", "x-"),
        ("\u{3000}#wide-space\u{A0}", "wide-space"),
    ])
    func normalizeGivesTheNormalForm(tag: String, expected: String) {
        #expect(Tags.normalize(tag) == expected)
    }

    @Test(arguments: ["", " ", "#", "@", "two words", "-", "__", "a.b", "a/b", "#tag!", "##double", "@#mixed", "tab\tinside"])
    func normalizeRefusesNonWords(tag: String) {
        #expect(Tags.normalize(tag) == nil)
    }

    @Test func normalFormIsNFCLowercase() throws {
        let tag = try #require(Tags.normalize("CAFE\u{301}"))
        #expect(tag == "caf\u{e9}")
        #expect(Array(tag.unicodeScalars) == Array("caf\u{e9}".unicodeScalars))
    }

    @Test(arguments: [
        ("Hello world. More text", "Hello world."),
        ("Why? Because.", "Why?"),
        ("Wow! That was close.", "Wow!"),
        ("Version 1.5 released today. Notes follow", "Version 1.5 released today."),
        ("No punctuation here\nSecond line. Yes", "No punctuation here"),
        ("Wait... what", "Wait..."),
        ("Windows line\r\nnext", "Windows line"),
        ("One line only", "One line only"),
        ("Ends with a period.", "Ends with a period."),
        ("e.g. this", "e.g."),
    ])
    func titleIsTheFirstSentenceOfTheFirstLine(content: String, expected: String) {
        #expect(Tags.title(of: content) == expected)
    }

    /// The title scan looks at eight bytes at a time; on random long text it ends the title
    /// where a scalar-by-scalar reading of the same rule does.
    @Test func titleScanAgreesWithAScalarByScalarReading() {
        let pool: [Character] = ["a", "b", " ", " ", ".", "!", "?", "…", "。", "！", "☕️", "é", "ж", "\"", "’", ")", "]", "\u{A0}", "東", "😀", "1"]
        let texts = Self.randomTexts(of: pool, seed: 0x717E, count: 2_000).map { String(repeating: "abcdefgh", count: $0.count % 5) + $0 }
        for text in texts {
            #expect(Tags.title(of: text) == Self.referenceTitle(text), "\(text.debugDescription)")
        }
    }

    /// jrnl's rule read scalar by scalar: up to a line break, or past the first terminal (an
    /// optional closing quote, closing brackets, then white space; a CJK terminal alone).
    static func referenceTitle(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        func title(_ end: Int) -> String { ContentRules.trimmed(String(String.UnicodeScalarView(scalars[..<end]))) }
        if let newline = scalars.firstIndex(of: "\n") { return title(newline + 1) }
        let terminals: Set<Unicode.Scalar> = [".", "!", "?", "\u{2026}", "\u{203C}", "\u{203D}", "\u{2047}", "\u{2048}", "\u{2049}", "\u{22EF}", "\u{FE52}", "\u{FE57}"]
        let cjk: Set<Unicode.Scalar> = ["\u{FF01}", "\u{FF0E}", "\u{FF1F}", "\u{FF61}", "\u{3002}"]
        for start in scalars.indices {
            if cjk.contains(scalars[start]) { return title(start + 1) }
            guard terminals.contains(scalars[start]) else { continue }
            var index = start + 1
            if index < scalars.count, ["'", "\u{2019}", "\"", "\u{201D}"].contains(scalars[index]) { index += 1 }
            while index < scalars.count, scalars[index] == "]" || scalars[index] == ")" { index += 1 }
            let spaces = index
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            if index > spaces { return title(index) }
        }
        return title(scalars.count)
    }

    @Test func entryTagsAreInlineThenExplicitWithoutRepeats() {
        let entry = Entry(content: "Lunch with @Anna about #work.", created: moment(hoursAfterJan5UTC: 12, offsetHours: 0),
                          modifiedAt: 0, explicitTags: ["work", "project-x", "anna", "lunch"])
        #expect(entry.tags == ["anna", "work", "project-x", "lunch"])
        #expect(entry.title == "Lunch with @Anna about #work.")
    }

    @Test func explicitTagsAreNormalisedAndDeduplicated() throws {
        #expect(try ContentRules.tags(["@Work", "work", "#Travel", "WORK", "cafe\u{301}", "caf\u{e9}"]) == ["work", "travel", "caf\u{e9}"])
        #expect(try ContentRules.tags([]) == [])
        #expect(throws: VaultError.invalidTag("two words")) { try ContentRules.tags(["ok", "two words"]) }
        #expect(throws: VaultError.invalidTag("#")) { try ContentRules.tags(["#"]) }
    }
}

/// Content limits (README: ≤ 50,000 characters, valid UTF-8, not blank).
@Suite struct ContentRulesTests {
    @Test func fiftyThousandCharactersAreAcceptedAndOneMoreIsRefused() throws {
        let limit = String(repeating: "a", count: 50_000)
        #expect(try ContentRules.validated(limit) == limit)
        #expect(throws: VaultError.contentTooLong(characters: 50_001, limit: 50_000)) {
            try ContentRules.validated(limit + "b")
        }
        #expect(Entry.maximumCharacters == 50_000)
    }

    @Test func limitCountsCharactersNotBytesOrScalars() throws {
        // "é" as e + combining acute: one character, two scalars, three bytes.
        let decomposed = String(repeating: "e\u{301}", count: 50_000)
        #expect(try ContentRules.validated(decomposed).count == 50_000)
        let emoji = String(repeating: "👩‍👩‍👧", count: 50_000)
        #expect(try ContentRules.validated(emoji).count == 50_000)
        #expect(throws: VaultError.contentTooLong(characters: 50_001, limit: 50_000)) {
            try ContentRules.validated(emoji + "x")
        }
    }

    /// A character has no size of its own: one letter with a million combining
    /// marks was a "1-character" text of 2 MB. The bytes are bounded too, far above what
    /// 50,000 characters of any script or of emoji need.
    @Test func bytesAreBoundedAsWellAsCharacters() throws {
        let oneCharacter = "e" + String(repeating: "\u{301}", count: 1_000_000)
        #expect(oneCharacter.count == 1)
        #expect(throws: VaultError.contentTooLarge(bytes: 2_000_001, limit: 1_000_000)) { try ContentRules.validated(oneCharacter) }
        #expect(throws: VaultError.contentTooLarge(bytes: 2_000_001, limit: 1_000_000)) {
            try ContentRules.text(fromUTF8: Array(oneCharacter.utf8))
        }
        let exactly = "e" + String(repeating: "\u{301}", count: 499_999) + "z"
        #expect(exactly.utf8.count == Entry.maximumBytes)
        #expect(try ContentRules.validated(exactly) == exactly)
        #expect(throws: VaultError.contentTooLarge(bytes: 1_000_001, limit: 1_000_000)) { try ContentRules.validated(exactly + "z") }
        // Over both limits: the characters are what a person is told about.
        #expect(throws: VaultError.contentTooLong(characters: 1_000_001, limit: 50_000)) {
            try ContentRules.validated(String(repeating: "a", count: 1_000_001))
        }
        // 50,000 characters of other scripts stay well inside: Devanagari conjuncts, Tibetan stacks, flags, skin tones.
        for character in ["क्षि", "སྒྲུ", "🇩🇪", "👍🏽", "👩‍👩‍👧"] {
            let text = String(repeating: character, count: 50_000)
            #expect(try ContentRules.validated(text).count == 50_000, "\(character)")
        }
    }

    @Test func surroundingWhiteSpaceIsTrimmedAndNotCounted() throws {
        let padded = "   \n" + String(repeating: "a", count: 50_000) + "\n\t  "
        #expect(try ContentRules.validated(padded).count == 50_000)
        #expect(try ContentRules.validated("  two words \n") == "two words")
        #expect(try ContentRules.validated("inside  spaces\nkept") == "inside  spaces\nkept")
    }

    @Test(arguments: ["", " ", "\n", "\t \r\n ", "\u{2003}\u{00A0}"])
    func blankContentIsRefused(text: String) {
        #expect(throws: VaultError.contentBlank) { try ContentRules.validated(text) }
        #expect(throws: VaultError.contentBlank) { try ContentRules.text(fromUTF8: Array(text.utf8)) }
    }

    @Test(arguments: [
        [0xff],
        [0x41, 0xc3],                 // truncated two-byte sequence
        [0xc0, 0xaf],                 // overlong "/"
        [0xed, 0xa0, 0x80],           // UTF-16 surrogate
        [0xf4, 0x90, 0x80, 0x80],     // beyond U+10FFFF
        [0x68, 0x69, 0x80],           // stray continuation byte
    ] as [[UInt8]])
    func invalidUTF8IsRefused(bytes: [UInt8]) {
        #expect(throws: VaultError.invalidUTF8) { try ContentRules.text(fromUTF8: bytes) }
    }

    @Test func validUTF8IsDecodedAndTrimmed() throws {
        #expect(try ContentRules.text(fromUTF8: Array("  Caf\u{e9} 東京 👩‍👩‍👧\n".utf8)) == "Caf\u{e9} 東京 👩‍👩‍👧")
    }

    @Test func customLimit() throws {
        #expect(try ContentRules.validated("abc", limit: 3) == "abc")
        #expect(throws: VaultError.contentTooLong(characters: 4, limit: 3)) { try ContentRules.validated("abcd", limit: 3) }
    }
}

/// Case- and diacritic-insensitive matching used by `contains` and search.
@Suite struct TextMatcherTests {
    @Test(arguments: [
        ("CAFE", "Coffee at the café", true),
        ("café", "CAFE CULTURE", true),
        ("cafe\u{301}", "caf\u{e9}", true),
        ("Zürich", "zurich airport", true),
        ("", "anything", true),
        ("tea", "Coffee at the café", false),
        ("cafés", "café", false),
    ])
    func matches(needle: String, haystack: String, expected: Bool) {
        #expect(TextMatcher(needle).matches(haystack) == expected)
    }
}

/// The tag normal form is Unicode case folding (FORMAT.md §5): the expected values are
/// `unicodedata.normalize('NFC', unicodedata.normalize('NFC', word).casefold())` from Python.
@Suite struct TagCaseFoldingTests {
    static let pythonCasefold: [(String, String)] = [
        ("ΟΔΟΣ", "οδοσ"), ("οδος", "οδοσ"), ("οδοσ", "οδοσ"), ("Straße", "strasse"), ("STRASSE", "strasse"), ("ẞ", "ss"),
        ("ﬁle", "file"), ("İstanbul", "i\u{307}stanbul"), ("ᏣᎳᎩ", "ᏣᎳᎩ"), ("ꮳꮃꭹ", "ᏣᎳᎩ"), ("Café", "café"), ("Cafe\u{301}", "café"),
        ("ǅungla", "ǆungla"), ("Ωmega", "ωmega"), ("ΣΊΣΥΦΟΣ", "σίσυφοσ"), ("Ⅻ", "ⅻ"), ("ﬀ", "ff"),
        // NFC before folding: the marks are put in canonical order and composed to ᾴ, which
        // folds to ά ι (folded first, α ͅ ́ would give α ί).
        ("α\u{345}\u{301}", "\u{3AC}\u{3B9}"),
        // NFC after folding: ΐ folds to ι ̈ ́, which composes again.
        ("\u{390}", "\u{390}"), ("\u{1FBC}", "\u{3B1}\u{3B9}"),
        ("\u{212A}elvin", "kelvin"), ("\u{212B}ngstr\u{F6}m", "\u{E5}ngstr\u{F6}m"), ("\u{13F8}", "\u{13F0}"),
    ]

    @Test func theNormalFormIsPythonsCasefold() {
        for (word, expected) in Self.pythonCasefold {
            #expect(Tags.normalize(word) == expected, "\(word)")
            #expect(Tags.inline(in: "a #\(word) b") == [expected], "\(word) inline")
        }
    }

    /// A tag on few entries is listed by looking its rows up by key, one on many by walking the
    /// time index: both give the same entries in the same order, either way round.
    @Test func rareAndCommonTagsAreListedInTimeOrder() throws {
        let vault = try TemporaryVault()
        var rare: [UUID] = [], common: [UUID] = []
        for day in 1...40 {
            let at = Instant(millis: Int64(41 - day) * 86_400_000, utcOffsetSeconds: 0)   // added newest first
            let entry = try vault.journal.addEntry("Day \(day) #Common", at: at, tags: day % 20 == 7 ? ["rare"] : [])
            common.insert(entry.id, at: 0)
            if day % 20 == 7 { rare.insert(entry.id, at: 0) }
        }
        for (tag, expected) in [("rare", rare), ("common", common)] {
            var query = EntryQuery()
            query.tags = [tag]
            #expect(try vault.journal.entries(query).map(\.id) == expected, "\(tag)")
            var newest: [UUID] = []
            try vault.journal.forEachEntry(matching: query, order: .newestFirst) { newest.append($0.id) }
            #expect(newest == expected.reversed(), "\(tag), newest first")
        }
    }

    @Test func finalSigmaAndSharpSMakeNoDifferentTag() throws {
        let vault = try TemporaryVault()
        let upper = try vault.journal.addEntry("Walk to the #ΟΔΟΣ.")
        let lower = try vault.journal.addEntry("Another #οδος walk, and #Straße.")
        var query = EntryQuery()
        query.tags = ["οδοσ"]
        #expect(try vault.journal.entries(query).map(\.id) == [upper.id, lower.id])
        query.tags = ["STRASSE"]
        #expect(try vault.journal.entries(query).map(\.id) == [lower.id])
        #expect(try vault.journal.check().isClean)
    }
}
