// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Shell completion of entry ids and tag names: fed by a locked read, or by an open
/// session, and otherwise nothing — never a prompt.
@Suite("shell completion", .tags(.e2e))
struct CompletionTests {
    /// What the generated bash script runs on TAB for the first positional argument of
    /// `command`, with `words` typed so far (the last one being completed).
    private func complete(_ sandbox: Sandbox, _ command: [String], _ identifier: String, words: [String]) throws -> JVResult {
        try sandbox.run(["---completion"] + command + ["--", identifier, String(words.count - 1), String(words.last?.count ?? 0)] + words)
    }

    @Test("entry ids complete without a passphrase or a session, newest first, by prefix")
    func entryIDsComplete() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let older = try sandbox.add("Older.", ["--at", "2026-11-01T09:00"])
        let newer = try sandbox.add("Newer.", ["--at", "2026-11-02T09:00"])
        let locked = sandbox.environment(["JV_PASSPHRASE_FILE": nil])
        sandbox.environment = locked
        let all = try complete(sandbox, ["show"], "positional@0", words: ["jv", "show", ""])
        #expect(all.status == 0 && all.err.isEmpty, "\(all)")
        #expect(all.lines == [String(newer.prefix(8)), String(older.prefix(8))])
        let one = try complete(sandbox, ["delete"], "positional@0", words: ["jv", "delete", String(older.prefix(3))])
        #expect(one.lines == [String(older.prefix(8))])
        let none = try complete(sandbox, ["show"], "positional@0", words: ["jv", "show", "zz"])
        #expect(none.status == 0 && none.lines.isEmpty)
        // Another vault named on the line is the one completed.
        let missing = try complete(sandbox, ["show"], "positional@0", words: ["jv", "show", "--vault", sandbox.folder.file("none.vault"), ""])
        #expect(missing.status == 0 && missing.lines.isEmpty && missing.err.isEmpty, "\(missing)")
    }
}

extension CompletionTests {
    @Test("tags complete only through an open session, most used first; without one, nothing and no prompt")
    func tagsCompleteThroughASession() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("Garden and #gardening. #walk")
        try sandbox.add("More #gardening and #games.")
        sandbox.environment["JV_PASSPHRASE_FILE"] = nil
        let words = ["jv", "edit", "3f25", "--tag", "ga"]
        let locked = try complete(sandbox, ["edit"], "--tag", words: words)
        #expect(locked.status == 0 && locked.lines.isEmpty && locked.err.isEmpty, "no session, no tags, no question: \(locked)")

        try Sandbox.requireSuccess(try sandbox.run(["unlock", "--passphrase-file", sandbox.passphraseFile]))
        defer { _ = try? sandbox.run(["lock"]) }
        let unlocked = try complete(sandbox, ["edit"], "--tag", words: words)
        #expect(unlocked.lines == ["gardening", "games"], "most used first: \(unlocked)")
        #expect(try complete(sandbox, ["add"], "--tag", words: ["jv", "add", "--tag", "w"]).lines == ["walk"])
    }
}
