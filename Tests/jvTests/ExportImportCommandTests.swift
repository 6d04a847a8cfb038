// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

/// `jv export` and `jv import` as a person runs them (README "JSON", README "Exports and imports",
/// FORMAT.md §9).
@Suite("jv export and jv import", .tags(.e2e))
struct ExportImportCommandTests {
    // MARK: Export shapes

    @Test("export --format json: the jv-export document with every kind of record")
    func exportJSONShape() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let result = try sandbox.run(["export", "--format", "json"])
        #expect(result.status == 0, "\(result)")
        let keys = ["format", "version", "exported_at", "entries", "threads", "analyses", "nodes", "relations"]
        let positions = keys.compactMap { result.out.range(of: "\n  \"\($0)\":")?.lowerBound }
        #expect(positions.count == keys.count && positions == positions.sorted(), "top-level keys in order: \(result.out.prefix(300))")
        let document = try result.object()
        #expect(document["format"] as? String == "jv-export")
        #expect(document["version"] as? Int == 1)
        #expect(matches(document["exported_at"] as? String ?? "", #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$"#))
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.count == 4)
        #expect(Set(entries[0].keys) == ["id", "created_at", "modified_at", "local_day", "starred", "tags", "title", "content"])
        #expect(entries.map { $0["created_at"] as? String ?? "" } == ["2026-01-05T10:00:00.000+00:00", "2026-01-05T23:30:00.000+09:00",
                                                                        "2026-01-06T00:15:00.000+00:00", "2026-01-06T12:00:00.000+00:00"])
        #expect(entries[0]["tags"] as? [String] == ["anna", "outdoors"])
        #expect(entries[0]["starred"] as? Bool == true)
        let threads = try #require(document["threads"] as? [[String: Any]])
        #expect(threads.count == 1)
        #expect(Set(threads[0].keys) == ["id", "title", "is_active", "created_at", "updated_at", "last_message_at", "message_count", "metadata", "messages"])
        #expect((threads[0]["messages"] as? [[String: Any]])?.count == 2)
        let analyses = try #require(document["analyses"] as? [[String: Any]])
        #expect(analyses.count == 2)
        #expect(Set(analyses[0].keys) == ["id", "entry_id", "model", "processed_at", "sentiment", "themes", "entities", "extra"])
        #expect((document["nodes"] as? [[String: Any]])?.count == 2)
        #expect((document["relations"] as? [[String: Any]])?.first?["strength"] as? Double == 0.75)
    }

    @Test("export --format txt is jrnl's plain-text journal: wall-clock %F %r, stars, a last line of explicit tags")
    func exportTxtShape() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let result = try sandbox.run(["export", "--format", "txt"])
        #expect(result.status == 0, "\(result)")
        #expect(result.out == """
            [2026-01-05 10:00:00 AM] Walked to the harbour with @Anna. Calm sea. *
            @outdoors

            [2026-01-05 11:30:00 PM] Late in Tokyo
            ramen #food

            [2026-01-06 12:15:00 AM] Midnight thoughts.

            [2026-01-06 12:00:00 PM] Noon.
            After lunch

            """)
    }

    @Test("export --format jrnl-json is jrnl's JSON export")
    func exportJrnlJSONShape() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let result = try sandbox.run(["export", "--format", "jrnl-json"])
        #expect(result.status == 0, "\(result)")
        let document = try result.object()
        #expect(Set(document.keys) == ["tags", "entries"])
        #expect(document["tags"] as? [String: Int] == ["@anna": 1, "@outdoors": 1, "#food": 1])
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.map { Set($0.keys) } == Array(repeating: ["title", "body", "date", "time", "tags", "starred"], count: 4))
        #expect(entries.map { $0["title"] as? String ?? "" } == ["Walked to the harbour with @Anna. Calm sea.", "Late in Tokyo", "Midnight thoughts.", "Noon."])
        #expect(entries.map { $0["body"] as? String ?? "" } == ["@outdoors", "ramen #food", "", "After lunch"])
        #expect(entries.map { $0["date"] as? String ?? "" } == ["2026-01-05", "2026-01-05", "2026-01-06", "2026-01-06"])
        #expect(entries.map { $0["time"] as? String ?? "" } == ["10:00", "23:30", "00:15", "12:00"])
        #expect(entries.map { $0["starred"] as? Bool ?? false } == [true, false, false, false])
        #expect(entries.map { ($0["tags"] as? [String] ?? []).sorted() } == [["@anna", "@outdoors"], ["#food"], [], []])
    }

    @Test("export --format markdown is a readable document")
    func exportMarkdownShape() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let result = try sandbox.run(["export", "--format", "markdown"])
        #expect(result.status == 0, "\(result)")
        #expect(result.out.hasPrefix("# Journal\n"))
        #expect(result.out.contains("## 2026-01-05\n"))
        #expect(result.out.contains("### 10:00 Walked to the harbour with @Anna. ★"))
        #expect(result.out.contains("*Tags: anna, outdoors*"))
        #expect(result.out.contains("**Analysis** by m1"))
        #expect(result.out.contains("How was the walk?"))
        #expect((try? JSONSerialization.jsonObject(with: result.stdout)) == nil)
    }

    @Test("an unknown format is a usage error (64)")
    func unknownFormat() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        #expect(try sandbox.run(["export", "--format", "csv"]).status == 64)
        #expect(try sandbox.run(["import", "-", "--format", "csv"], input: "x").status == 64)
    }

    // MARK: --output

    @Test("--output is created 0600 even under umask 022, is never replaced without --force (73), and is with it")
    func exportOutputFile() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let output = sandbox.folder.file("export.json")
        let first = try sandbox.run(["export", "--format", "json", "--output", output], umask022: true)
        #expect(first.status == 0, "\(first)")
        #expect(first.out.isEmpty, "nothing on standard output: \(first)")
        #expect(try xicmdMode(output) == 0o600)
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(try xicmdWithoutExportedAt(written) == (try xicmdExport(sandbox)))

        try sandbox.add("One more entry.")
        for arguments in [["export", "--output", output], ["export", "--format", "txt", "--output", output],
                          ["export", "--output", output, "--age-recipient", try AgeIdentity.generate().recipient.text]] {
            let refused = try sandbox.run(arguments)
            #expect(refused.status == 73, "\(refused)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == written)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.path)
        #expect(!names.contains { $0.hasPrefix(".export.json") }, "no temporary file left: \(names)")

        let forced = try sandbox.run(["export", "--format", "txt", "--output", output, "--force"], umask022: true)
        #expect(forced.status == 0, "\(forced)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == (try sandbox.run(["export", "--format", "txt"]).out))
        #expect(try xicmdMode(output) == 0o600)
    }

    @Test("--from/--to limit the entries and the analyses that belong to them, in every format")
    func exportDateRange() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let range = ["--from", "2026-01-06", "--to", "2026-01-06"]
        let document = try sandbox.run(["export", "--format", "json"] + range).object()
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.map { $0["title"] as? String ?? "" } == ["Midnight thoughts.", "Noon."])
        let analyses = try #require(document["analyses"] as? [[String: Any]])
        #expect(analyses.map { $0["model"] as? String ?? "" } == ["m2"])
        #expect(analyses.first?["entry_id"] as? String == entries[1]["id"] as? String)
        #expect((document["relations"] as? [Any])?.isEmpty == true)
        #expect((document["nodes"] as? [Any])?.isEmpty == true)

        let firstDay = try sandbox.run(["export", "--format", "json", "--to", "2026-01-05"]).object()
        #expect((firstDay["entries"] as? [[String: Any]])?.count == 2)
        #expect((firstDay["analyses"] as? [[String: Any]])?.map { $0["model"] as? String ?? "" } == ["m1"])
        #expect((firstDay["relations"] as? [Any])?.count == 1)
        #expect((firstDay["nodes"] as? [Any])?.count == 2)

        let txt = try sandbox.run(["export", "--format", "txt"] + range)
        #expect(txt.out == "[2026-01-06 12:15:00 AM] Midnight thoughts.\n\n[2026-01-06 12:00:00 PM] Noon.\nAfter lunch\n", "\(txt)")
        let jrnl = try sandbox.run(["export", "--format", "jrnl-json", "--from", "2026-01-06 06:00"]).object()
        #expect((jrnl["entries"] as? [[String: Any]])?.map { $0["title"] as? String ?? "" } == ["Noon."])
        let markdown = try sandbox.run(["export", "--format", "markdown"] + range)
        #expect(!markdown.out.contains("Walked") && markdown.out.contains("Noon."))
        // A bad date is a usage error, and writes nothing.
        let bad = try sandbox.run(["export", "--from", "the day after", "--output", sandbox.folder.file("x.json")])
        #expect(bad.status == 64, "\(bad)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder.file("x.json")))
    }

    // MARK: age

    @Test("export --age-recipient: AgeFile.decrypt gives exactly the plaintext export; several recipients; the wrong identity fails")
    func ageExport() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try xicmdPopulate(sandbox)
        let identities = try (0..<3).map { _ in try AgeIdentity.generate() }
        let recipients = try identities.prefix(2).flatMap { ["--age-recipient", try $0.recipient.text] }
        let plain = try sandbox.run(["export", "--format", "jrnl-json"])
        try Sandbox.requireSuccess(plain)

        // To a file and to standard output.
        let output = sandbox.folder.file("export.age")
        let toFile = try sandbox.run(["export", "--format", "jrnl-json", "--output", output] + recipients)
        #expect(toFile.status == 0, "\(toFile)")
        #expect(try xicmdMode(output) == 0o600)
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let toStdout = try sandbox.run(["export", "--format", "jrnl-json"] + recipients)
        #expect(toStdout.status == 0, "\(toStdout)")
        for encrypted in [file, [UInt8](toStdout.stdout)] {
            #expect(encrypted.starts(with: Array("age-encryption.org/v1\n-> X25519 ".utf8)))
            #expect(Data(encrypted).range(of: Data("harbour".utf8)) == nil, "no plaintext in the age file")
            for identity in identities.prefix(2) {
                #expect(try AgeFile.decrypt(encrypted, with: [identity]) == [UInt8](plain.stdout))
            }
            #expect(throws: AgeError.self) { _ = try AgeFile.decrypt(encrypted, with: [identities[2]]) }
        }
        // The json format too (only exported_at differs between runs).
        let json = try sandbox.run(["export", "--format", "json", "--age-recipient", try identities[0].recipient.text])
        let decrypted = try AgeFile.decrypt([UInt8](json.stdout), with: [identities[0]])
        #expect(try xicmdWithoutExportedAt(Data(decrypted)) == (try xicmdExport(sandbox)))
    }

    @Test("an invalid --age-recipient is refused and nothing is written")
    func invalidAgeRecipient() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("Secret.")
        let output = sandbox.folder.file("export.age")
        // One symbol changed breaks the checksum; it must really change (the last may be an "x").
        let recipient = try AgeIdentity.generate().recipient.text
        let bogus = String(recipient.dropLast()) + (recipient.hasSuffix("x") ? "y" : "x")
        for recipient in [bogus, "age1short", try AgeIdentity.generate().text] {
            let result = try sandbox.run(["export", "--age-recipient", recipient, "--output", output])
            #expect(result.status != 0, "\(result)")
            #expect(result.out.isEmpty)
            #expect(!result.err.contains("Secret."), "the key or text is not echoed back")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test("import --age-identity reads an age export back; a tampered one or the wrong identity: 65 and nothing imported")
    func ageImport() throws {
        let source = try Sandbox()
        try source.initVault()
        try xicmdPopulate(source)
        let identity = try AgeIdentity.generate()
        let identityFile = try source.folder.write("key.txt", "# created by the test\n" + identity.text + "\n")
        let encrypted = source.folder.file("export.age")
        try Sandbox.requireSuccess(try source.run(["export", "--output", encrypted, "--age-recipient", try identity.recipient.text]))

        let target = try Sandbox()
        try target.initVault()
        let before = try target.list()
        // Damaged: a payload byte flipped.
        var damaged = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        damaged[damaged.count - 5] ^= 0x01
        let damagedPath = try target.folder.write("damaged.age", damaged)
        let tampered = try target.run(["import", damagedPath, "--format", "json", "--age-identity", identityFile])
        #expect(tampered.status == 65, "\(tampered)")
        let wrongKey = try target.folder.write("wrong.txt", try AgeIdentity.generate().text + "\n")
        let wrong = try target.run(["import", encrypted, "--format", "json", "--age-identity", wrongKey])
        #expect(wrong.status == 65, "\(wrong)")
        let missingKey = try target.run(["import", encrypted, "--format", "json", "--age-identity", target.folder.file("none.txt")])
        #expect(missingKey.status == 66, "\(missingKey)")
        let notDecrypted = try target.run(["import", encrypted, "--format", "json"])
        #expect(notDecrypted.status == 65, "an age file read as JSON: \(notDecrypted)")
        #expect(try target.list().ids == before.ids)

        let imported = try target.run(["import", encrypted, "--format", "json", "--age-identity", identityFile])
        #expect(imported.status == 0, "\(imported)")
        #expect(xicmdGraphByName(try xicmdExport(target)) == xicmdGraphByName(try xicmdExport(source)))
    }

    // MARK: Round trip and idempotence

    @Test("export json → import into a new vault → the same export and the same listing; importing it again changes nothing")
    func jsonRoundTrip() throws {
        let source = try Sandbox()
        try source.initVault()
        try xicmdPopulate(source)
        let file = source.folder.file("export.json")
        try Sandbox.requireSuccess(try source.run(["export", "--output", file]))

        let target = try Sandbox()
        try target.initVault()
        let first = try target.run(["import", "--json", file, "--format", "json"])
        #expect(first.status == 0, "\(first)")
        let summary = try first.object()
        #expect(summary["added"] as? [String: Int] == ["entries": 4, "threads": 1, "messages": 2, "analyses": 2, "nodes": 2, "relations": 1])
        #expect(xicmdGraphByName(try xicmdExport(target)) == xicmdGraphByName(try xicmdExport(source)))
        let listing = try target.run(["list", "--json"])
        #expect(listing.out == (try source.run(["list", "--json"]).out))
        #expect(try target.run(["check"]).status == 0)

        let again = try target.run(["import", "--json", file, "--format", "json"])
        #expect(again.status == 0, "\(again)")
        let second = try again.object()
        #expect((second["added"] as? [String: Int] ?? ["?": 1]).values.allSatisfy { $0 == 0 }, "\(again)")
        #expect((second["updated"] as? [String: Int] ?? ["?": 1]).values.allSatisfy { $0 == 0 }, "\(again)")
        #expect((second["unchanged"] as? [String: Int])?["entries"] == 4)
        #expect(try target.run(["list", "--json"]).out == listing.out)
    }

    @Test("import never replaces a newer record: an older version is skipped, another text of the same moment (or of a message) is kept as a conflict copy; again changes nothing; --overwrite replaces")
    func importKeepsNewerRecords() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let edited = try sandbox.add("The walk, first text.")
        let twin = try sandbox.add("The twin, the vault's text.")
        try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", "--", "The vault's message."]))
        let old = sandbox.folder.file("old.json")
        try Sandbox.requireSuccess(try sandbox.run(["export", "--output", old]))
        // A later change here; and the file, edited by hand, holds other texts of the twin and
        // the message under their ids, with the same times.
        try Sandbox.requireSuccess(try sandbox.run(["edit", edited], stdin: Data("The walk, edited later.".utf8)))
        let document = try String(contentsOfFile: old, encoding: .utf8)
            .replacingOccurrences(of: "The twin, the vault's text.", with: "The twin, the file's text.")
            .replacingOccurrences(of: #""content": "The vault's message.""#, with: #""content": "The file's message.""#)
        let file = try sandbox.folder.write("changed.json", document)

        let first = try sandbox.run(["import", "--json", file, "--format", "json"])
        #expect(first.status == 0, "\(first)")
        let summary = try first.object()
        #expect(summary["added"] as? [String: Int] == [:] && summary["updated"] as? [String: Int] == [:], "\(first)")
        #expect(summary["skipped"] as? [String: Int] == ["entries": 1], "\(first)")
        #expect(summary["conflict_copies"] as? [String: Int] == ["entries": 1, "messages": 1], "\(first)")
        #expect(summary["unchanged"] as? [String: Int] == ["threads": 1], "\(first)")
        #expect(try sandbox.show(edited)["content"] as? String == "The walk, edited later.", "the later edit stays")
        #expect(try sandbox.show(twin)["content"] as? String == "The twin, the vault's text.")
        let contents = Set(try sandbox.list().compactMap { $0["content"] as? String })
        #expect(contents == ["The walk, edited later.", "The twin, the vault's text.",
                             "Conflict copy of entry \(twin): an imported file held this other text, changed at the same moment as the entry's.\n\n"
                                 + "The twin, the file's text."])
        let messages = try xicmdExport(sandbox)["threads"].flatMap { ($0 as? [[String: Any]])?.first?["messages"] as? [[String: Any]] } ?? []
        #expect(messages.count == 2 && messages.contains { ($0["content"] as? String)?.hasSuffix(": an imported file held this other text under the message's id.\n\nThe file's message.") == true },
                "\(messages)")
        #expect(try sandbox.run(["check"]).status == 0)

        // Again: the copies are there already, the older version is still older.
        let again = try sandbox.run(["import", file, "--format", "json"])
        #expect(again.status == 0, "\(again)")
        #expect(again.errorLines == ["Imported \(file): added nothing; updated nothing; unchanged 1 entry, 1 message, 1 thread; "
                                     + "skipped 1 entry whose stored version is as new or newer (--overwrite imports them)."], "\(again)")
        #expect(try sandbox.entryCount() == 3)

        // --overwrite: the deliberate revert.
        let overwritten = try sandbox.run(["import", "--json", file, "--format", "json", "--overwrite"])
        #expect(overwritten.status == 0, "\(overwritten)")
        #expect(try overwritten.object()["updated"] as? [String: Int] == ["entries": 2, "messages": 1], "\(overwritten)")
        #expect(try sandbox.show(edited)["content"] as? String == "The walk, first text.")
        #expect(try sandbox.show(twin)["content"] as? String == "The twin, the file's text.")
        #expect(try sandbox.run(["check"]).status == 0)
    }

    @Test("jrnl-json, jrnl-txt and dayone-json each import every entry with its date, tags and star, once")
    func importOtherFormats() throws {
        let jrnlJSON = """
            {"tags": {"@tag": 1, "#other": 1}, "entries": [
              {"title": "Title one.", "body": "Body @tag", "date": "2024-03-04", "time": "09:00", "tags": ["@tag"], "starred": false},
              {"title": "Starred one! With #Other tags", "body": "", "date": "2024-03-05", "time": "19:45", "tags": ["#other"], "starred": true}
            ]}
            """
        let jrnlText = """
            [2024-03-04 09:00:00 AM] Title one.
            Body @tag

            [2024-03-05 07:45:00 PM] Starred one! With #Other tags *

            """
        let dayOne = #"""
            {"metadata":{"version":"1.0"},"entries":[{"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z",
            "timeZone":"Europe/Berlin","text":"Morning walk\\. #spring","tags":["walk"],"starred":true}]}
            """#
        let cases: [(String, String, [(content: String, created: String, tags: [String], starred: Bool)])] = [
            ("jrnl-json", jrnlJSON, [("Title one.\nBody @tag", "2024-03-04T09:00:00.000+00:00", ["tag"], false),
                                     ("Starred one! With #Other tags", "2024-03-05T19:45:00.000+00:00", ["other"], true)]),
            ("jrnl-txt", jrnlText, [("Title one.\nBody @tag", "2024-03-04T09:00:00.000+00:00", ["tag"], false),
                                    ("Starred one! With #Other tags", "2024-03-05T19:45:00.000+00:00", ["other"], true)]),
            ("dayone-json", dayOne, [("Morning walk. #spring", "2024-03-05T08:30:00.000+01:00", ["spring", "walk"], true)]),
        ]
        for (format, text, expected) in cases {
            let sandbox = try Sandbox()
            try sandbox.initVault()
            let path = try sandbox.folder.write("import.\(format)", text)
            let first = try sandbox.run(["import", "--json", path, "--format", format])
            #expect(first.status == 0, "\(format): \(first)")
            #expect((try first.object()["added"] as? [String: Int])?["entries"] == expected.count, "\(format): \(first)")
            let listed = try sandbox.list()
            #expect(listed.contents == expected.map(\.content), "\(format)")
            #expect(listed.map { $0["created_at"] as? String ?? "" } == expected.map(\.created), "\(format)")
            #expect(listed.map { $0["local_day"] as? String ?? "" } == expected.map { String($0.created.prefix(10)) }, "\(format)")
            #expect(listed.map { $0["tags"] as? [String] ?? [] } == expected.map(\.tags), "\(format)")
            #expect(listed.map { $0["starred"] as? Bool ?? false } == expected.map(\.starred), "\(format)")
            if format == "dayone-json" { #expect(listed.ids == ["0fb1a2b3-c4d5-e6f7-0819-2a3b4c5d6e7f"]) }
            let before = try sandbox.run(["list", "--json"]).out
            let again = try sandbox.run(["import", "--json", path, "--format", format])
            #expect(again.status == 0, "\(format): \(again)")
            let summary = try again.object()
            #expect((summary["added"] as? [String: Int] ?? ["?": 1]).values.allSatisfy { $0 == 0 }, "\(format): \(again)")
            #expect((summary["updated"] as? [String: Int] ?? ["?": 1]).values.allSatisfy { $0 == 0 }, "\(format): \(again)")
            #expect(try sandbox.run(["list", "--json"]).out == before, "\(format)")
        }
    }

    @Test("jrnl's text and JSON of the same journal give the same ids: importing one after the other adds nothing")
    func jrnlFormatsAgree() throws {
        let source = try Sandbox()
        try source.initVault()
        try xicmdPopulate(source)
        let txt = try source.folder.write("journal.txt", try source.run(["export", "--format", "txt"]).stdout)
        let json = try source.folder.write("journal.json", try source.run(["export", "--format", "jrnl-json"]).stdout)
        let target = try Sandbox()
        try target.initVault()
        try Sandbox.requireSuccess(try target.run(["import", txt, "--format", "jrnl-txt"]))
        let listed = try target.list()
        #expect(listed.count == 4)
        let again = try target.run(["import", "--json", json, "--format", "jrnl-json"])
        #expect(((try again.object())["added"] as? [String: Int] ?? ["?": 1]).values.allSatisfy { $0 == 0 }, "\(again)")
        #expect(try target.list().ids == listed.ids)
        // The wall-clock times survive (jrnl has no zones; the text is read in TZ=UTC here).
        #expect(listed.map { String(($0["created_at"] as? String ?? "").prefix(16)) }
            == ["2026-01-05T10:00", "2026-01-05T23:30", "2026-01-06T00:15", "2026-01-06T12:00"])
        #expect(listed.map { $0["starred"] as? Bool ?? false } == [true, false, false, false])
        #expect(listed[0]["tags"] as? [String] == ["anna", "outdoors"])
    }

    @Test("import from standard input with '-'")
    func importFromStandardInput() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        let result = try sandbox.run(["import", "-", "--format", "jrnl-txt"], input: "[2024-03-04 09:00:00 PM] From a pipe. #stdin\n")
        #expect(result.status == 0, "\(result)")
        let listed = try sandbox.list()
        #expect(listed.contents == ["From a pipe. #stdin"])
        #expect(listed.first?["created_at"] as? String == "2024-03-04T21:00:00.000+00:00")
    }

    @Test("jrnl times are read in the zone of TZ")
    func importReadsJrnlTimesInTZ() throws {
        let sandbox = try Sandbox(timeZone: "Asia/Tokyo")
        try sandbox.initVault()
        let path = try sandbox.folder.write("j.txt", "[2024-03-04 09:00:00 PM] Evening in Tokyo.\n")
        try Sandbox.requireSuccess(try sandbox.run(["import", path, "--format", "jrnl-txt"]))
        #expect(try sandbox.list().first?["created_at"] as? String == "2024-03-04T21:00:00.000+09:00")
    }

    // MARK: Malformed files

    @Test("malformed files: exit 65, the message says where, and nothing is imported even when earlier records were fine", .tags(.slow), .notInQuickRun)
    func malformedImports() throws {
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try sandbox.add("Already here.")
        let before = try sandbox.run(["list", "--json"]).out
        let goodJV = #"{"id":"11111111-2222-4333-8444-555555555555","created_at":"2024-01-01T09:00:00Z","content":"fine"}"#
        func jv(_ last: String) -> Data { Data(#"{"format":"jv-export","version":1,"entries":[\#(goodJV),\#(last)]}"#.utf8) }
        let goodJrnl = #"{"title":"Ok.","body":"","date":"2024-01-02","time":"09:00","tags":[],"starred":false}"#
        func jrnl(_ last: String) -> Data { Data(#"{"tags":{},"entries":[\#(goodJrnl),\#(last)]}"#.utf8) }
        let goodDayOne = #"{"uuid":"0FB1A2B3C4D5E6F708192A3B4C5D6E7F","creationDate":"2024-03-05T07:30:00Z","text":"ok"}"#
        func dayOne(_ last: String) -> Data { Data(#"{"entries":[\#(goodDayOne),\#(last)]}"#.utf8) }
        let badUTF8JSON = Data(#"{"format":"jv-export","version":1,"entries":[\#(goodJV),{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":"bad "#.utf8)
            + Data([0xC3, 0x28]) + Data(#""}]}"#.utf8)
        let cases: [(String, String, Data, String)] = [
            ("bad JSON", "json", Data(#"{"format":"jv-export","version":1,"entries":[\#(goodJV),{"id":"#.utf8), "byte"),
            ("bad JSON", "jrnl-json", Data(#"{"entries":[\#(goodJrnl),{"title":"#.utf8), "byte"),
            ("bad JSON", "dayone-json", Data(#"{"entries":[\#(goodDayOne),]}"#.utf8), "byte"),
            ("missing content", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z"}"#), "record 2"),
            ("missing date", "jrnl-json", jrnl(#"{"title":"T.","body":"","time":"09:00"}"#), "record 2"),
            ("missing uuid", "dayone-json", dayOne(#"{"creationDate":"2024-03-05T07:30:00Z","text":"x"}"#), "record 2"),
            ("content of the wrong type", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":["x"]}"#), "record 2"),
            ("tags of the wrong type", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":"x","tags":"a"}"#), "record 2"),
            ("title of the wrong type", "jrnl-json", jrnl(#"{"title":1,"body":"","date":"2024-01-02","time":"09:00"}"#), "record 2"),
            ("tags of the wrong type", "dayone-json", dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"2024-03-05T07:30:00Z","text":"x","tags":{"a":1}}"#), "record 2"),
            ("wrong date", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-02-30T09:00:00Z","content":"x"}"#), "record 2"),
            ("wrong date", "jrnl-json", jrnl(#"{"title":"T.","body":"","date":"2024-13-01","time":"09:00"}"#), "record 2"),
            ("wrong time", "jrnl-json", jrnl(#"{"title":"T.","body":"","date":"2024-01-03","time":"24:00"}"#), "record 2"),
            ("wrong date", "dayone-json", dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"5 March 2024","text":"x"}"#), "record 2"),
            ("empty jrnl text", "jrnl-txt", Data("[2024-01-02 09:00:00 AM] Fine.\n\n[2024-01-03 09:00:00 AM]   \n".utf8), "line 3"),
            ("empty jrnl file", "jrnl-txt", Data(), "line 1"),
            ("blank content", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":" \n "}"#), "record 2"),
            ("blank text", "jrnl-json", jrnl(#"{"title":"","body":" ","date":"2024-01-03","time":"09:00"}"#), "record 2"),
            ("invalid UTF-8", "json", badUTF8JSON, "byte"),
            ("invalid UTF-8", "jrnl-txt", Data("[2024-01-02 09:00:00 AM] Fine.\n\n[2024-01-03 09:00:00 AM] Bad ".utf8) + Data([0xFF]) + Data("\n".utf8), "line 3"),
            ("starred of the wrong type", "jrnl-json", jrnl(#"{"title":"T.","body":"","date":"2024-01-03","time":"09:00","starred":"yes"}"#), "record 2"),
            ("tags of the wrong type", "jrnl-json", jrnl(#"{"title":"T.","body":"","date":"2024-01-03","time":"09:00","tags":"@x"}"#), "record 2"),
            ("starred of the wrong type", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"2024-01-01T09:00:00Z","content":"x","starred":1}"#), "record 2"),
            ("a relative date", "json", jv(#"{"id":"11111111-2222-4333-8444-555555555556","created_at":"yesterday 10:00","content":"x"}"#), "record 2"),
            ("a relative date", "dayone-json", dayOne(#"{"uuid":"1C2D3E4F5A6B7C8D9E0F1A2B3C4D5E6F","creationDate":"tomorrow 08:00","text":"x"}"#), "record 2"),
            ("not a jv export", "json", Data(#"{"entries":[]}"#.utf8), "jv-export"),
            ("over 50,000 characters", "jrnl-json",
             jrnl(#"{"title":"Long","body":"\#(String(repeating: "a", count: 50_001))","date":"2024-01-03","time":"09:00"}"#), "record 2"),
        ]
        for (what, format, data, place) in cases {
            let path = try sandbox.folder.write("bad-\(format)", data)
            let result = try sandbox.run(["import", path, "--format", format])
            #expect(result.status == 65, "\(what) (\(format)): \(result)")
            #expect(result.errorLines.count == 1, "\(what) (\(format)): one sentence: \(result)")
            #expect(result.err.contains(place), "\(what) (\(format)): should name \(place): \(result.err)")
            #expect(result.err.contains("nothing was imported"), "\(what) (\(format)): \(result.err)")
            #expect(try sandbox.run(["list", "--json"]).out == before, "\(what) (\(format)): something was imported")
        }
        // A missing file is not found (66).
        let missing = try sandbox.run(["import", sandbox.folder.file("none.json"), "--format", "json"])
        #expect(missing.status == 66, "\(missing)")
    }

    /// Import reads a file whole and checks it before writing: past 256 MiB it
    /// refuses, having read no more than that, with a sentence that says what to do.
    @Test("a file over 256 MiB is refused with a clear sentence, and nothing is imported")
    func oversizedImportIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let huge = sandbox.folder.file("huge.txt")
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, off_t((256 << 20) + 1)) == 0, "a sparse file: no disk space used")
        let result = try sandbox.run(["import", huge, "--format", "jrnl-txt"])
        #expect(result.status == 1, "\(result)")
        #expect(result.err.contains("larger than 256 MiB") && result.err.contains("split it"), "\(result)")
        #expect(try sandbox.entryCount() == 0)
    }
}

// MARK: - Helpers (file-private)

/// Four entries (one starred with an explicit tag, one written in Tokyo, 12 AM and 12 PM
/// edges), a chat of two messages, two analyses and a small graph.
fileprivate func xicmdPopulate(_ sandbox: Sandbox) throws {
    let walk = try sandbox.add("Walked to the harbour with @Anna. Calm sea.", ["--at", "2026-01-05 10:00", "--star", "--tag", "outdoors"])
    try sandbox.add("Late in Tokyo\nramen #food", ["--at", "2026-01-05T23:30+09:00"])
    try sandbox.add("Midnight thoughts.", ["--at", "2026-01-06 00:15"])
    let noon = try sandbox.add("Noon. After lunch", ["--at", "2026-01-06 12:00"])
    try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "user", "--", "How was the walk?"]))
    try Sandbox.requireSuccess(try sandbox.run(["chat", "add", "--role", "assistant", "--entry", walk, "--", "Calm."]))
    let answer = try sandbox.folder.write("answer.json", #"""
        {"sentiment": "calm", "themes": ["sea"], "entities": {"people": ["Anna"]},
         "nodes": [{"type": "person", "name": "Anna"}, {"type": "place", "name": "Harbour"}],
         "relations": [{"from": {"type": "person", "name": "Anna"}, "to": {"type": "place", "name": "Harbour"}, "type": "walked to", "strength": 0.75}]}
        """#)
    try Sandbox.requireSuccess(try sandbox.run(["analyze", walk, "--model", "m1", "--command", "cat > /dev/null; cat '\(answer)'"]))
    try Sandbox.requireSuccess(try sandbox.run(["analysis", "add", noon, "--model", "m2", "--sentiment", "content", "--theme", "food",
                                                "--processed-at", "2026-01-06 13:00"]))
}

/// `jv export --format json` without `exported_at`.
fileprivate func xicmdExport(_ sandbox: Sandbox) throws -> NSDictionary {
    let result = try sandbox.run(["export", "--format", "json"])
    try Sandbox.requireSuccess(result)
    return try xicmdWithoutExportedAt(result.stdout)
}

/// `export` with the knowledge graph's ids replaced by its nodes' types and names: each vault
/// derives those ids under its own key (FORMAT.md §1.6), so a graph imported into another vault
/// keeps its nodes and relations, but under other ids.
fileprivate func xicmdGraphByName(_ export: NSDictionary) -> NSDictionary {
    guard var object = export as? [String: Any], let nodes = object["nodes"] as? [[String: Any]] else { return export }
    var names: [String: String] = [:]
    for node in nodes {
        if let id = node["id"] as? String { names[id] = "\(node["type"] ?? "?") \(node["name"] ?? "?")" }
    }
    func named(_ id: Any?) -> String { names[id as? String ?? ""] ?? "?" }
    object["nodes"] = nodes.map { node in
        var node = node
        node["id"] = named(node["id"])
        return node
    }.sorted { ($0["id"] as? String ?? "") < ($1["id"] as? String ?? "") }
    object["relations"] = (object["relations"] as? [[String: Any]] ?? []).map { relation in
        var relation = relation
        relation["id"] = nil
        relation["from"] = named(relation["from"])
        relation["to"] = named(relation["to"])
        return relation
    }.sorted { "\($0["from"] ?? "") \($0["to"] ?? "") \($0["type"] ?? "")" < "\($1["from"] ?? "") \($1["to"] ?? "") \($1["type"] ?? "")" }
    return object as NSDictionary
}

fileprivate func xicmdWithoutExportedAt(_ data: Data) throws -> NSDictionary {
    guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw HarnessError("not a JSON object") }
    #expect(object["exported_at"] is String)
    object["exported_at"] = nil
    return object as NSDictionary
}

fileprivate func xicmdMode(_ path: String) throws -> Int {
    ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1) & 0o777
}
