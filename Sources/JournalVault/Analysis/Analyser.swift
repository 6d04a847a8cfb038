// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A local analyser (README "JSON", README "Analyser protocol"): a shell command that receives one
/// entry as a JSON object on standard input and prints one JSON object:
/// `{"sentiment": string, "themes": [string], "entities": any, "nodes": [{"type", "name"}],
///   "relations": [{"from": {"type", "name"}, "to": {"type", "name"}, "type": string, "strength": 0…1}]}`
/// of which at least one of `sentiment`, `themes`, `entities` is required.
///
/// ```swift
/// let analyser = Analyser(command: "ollama-analyse", model: "llama3", timeout: .seconds(120))
/// let analysis = try journal.analyse(entryID: id, with: analyser)
/// ```
public struct Analyser: Sendable {
    public var command: String
    /// The model name stored with the result; nil takes the answer's `model` member, else "local".
    public var model: String?
    public var timeout: Duration

    public init(command: String, model: String? = nil, timeout: Duration = .seconds(120)) {
        self.command = command
        self.model = model
        self.timeout = timeout
    }

    /// Runs the analyser on `entry` and validates what it answers.
    public func answer(for entry: Entry) throws(AnalyserError) -> AnalyserAnswer {
        let output: [UInt8]
        do {
            output = try AnalyserProcess.run(command: command, input: Array(entry.json.serialized().utf8), timeout: timeout)
        } catch {
            throw AnalyserError(reason: error.reason)
        }
        return try AnalyserAnswer(parsing: output)
    }
}

/// Why an analyser's run produced nothing to store.
public struct AnalyserError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "the analyser \(reason)" }
}

/// A validated analyser answer.
public struct AnalyserAnswer: Sendable, Equatable {
    public var sentiment: String?
    public var themes: [String]
    public var entities: JSONValue
    /// The answer's `model` member, if it gave one.
    public var model: String?
    public var nodes: [NodeReference]
    public var relations: [RelationDraft]
    /// Members the protocol does not name, kept with the analysis.
    public var extra: JSONValue

    private static let known: Set<String> = ["sentiment", "themes", "entities", "model", "nodes", "relations"]

    /// Parses and checks an answer — one JSON object, perhaps in a Markdown code fence or with
    /// prose around it (``AnswerText``); the error says what is wrong with it.
    public init(parsing bytes: [UInt8]) throws(AnalyserError) {
        let value: JSONValue
        do {
            value = try AnswerText.json(in: bytes)
        } catch {
            throw AnalyserError(reason: bytes.isEmpty ? "printed nothing" : "did not print valid JSON (\(error.description))")
        }
        guard case .object(let members) = value else { throw AnalyserError(reason: "printed JSON that is not an object") }
        guard value["sentiment"] != nil || value["themes"] != nil || value["entities"] != nil else {
            throw AnalyserError(reason: "answered without sentiment, themes or entities")
        }
        switch value["sentiment"] {
        case nil, .null?: sentiment = nil
        case .string(let text)?: sentiment = text
        default: throw AnalyserError(reason: "gave a sentiment that is not a string")
        }
        switch value["themes"] {
        case nil, .null?: themes = []
        case .array(let items)?:
            themes = try items.map { item throws(AnalyserError) in
                guard let text = item.stringValue else { throw AnalyserError(reason: "gave a theme that is not a string") }
                return text
            }
        default: throw AnalyserError(reason: "gave themes that are not a list")
        }
        entities = value["entities"] ?? .null
        model = value["model"]?.stringValue
        nodes = try (value["nodes"]?.arrayValue ?? []).map(Self.node)
        relations = try (value["relations"]?.arrayValue ?? []).map { item throws(AnalyserError) in
            guard let from = item["from"], let to = item["to"] else { throw AnalyserError(reason: "gave a relation without from and to") }
            guard let type = item["type"]?.stringValue, !type.isEmpty else { throw AnalyserError(reason: "gave a relation without a type") }
            guard let strength = item["strength"]?.doubleValue ?? (item["strength"] == nil ? 1 : nil), (0...1).contains(strength) else {
                throw AnalyserError(reason: "gave a relation strength outside 0…1")
            }
            return RelationDraft(from: try Self.node(from), to: try Self.node(to), type: type, strength: strength)
        }
        let unknown = members.filter { !Self.known.contains($0.0) }
        extra = unknown.isEmpty ? .null : .object(unknown)
    }

    private static func node(_ value: JSONValue) throws(AnalyserError) -> NodeReference {
        guard let type = value["type"]?.stringValue, KnowledgeNode.normalizedType(type) != nil,
              let name = value["name"]?.stringValue, !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw AnalyserError(reason: "gave a node without a one-word type and a name")
        }
        return NodeReference(type: type, name: name)
    }
}

extension UnlockedVault {
    /// Runs `analyser` on one entry and stores its answer (analysis, nodes, relations) in one
    /// transaction. If the analyser fails, nothing is stored and the error says why. The entry's
    /// earlier analysis by the same model is replaced in that transaction unless
    /// `replacingEarlier` is false (``addAnalysis(_:nodes:relations:replacingEarlier:)``).
    @discardableResult
    public func analyse(entryID: UUID, with analyser: Analyser, replacingEarlier: Bool = true) throws -> Analysis {
        let entry = try entry(id: entryID)
        let answer = try analyser.answer(for: entry)
        let analysis = Analysis(entryID: entryID, model: analyser.model ?? answer.model ?? "local", processedAt: .now(),
                                sentiment: answer.sentiment, themes: answer.themes, entities: answer.entities, extra: answer.extra)
        return try addAnalysis(analysis, nodes: answer.nodes, relations: answer.relations, replacingEarlier: replacingEarlier)
    }
}
