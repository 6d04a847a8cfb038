// SPDX-License-Identifier: Apache-2.0
import Foundation

extension UnlockedVault {
    /// Chat messages whose text contains `text` (case- and diacritic-insensitive), in time order.
    public func searchMessages(_ text: String, from: DateExpression? = nil, to: DateExpression? = nil) throws -> [ChatMessage] {
        let matcher = TextMatcher(text)
        return try messages(from: from, to: to).filter { matcher.matches($0.content) }
    }

    /// Analyses whose sentiment, themes or entities contain `text`, by processing time.
    public func searchAnalyses(_ text: String, from: DateExpression? = nil, to: DateExpression? = nil) throws -> [Analysis] {
        let matcher = TextMatcher(text)
        var query = AnalysisQuery()
        query.from = from
        query.to = to
        return try analyses(query).filter { analysis in
            ([analysis.sentiment ?? ""] + analysis.themes + [analysis.entities.searchableText]).contains(where: matcher.matches)
        }
    }
}

extension JSONValue {
    /// The strings and numbers inside, joined, so a search finds entity names, not JSON syntax.
    var searchableText: String {
        switch self {
        case .null: ""
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let text): text
        case .array(let items): items.map(\.searchableText).joined(separator: " ")
        case .object(let members): members.map { $0.0 + " " + $0.1.searchableText }.joined(separator: " ")
        }
    }
}
