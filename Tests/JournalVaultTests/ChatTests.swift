// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Testing
import VaultCrypto
@testable import JournalVault

// Chat threads and messages at library level (FORMAT.md §1, README "Chats"):
// the active-thread rules, default titles, the maintained timestamps and counts, cascades and
// the JSON shapes.

fileprivate extension TemporaryVault {
    /// Ids of the threads flagged active in the table itself.
    func activeThreadIDs() throws -> [String] {
        try journal.database.read { db in try String.fetchAll(db, sql: "SELECT id FROM chat_thread WHERE is_active = 1") }
    }
}

/// Now plus `minutes`, in UTC+1 (a fixed offset so JSON offsets are predictable).
fileprivate func chatMoment(minutesFromNow minutes: Int64) -> Instant {
    Instant(millis: Instant.now().millis + minutes * 60_000, utcOffsetSeconds: 3600)
}

/// The member names of a JSON object, in order.
fileprivate func chatMemberNames(_ value: JSONValue) -> [String] {
    guard case .object(let members) = value else { return [] }
    return members.map(\.0)
}

fileprivate func isChatNotFound(_ error: VaultError) -> Bool {
    if case .notFound = error { true } else { false }
}

@Suite struct ChatTests {
    // MARK: Active thread

    @Test func firstMessageWithoutThreadCreatesAnActiveThreadTitledFromIt() throws {
        let vault = try TemporaryVault()
        #expect(try vault.journal.threads().isEmpty)
        let message = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Plan the week\nand then the month"))
        let threads = try vault.journal.threads()
        #expect(threads.count == 1)
        let thread = try #require(threads.first)
        #expect(thread.id == message.threadID)
        #expect(thread.isActive)
        #expect(thread.title == "Plan the week")
        #expect(thread.messageCount == 1)
        #expect(thread.lastMessageAt == message.timestamp.millis)
        #expect(try vault.activeThreadIDs() == [thread.id.storageText])
    }

    @Test func messagesWithoutThreadGoToTheActiveThread() throws {
        let vault = try TemporaryVault()
        let first = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Hello", timestamp: chatMoment(minutesFromNow: 1)))
        let second = try vault.journal.addMessage(ChatMessageDraft(role: .assistant, content: "Hi, how was the day?", model: "llama3",
                                                                   timestamp: chatMoment(minutesFromNow: 2)))
        let third = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Long.", timestamp: chatMoment(minutesFromNow: 3)))
        #expect(second.threadID == first.threadID)
        #expect(third.threadID == first.threadID)
        #expect(try vault.journal.threads().count == 1)
        #expect(try vault.journal.thread(id: first.threadID).messageCount == 3)
        #expect(try vault.journal.messages(inThread: first.threadID).map(\.id) == [first.id, second.id, third.id])
    }

