// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// The `id` column's text form (FORMAT.md §1): lower-case canonical UUIDs, written and parsed
/// by hand on the hot path, so they must agree with Foundation exactly.
@Suite struct StorageTextTests {
    @Test func formatsLikeFoundationInLowerCase() {
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(id.storageText == id.uuidString.lowercased())
            #expect(UUID(storageText: id.storageText) == id)
        }
        let edges = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for id in edges {
            #expect(id.storageText == id.uuidString.lowercased())
            #expect(UUID(storageText: id.storageText) == id)
        }
    }

    @Test(arguments: [
        "0F8FAD5B-D9CB-469F-A165-70867728950E",   // upper case: not the stored form
        "0f8fad5b-d9cb-469f-a165-70867728950",    // too short
        "0f8fad5b-d9cb-469f-a165-70867728950e0",  // too long
        "0f8fad5bd-9cb-469f-a165-70867728950e",   // dash misplaced
        "0f8fad5b-d9cb-469f-a165-70867728950g",   // not hex
        "{0f8fad5b-d9cb-469f-a165-70867728950e}", // braces
        "0f8fad5b-d9cb-469f-a165-70867728950é",   // 36 characters, 37 bytes
        "",
    ])
    func rejectsEverythingButTheStoredForm(text: String) {
        #expect(UUID(storageText: text) == nil)
    }
}
