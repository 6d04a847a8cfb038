import Foundation
import Testing

/// `jv rekey` as a user runs it, and the warning for a vault file replaced by an older copy.
@Suite struct RekeyCommandTests {
    @Test("jv rekey re-encrypts everything, keeps the passphrase, prints a new recovery key once, and check passes")
    func rekeyFromTheCommandLine() throws {
        let sandbox = try Sandbox()
        let oldRecoveryKey = try sandbox.initVault()
        let first = try sandbox.add("Before the rotation. #keys")
        try sandbox.run(["chat", "add", "--role", "user", "A chat message."])
        let contentBefore = try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(first)'")
        let result = try sandbox.run(["rekey", "--json"])
        #expect(result.status == 0, "\(result)")
        let summary = try result.object()
        #expect(summary["key_version"] as? Int == 2)
        let newRecoveryKey = try #require(summary["recovery_key"] as? String)
        #expect(newRecoveryKey.hasPrefix("JVR1-") && newRecoveryKey != oldRecoveryKey)
        #expect(try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(first)'") != contentBefore)
        #expect(try sandbox.show(first)["content"] as? String == "Before the rotation. #keys", "the passphrase still opens it")
        #expect(try sandbox.run(["list", "--tag", "keys", "--json"]).array().count == 1)
        #expect(try sandbox.run(["check"]).status == 0)

        let oldKeyFile = try sandbox.folder.write("old.key", oldRecoveryKey)
        let newKeyFile = try sandbox.folder.write("new.key", newRecoveryKey)
        let byOld = try sandbox.run(["list", "--recovery-key-file", oldKeyFile])
        #expect(byOld.status == 77, "the old recovery key opens nothing: \(byOld)")
        #expect(try sandbox.run(["list", "--recovery-key-file", newKeyFile]).status == 0)

        // Keeping the recovery key: none printed, the same one still opens it.
        let kept = try sandbox.run(["rekey", "--keep-recovery-key", newKeyFile])
        #expect(kept.status == 0, "\(kept)")
        #expect(!kept.out.contains("JVR1-"), "\(kept)")
        #expect(try sandbox.run(["list", "--recovery-key-file", newKeyFile]).status == 0)
        // Unlocked with the recovery key, rekey asks for the passphrase instead (64), changing nothing.
        let refused = try sandbox.run(["rekey", "--recovery-key-file", newKeyFile], env: ["JV_PASSPHRASE_FILE": nil])
        #expect(refused.status == 64 && refused.errorLines.count == 1, "\(refused)")
        #expect(try sandbox.sqlite("SELECT key_version FROM vault_header") == "3")
    }

    @Test("jv help rekey says what happens to the recovery key")
    func helpNamesTheRecoveryKeyRule() throws {
        let sandbox = try Sandbox()
        let help = try sandbox.run(["help", "rekey"])
        let words = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("--keep-recovery-key") && words.contains("a new recovery key is printed once"), "\(help)")
    }

    @Test("a vault file replaced by an older copy of itself is warned about once; a restored backup is not")
    func wholeFileRollbackIsWarnedAbout() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("First.")
        let oldCopy = sandbox.folder.file("old.vault")
        #expect(try sandbox.run(["list"]).status == 0)
        try FileManager.default.copyItem(atPath: sandbox.vault, toPath: oldCopy)
        let backup = sandbox.folder.file("old.jvbak")
        #expect(try sandbox.run(["backup", backup]).status == 0)
        try sandbox.add("Second.")
        try sandbox.add("Third.")
        try FileManager.default.removeItem(atPath: sandbox.vault)
        try FileManager.default.copyItem(atPath: oldCopy, toPath: sandbox.vault)

        let warned = try sandbox.run(["list"])
        #expect(warned.status == 0, "a warning, not a refusal: \(warned)")
        #expect(warned.err.contains("older copy"), "\(warned)")
        #expect(!(try sandbox.run(["list"]).err.contains("older copy")), "shown once")

        // Moving forward again, then restoring the old backup on purpose: no warning.
        try sandbox.add("Fourth.")
        try sandbox.add("Fifth.")
        #expect(try sandbox.run(["restore", backup, "--force"]).status == 0)
        let afterRestore = try sandbox.run(["list"])
        #expect(afterRestore.status == 0 && !afterRestore.err.contains("older copy"), "\(afterRestore)")
    }
}