    @Test func aNewThreadBecomesTheOnlyActiveOneAndReceivesMessages() throws {
        let vault = try TemporaryVault()
        let first = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "First thread"))
        let created = try vault.journal.createThread(title: "Second thread")
        #expect(created.isActive)
        #expect(created.id != first.threadID)
        #expect(try vault.journal.thread(id: created.id).isActive)
        #expect(try !vault.journal.thread(id: first.threadID).isActive)
        #expect(try vault.activeThreadIDs() == [created.id.storageText])

        let next = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Goes to the new thread"))
        #expect(next.threadID == created.id)
        #expect(try vault.journal.thread(id: first.threadID).messageCount == 1)
        #expect(try vault.journal.thread(id: created.id).messageCount == 1)

        let third = try vault.journal.createThread()
        #expect(try vault.activeThreadIDs() == [third.id.storageText])
        #expect(try vault.journal.threads().filter(\.isActive).map(\.id) == [third.id])
    }

    @Test func writingToANamedThreadMakesItTheActiveOne() throws {
        let vault = try TemporaryVault()
        let older = try vault.journal.createThread(title: "Older")
        let newer = try vault.journal.createThread(title: "Newer")
        #expect(try vault.activeThreadIDs() == [newer.id.storageText])

        let message = try vault.journal.addMessage(ChatMessageDraft(threadID: older.id, role: .user, content: "Back to the older one"))
        #expect(message.threadID == older.id)
        #expect(try vault.journal.thread(id: older.id).isActive)
        #expect(try !vault.journal.thread(id: newer.id).isActive)
        #expect(try vault.activeThreadIDs() == [older.id.storageText])

        // Without --thread, the active one (now the older) is used.
        let unnamed = try vault.journal.addMessage(ChatMessageDraft(role: .assistant, content: "Still the older one"))
        #expect(unnamed.threadID == older.id)
        #expect(try vault.journal.thread(id: newer.id).messageCount == 0)
    }

    @Test func deletingTheActiveThreadLeavesNoneAndTheNextMessageStartsANewOne() throws {
        let vault = try TemporaryVault()
        let inactive = try vault.journal.createThread(title: "Inactive")
        let active = try vault.journal.createThread(title: "Active")
        try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Will be deleted"))
        #expect(try vault.activeThreadIDs() == [active.id.storageText])
        try vault.journal.deleteThread(id: active.id)
        #expect(try vault.activeThreadIDs().isEmpty)

        let fresh = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "A fresh start"))
        #expect(fresh.threadID != inactive.id, "with no active thread a new one is made, not an inactive one reused")
        #expect(fresh.threadID != active.id)
        let thread = try vault.journal.thread(id: fresh.threadID)
        #expect(thread.isActive)
        #expect(thread.title == "A fresh start")
        #expect(try vault.activeThreadIDs() == [fresh.threadID.storageText])
        #expect(try vault.journal.threads().count == 2)
        #expect(try vault.journal.thread(id: inactive.id).messageCount == 0)
    }

    // MARK: Titles

    @Test func anExplicitTitleIsTrimmedAndKept() throws {
        let vault = try TemporaryVault()
        let thread = try vault.journal.createThread(title: "  Planning the trip \n")
        #expect(thread.title == "Planning the trip")
        try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Where should we go?"))
        #expect(try vault.journal.thread(id: thread.id).title == "Planning the trip")
    }

    @Test func anUntitledThreadTakesTheFirstLineOfItsFirstMessage() throws {
        let vault = try TemporaryVault()
        let thread = try vault.journal.createThread()
        #expect(thread.title == "")
        try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "\n\n   How did March go?   \nBe honest.\n"))
        #expect(try vault.journal.thread(id: thread.id).title == "How did March go?")
        // Later messages do not change it.
        try vault.journal.addMessage(ChatMessageDraft(role: .assistant, content: "Calmer than February."))
        try vault.journal.addMessage(ChatMessageDraft(threadID: thread.id, role: .user, content: "Really?"))
        #expect(try vault.journal.thread(id: thread.id).title == "How did March go?")
    }

    @Test func aLongFirstLineIsCutToEightyCharactersWithAnEllipsis() throws {
        let vault = try TemporaryVault()
        let longLine = (0..<20).map { "word\($0)" }.joined(separator: " ")  // 129 characters
        #expect(longLine.count > 80)
        let message = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: longLine + "\nsecond line"))
        let title = try vault.journal.thread(id: message.threadID).title
        #expect(title.count == 80)
        #expect(title.hasSuffix("…"))
        #expect(longLine.hasPrefix(String(title.dropLast())))
        #expect(title.dropLast().count == 79)

        // Exactly 80 characters: kept whole, no ellipsis.
        let exact = String(repeating: "ab", count: 40)
        let thread = try vault.journal.createThread()
        try vault.journal.addMessage(ChatMessageDraft(threadID: thread.id, role: .user, content: exact))
        #expect(try vault.journal.thread(id: thread.id).title == exact)

        // Characters, not bytes or scalars: 100 accented letters (two scalars each) still give 80.
        let accented = String(repeating: "e\u{301}", count: 100)
        let third = try vault.journal.createThread()
        try vault.journal.addMessage(ChatMessageDraft(threadID: third.id, role: .user, content: accented))
        let accentedTitle = try vault.journal.thread(id: third.id).title
        #expect(accentedTitle.count == 80)
        #expect(accentedTitle == String(repeating: "e\u{301}", count: 79) + "…")
    }

    // MARK: Timestamps and counts

    @Test func lastMessageAtUpdatedAtAndMessageCountAreMaintained() throws {
        let vault = try TemporaryVault()
        let thread = try vault.journal.createThread(title: "Times")
        let stored = try vault.journal.thread(id: thread.id)
        #expect(stored.lastMessageAt == nil)
        #expect(stored.messageCount == 0)
        #expect(stored.updatedAt == stored.created.millis)

        let later = chatMoment(minutesFromNow: 60)
        let first = try vault.journal.addMessage(ChatMessageDraft(threadID: thread.id, role: .user, content: "One", timestamp: later))
        var now = try vault.journal.thread(id: thread.id)
        #expect(now.lastMessageAt == later.millis)
        #expect(now.updatedAt >= later.millis)
        #expect(now.messageCount == 1)

        let evenLater = chatMoment(minutesFromNow: 120)
        let second = try vault.journal.addMessage(ChatMessageDraft(role: .assistant, content: "Two", timestamp: evenLater))
        now = try vault.journal.thread(id: thread.id)
        #expect(now.lastMessageAt == evenLater.millis)
        #expect(now.updatedAt >= evenLater.millis)
        #expect(now.messageCount == 2)

        // A message dated earlier (e.g. imported) does not move last_message_at back, but counts.
        let earlier = chatMoment(minutesFromNow: 90)
        let third = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Three", timestamp: earlier))
        now = try vault.journal.thread(id: thread.id)
        #expect(now.lastMessageAt == evenLater.millis)
        #expect(now.updatedAt >= evenLater.millis)
        #expect(now.messageCount == 3)
        // Messages come back in time order.
        #expect(try vault.journal.messages(inThread: thread.id).map(\.id) == [first.id, third.id, second.id])

        // The JSON carries the same values.
        let json = now.json
        #expect(json["message_count"] == .integer(3))
        #expect(json["last_message_at"]?.stringValue == Instant(millis: evenLater.millis, utcOffsetSeconds: now.created.utcOffsetSeconds).iso8601)
    }

    @Test func threadsAreListedMostRecentlyWrittenFirst() throws {
        let vault = try TemporaryVault()
        let a = try vault.journal.createThread(title: "A")
        let b = try vault.journal.createThread(title: "B")
        try vault.journal.addMessage(ChatMessageDraft(threadID: a.id, role: .user, content: "late", timestamp: chatMoment(minutesFromNow: 30)))
        try vault.journal.addMessage(ChatMessageDraft(threadID: b.id, role: .user, content: "later", timestamp: chatMoment(minutesFromNow: 60)))
        #expect(try vault.journal.threads().map(\.title) == ["B", "A"])
        try vault.journal.addMessage(ChatMessageDraft(threadID: a.id, role: .user, content: "latest", timestamp: chatMoment(minutesFromNow: 90)))
        #expect(try vault.journal.threads().map(\.title) == ["A", "B"])
    }

    // MARK: Messages

    @Test func messageFieldsRoundTripThroughEncryption() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("An entry to talk about.")
        let usage: JSONValue = .object([("prompt_tokens", .integer(12)), ("completion_tokens", .integer(30))])
        let when = chatMoment(minutesFromNow: 5)
        let added = try vault.journal.addMessage(ChatMessageDraft(role: .assistant, content: "Line one\nLine two ünïcödé ✓",
                                                                  model: "mistral-7b", language: "de", entryID: entry.id,
                                                                  usage: usage, timestamp: when))
        let reopened = try vault.unlock()
        let read = try #require(try reopened.messages(inThread: added.threadID).first)
        #expect(read == added)
        #expect(read.content == "Line one\nLine two ünïcödé ✓")
        #expect(read.model == "mistral-7b")
        #expect(read.language == "de")
        #expect(read.entryID == entry.id)
        #expect(read.usage == usage)
        #expect(read.role == .assistant)
        #expect(read.timestamp == when)
    }

    @Test func messageAndThreadJSONHaveTheDocumentedShapes() throws {
        let vault = try TemporaryVault()
        let thread = try vault.journal.createThread(title: "Shapes")
        #expect(chatMemberNames(thread.json) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count"])
        #expect(thread.json["last_message_at"] == .null)
        #expect(thread.json["is_active"] == .bool(true))
        #expect(thread.json["id"]?.stringValue == thread.id.uuidString.lowercased())

        let message = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Hi"))
        #expect(chatMemberNames(message.json) == ["id", "thread_id", "role", "content", "timestamp", "model", "language", "entry_id"])
        #expect(message.json["entry_id"] == .null)
        #expect(message.json["model"] == .null)
        #expect(message.json["language"] == .null)
        #expect(message.json["role"] == .string("user"))
        #expect(message.json["thread_id"]?.stringValue == thread.id.uuidString.lowercased())
    }

    @Test func blankOrOversizedTextIsRefusedAndNothingIsWritten() throws {
        let vault = try TemporaryVault()
        expectChatError(where: { $0 == .contentBlank }) {
            try vault.journal.addMessage(ChatMessageDraft(role: .user, content: " \n\t "))
        }
        expectChatError(where: { if case .contentTooLong = $0 { true } else { false } }) {
            try vault.journal.addMessage(ChatMessageDraft(role: .user, content: String(repeating: "x", count: 50_001)))
        }
        #expect(try vault.journal.threads().isEmpty, "a refused first message must not leave an empty thread behind")
        #expect(try vault.count("chat_message") == 0)
        // 50,000 characters are accepted.
        let message = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: String(repeating: "y", count: 50_000)))
        #expect(message.content.count == 50_000)
    }

    @Test func unknownThreadOrEntryIsRefusedAndNothingIsWritten() throws {
        let vault = try TemporaryVault()
        expectChatError(where: isChatNotFound) {
            try vault.journal.addMessage(ChatMessageDraft(threadID: UUID(), role: .user, content: "To nowhere"))
        }
        expectChatError(where: isChatNotFound) {
            try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "About nothing", entryID: UUID()))
        }
        expectChatError(where: isChatNotFound) { try vault.journal.createThread(title: "About nothing", entryID: UUID()) }
        #expect(try vault.count("chat_thread") == 0)
        #expect(try vault.count("chat_message") == 0)

        // With an active thread, a refused message leaves it as it was.
        let thread = try vault.journal.createThread(title: "Existing")
        let before = try vault.journal.thread(id: thread.id)
        expectChatError(where: isChatNotFound) {
            try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "About nothing", entryID: UUID()))
        }
        #expect(try vault.journal.thread(id: thread.id) == before)
        expectChatError(where: isChatNotFound) { try vault.journal.thread(id: UUID()) }
        expectChatError(where: isChatNotFound) { try vault.journal.deleteThread(id: UUID()) }
    }

    @Test func aThreadAboutAnEntryRemembersItInItsMetadata() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("Trip notes.")
        let thread = try vault.journal.createThread(title: "About the trip", entryID: entry.id)
        #expect(try vault.journal.thread(id: thread.id).metadata["entry_id"]?.stringValue == entry.id.storageText)
    }

    @Test func threadIDsResolveFromUniquePrefixes() throws {
        let vault = try TemporaryVault()
        let thread = try vault.journal.createThread(title: "Prefix")
        let text = thread.id.storageText
        #expect(try vault.journal.resolveThreadID(text) == thread.id)
        #expect(try vault.journal.resolveThreadID(String(text.prefix(8))) == thread.id)
        #expect(try vault.journal.resolveThreadID(String(text.prefix(4)).uppercased()) == thread.id)
        expectChatError(where: { if case .invalidID = $0 { true } else { false } }) { try vault.journal.resolveThreadID("abc") }
        let other = text.first == "0" ? "1111" : "0000"
        expectChatError(where: isChatNotFound) { try vault.journal.resolveThreadID(other) }
    }

    // MARK: Cascades

    @Test func deletingAThreadDeletesItsMessagesOnly() throws {
        let vault = try TemporaryVault()
        let doomed = try vault.journal.createThread(title: "Doomed")
        for text in ["one", "two", "three"] {
            try vault.journal.addMessage(ChatMessageDraft(threadID: doomed.id, role: .user, content: text))
        }
        let kept = try vault.journal.createThread(title: "Kept")
        let keptMessage = try vault.journal.addMessage(ChatMessageDraft(threadID: kept.id, role: .user, content: "stays"))
        #expect(try vault.count("chat_message") == 4)

        try vault.journal.deleteThread(id: doomed.id)
        #expect(try vault.count("chat_message", where: "thread_id = ?", [doomed.id.storageText]) == 0)
        #expect(try vault.count("chat_message") == 1)
        #expect(try vault.journal.messages(inThread: doomed.id).isEmpty)
        #expect(try vault.journal.messages(inThread: kept.id) == [keptMessage])
        #expect(try vault.journal.threads().map(\.id) == [kept.id])
        expectChatError(where: isChatNotFound) { try vault.journal.thread(id: doomed.id) }
        #expect(try vault.journal.searchIDs("two", kinds: [.chatMessage]).isEmpty)
        #expect(try vault.journal.check().isClean)
    }

    @Test func deletingAnEntryUnlinksItsMessagesWithoutDeletingThem() throws {
        let vault = try TemporaryVault()
        let entry = try vault.journal.addEntry("The entry the chat is about.")
        let other = try vault.journal.addEntry("Another entry.")
        let linked = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "What about that day?", entryID: entry.id))
        let otherLinked = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "And this one?", entryID: other.id))

        try vault.journal.deleteEntry(id: entry.id)
        let messages = try vault.journal.messages(inThread: linked.threadID)
        #expect(messages.count == 2)
        let survivor = try #require(messages.first { $0.id == linked.id })
        #expect(survivor.entryID == nil)
        #expect(survivor.content == "What about that day?")
        #expect(survivor.json["entry_id"] == .null)
        #expect(messages.first { $0.id == otherLinked.id }?.entryID == other.id)
        #expect(try vault.count("chat_message", where: "entry_id IS NULL") == 1)
        #expect(try vault.journal.thread(id: linked.threadID).messageCount == 2)
        let report = try vault.journal.check()
        #expect(report.isClean, "\(report.problems)")
    }

    // MARK: Search

    @Test func searchingMessagesIgnoresCaseAndAccentsAndHonoursDates() throws {
        let vault = try TemporaryVault()
        let café = try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Meet at the Café Zürich?",
                                                                 timestamp: Instant(millis: 1_767_614_400_000, utcOffsetSeconds: 0)))  // 2026-01-05T12:00Z
        let later = try vault.journal.addMessage(ChatMessageDraft(role: .assistant, content: "cafe zurich, noon.",
                                                                  timestamp: Instant(millis: 1_767_614_400_000 + 3 * 86_400_000, utcOffsetSeconds: 0)))
        try vault.journal.addMessage(ChatMessageDraft(role: .user, content: "Something else"))
        // Newest first.
        #expect(try vault.journal.searchIDs("CAFE ZURICH", kinds: [.chatMessage]) == [later.id, café.id])
        #expect(try vault.journal.searchIDs("café", kinds: [.chatMessage], to: .day(CivilDay(year: 2026, month: 1, day: 5)!)) == [café.id])
        #expect(try vault.journal.searchIDs("café", kinds: [.chatMessage], from: .day(CivilDay(year: 2026, month: 1, day: 6)!)) == [later.id])
        #expect(try vault.journal.searchIDs("nowhere to be found", kinds: [.chatMessage]).isEmpty)
    }
}

/// Expects `body` to throw a ``VaultError`` matching `predicate`.
fileprivate func expectChatError<R>(sourceLocation: SourceLocation = #_sourceLocation, where predicate: (VaultError) -> Bool,
                                    _ body: () throws -> R) {
    let error = #expect(throws: VaultError.self, sourceLocation: sourceLocation) { _ = try body() }
    if let error, !predicate(error) { Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation) }
}
