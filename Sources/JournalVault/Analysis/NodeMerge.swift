// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What merging one knowledge node into another did (``UnlockedVault/mergeNode(_:into:)``): the
/// node kept, the one deleted, and what became of the deleted node's relations.
///
/// ```swift
/// let merge = try journal.mergeNode(journal.resolveNode("Benny").id, into: journal.resolveNode("Ben").id)
/// print(merge.kept.name, merge.relationsMoved, merge.relationsCollapsed, merge.relationsDropped)
/// ```
public struct NodeMerge: Sendable, Hashable {
    /// The node that stays, unchanged.
    public let kept: KnowledgeNode
    /// The node merged into it, now deleted.
    public let removedID: UUID
    /// Relations of the removed node now on the kept one, under their new ids.
    public let relationsMoved: Int
    /// Relations of the removed node that the kept node already had (same type, other node and
    /// entry): one relation is left, with the stronger of the two strengths.
    public let relationsCollapsed: Int
    /// Relations between the two nodes, deleted: they would have joined the kept node to itself.
    public let relationsDropped: Int

    /// README "JSON": the kept node's `{id, type, name, created_at}` and `merged_id`,
    /// `relations_moved`, `relations_collapsed`, `relations_dropped`.
    public var json: JSONValue {
        guard case .object(let members) = kept.json else { return kept.json }
        return .object(members + [("merged_id", .string(removedID.storageText)), ("relations_moved", .integer(Int64(relationsMoved))),
                                  ("relations_collapsed", .integer(Int64(relationsCollapsed))), ("relations_dropped", .integer(Int64(relationsDropped)))])
    }
}
