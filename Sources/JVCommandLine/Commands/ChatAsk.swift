// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// `jv chat ask`: put a question to a local model command and keep its answer in the thread.
struct ChatAsk: VaultCommand, TakesFreeText {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask a local model: add the question, run CMD on the thread, store its answer and print it.",
        discussion: """
            The question goes to --thread, else the active thread (a new one if there is none), and is \
            stored before CMD runs. CMD runs through /bin/sh -c and gets one JSON object on standard input \
            (never in a file): {"model", "messages": [{"role", "content"}], "entries": [entry]}, the entries \
            being those of --with-entries. It prints the answer: plain text, or a JSON object with "content" \
            and optionally "model" and "usage". If it fails, prints nothing usable or runs past --timeout, \
            the question stays in the thread and jv exits 65; ask again by running the command with \
            --thread and without a question. See README, “Asking a local model”.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "The thread (id or prefix; default: the active thread).")
    var thread: String?

    @Option(name: .customLong("with-entries"), help: ArgumentHelp(
        "Send the text of the entries of these days too: FROM..TO, FROM.., ..TO or one date (2026-11, \"last week\").",
        valueName: "range"))
    var withEntries: String?

    @Option(help: "The model command (see the discussion above).")
    var command: String

    @OptionGroup var model: ModelOptions

    @Argument(help: "The question (none: the thread is sent as it is, to ask its last question again).")
    var question: [String] = []

    func execute() throws {
        let question = try question.isEmpty ? nil : ContentRules.validated(question.joined(separator: " "))
        let entryQuery = try withEntries.map(Self.entryQuery)
        let journal = try options.unlockedVault()
        let named = try thread.map(journal.resolveThreadID)
        let entries = try entryQuery.map { try journal.entries($0) } ?? []
        let threadID: UUID
        if let question {
            threadID = try journal.addMessage(ChatMessageDraft(threadID: named, role: .user, content: question)).threadID
        } else {
            guard let id = try named ?? journal.threads().first(where: \.isActive)?.id else {
                throw CLIError.usage("There is no active thread to ask again; give a question.")
            }
            guard try journal.messages(inThread: id).last?.role == .user else {
                throw CLIError.usage("The thread's last message is not a question; give one.")
            }
            threadID = id
        }
        let responder = model.responder(command: command)
        let answer: ChatMessage
        do {
            answer = try ModelOptions.confiningChildren { try journal.answerThread(id: threadID, with: responder, entries: entries) }
        } catch let error as ChatResponderError {
            let what = "The chat command \(error.reason)"
            guard question != nil else { throw CLIError.refused("\(what); nothing was stored.") }
            let short = Output.shortID(threadID)
            throw CLIError.refused("\(what); your question is kept in thread \(short): to ask again, run jv chat ask --thread \(short) --command CMD without a question.")
        }
        let output = options.output
        if output.json { output.printJSON(answer.json) } else { Console.out(output.shown(answer.content)) }
    }

    /// `--with-entries`: `FROM..TO`, `FROM..`, `..TO`, or one date for all its days, read as
    /// `--from` and `--to` are (a reversed range is refused).
    static func entryQuery(_ text: String) throws -> EntryQuery {
        let (from, to) = text.firstRange(of: "..").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, text)
        var query = EntryQuery()
        (query.from, query.to) = try DateArgument.range(from: from.isEmpty ? nil : from, to: to.isEmpty ? nil : to,
                                                        options: ("--with-entries", "its end"))
        guard query.from != nil || query.to != nil else {
            throw CLIError.usage("--with-entries needs a date: FROM..TO, FROM.., ..TO or one date.")
        }
        return query
    }
}
