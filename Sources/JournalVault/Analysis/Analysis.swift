// SPDX-License-Identifier: Apache-2.0
import Foundation

/// An AI analysis of one entry: which model looked at it, when, and what
/// it found. Deleted with its entry.
///
/// ```swift
/// let analysis = try journal.addAnalysis(AnalysisDraft(entryID: entry.id, model: "llama3",
///                                                      sentiment: "calm", themes: ["sea"]))
/// ```
public struct Analysis: Sendable, Hashable, Identifiable {
    public let id: UUID
    public var entryID: UUID
    /// The model's name (plaintext, so analyses can be listed by model).
    public var model: String
    public var processedAt: Instant
    public var sentiment: String?
    public var themes: [String]
    /// Extracted entities: any JSON the analyser produced (`null` when none).
    public var entities: JSONValue
    /// Anything else the analyser said, kept as it was.
    public var extra: JSONValue
    /// The data-model version of the release that wrote it.
    public var version: Int

    public init(id: UUID = UUID(), entryID: UUID, model: String, processedAt: Instant, sentiment: String? = nil,
                themes: [String] = [], entities: JSONValue = .null, extra: JSONValue = .null, version: Int = Analysis.currentVersion) {
        self.id = id
        self.entryID = entryID
        self.model = model
        self.processedAt = processedAt
        self.sentiment = sentiment
        self.themes = themes
        self.entities = entities
        self.extra = extra
        self.version = version
    }

    public static let currentVersion = 2

    /// README "JSON": `{id, entry_id, model, processed_at, sentiment, themes, entities}`.
    public var json: JSONValue {
        .object([
            ("id", .string(id.storageText)),
            ("entry_id", .string(entryID.storageText)),
            ("model", .string(model)),
            ("processed_at", .string(processedAt.iso8601)),
            ("sentiment", .optional(sentiment)),
            ("themes", .strings(themes)),
            ("entities", entities),
        ])
    }

    /// The encrypted payload: `{sentiment, themes, entities, extra}`.
    var payload: JSONValue {
        .object([("sentiment", .optional(sentiment)), ("themes", .strings(themes)), ("entities", entities), ("extra", extra)])
    }
}

/// A knowledge-graph node reference as analysers give it: a type and a name.
public struct NodeReference: Sendable, Hashable {
    public var type: String
    public var name: String

    public init(type: String, name: String) {
        self.type = type
        self.name = name
    }
}

/// A relation between two node references as analysers give it.
public struct RelationDraft: Sendable, Hashable {
    public var from: NodeReference
    public var to: NodeReference
    public var type: String
    public var strength: Double

    public init(from: NodeReference, to: NodeReference, type: String, strength: Double) {
        self.from = from
        self.to = to
        self.type = type
        self.strength = strength
    }
}

/// Which analyses to list.
///
/// ```swift
/// var query = AnalysisQuery()
/// query.entryFrom = .day(CivilDay(year: 2026, month: 11, day: 1)!)
/// query.entryTo = .day(CivilDay(year: 2026, month: 11, day: 30)!)
/// let novembers = try journal.analyses(query)   // analyses of November's entries, whenever they ran
/// ```
public struct AnalysisQuery: Sendable {
    public var entryID: UUID?
    public var model: String?
    /// Bounds on `processed_at` (days compare the analysis's local day).
    public var from: DateExpression?
    public var to: DateExpression?
    /// Bounds on the analysed entry's time, as ``EntryQuery`` bounds it (days compare the
    /// entry's local day).
    public var entryFrom: DateExpression?
    public var entryTo: DateExpression?

    public init() {}
}
