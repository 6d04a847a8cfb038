// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `jv attach`, `jv add --attach`, `jv attachments`, `jv attachment get|delete`, and what `jv show`
/// and `jv list` say of attachments, run as a person runs them; then the chunks tampered with
/// behind jv's back, each refused by `attachment get` (exit 65, no file) and named by `jv check`.
@Suite("attachments", .tags(.e2e))
struct AttachmentCommandTests {
    /// `count` bytes of a seeded sequence.
    static func content(_ count: Int, seed: UInt64) -> Data {
        var generator = SeededGenerator(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Two chunks: 1 MiB, then a small padded last one (FORMAT.md §15). A real JPEG (the
    /// thumbnailer looks at content, not names), with bytes after its end as cameras leave them.
    static let first = ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 46.5, longitude: 7.9) + content((1 << 20) + 100, seed: 1)
    static let second = content((1 << 20) + 100, seed: 2)
    /// Ogg's signature, then not much: described by its content (standard input too), it is audio.
    static let memo = Data("OggS a voice memo".utf8)

    @Test func filesGoInAndComeBackOut() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let photo = try sandbox.folder.write("ridge.jpg", Self.first)
        let entry = try sandbox.add("The view from the ridge.")
        let attached = try sandbox.ok(["attach", String(entry.prefix(8)), photo]).lines
        #expect(attached.count == 1 && matches(attached[0], uuidPattern))
        let memo = try sandbox.run(["attach", entry, "-", "--name", "memo.ogg", "--json"], stdin: Self.memo)
        #expect(memo.status == 0, "\(memo)")
        let listed = try sandbox.ok(["attachments", "--json"]).array()
        #expect(listed.map { $0["name"] as? String } == ["ridge.jpg", "memo.ogg"])
        #expect(listed[0]["media_type"] as? String == "image/jpeg" && listed[0]["kind"] as? String == "image")
        #expect(listed[0]["size"] as? Int == Self.first.count && listed[0]["entry_id"] as? String == entry && listed[0]["stored"] as? Bool == true)
        #expect(listed[1]["kind"] as? String == "audio")
        // To a file, 0600; never over an existing one without --force.
        let output = sandbox.folder.file("out.jpg")
        try sandbox.ok(["attachment", "get", String(attached[0].prefix(6)), "--output", output])
        #expect(FileManager.default.contents(atPath: output) == Self.first)
        #expect((try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int) == 0o600)
        try sandbox.fails(["attachment", "get", attached[0], "-o", output], status: 73)
        try sandbox.ok(["attachment", "get", attached[0], "-o", output, "--force"])
        // To standard output (a pipe here).
        let memoID = try #require(try memo.array().first?["id"] as? String)
        #expect(try sandbox.ok(["attachment", "get", memoID]).stdout == Self.memo)
        // Shown with its entry, marked in the list.
        let shown = try sandbox.ok(["show", entry]).out
        #expect(shown.contains("2 attachments:") && shown.contains("ridge.jpg  image/jpeg  1.0 MB") && shown.contains("memo.ogg"), "\(shown)")
        #expect(try sandbox.ok(["list"]).out.contains("The view from the ridge. [2 files]"))
        #expect(try sandbox.list().first?["attachments"] as? Int == 2)
        #expect(try sandbox.show(entry)["attachments"].map { ($0 as? [Any])?.count } == 2)
        // Deleted one by one; the entry takes the other with it.
        try sandbox.ok(["attachment", "delete", "--yes", memoID])
        #expect(try sandbox.ok(["attachments", "--json"]).array().count == 1)
        try sandbox.fails(["attachment", "get", memoID], status: 66)
        try sandbox.ok(["delete", "--yes", entry])
        #expect(try sandbox.sqlite("SELECT count(*) FROM attachment_chunk") == "0")
        try sandbox.ok(["check"])
    }

    /// A backup carries the attachments; the restored vault gives them back and checks clean.
    @Test func aBackupCarriesTheAttachments() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let entry = try sandbox.add("Kept.")
        let id = try sandbox.ok(["attach", entry, try sandbox.folder.write("a.bin", Self.first)]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let backup = sandbox.folder.file("kept.jvbak")
        try sandbox.ok(["backup", backup])
        let target = sandbox.folder.file("restored/journal.vault")
        try sandbox.ok(["restore", backup, "--to", target])
        #expect(try sandbox.ok(["attachment", "get", id, "--vault", target]).stdout == Self.first)
        try sandbox.ok(["check", "--vault", target])
    }

    @Test func anEntryAndItsFilesAreAddedTogetherOrNotAtAll() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let photo = try sandbox.folder.write("a.png", ExifImages.png(taken: "2024:05:01 12:05:00", latitude: 46.5, longitude: 7.9))
        try sandbox.fails(["add", "Never stored.", "--attach", photo, "--attach", sandbox.folder.file("missing.png")], status: 66)
        #expect(try sandbox.entryCount() == 0)
        let added = try sandbox.ok(["add", "With a file.", "--attach", photo, "--json"]).object()
        #expect((added["attachments"] as? [[String: Any]])?.first?["name"] as? String == "a.png")
        #expect(try sandbox.ok(["attachments", "--type", "image", "--from", "today"]).lines.count == 1)
        #expect(try sandbox.run(["attachments", "--type", "video"]).lines.isEmpty)
    }

