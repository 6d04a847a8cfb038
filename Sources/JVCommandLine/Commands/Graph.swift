// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv graph …`: the knowledge graph analyses build.
struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "The knowledge graph: people, places, events, emotions, topics and how they relate.",
        subcommands: [GraphList.self, GraphShow.self])
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
        let node: KnowledgeNode
        do {
            node = try journal.resolveNode(self.node)
        } catch VaultError.notFound(kind: "node", _) {
            let shown = TerminalText.visible(self.node)
            throw CLIError.inputNotFound("No node named '\(shown)' or with an id starting '\(shown)'; 'jv graph list' shows the nodes.")
        }
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
