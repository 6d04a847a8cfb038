// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// Tampering with the vault file behind `jv`'s back, with the sqlite3 shell.
@Suite("jv check and tampered records", .tags(.e2e, .externalTools), .enabled(if: JV.tool("sqlite3") != nil, "needs the sqlite3 command-line shell (apt-get install sqlite3)"))
struct CheckTests {
    /// A vault with three entries (made once, copied per test).
    private static let fixture = Result {
        try Fixture { sandbox in
            [
                "0": try sandbox.add("Alpha entry with #tag", ["--at", "2026-01-10T10:00"]),
                "1": try sandbox.add("Bravo entry", ["--at", "2026-01-11T10:00", "--star"]),
                "2": try sandbox.add("Charlie entry", ["--at", "2026-01-12T10:00"]),
            ]
        }
    }

    private func journal() throws -> (Sandbox, [String]) {
        let fixture = try Self.fixture.get()
        return (try Sandbox(from: fixture), (0..<3).map { fixture[String($0)] })
    }

    /// `jv check` must fail with 65 and name exactly the `tampered` ids on standard output;
    /// `jv show` of each tampered entry exits 65 and every other entry still shows.
    private func expectDetected(_ sandbox: Sandbox, tampered: [String], all: [String],
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let check = try sandbox.run(["check"])
        #expect(check.status == 65, "\(check)", sourceLocation: sourceLocation)
        for id in all {
            #expect(check.out.contains(id) == tampered.contains(id), "\(id) in \(check)", sourceLocation: sourceLocation)
        }
        let checkJSON = try sandbox.run(["check", "--json"])
        #expect(checkJSON.status == 65, sourceLocation: sourceLocation)
        let report = try checkJSON.object()
        #expect(report["ok"] as? Bool == false, sourceLocation: sourceLocation)
        #expect((report["problems"] as? [String])?.isEmpty == false, sourceLocation: sourceLocation)
        for id in all {
            let shown = try sandbox.run(["show", "--json", id])
            if tampered.contains(id) {
                #expect(shown.status == 65, "\(shown)", sourceLocation: sourceLocation)
                #expect(shown.out.isEmpty, "no partial output: \(shown)", sourceLocation: sourceLocation)
                #expect(shown.errorLines.count == 1 && shown.err.contains(id), "\(shown)", sourceLocation: sourceLocation)
            } else {
                #expect(shown.status == 0, "\(shown)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Exchanges `columns` between rows `a` and `b`, and verifies the exchange took.
    private func swap(_ columns: [String], between a: String, and b: String, in sandbox: Sandbox) throws {
        let select = "SELECT " + columns.map { "hex(\($0))" }.joined(separator: " || '|' || ") + " FROM entry WHERE id = "
        let (oldA, oldB) = (try sandbox.sqlite(select + "'\(a)'"), try sandbox.sqlite(select + "'\(b)'"))
        let assignments = columns.map {
            "\($0) = (SELECT \($0) FROM saved WHERE saved.id = CASE entry.id WHEN '\(a)' THEN '\(b)' ELSE '\(a)' END)"
        }.joined(separator: ", ")
        try sandbox.sqlite("""
            BEGIN;
            CREATE TEMP TABLE saved AS SELECT * FROM entry WHERE id IN ('\(a)', '\(b)');
            UPDATE entry SET \(assignments) WHERE id IN ('\(a)', '\(b)');
            COMMIT;
            """)
        #expect(try sandbox.sqlite(select + "'\(a)'") == oldB)
        #expect(try sandbox.sqlite(select + "'\(b)'") == oldA)
        #expect(oldA != oldB)
    }

    /// Copies the vault aside, then edits entry `id` through jv; returns the copy's path.
    private func editedAfterSnapshot(_ id: String, in sandbox: Sandbox) throws -> String {
        let snapshot = sandbox.folder.file("old.vault")
        try FileManager.default.copyItem(atPath: sandbox.vault, toPath: snapshot)
        #expect(try sandbox.run(["edit", id], input: "Changed after the copy").status == 0)
        return snapshot
    }

    /// Puts back, behind jv's back, the revision entry `id` has in the copy `snapshot` (its tag rows stay as they are).
    private func putBack(_ id: String, from snapshot: String, in sandbox: Sandbox) throws {
        let columns = ["modified_at", "version", "enc_meta", "content", "tags"]
        try sandbox.sqlite("""
            ATTACH '\(snapshot)' AS old;
            UPDATE entry SET \(columns.map { "\($0) = (SELECT \($0) FROM old.entry WHERE id = '\(id)')" }.joined(separator: ", "))
            WHERE id = '\(id)';
            """)
    }

    @Test("check exits 0 on a sound vault with entries, and says so")
    func cleanVault() throws {
        let (sandbox, _) = try journal()
        let result = try sandbox.run(["check"])
        #expect(result.status == 0, "\(result)")
        #expect(!result.out.isEmpty)
        let json = try sandbox.run(["check", "--json"])
        #expect(json.status == 0, "\(json)")
        let report = try json.object()
        #expect(report["ok"] as? Bool == true)
        #expect(report["problems"] as? [String] == [])
        #expect((report["checked"] as? [String: Int])?["entry"] == 3, "\(json)")
        let empty = try Sandbox()
        try empty.installEmptyVault()
        #expect(try empty.run(["check"]).status == 0)
    }

    @Test("one flipped byte of an entry's content is detected and named")
    func flippedContentByte() throws {
        let (sandbox, ids) = try journal()
        let victim = ids[1]
        let hex = try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(victim)'")
        var bytes = try #require(Data(hexString: hex))
        #expect(bytes.count > 20)
        bytes[bytes.count / 2] ^= 0x01
        try sandbox.sqlite("UPDATE entry SET content = X'\(bytes.hex)' WHERE id = '\(victim)'")
        #expect(try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(victim)'") != hex, "the tampering took")
        try expectDetected(sandbox, tampered: [victim], all: ids)
        let list = try sandbox.run(["list"])
        #expect(list.status == 65, "a listing that meets the record reports it: \(list)")
        #expect(list.err.contains(victim))
    }

    @Test("the last byte (the authentication tag) flipped is detected too")
    func flippedTagByte() throws {
        let (sandbox, ids) = try journal()
        let victim = ids[0]
        let hex = try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(victim)'")
        var bytes = try #require(Data(hexString: hex))
        bytes[bytes.count - 1] ^= 0x80
        try sandbox.sqlite("UPDATE entry SET content = X'\(bytes.hex)' WHERE id = '\(victim)'")
        try expectDetected(sandbox, tampered: [victim], all: ids)
    }

    @Test("an edited created_at is detected (it is bound to the ciphertext)")
    func editedCreatedAt() throws {
        let (sandbox, ids) = try journal()
        let victim = ids[2]
        try sandbox.sqlite("UPDATE entry SET created_at = created_at - 86400000, local_day = '2026-01-11' WHERE id = '\(victim)'")
        try expectDetected(sandbox, tampered: [victim], all: ids)
    }

    @Test("an edited local_day alone is detected")
    func editedLocalDay() throws {
        let (sandbox, ids) = try journal()
        let victim = ids[0]
        try sandbox.sqlite("UPDATE entry SET local_day = '2026-01-01' WHERE id = '\(victim)'")
        let check = try sandbox.run(["check"])
        #expect(check.status == 65, "\(check)")
        #expect(check.out.contains(victim), "\(check)")
        #expect(!check.out.contains(ids[1]) && !check.out.contains(ids[2]), "\(check)")
    }

    @Test("content swapped between two rows is detected in both")
    func swappedContent() throws {
        let (sandbox, ids) = try journal()
        let (a, b) = (ids[0], ids[2])
        try swap(["content"], between: a, and: b, in: sandbox)
        try expectDetected(sandbox, tampered: [a, b], all: ids)
    }

    @Test("a whole encrypted payload (metadata, content, tags) moved to another row is detected")
    func swappedWholePayload() throws {
        let (sandbox, ids) = try journal()
        let (a, b) = (ids[0], ids[1])
        try swap(["enc_meta", "content", "tags"], between: a, and: b, in: sandbox)
        try expectDetected(sandbox, tampered: [a, b], all: ids)
    }

    @Test("a tag index removed, or copied from another entry, is detected")
    func tamperedTagIndex() throws {
        let (sandbox, ids) = try journal()
        // Entry 0 has the inline tag #tag; entry 1 has none.
        try sandbox.sqlite("DELETE FROM entry_tag WHERE entry_seq = (SELECT seq FROM entry WHERE id = '\(ids[0])')")
        var check = try sandbox.run(["check"])
        #expect(check.status == 65, "\(check)")
        #expect(check.out.contains(ids[0]) && !check.out.contains(ids[1]), "\(check)")

        let (other, otherIDs) = try journal()
        try other.sqlite("""
            INSERT INTO entry_tag SELECT bidx, (SELECT seq FROM entry WHERE id = '\(otherIDs[1])') FROM entry_tag
            WHERE entry_seq = (SELECT seq FROM entry WHERE id = '\(otherIDs[0])')
            """)
        check = try other.run(["check"])
        #expect(check.status == 65, "\(check)")
        #expect(check.out.contains(otherIDs[1]) && !check.out.contains(otherIDs[0]), "\(check)")
    }

    @Test("a deleted row, or a row rolled back to an older version, is detected (row-set manifest)")
    func deletedOrRolledBackRow() throws {
        let (sandbox, ids) = try journal()
        _ = try editedAfterSnapshot(ids[0], in: sandbox)
        try sandbox.sqlite("DELETE FROM entry WHERE id = '\(ids[2])'")
        var check = try sandbox.run(["check"])
        #expect(check.status == 65, "a deleted row: \(check)")

        let (rolled, rolledIDs) = try journal()
        let snapshot = try editedAfterSnapshot(rolledIDs[0], in: rolled)
        try putBack(rolledIDs[0], from: snapshot, in: rolled)
        try rolled.sqlite("""
            ATTACH '\(snapshot)' AS old;
            DELETE FROM entry_tag WHERE entry_seq = (SELECT seq FROM entry WHERE id = '\(rolledIDs[0])');
            INSERT INTO entry_tag SELECT * FROM old.entry_tag WHERE entry_seq = (SELECT seq FROM old.entry WHERE id = '\(rolledIDs[0])');
            """)
        #expect(try rolled.sqlite("SELECT count(*) FROM entry_tag") == "1", "the old version's tag row is back")
        check = try rolled.run(["check"])
        #expect(check.status == 65, "a rolled-back row: \(check)")
    }

    @Test("an entry's value stored as another SQLite type (same bytes), or in another form that reads the same, is detected",
          arguments: ["enc_meta = CAST(enc_meta AS TEXT)", "content = CAST(content AS TEXT)", "local_day = CAST(local_day AS BLOB)",
                      "local_day = local_day || char(0)", "id = upper(id)"])
    func entryValueRetyped(_ change: String) throws {
        let (sandbox, ids) = try journal()
        let column = String(change.prefix { $0 != " " })
        let before = try sandbox.sqlite("SELECT typeof(\(column)) || hex(\(column)) FROM entry WHERE id = '\(ids[1])'")
        try sandbox.sqlite("UPDATE entry SET \(change) WHERE id = '\(ids[1])'")
        let after = try sandbox.sqlite("SELECT typeof(\(column)) || hex(\(column)) FROM entry WHERE lower(id) = '\(ids[1])'")
        #expect(after != before, "the change took: \(after)")
        let check = try sandbox.run(["check"])
        #expect(check.status == 65, "\(change): \(check)")
        #expect(check.out.contains("entry records are not the ones the manifest lists"), "\(change): \(check)")
    }

    @Test("a command that opens the vault refuses it when rows were deleted, put back after deletion, or tag-index rows deleted")
    func openingCommandsCountRows() throws {
        let (deleted, ids) = try journal()
        try deleted.sqlite("DELETE FROM entry WHERE id = '\(ids[2])'")
        for arguments in [["list"], ["show", ids[0]], ["search", "entry"], ["add", "Not written."]] {
            let result = try deleted.run(arguments)
            #expect(result.status == 65 && result.out.isEmpty, "\(arguments): \(result)")
            #expect(result.errorLines.count == 1 && result.err.contains("it lists 3 entry records, the file holds 2"), "\(result)")
            #expect(result.err.contains("); run 'jv check', and restore a backup if it reports problems.\n"), "jv's advice: \(result)")
        }
        #expect(try deleted.sqlite("SELECT count(*) FROM entry") == "2", "nothing was written")
        // What is left can still be rescued: an export and a backup go on, with the warning.
        let export = try deleted.run(["export", "--format", "json"])
        #expect(export.status == 0 && export.err.contains("it lists 3 entry records, the file holds 2")
                && export.err.contains("written all the same") && export.err.contains("run 'jv check'"), "\(export)")
        #expect(export.out.contains(ids[0]) && export.out.contains(ids[1]) && !export.out.contains(ids[2]), "\(export)")
        let backup = try deleted.run(["backup", deleted.folder.file("rescue.jvbak")])
        #expect(backup.status == 0 && backup.err.contains("written all the same"), "\(backup)")
        let check = try deleted.run(["check"])
        #expect(check.status == 65 && check.out.contains("1 entry records are missing"), "check reports it: \(check)")

        let (resurrected, resurrectedIDs) = try journal()
        let snapshot = resurrected.folder.file("old.vault")
        try FileManager.default.copyItem(atPath: resurrected.vault, toPath: snapshot)
        #expect(try resurrected.run(["delete", "--yes", resurrectedIDs[1]]).status == 0)
        try resurrected.sqlite("ATTACH '\(snapshot)' AS old; INSERT INTO entry SELECT * FROM old.entry WHERE id = '\(resurrectedIDs[1])';")
        let list = try resurrected.run(["list"])
        #expect(list.status == 65 && list.err.contains("it lists 2 entry records, the file holds 3"), "\(list)")

        let (untagged, _) = try journal()
        try untagged.sqlite("DELETE FROM entry_tag")
        let tagged = try untagged.run(["list", "--tag", "tag"])
        #expect(tagged.status == 65 && tagged.err.contains("tag index rows") && !tagged.err.contains("No entries match"), "\(tagged)")
    }

    @Test("a session checks the whole vault once in the background, and the next command warns of a row rolled back")
    func sessionChecksInTheBackground() throws {
        let (sandbox, ids) = try journal()
        // An older revision put back (entry 1 has no tags): every count stays, so only a whole check can see it.
        try putBack(ids[1], from: try editedAfterSnapshot(ids[1], in: sandbox), in: sandbox)
        #expect(try sandbox.run(["list"]).status == 0, "a read alone does not see it")
        try Sandbox.requireSuccess(try sandbox.run(["unlock"]))
        defer { _ = try? sandbox.run(["lock"]) }
        let folder = sandbox.runtime.path + "/jv"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains(where: { $0.hasSuffix(".checked") }) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let warned = try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil])
        #expect(warned.status == 0 && warned.err.contains("found 1 problem") && warned.err.contains("jv check"), "\(warned)")
        let again = try sandbox.run(["list"], env: ["JV_PASSPHRASE_FILE": nil])
        #expect(again.status == 0 && again.err.isEmpty, "warned once: \(again)")
    }

