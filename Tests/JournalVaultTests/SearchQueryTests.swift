// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

@Suite("search query language")
struct SearchQueryTests {
    private typealias Phrase = SearchQuery.Phrase

    private func word(_ token: String, prefix: Bool = false) -> Phrase { Phrase(tokens: [token], prefix: prefix) }

    @Test("words: all must match, folded like the text")
    func words() throws {
        #expect(try SearchQuery.parse("tea") == SearchQuery(required: [[word("tea")]]))
        #expect(try SearchQuery.parse("  Green\tTEA\n") == SearchQuery(required: [[word("green")], [word("tea")]]))
        #expect(try SearchQuery.parse("Café") == SearchQuery.parse("cafe"))
    }

    @Test("a word of several tokens is a phrase")
    func multiTokenWords() throws {
        #expect(try SearchQuery.parse("don't") == SearchQuery(required: [[Phrase(tokens: ["don", "t"])]]))
        #expect(try SearchQuery.parse("e-mail*") == SearchQuery(required: [[Phrase(tokens: ["e", "mail"], prefix: true)]]))
        #expect(try SearchQuery.parse("東京") == SearchQuery(required: [[Phrase(tokens: ["東", "京"])]]))
    }

    @Test("prefixes and quoted phrases")
    func prefixesAndPhrases() throws {
        #expect(try SearchQuery.parse("tea*") == SearchQuery(required: [[word("tea", prefix: true)]]))
        #expect(try SearchQuery.parse("\"green tea\"") == SearchQuery(required: [[Phrase(tokens: ["green", "tea"])]]))
        #expect(try SearchQuery.parse("\"green te\"*") == SearchQuery(required: [[Phrase(tokens: ["green", "te"], prefix: true)]]))
        #expect(try SearchQuery.parse("\"OR\" \"-x\"") == SearchQuery(required: [[word("or")], [word("x")]]), "inside quotes nothing is an operator")
        #expect(try SearchQuery.parse("\"a\"b") == SearchQuery(required: [[word("a")], [word("b")]]))
    }

    @Test("OR binds tighter than the implicit AND, and chains")
    func or() throws {
        #expect(try SearchQuery.parse("tea OR coffee morning")
                == SearchQuery(required: [[word("tea"), word("coffee")], [word("morning")]]))
        #expect(try SearchQuery.parse("a OR b OR \"c d\"") == SearchQuery(required: [[word("a"), word("b"), Phrase(tokens: ["c", "d"])]]))
        #expect(try SearchQuery.parse("tea or coffee") == SearchQuery(required: [[word("tea")], [word("or")], [word("coffee")]]),
                "only capitals make OR")
        #expect(try SearchQuery.parse("x OR y*").rankedPhrases == [word("x"), word("y", prefix: true)])
    }

    @Test("exclusions, alone or with other atoms")
    func exclusions() throws {
        #expect(try SearchQuery.parse("tea -rain") == SearchQuery(required: [[word("tea")]], excluded: [word("rain")]))
        #expect(try SearchQuery.parse("-rain -\"cold day\"")
                == SearchQuery(required: [], excluded: [word("rain"), Phrase(tokens: ["cold", "day"])]))
        #expect(try SearchQuery.parse("-rain").isExclusionOnly)
        #expect(try SearchQuery.parse("- tea") == SearchQuery(required: [[word("tea")]]), "a lone dash is no exclusion")
        #expect(try SearchQuery.parse("-OR tea") == SearchQuery(required: [[word("tea")]], excluded: [word("or")]))
    }

    @Test("atoms without a word are left out, except beside OR")
    func emptyAtoms() throws {
        #expect(try SearchQuery.parse("tea & \"\" coffee") == SearchQuery(required: [[word("tea")], [word("coffee")]]))
        #expect(throws: SearchQueryError.orWithoutAtom) { try SearchQuery.parse("tea OR &") }
        #expect(throws: SearchQueryError.orWithoutAtom) { try SearchQuery.parse("& OR tea") }
    }

    @Test("every error", arguments: [
        ("", SearchQueryError.noWords), ("   ", .noWords), ("!!! ...", .noWords), ("\"\"", .noWords), ("-", .noWords), ("*", .noWords),
        ("\"green tea", .unclosedQuote), ("tea \"", .unclosedQuote), ("-\"x", .unclosedQuote),
        ("OR", .orWithoutAtom), ("OR tea", .orWithoutAtom), ("tea OR", .orWithoutAtom), ("tea OR OR coffee", .orWithoutAtom),
        ("tea OR -coffee", .exclusionInOr), ("-tea OR coffee", .exclusionInOr),
    ])
    func errors(text: String, error: SearchQueryError) {
        #expect(throws: error) { try SearchQuery.parse(text) }
    }

    @Test("error descriptions are one sentence naming no command")
    func descriptions() {
        for error in [SearchQueryError.noWords, .unclosedQuote, .orWithoutAtom, .exclusionInOr] {
            #expect(error.description.hasSuffix("."))
            #expect(!error.description.contains("jv "))
            #expect(error.description.filter { $0 == "." }.count == 1)
        }
    }

    @Test("the FTS5 expression quotes every token")
    func expression() throws {
        #expect(SearchIndex.expression(try SearchQuery.parse("tea OR coffee \"early morn\"* -rain"))
                == #"(("tea" OR "coffee") AND ("early morn" *)) NOT ("rain")"#)
        #expect(SearchIndex.expression(try SearchQuery.parse("NEAR AND")) == #"("near") AND ("and")"#)
    }

    @Test("matched ranges: the words of matching phrases, not of partial ones")
    func highlights() throws {
        let text = "Green tea, then more tea; green apples"
        let ranges = try SearchQuery.parse("\"green tea\" appl*").matchedUTF8Ranges(in: text)
        let bytes = Array(text.utf8)
        #expect(ranges.map { String(decoding: bytes[$0], as: UTF8.self) } == ["Green", "tea", "apples"])
        #expect(try SearchQuery.parse("cafe").matchedUTF8Ranges(in: "Le Café") == [3..<8])
        #expect(try SearchQuery.parse("-cafe").matchedUTF8Ranges(in: "Le Café").isEmpty)
    }
}
