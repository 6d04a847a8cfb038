// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The whole-file rollback warning (FORMAT.md §11.6) against someone who can write the vault
/// file: an older copy put back after editing it with the sqlite3 shell is refused or warned
/// about, never opened in silence; and a restored copy is a file of its own.
@Suite(.tags(.e2e)) struct RollbackWarningTests {
    /// A vault seen at three writes, an older copy of it taken at one: returns the copy's path.
    static func vaultWithOlderCopy(_ sandbox: Sandbox, sync location: String? = nil) throws -> String {
        try sandbox.initVault()
        if let location { try Sandbox.requireSuccess(try sandbox.run(["sync", "init", location])) }
        try sandbox.add("First.")
        let oldCopy = sandbox.folder.file("old.vault")
        try FileManager.default.copyItem(atPath: sandbox.vault, toPath: oldCopy)
        try sandbox.add("Second.")
        try sandbox.add("Third.")
        return oldCopy
    }

    static func putBack(_ copy: String, _ sandbox: Sandbox) throws {
        try FileManager.default.removeItem(atPath: sandbox.vault)
        try FileManager.default.copyItem(atPath: copy, toPath: sandbox.vault)
    }

    @Test("a sync_device row added to an older copy by hand does not silence the warning: the file is refused, and check says why")
    func syncDeviceRowAddedByHandIsRefused() throws {
        let sandbox = try Sandbox()
        let oldCopy = try Self.vaultWithOlderCopy(sandbox)
        try Self.putBack(oldCopy, sandbox)
        try sandbox.sqlite("INSERT INTO sync_device (singleton, device_id, location) VALUES (1, randomblob(16), '/tmp/elsewhere')")
        for command in [["list"], ["search", "first"], ["add", "Fourth."]] {
            let refused = try sandbox.run(command)
            #expect(refused.status == 65 && refused.err.contains("sync settings"), "\(command): \(refused)")
        }
        let check = try sandbox.run(["check"])
        #expect(check.status == 65 && check.out.contains("sync settings (sync_device) were changed outside jv"), "\(check)")
    }

    @Test("an older copy of a vault that syncs, its device id changed by hand, is refused; unchanged, it is warned about")
    func deviceIDChangedByHandIsRefused() throws {
        let sandbox = try Sandbox()
        let location = sandbox.folder.file("location")
        let oldCopy = try Self.vaultWithOlderCopy(sandbox, sync: location)
        try Self.putBack(oldCopy, sandbox)
        try sandbox.sqlite("UPDATE sync_device SET device_id = randomblob(16)")
        let refused = try sandbox.run(["list"])
        #expect(refused.status == 65 && refused.err.contains("sync settings"), "\(refused)")
        try sandbox.sqlite("DELETE FROM sync_device")
        #expect(try sandbox.run(["list"]).status == 65, "nor removed")

        try Self.putBack(oldCopy, sandbox)
        let warned = try sandbox.run(["list"])
        #expect(warned.status == 0 && warned.err.contains("older copy"), "\(warned)")
    }

    @Test("a deleted or damaged manifest row is refused by every reading command, and check reports it")
    func manifestRowDeletedOrDamagedIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let id = try sandbox.add("First.")
        for tampering in ["DELETE FROM manifest", "UPDATE manifest SET data = zeroblob(length(data))"] {
            let pristine = sandbox.folder.file("pristine.vault")
            try? FileManager.default.removeItem(atPath: pristine)
            try FileManager.default.copyItem(atPath: sandbox.vault, toPath: pristine)
            try sandbox.sqlite(tampering)
            for command in [["list"], ["search", "first"], ["show", id]] {
                let refused = try sandbox.run(command)
                #expect(refused.status == 65 && refused.err.contains("manifest"), "\(tampering), \(command): \(refused)")
            }
            // What is left can still be rescued, with the warning.
            let export = try sandbox.run(["export", "--format", "json"])
            #expect(export.status == 0 && export.err.contains("manifest") && export.out.contains(id), "\(tampering): \(export)")
            let check = try sandbox.run(["check"])
            #expect(check.status == 65 && check.out.contains("manifest"), "\(check)")
            try Self.putBack(pristine, sandbox)
        }
    }

    @Test("a high-water file that can be read but not written still warns of an older copy, and says the mark is not kept",
          .enabled(if: WithoutWriteAccess.possible, "root writes whatever the modes say: jv runs as nobody through setpriv"))
    func readOnlyHighWaterFileStillWarns() throws {
        let sandbox = try Sandbox()
        let oldCopy = try Self.vaultWithOlderCopy(sandbox)
        try Self.putBack(oldCopy, sandbox)
        let marks = sandbox.home + "/.local/state/jv/high-water"
        var arguments = [sandbox.binary, "list"]
        if getuid() == 0, let setpriv = WithoutWriteAccess.setpriv {
            // The account is nobody's, whom the file's mode binds.
            let paths = [sandbox.folder.path] + (FileManager.default.subpaths(atPath: sandbox.folder.path) ?? []).map { sandbox.folder.file($0) }
            for path in paths { chown(path, 65534, 65534) }
            arguments = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
        }
        #expect(chmod(marks, 0o400) == 0)
        let warned = try sandbox.runTool(arguments[0], Array(arguments.dropFirst()), env: ["XDG_RUNTIME_DIR": nil])
        #expect(warned.status == 0 && warned.err.contains("older copy") && warned.err.contains("not kept"), "\(warned)")
    }
}

