// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv chat …`: AI chat threads and their messages.
struct Chat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat threads and messages (one thread is active: the one written to last).",
        subcommands: [ChatNew.self, ChatAdd.self, ChatAsk.self, ChatList.self, ChatShow.self, ChatDelete.self])
}

struct ChatNew: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "new", abstract: "Start a thread and make it active; prints its id.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Its title (default: the first line of the first message).")
    var title: String = ""

    @Option(help: "An entry the thread is about (id or prefix).")
    var entry: String?

    func execute() throws {
        let journal = try options.unlockedVault()
        let thread = try journal.createThread(title: title, entryID: try entry.map(journal.resolveEntryID))
        options.output.printRecord(thread.json, id: thread.id)
    }
}

struct ChatAdd: VaultCommand, TakesFreeText {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a message (text from the arguments, else standard input, else $EDITOR); prints its id.",
        discussion: "Without --thread it goes to the active thread, or to a new one if there is none.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "The thread (id or prefix; default: the active thread).")
    var thread: String?

    @Option(help: "user, assistant or system.")
    var role: ChatRole

    @Option(help: "The model that wrote it.")
    var model: String?

    @Option(help: "The message's language (e.g. en, de).")
    var language: String?

    @Option(help: "An entry the message is about (id or prefix).")
    var entry: String?

    @Argument(help: "The message text.")
    var text: [String] = []

    func execute() throws {
        let given = try EntryText.given(arguments: text)
        let journal = try options.unlockedVault()
        guard let content = try given ?? EntryText.fromEditor() else { throw CLIError.cancelled("Nothing written; no message was added.") }
        let message = try journal.addMessage(ChatMessageDraft(
            threadID: try thread.map(journal.resolveThreadID), role: role, content: content, model: model,
            language: language, entryID: try entry.map(journal.resolveEntryID)))
        options.output.printRecord(message.json, id: message.id)
    }
}

extension ChatRole: ExpressibleByArgument {}

struct ChatList: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List threads, most recent first.")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        let threads = try options.unlockedVault(access: .readOnly).threads()
        let output = options.output
        if output.json { return output.printJSON(.array(threads.map(\.json))) }
        for thread in threads {
            let when = output.time(thread.lastMessageAt.map { Instant(millis: $0, utcOffsetSeconds: thread.created.utcOffsetSeconds) } ?? thread.created)
            let active = thread.isActive ? output.green(" ●") : "  "
            Console.out("\(output.bold(when))  \(output.dim(Output.shortID(thread.id)))\(active) \(output.shown(thread.title))  \(output.dim("(\(thread.messageCount) message\(thread.messageCount == 1 ? "" : "s"))"))")
        }
    }
}

struct ChatShow: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a thread and its messages.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The thread's id or prefix.")
    var id: String

    func execute() throws {
        let journal = try options.unlockedVault(access: .readOnly)
        let id = try journal.resolveThreadID(id)
        let thread = try journal.thread(id: id)
        let messages = try journal.messages(inThread: id)
        let output = options.output
        if output.json {
            guard case .object(let members) = thread.json else { return }
            return output.printJSON(.object(members + [("messages", .array(messages.map(\.json)))]))
        }
        Console.out(output.bold(output.shown(thread.title)) + output.dim("  \(thread.id.uuidString.lowercased())\(thread.isActive ? "  active" : "")"))
        for message in messages {
            let when = output.time(message.timestamp)
            let who = message.role.rawValue + (message.model.map { " (\($0))" } ?? "")
            Console.out("\n" + output.dim(when) + "  " + output.bold(who))
            Console.out(String(Output.indentedLines(output.shown(message.content)).dropFirst()))
        }
    }
}

struct ChatDelete: VaultCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a thread and all its messages (asks first on a terminal unless --yes).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The thread's id or prefix.")
    var id: String

    @Flag(name: [.long, .customShort("y")], help: "Do not ask.")
    var yes = false

    func execute() throws {
        let journal = try options.unlockedVault()
        let thread = try journal.thread(id: journal.resolveThreadID(id))
        try Confirmation.ask("Delete the thread “\(TerminalText.visible(thread.title))” and its \(thread.messageCount) messages?", unless: yes)
        try journal.deleteThread(id: thread.id)
        if options.json { options.output.printJSON(thread.json) } else { Console.note("Deleted thread \(thread.id.uuidString.lowercased()).") }
    }
}