    @Test("a vault from a newer schema version is refused with 65 and a clear message, and left as it was")
    func newerSchemaRefused() throws {
        let (sandbox, ids) = try journal()
        try sandbox.sqlite("INSERT INTO grdb_migrations VALUES ('9999_from_the_future')")
        let before = try sandbox.sqlite("SELECT group_concat(identifier) FROM grdb_migrations") + "|"
            + sandbox.sqlite("SELECT group_concat(hex(content)) FROM entry")
        for arguments in [["info"], ["list"], ["add", "not written"], ["check"], ["calendar", "2026"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 65, "\(result)")
            #expect(result.errorLines.count == 1, "\(result)")
            #expect(result.err.localizedCaseInsensitiveContains("version"), "\(result)")
        }
        let after = try sandbox.sqlite("SELECT group_concat(identifier) FROM grdb_migrations") + "|"
            + sandbox.sqlite("SELECT group_concat(hex(content)) FROM entry")
        #expect(after == before)
        #expect(try sandbox.sqlite("SELECT count(*) FROM entry") == String(ids.count))
    }

    @Test("a file that is not a vault, or is truncated, gives 65, never a crash")
    func corruptFile() throws {
        let (sandbox, _) = try journal()
        let data = try #require(FileManager.default.contents(atPath: sandbox.vault))
        try data.prefix(1000).write(to: URL(fileURLWithPath: sandbox.vault))
        for arguments in [["check"], ["list"], ["info"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 65, "\(result)")
            #expect(result.signal == nil)
            #expect(!result.err.contains("Fatal error"), "\(result)")
        }
        try Data("this is a plain text file, not a vault\n".utf8).write(to: URL(fileURLWithPath: sandbox.vault))
        for arguments in [["check"], ["info"], ["calendar", "2026"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 65, "\(result)")
        }
    }
}
