// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

@Suite("jv passwd and jv recovery-key", .tags(.e2e))
struct KeyManagementTests {
    private let noSource: [String: String?] = ["JV_PASSPHRASE_FILE": nil]

    private static let fixture = Result {
        try Fixture { sandbox in
            ["0": try sandbox.add("first #one", ["--at", "2026-02-01"]), "1": try sandbox.add("second", ["--star"])]
        }
    }

    private func journal() throws -> (Sandbox, String, [String]) {
        let fixture = try Self.fixture.get()
        return (try Sandbox(from: fixture), fixture.recoveryKey, [fixture["0"], fixture["1"]])
    }

    @Test("passwd: the old passphrase stops working (77), the new one works, entries are intact")
    func changePassphrase() throws {
        let (sandbox, key, _) = try journal()
        let before = try sandbox.run(["list", "--json"]).out
        let newFile = try sandbox.folder.write("new.txt", "a brand new passphrase\n")
        let changed = try sandbox.run(["passwd", "--new-passphrase-file", newFile])
        #expect(changed.status == 0, "\(changed)")

        let old = try sandbox.run(["list"])
        #expect(old.status == 77, "\(old)")
        let withNew = try sandbox.run(["list", "--json"], env: ["JV_PASSPHRASE_FILE": newFile])
        #expect(withNew.status == 0, "\(withNew)")
        #expect(withNew.out == before, "the entries are untouched")
        let keyFile = try sandbox.folder.write("recovery.txt", key + "\n")
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": keyFile]).status == 0,
                "the recovery key still works")
        #expect(try sandbox.run(["check"], env: ["JV_PASSPHRASE_FILE": newFile]).status == 0)
    }

    @Test("passwd reads the new passphrase from $JV_NEW_PASSPHRASE_FILE too")
    func newPassphraseFromEnvironment() throws {
        let (sandbox, _, _) = try journal()
        let newFile = try sandbox.folder.write("new.txt", "from the environment\n")
        let changed = try sandbox.run(["passwd"], env: ["JV_NEW_PASSPHRASE_FILE": newFile])
        #expect(changed.status == 0, "\(changed)")
        #expect(try sandbox.run(["list"]).status == 77)
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": newFile]).status == 0)
    }

    @Test("passwd --kdf moderate changes the KDF profile info reports")
    func changeKDFProfile() throws {
        let (sandbox, _, _) = try journal()
        let newFile = try sandbox.folder.write("new.txt", "stronger now\n")
        let changed = try sandbox.run(["passwd", "--kdf", "moderate", "--new-passphrase-file", newFile])
        #expect(changed.status == 0, "\(changed)")
        let info = try sandbox.run(["info", "--json"], env: noSource).object()
        let kdf = try #require(info["kdf"] as? [String: Any])
        #expect(kdf["profile"] as? String == "moderate")
        #expect(kdf["ops"] as? Int == 3)
        #expect(kdf["mem_bytes"] as? Int == 256 << 20)
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": newFile]).status == 0)
        #expect(try sandbox.run(["list"]).status == 77)
    }

    @Test("passwd with a wrong current passphrase, or without a new one, changes nothing")
    func passwdRefused() throws {
        let (sandbox, _, _) = try journal()
        let wrong = try sandbox.folder.write("wrong.txt", "not it\n")
        let newFile = try sandbox.folder.write("new.txt", "never set\n")
        let wrongCurrent = try sandbox.run(["passwd", "--new-passphrase-file", newFile], env: ["JV_PASSPHRASE_FILE": wrong])
        #expect(wrongCurrent.status == 77, "\(wrongCurrent)")
        let noNew = try sandbox.run(["passwd"])
        #expect(noNew.status == 64, "no terminal to ask the new passphrase on: \(noNew)")
        let missingNew = try sandbox.run(["passwd", "--new-passphrase-file", sandbox.folder.file("absent.txt")])
        #expect(missingNew.status == 66, "\(missingNew)")
        #expect(try sandbox.run(["list"]).status == 0, "the old passphrase still works")
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": newFile]).status == 77)
    }

    @Test("passwd unlocked with the recovery key sets a new passphrase (forgotten passphrase)")
    func passwdWithRecoveryKey() throws {
        let (sandbox, key, _) = try journal()
        let keyFile = try sandbox.folder.write("recovery.txt", key + "\n")
        let newFile = try sandbox.folder.write("new.txt", "remembered this time\n")
        let changed = try sandbox.run(["passwd", "--recovery-key-file", keyFile, "--new-passphrase-file", newFile], env: noSource)
        #expect(changed.status == 0, "\(changed)")
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": newFile]).status == 0)
        #expect(try sandbox.run(["list"]).status == 77)
    }

    @Test("recovery-key prints a new key; the old one stops working (77) and the new one works")
    func replaceRecoveryKey() throws {
        let (sandbox, oldKey, _) = try journal()
        let before = try sandbox.run(["list", "--json"]).out
        let result = try sandbox.run(["recovery-key"])
        #expect(result.status == 0, "\(result)")
        let printed = result.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { matches($0, recoveryKeyPattern) }
        #expect(printed.count == 1, "\(result)")
        let newKey = try #require(printed.first)
        #expect(newKey != oldKey)

        let oldFile = try sandbox.folder.write("old-key.txt", oldKey + "\n")
        let newFile = try sandbox.folder.write("new-key.txt", newKey + "\n")
        let withOld = try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": oldFile])
        #expect(withOld.status == 77, "\(withOld)")
        let withNew = try sandbox.run(["list", "--json"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": newFile])
        #expect(withNew.status == 0, "\(withNew)")
        #expect(withNew.out == before)
        #expect(try sandbox.run(["list"]).status == 0, "the passphrase still works")
    }

    @Test("recovery-key --json prints {recovery_key}; a wrong passphrase keeps the old key")
    func replaceRecoveryKeyJSON() throws {
        let (sandbox, oldKey, _) = try journal()
        let wrong = try sandbox.folder.write("wrong.txt", "nope\n")
        let refused = try sandbox.run(["recovery-key"], env: ["JV_PASSPHRASE_FILE": wrong])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.out.isEmpty)
        let oldFile = try sandbox.folder.write("old-key.txt", oldKey + "\n")
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": oldFile]).status == 0)

        let result = try sandbox.run(["recovery-key", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        #expect(Array(object.keys) == ["recovery_key"])
        let newKey = try #require(object["recovery_key"] as? String)
        #expect(matches(newKey, recoveryKeyPattern))
        let newFile = try sandbox.folder.write("new-key.txt", newKey)
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": newFile]).status == 0)
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": oldFile]).status == 77)
    }

    /// The new key is added, printed, and only then is the old one retired: if it cannot be
    /// printed (here, standard output is a full device), the old key still opens the vault.
    @Test("recovery-key whose key cannot be printed fails and keeps the old key working")
    func recoveryKeyThatCannotBePrintedKeepsTheOldOne() throws {
        let (sandbox, oldKey, _) = try journal()
        let result = try sandbox.runTool("/bin/sh", ["-c", #""$JVT_JV" recovery-key > /dev/full"#], env: ["JVT_JV": sandbox.binary])
        #expect(result.status != 0, "\(result)")
        let oldFile = try sandbox.folder.write("old-key.txt", oldKey + "\n")
        #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": oldFile]).status == 0)
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("recovery-key killed at any moment: a key the person holds (the old one, or the one printed) opens the vault", .tags(.slow), .notInQuickRun)
    func killedRecoveryKeyAlwaysLeavesAKeyThePersonHolds() throws {
        let fixture = try Self.fixture.get()
        let reference = try Sandbox(from: fixture)
        let started = Date()
        try Sandbox.requireSuccess(try reference.run(["recovery-key"]))
        let duration = Date().timeIntervalSince(started)
        var generator = SeededGenerator(seed: 4242)
        for trial in 0..<12 {
            let sandbox = try Sandbox(from: fixture)
            let delay = duration * Double(generator.next() % 1100) / 1000
            let child = try sandbox.start(["recovery-key"])
            Thread.sleep(forTimeInterval: delay)
            child.kill(SIGKILL)
            let killed = child.wait()
            let held = [fixture.recoveryKey] + killed.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { matches($0, recoveryKeyPattern) }
            let opens = try held.contains { key in
                let file = try sandbox.folder.write("held.txt", key + "\n")
                return try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": file]).status == 0
            }
            #expect(opens, "trial \(trial), killed after \(Int(delay * 1000)) ms: no key the person holds opens the vault")
            // The next run hands over cleanly: its key alone opens the vault.
            let next = try sandbox.run(["recovery-key", "--json"])
            #expect(next.status == 0, "\(next)")
            let newKey = try #require(try next.object()["recovery_key"] as? String)
            let newFile = try sandbox.folder.write("new.txt", newKey + "\n")
            #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": newFile]).status == 0)
            for key in held {
                let file = try sandbox.folder.write("held.txt", key + "\n")
                #expect(try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil, "JV_RECOVERY_KEY_FILE": file]).status == 77)
            }
        }
    }


    @Test("a short new passphrase is accepted at init and passwd with a warning; a long one without")
    func shortPassphraseIsWarnedAbout() throws {
        let sandbox = try Sandbox()
        let short = try sandbox.folder.write("short.txt", "x\n")
        let created = try sandbox.run(["init", "--kdf", "interactive"], env: ["JV_PASSPHRASE_FILE": short])
        #expect(created.status == 0, "\(created)")
        #expect(created.err.contains("warning: this passphrase has only 1 character"), "\(created)")
        let long = try sandbox.folder.write("long.txt", "gravel lantern orbit quietly\n")
        let changed = try sandbox.run(["passwd", "--new-passphrase-file", long], env: ["JV_PASSPHRASE_FILE": short])
        #expect(changed.status == 0, "\(changed)")
        #expect(!changed.err.contains("warning"), "\(changed)")
        let shortAgain = try sandbox.folder.write("short2.txt", "ñandú\n")
        let weakened = try sandbox.run(["passwd", "--new-passphrase-file", shortAgain], env: ["JV_PASSPHRASE_FILE": long])
        #expect(weakened.status == 0, "\(weakened)")
        #expect(weakened.err.contains("only 5 characters"), "characters, not bytes: \(weakened)")
        // Warned of before it is used, not after "Passphrase changed".
        let warned = try #require(weakened.err.range(of: "only 5 characters"), "\(weakened)")
        let done = try #require(weakened.err.range(of: "Passphrase changed."), "\(weakened)")
        #expect(warned.lowerBound < done.lowerBound, "\(weakened)")
    }

}