    @Test("a file is described by its content through jv-thumbnail (type, pixel size, EXIF time and place, a thumbnail); without the thumbnailer, by its name alone")
    func filesAreDescribedByTheirContent() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let entry = try sandbox.add("Two photos.")
        let photo = try sandbox.folder.write("ridge.jpg", ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 46.5, longitude: 7.9))
        let misnamed = try sandbox.folder.write("notes.txt", ExifImages.png(taken: "2024:05:01 12:05:00", latitude: 46.5, longitude: 7.9))
        try sandbox.ok(["attach", entry, photo, misnamed])
        let described = try sandbox.ok(["attachments", "--json"]).array()
        #expect(described[0]["media_type"] as? String == "image/jpeg" && described[0]["width"] as? Int == 8 && described[0]["height"] as? Int == 8)
        #expect(described[0]["taken_at"] as? String == "2024-05-01T12:00:00")
        let location = described[0]["location"] as? [String: Any]
        #expect(abs((location?["latitude"] as? Double ?? 0) - 46.5) < 0.001 && abs((location?["longitude"] as? Double ?? 0) - 7.9) < 0.001)
        #expect(described[1]["media_type"] as? String == "image/png" && described[1]["kind"] as? String == "image")
        // Without a thumbnailer the name is all there is to go by.
        let another = try sandbox.folder.write("other.txt", ExifImages.png(taken: "2024:05:01 12:05:00", latitude: 46.5, longitude: 7.9, seed: 3))
        let guessed = try sandbox.run(["attach", entry, another, "--json"], env: ["JV_THUMBNAILER": sandbox.folder.file("no-such-program")]).array()
        #expect(guessed.first?["media_type"] as? String == "text/plain" && guessed.first?["width"] == nil)
    }

    @Test("a photo attached from standard input is described by its content as a file is, from a copy on tmpfs that is wiped and removed; without the thumbnailer, by its name")
    func standardInputIsDescribedOnceStored() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.add("From a pipe.")
        let photo = ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 46.5, longitude: 7.9)
        let attached = try sandbox.run(["attach", entry, "-", "--name", "ridge.dat", "--json"], stdin: photo)
        #expect(attached.status == 0, "\(attached)")
        let described = try sandbox.ok(["attachments", "--json"]).array()
        #expect(described.count == 1)
        #expect(described[0]["media_type"] as? String == "image/jpeg" && described[0]["kind"] as? String == "image", "\(described)")
        #expect(described[0]["width"] as? Int == 8 && described[0]["height"] as? Int == 8 && described[0]["taken_at"] as? String == "2024-05-01T12:00:00")
        #expect(try sandbox.ok(["attachment", "get", String((described[0]["id"] as? String ?? "").prefix(8))]).stdout == photo)
        // The copy the thumbnailer read is gone from tmpfs, and none was ever made on disk.
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.runtime.path).filter { $0.hasPrefix(".jv.") }.isEmpty)
        let other = ExifImages.jpeg(taken: "2024:05:01 12:00:00", latitude: 46.5, longitude: 7.9, seed: 5)
        let guessed = try sandbox.run(["attach", entry, "-", "--name", "other.dat", "--json"], stdin: other,
                                      env: ["JV_THUMBNAILER": sandbox.folder.file("no-such-program")]).array()
        #expect(guessed.first?["media_type"] as? String == "application/octet-stream" && guessed.first?["width"] == nil, "\(guessed)")
    }

    @Test("attachment open runs $JV_OPEN on a 0600 copy under the attachment's name in $XDG_RUNTIME_DIR, waits, then overwrites and removes it; a viewer that fails exits 1, the copy removed all the same")
    func openShowsAPrivateCopyThatIsWipedAfterwards() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let entry = try sandbox.add("A letter.")
        let letter = try sandbox.folder.write("letter.pdf", Self.second)
        let id = try sandbox.ok(["attach", entry, letter]).lines[0]
        let log = sandbox.folder.file("viewer")
        // Records what it was given, keeps a hard link (to see afterwards what jv left in the file), then exits with $1's status.
        let viewer = try sandbox.folder.write("viewer.sh", """
            for last in "$@"; do :; done
            printf '%s' "$last" > '\(log).path'
            stat -c %a "$last" > '\(log).mode'
            cat "$last" > '\(log).content'
            ln -f "$last" '\(sandbox.runtime.file("kept-link"))'
            exit "${VIEWER_STATUS:-0}"
            """)
        let opened = try sandbox.run(["attachment", "open", String(id.prefix(6))], env: ["JV_OPEN": "/bin/sh " + viewer])
        #expect(opened.status == 0, "\(opened)")
        let path = try String(contentsOfFile: log + ".path", encoding: .utf8)
        #expect(path.hasPrefix(sandbox.runtime.path + "/") && path.hasSuffix("/letter.pdf"), "\(path)")
        #expect(try String(contentsOfFile: log + ".mode", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "600")
        #expect(FileManager.default.contents(atPath: log + ".content") == Self.second)
        #expect(!FileManager.default.fileExists(atPath: path), "the copy is removed")
        let kept = try #require(FileManager.default.contents(atPath: sandbox.runtime.file("kept-link")))
        #expect(kept.count == Self.second.count && kept.allSatisfy { $0 == 0 }, "the copy was overwritten before removal")
        unlink(sandbox.runtime.file("kept-link"))

        let failed = try sandbox.run(["attachment", "open", id], env: ["JV_OPEN": "/bin/sh " + viewer, "VIEWER_STATUS": "3"])
        #expect(failed.status == 1 && failed.err.contains("exited with status 3"), "\(failed)")
        let second = try String(contentsOfFile: log + ".path", encoding: .utf8)
        #expect(!FileManager.default.fileExists(atPath: second))
    }

    @Test func theConfiguredLimitRefusesBeforeWriting() throws {
        let sandbox = try Sandbox()
        try sandbox.folder.write("config/jv/config.toml", "[attachments]\nmax_size = 1000\n")
        sandbox.environment["XDG_CONFIG_HOME"] = sandbox.folder.file("config")
        try sandbox.initVault()
        let entry = try sandbox.add("Big files.")
        let big = try sandbox.folder.write("big.mov", Data(count: 1001))
        let refused = try sandbox.fails(["attach", entry, big], status: 65)
        #expect(refused.err.contains("big.mov is larger than the limit of 1000 bytes") && refused.err.contains("max_size"), "\(refused)")
        let piped = try sandbox.run(["attach", entry, "-", "--name", "big.bin"], stdin: Data(count: 1001))
        #expect(piped.status == 65, "\(piped)")
        #expect(try sandbox.sqlite("SELECT count(*) FROM attachment_chunk") == "0")
        try sandbox.ok(["attach", entry, try sandbox.folder.write("small.mov", Data(count: 1000))])
        try sandbox.ok(["check"])
    }

    // MARK: Tampering with chunks

    private static let fixture = Result {
        try Fixture { sandbox in
            let entry = try sandbox.add("Two files.")
            let ids = try [("a.bin", first), ("b.bin", second)].map { name, content in
                try sandbox.ok(["attach", entry, try sandbox.folder.write(name, content)]).out.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return ["entry": entry, "a": ids[0], "b": ids[1]]
        }
    }

    /// A sandbox on the fixture, the id of its first attachment, its blob's id, and the two stream ids.
    private func tampered(_ edit: (Sandbox, String, String) throws -> Void) throws -> (Sandbox, String, String) {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        let stream = { (id: String) in try sandbox.sqlite("SELECT b.stream_id FROM attachment a JOIN attachment_blob b ON b.id = a.blob_id WHERE a.id = '\(id)'") }
        try edit(sandbox, try stream(fixture["a"]), try stream(fixture["b"]))
        return (sandbox, fixture["a"], try sandbox.sqlite("SELECT blob_id FROM attachment WHERE id = '\(fixture["a"])'"))
    }

    /// `attachment get` refuses with 65 and leaves no file (nor a hidden temporary); to a pipe it
    /// gives at most the chunks before the damage; `jv check` names the blob.
    private func expectRefused(_ what: String, _ sandbox: Sandbox, _ id: String, blob: String, givenAtMost: Int,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let output = sandbox.folder.file("got/a.bin")
        try FileManager.default.createDirectory(atPath: sandbox.folder.file("got"), withIntermediateDirectories: true)
        let get = try sandbox.fails(["attachment", "get", id, "--output", output], status: 65, sourceLocation: sourceLocation)
        // Refused as the attachment is read (its blob binds how many chunks it has); a message that
        // names the manifest is the open's refusal of another count that changed with it.
        #expect(get.errorLines.count == 1 && (get.err.contains(blob) || get.err.contains("list of records cannot be trusted")),
                "\(what): \(get)", sourceLocation: sourceLocation)
        let leftovers = try sandbox.hiddenFiles(in: sandbox.folder.file("got"))
        #expect(!FileManager.default.fileExists(atPath: output) && leftovers.isEmpty, "\(what): \(leftovers)", sourceLocation: sourceLocation)
        let piped = try sandbox.fails(["attachment", "get", id], status: 65, sourceLocation: sourceLocation)
        #expect(piped.stdout.count <= givenAtMost && Self.first.starts(with: piped.stdout), "\(what): \(piped.stdout.count) bytes",
                sourceLocation: sourceLocation)
        let check = try sandbox.run(["check"])
        #expect(check.status == 65 && check.out.contains(blob), "\(what): \(check)", sourceLocation: sourceLocation)
    }

    @Test(.tags(.externalTools), .enabled(if: JV.tool("sqlite3") != nil, "needs the sqlite3 command-line shell"))
    func everyChunkTamperingIsRefused() throws {
        let where1 = { (stream: String, index: Int) in "WHERE stream_id = '\(stream)' AND idx = \(index)" }
        let rounds: [(String, Int, (Sandbox, String, String) throws -> Void)] = [
            ("a byte flipped", 1 << 20, { sandbox, a, _ in
                var bytes = [UInt8](hex: try sandbox.sqlite("SELECT hex(data) FROM attachment_chunk \(where1(a, 1))"))
                bytes[10] ^= 1
                try sandbox.sqlite("UPDATE attachment_chunk SET data = X'\(bytes.hex)' \(where1(a, 1))")
            }),
            ("the first chunk dropped", 0, { sandbox, a, _ in try sandbox.sqlite("DELETE FROM attachment_chunk \(where1(a, 0))") }),
            ("the chunks reordered", 0, { sandbox, a, _ in
                try sandbox.sqlite("UPDATE attachment_chunk SET idx = idx + 2 WHERE stream_id = '\(a)'; UPDATE attachment_chunk SET idx = 3 - idx WHERE stream_id = '\(a)'")
            }),
            ("the last chunk swapped with the other attachment's", 1 << 20, { sandbox, a, b in
                try sandbox.sqlite("""
                    UPDATE attachment_chunk SET stream_id = 'moving' \(where1(a, 1));
                    UPDATE attachment_chunk SET stream_id = '\(a)' \(where1(b, 1));
                    UPDATE attachment_chunk SET stream_id = '\(b)' \(where1("moving", 1));
                    """)
            }),
            ("the last chunk truncated", 1 << 20, { sandbox, a, _ in
                try sandbox.sqlite("UPDATE attachment_chunk SET data = substr(data, 1, 40) \(where1(a, 1))")
            }),
            ("a chunk duplicated after the last", 0, { sandbox, a, _ in
                try sandbox.sqlite("INSERT INTO attachment_chunk (stream_id, idx, data) SELECT stream_id, 2, data FROM attachment_chunk \(where1(a, 1))")
            }),
        ]
        for (what, givenAtMost, edit) in rounds {
            let (sandbox, id, blob) = try tampered(edit)
            try expectRefused(what, sandbox, id, blob: blob, givenAtMost: givenAtMost)
            // The other attachment still reads, but where its chunk was taken or the count changed.
            if !["swapped", "dropped", "duplicated"].contains(where: what.contains) {
                #expect(try sandbox.ok(["attachment", "get", try Self.fixture.get()["b"]]).stdout == Self.second, "\(what)")
            }
        }
    }

    /// One attachment's chunk rolled back to an older copy of the same file (deleted and
    /// attached again: a new stream under a new key).
    @Test(.tags(.externalTools), .enabled(if: JV.tool("sqlite3") != nil, "needs the sqlite3 command-line shell"))
    func aChunkRolledBackToAnOlderCopyIsRefused() throws {
        let fixture = try Self.fixture.get()
        let sandbox = try Sandbox(from: fixture)
        try sandbox.sqlite("CREATE TABLE saved AS SELECT c.idx, c.data FROM attachment_chunk c JOIN attachment_blob b ON b.stream_id = c.stream_id JOIN attachment a ON a.blob_id = b.id WHERE a.id = '\(fixture["a"])'")
        try sandbox.ok(["attachment", "delete", "--yes", fixture["a"]])
        let again = try sandbox.ok(["attach", fixture["entry"], try sandbox.folder.write("a.bin", Self.first)]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try sandbox.sqlite("SELECT blob_id FROM attachment WHERE id = '\(again)'")
        try sandbox.sqlite("""
            UPDATE attachment_chunk SET data = (SELECT data FROM saved WHERE idx = 0)
            WHERE idx = 0 AND stream_id = (SELECT stream_id FROM attachment_blob WHERE id = '\(blob)');
            DROP TABLE saved;
            """)
        try expectRefused("rolled back", sandbox, again, blob: blob, givenAtMost: 0)
    }
}
