// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv graph …`: the knowledge graph analyses build.
struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "The knowledge graph: people, places, events, emotions, topics and how they relate.",
        subcommands: [GraphList.self, GraphShow.self, GraphMerge.self, GraphDelete.self])
}

struct GraphList: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List nodes, optionally of one type.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Only nodes of this type (person, place, event, emotion, topic, …).")
    var type: String?

    func execute() throws {
        let nodes = try options.unlockedVault(access: .readOnly).nodes(type: type)
        let output = options.output
        if output.json { return output.printJSON(.array(nodes.map(\.json))) }
        for node in nodes {
            Console.out("\(output.dim(Output.shortID(node.id)))  \(node.type.padding(toLength: 10, withPad: " ", startingAt: 0)) \(output.shown(node.name))")
        }
    }
}

struct GraphShow: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a node and its relations, both ways.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The node's id, id prefix, or name.")
    var node: String

    func execute() throws {
        let journal = try options.unlockedVault(access: .readOnly)
        let node = try journal.resolveNodeArgument(self.node)
        let relations = try journal.relations(of: node.id)
        var names: [UUID: KnowledgeNode] = [node.id: node]
        for relation in relations {
            for id in [relation.from, relation.to] where names[id] == nil { names[id] = try journal.node(id: id) }
        }
        let output = options.output
        if output.json {
            guard case .object(let members) = node.json else { return }
            return output.printJSON(.object(members + [("relations", .array(relations.map(\.json)))]))
        }
        Console.out("\(output.bold(output.shown(node.name))) (\(node.type))  \(output.dim(node.id.uuidString.lowercased()))")
        for relation in relations {
            let outgoing = relation.from == node.id
            let other = names[outgoing ? relation.to : relation.from]
            let arrow = outgoing ? "→" : "←"
            Console.out("  \(arrow) \(output.shown(relation.type)) \(arrow) \(output.shown(other?.name ?? "?")) (\(other?.type ?? "?"))  strength \(relation.strength)")
        }
    }
}

struct GraphMerge: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge a node into another: its relations move to the node kept, then it is deleted.",
        discussion: """
            A relation the kept node already has (same type, other node and entry) is kept once, with the stronger \
            strength; a relation between the two nodes is deleted. The kept node keeps its name and type.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The node kept: its id, id prefix, or name.")
    var kept: String

    @Argument(help: "The node merged into it and deleted: its id, id prefix, or name.")
    var merged: String

    func execute() throws {
        let journal = try options.unlockedVault()
        let kept = try journal.resolveNodeArgument(self.kept), merged = try journal.resolveNodeArgument(self.merged)
        let merge = try journal.mergeNode(merged.id, into: kept.id)
        if options.json { return options.output.printJSON(merge.json) }
        Console.note("Merged “\(merged.name)” into “\(kept.name)” (\(kept.id.storageText)): "
                     + "\(Output.count(merge.relationsMoved, of: "relations")) moved, \(merge.relationsCollapsed) collapsed into one it had, "
                     + "\(merge.relationsDropped) between the two deleted.")
    }
}

struct GraphDelete: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a node and all its relations (asks first on a terminal unless --yes).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The node's id, id prefix, or name.")
    var node: String

    @Flag(name: [.long, .customShort("y")], help: "Do not ask.")
    var yes = false

    func execute() throws {
        let journal = try options.unlockedVault()
        let node = try journal.resolveNodeArgument(self.node)
        let relations = try journal.relations(of: node.id).count
        try Confirmation.ask("Delete the node “\(TerminalText.visible(node.name))” (\(node.type)) and its \(Output.count(relations, of: "relations"))?", unless: yes)
        let deleted = try journal.deleteNode(id: node.id)
        guard options.json else { return Console.note("Deleted node \(node.id.storageText) and \(Output.count(deleted, of: "relations")).") }
        guard case .object(let members) = node.json else { return }
        options.output.printJSON(.object(members + [("relations_deleted", .integer(Int64(deleted)))]))
    }
}

extension UnlockedVault {
    /// The node a command's argument names (``resolveNode(_:)``); none is an input not found,
    /// said with where to look.
    fileprivate func resolveNodeArgument(_ text: String) throws -> KnowledgeNode {
        do {
            return try resolveNode(text)
        } catch VaultError.notFound(kind: "node", _) {
            let shown = TerminalText.visible(text)
            throw CLIError.inputNotFound("No node named '\(shown)' or with an id starting '\(shown)'; 'jv graph list' shows the nodes.")
        }
    }
}