/// `jv restore FILE --to COPY` makes a file of its own, not a second original.
@Suite(.tags(.e2e)) struct RestoredCopyTests {
    @Test("writes to a restored copy do not make the original look rolled back, nor the copy")
    func restoredCopyHasItsOwnMark() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("First.")
        let backup = sandbox.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try sandbox.run(["backup", backup]))
        let copy = sandbox.folder.file("copy/copy.vault")
        try Sandbox.requireSuccess(try sandbox.run(["restore", backup, "--to", copy]))
        for text in ["Second, in the copy.", "Third, in the copy.", "Fourth, in the copy."] {
            try Sandbox.requireSuccess(try sandbox.run(["add", text], env: ["JV_VAULT": copy]))
        }
        let original = try sandbox.run(["list"])
        #expect(original.status == 0 && !original.err.contains("older"), "\(original)")
        let restored = try sandbox.run(["list"], env: ["JV_VAULT": copy])
        #expect(restored.status == 0 && !restored.err.contains("older"), "\(restored)")
        // Restored over the vault itself, it is the vault again: no warning either way.
        try Sandbox.requireSuccess(try sandbox.run(["restore", backup, "--force"]))
        let again = try sandbox.run(["list"])
        #expect(again.status == 0 && !again.err.contains("older"), "\(again)")
    }

    @Test("a restored copy of a vault that syncs leaves the location, says so, and joins again as a new device when asked", .tags(.slow), .notInQuickRun)
    func restoredCopyOfASyncedVaultLeavesTheLocation() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("location") })
        let (first, second, location) = (machines.first, machines.second, machines.location)
        let device = try #require(try first.run(["sync", "status", "--json"]).object()["device"] as? String)
        try first.add("Before the backup.")
        try Sandbox.requireSuccess(try first.run(["sync"]))
        let backup = first.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try first.run(["backup", backup]))
        let copy = first.folder.file("copy.vault")
        let restored = try first.run(["restore", backup, "--to", copy])
        #expect(restored.status == 0 && restored.err.contains("does not sync") && restored.err.contains("sync init \(location)"), "\(restored)")
        try Sandbox.requireSuccess(try first.run(["add", "Written in the copy."], env: ["JV_VAULT": copy]))
        let refused = try first.run(["sync"], env: ["JV_VAULT": copy])
        #expect(refused.status != 0 && refused.err.contains("does not sync"), "\(refused)")

        // The original goes on as itself, and no file of its device id appears from the copy.
        try first.add("After the backup, in the original.")
        try machines.converge()
        #expect(try first.run(["sync", "status", "--json"]).object()["device"] as? String == device)
        let original = try first.run(["list"])
        #expect(original.status == 0 && !original.err.contains("older"), "\(original)")

        // Joined again explicitly: a device of its own, whose entry reaches the others.
        try Sandbox.requireSuccess(try first.run(["sync", "init", location], env: ["JV_VAULT": copy]))
        let joined = try #require(try first.run(["sync", "status", "--json"], env: ["JV_VAULT": copy]).object()["device"] as? String)
        #expect(joined != device)
        try machines.converge()
        #expect(try SyncCommandTests.Machines.entries(second).contains { $0.hasSuffix("Written in the copy.") })
        #expect(try first.run(["sync", "status", "--json"]).object()["device"] as? String == device)
    }
}

/// A device that ran `jv rekey` restored from a backup made before it.
@Suite(.tags(.e2e)) struct RestoredAcrossRekeyTests {
    @Test("a machine restored from a backup older than its own jv rekey gets back what it sent since, and the other machine follows the rekey", .tags(.slow), .notInQuickRun)
    func restoredDeviceGetsBackWhatItSentAcrossARekey() throws {
        let machines = try SyncCommandTests.Machines(location: { $0.folder.file("location") })
        let (first, second) = (machines.first, machines.second)
        try first.add("Before the backup.")
        try Sandbox.requireSuccess(try first.run(["sync"]))
        let backup = first.folder.file("journal.jvbak")
        try Sandbox.requireSuccess(try first.run(["backup", backup]))
        try Sandbox.requireSuccess(try first.run(["rekey", "--json"]))
        let after = try first.add("After the rekey, sent before the restore.")
        try Sandbox.requireSuccess(try first.run(["sync"]))

        try Sandbox.requireSuccess(try first.run(["restore", backup, "--force"]))
        let restored = try first.run(["sync", "--json"])
        #expect(restored.status == 0 && !restored.err.contains("Waiting"), "\(restored)")
        #expect(try restored.object()["rekeyed_to"] as? Int == 2, "\(restored)")
        #expect(try first.show(after)["content"] as? String == "After the rekey, sent before the restore.")

        let followed = try second.run(["sync", "--json"])
        #expect(followed.status == 0 && !followed.err.contains("Waiting"), "\(followed)")
        #expect(try second.show(after)["content"] as? String == "After the rekey, sent before the restore.")
        try machines.converge()
    }
}
