// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import JournalVault

extension UnlockedVault {
    /// The ids `query` finds among records of `kinds` (newest first), through the scan.
    func searchIDs(_ query: String, kinds: Set<SearchKind>, from: DateExpression? = nil, to: DateExpression? = nil) throws -> [UUID] {
        try search(SearchRequest(query: try SearchQuery.parse(query), kinds: kinds, from: from, to: to)).map { UUID(storageText: $0.key)! }
    }
}
