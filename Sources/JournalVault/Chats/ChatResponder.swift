// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A local chat command (README "Asking a local model"): a shell command that receives a
/// thread's messages, and any entries asked for, as one JSON object on standard input,
/// `{"model": string or null, "messages": [{"role", "content"}], "entries": [entry]}` (each
/// entry in the shape `jv show --json` prints), and prints the assistant's answer: plain text,
/// or one JSON object `{"content": string, "model": string, "usage": any}` of which only
/// `content` is required. It runs as an analyser does (``AnalyserProcess``: the same output
/// limit and timeout, jv's environment without its secrets, the input never in a file).
///
/// ```swift
/// let responder = ChatResponder(command: "examples/ollama-chat.sh", model: "llama3.2")
/// let question = try journal.addMessage(ChatMessageDraft(role: .user, content: "How did March go?"))
/// let answer = try journal.answerThread(id: question.threadID, with: responder)
/// ```
public struct ChatResponder: Sendable {
    public var command: String
    /// The model asked for (the request's `model`) and the name stored with the answer; nil
    /// sends null and stores the answer's `model`, else "local".
    public var model: String?
    public var timeout: Duration

    public init(command: String, model: String? = nil, timeout: Duration = .seconds(120)) {
        self.command = command
        self.model = model
        self.timeout = timeout
    }

    /// Runs the command on `messages` (a thread's, in order) and `entries`, and reads its answer.
    public func answer(to messages: [ChatMessage], entries: [Entry] = []) throws(ChatResponderError) -> ChatAnswer {
        try answer(to: messages.map { ($0.role, $0.content) }, entries: entries)
    }

    /// Runs the command on messages that are not a thread's (a digest's request for a reflection).
    func answer(to messages: [(role: ChatRole, content: String)], entries: [Entry]) throws(ChatResponderError) -> ChatAnswer {
        let output: [UInt8]
        do {
            output = try AnalyserProcess.run(command: command, input: Array(request(messages: messages, entries: entries).serialized().utf8),
                                             timeout: timeout)
        } catch {
            throw ChatResponderError(reason: error.reason)
        }
        return try ChatAnswer(parsing: output)
    }

    /// What the command gets on standard input.
    func request(messages: [(role: ChatRole, content: String)], entries: [Entry]) -> JSONValue {
        .object([
            ("model", .optional(model)),
            ("messages", .array(messages.map { .object([("role", .string($0.role.rawValue)), ("content", .string($0.content))]) })),
            ("entries", .array(entries.map(\.json))),
        ])
    }
}

/// Why a chat command's run gave no answer to store.
public struct ChatResponderError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "the chat command \(reason)" }
}

/// A chat command's answer, read from what it printed.
public struct ChatAnswer: Sendable, Equatable {
    public var content: String
    /// The answer's `model` member, if it gave one.
    public var model: String?
    /// The answer's `usage` member (token counts and the like), kept with the message.
    public var usage: JSONValue

    /// A whole output that is one JSON object is read as `{"content", "model", "usage"}`;
    /// anything else is the answer's text. Either way the text follows the rules of any message
    /// (UTF-8, not blank, at most 50,000 characters), trimmed.
    public init(parsing bytes: [UInt8]) throws(ChatResponderError) {
        let text: [UInt8]
        if let object = try? JSONParser.parse(bytes), case .object = object {
            guard let content = object["content"]?.stringValue else { throw ChatResponderError(reason: "printed a JSON object without a \"content\" string") }
            text = Array(content.utf8)
            model = object["model"]?.stringValue
            usage = object["usage"] ?? .null
        } else {
            text = bytes
            model = nil
            usage = .null
        }
        do {
            content = try ContentRules.text(fromUTF8: text)
        } catch VaultError.contentBlank {
            throw ChatResponderError(reason: "printed no answer")
        } catch VaultError.invalidUTF8 {
            throw ChatResponderError(reason: "printed an answer that is not UTF-8")
        } catch {
            throw ChatResponderError(reason: "printed an answer longer than a message may be")
        }
    }
}

extension UnlockedVault {
    /// Sends the thread's messages (and `entries`) to `responder` and stores its answer as the
    /// thread's next message, by the assistant, with the model's name (``ChatResponder/model``,
    /// else the answer's, else "local"); the thread becomes the active one. If the command
    /// fails, nothing is stored and the error says why.
    @discardableResult
    public func answerThread(id: UUID, with responder: ChatResponder, entries: [Entry] = []) throws -> ChatMessage {
        let answer = try responder.answer(to: messages(inThread: id), entries: entries)
        return try addMessage(ChatMessageDraft(threadID: id, role: .assistant, content: answer.content,
                                               model: responder.model ?? answer.model ?? "local", usage: answer.usage))
    }
}
