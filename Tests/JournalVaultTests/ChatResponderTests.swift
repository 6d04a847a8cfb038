// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

// What a chat command's output means (README "Asking a local model"): a whole JSON object is
// {content, model, usage}; anything else is the answer's text; either way a message's rules hold.

@Suite struct ChatResponderTests {
    @Test func aWholeJSONObjectIsReadForItsMembersAndAnythingElseIsText() throws {
        let object = try ChatAnswer(parsing: Array(#"{"content": " Hi. ", "model": "m", "usage": {"tokens": 3}}"#.utf8))
        #expect(object.content == "Hi." && object.model == "m" && object.usage == .object([("tokens", .integer(3))]))
        let text = try ChatAnswer(parsing: Array("Plain {\"content\": \"not whole\"}\n".utf8))
        #expect(text.content == "Plain {\"content\": \"not whole\"}" && text.model == nil && text.usage == .null)
        #expect(try ChatAnswer(parsing: Array("[1, 2]".utf8)).content == "[1, 2]", "only an object is read for members")
    }

    @Test func anAnswerThatCannotBeAMessageIsRefused() {
        #expect(throws: ChatResponderError(reason: "printed no answer")) { try ChatAnswer(parsing: Array(" \n".utf8)) }
        #expect(throws: ChatResponderError(reason: "printed an answer that is not UTF-8")) { try ChatAnswer(parsing: [0xFF, 0xFE]) }
        #expect(throws: ChatResponderError(reason: #"printed a JSON object without a "content" string"#)) {
            try ChatAnswer(parsing: Array(#"{"content": 3}"#.utf8))
        }
        #expect(throws: ChatResponderError(reason: "printed an answer longer than a message may be")) {
            try ChatAnswer(parsing: Array(String(repeating: "a", count: Entry.maximumCharacters + 1).utf8))
        }
    }
}
