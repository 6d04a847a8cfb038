// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Exports and imports against the real tools (README "Exports and imports": "`txt` is jrnl's plain-text journal
/// format (so `jrnl --import` reads it)", "`age -d -i KEY` decrypts it"): jrnl 4.6 as
/// `make test-deps` installs it (see `JrnlWorld`; a test fails without it), and age from the
/// distribution, installed here when missing (its tests are skipped only when it truly cannot
/// be: not root, or apt failing).
@Suite("interoperability with jrnl and age", .tags(.e2e, .externalTools))
struct InteropTests {
    // MARK: jrnl

    @Test("jv export --format txt | jrnl --import, then jrnl --format json equals jv export --format jrnl-json", .tags(.slow), .notInQuickRun)
    func jrnlReadsOurText() throws {
        let world = try JrnlWorld()
        let sandbox = world.sandbox
        try sandbox.initVault()
        let entries: [(String, [String])] = [
            ("Walked. Then more.", ["--at", "2026-01-05 10:00"]),
            ("Hi!) there. And #tag/x and a@b.com @Anna's", ["--at", "2026-01-05 00:00:05"]),
            ("Quote.\" Next one", ["--at", "2026-01-05 12:59:59", "--star"]),
            ("日本。次の文 #旅行", ["--at", "2026-01-06 12:00"]),
            ("First line @Work\nSecond line. With #hash_tag\n\nLast paragraph", ["--at", "2026-01-06 23:59:59"]),
            ("Only explicit tags here.", ["--at", "2026-01-07 07:07", "--tag", "solo", "--tag", "Second", "--star"]),
            ("Late in Tokyo #food", ["--at", "2026-01-07T23:30+09:00"]),
            ("Ends with dot.", ["--at", "2026-01-08 13:00"]),
        ]
        for (text, options) in entries { try sandbox.add(text, options) }
        let txt = try sandbox.run(["export", "--format", "txt"])
        try Sandbox.requireSuccess(txt)
        let imported = try world.jrnl(["--import"], stdin: txt.stdout)
        #expect(imported.status == 0, "\(imported)")
        let theirs = try world.jrnl(["--format", "json"])
        #expect(theirs.status == 0, "\(theirs)")
        let ours = try sandbox.run(["export", "--format", "jrnl-json"])
        try Sandbox.requireSuccess(ours)
        let theirJSON = try interopJrnlJSON(theirs.stdout), ourJSON = try interopJrnlJSON(ours.stdout)
        #expect((theirJSON["entries"] as? [Any])?.count == entries.count, "\(theirs.out)")
        #expect(theirJSON == ourJSON, "jrnl:\n\(theirs.out)\njv:\n\(ours.out)")
        // And jrnl's journal file, read back by jv, gives the same entries as the text we wrote.
        let back = try Sandbox()
        try back.initVault()
        try Sandbox.requireSuccess(try back.run(["import", world.journal, "--format", "jrnl-txt"]))
        try Sandbox.requireSuccess(try back.run(["import", try back.folder.write("ours.txt", txt.stdout), "--format", "jrnl-txt"]))
        #expect(try back.list().count == entries.count, "jrnl's file and ours give the same ids")
    }

    @Test("a title line ending in '*' (not starred) survives jrnl: jv's jrnl-json says what jrnl reads", .tags(.slow), .notInQuickRun)
    func jrnlStarAmbiguity() throws {
        let world = try JrnlWorld()
        let sandbox = world.sandbox
        try sandbox.initVault()
        try sandbox.add("Rated 5 *", ["--at", "2026-01-05 09:00"])
        let txt = try sandbox.run(["export", "--format", "txt"])
        #expect(try world.jrnl(["--import"], stdin: txt.stdout).status == 0)
        let theirs = try interopJrnlJSON(try world.jrnl(["--format", "json"]).stdout)
        let ours = try interopJrnlJSON(try sandbox.run(["export", "--format", "jrnl-json"]).stdout)
        #expect(theirs == ours)
        // jrnl's text format cannot say "not starred" for a first line ending in '*': jv reading
        // its own text back reads it as jrnl does (README, "Exports and imports").
        let back = try Sandbox()
        try back.initVault()
        try Sandbox.requireSuccess(try back.run(["import", try back.folder.write("ours.txt", txt.stdout), "--format", "jrnl-txt"]))
        #expect(try back.list().first?["starred"] as? Bool == true)
        #expect(try back.list().contents == ["Rated 5"])
    }

    @Test("entries made with jrnl itself import from its JSON export and its journal file, with dates, tags and stars, once", .tags(.slow), .notInQuickRun)
    func weReadJrnlsExports() throws {
        let world = try JrnlWorld()
        for entry in ["yesterday 9am: Title. Body @tag", "2024-03-05 7:45pm: Starred one! With #Other tags *",
                      "2024-03-05 12:05am: Midnight entry with @Night", "2024-02-29 12:30pm: Leap day. Lunch #Food with @Anna",
                      "2024-01-01 12:00pm: New year\nsecond line #two"] {
            let made = try world.jrnl([entry])
            #expect(made.status == 0, "\(made)")
        }
        let exported = try world.jrnl(["--format", "json"])
        #expect(exported.status == 0, "\(exported)")
        let theirs = try #require(try interopJrnlJSON(exported.stdout)["entries"] as? [[String: Any]])
        #expect(theirs.count == 5, "\(exported.out)")
        #expect(theirs.contains { $0["starred"] as? Bool == true })

        let sandbox = world.sandbox
        try sandbox.initVault()
        let jsonFile = try sandbox.folder.write("jrnl.json", exported.stdout)
        let imported = try sandbox.run(["import", "--json", jsonFile, "--format", "jrnl-json"])
        #expect(imported.status == 0, "\(imported)")
        #expect((try imported.object()["added"] as? [String: Int])?["entries"] == 5)
        let ours = try sandbox.list()
        #expect(ours.count == 5)
        for (jrnl, jv) in zip(theirs, ours) {
            let title = jrnl["title"] as? String ?? "?", body = jrnl["body"] as? String ?? "?"
            #expect(jv["content"] as? String == (body.isEmpty ? title : title + "\n" + body))
            #expect((jv["created_at"] as? String ?? "").hasPrefix("\(jrnl["date"] as? String ?? "?")T\(jrnl["time"] as? String ?? "?"):00.000+00:00"),
                    "\(jv) vs \(jrnl)")
            #expect(jv["local_day"] as? String == jrnl["date"] as? String)
            #expect(jv["starred"] as? Bool == jrnl["starred"] as? Bool)
            let theirTags = Set((jrnl["tags"] as? [String] ?? []).map { String($0.dropFirst()) })
            #expect(Set(jv["tags"] as? [String] ?? []) == theirTags, "\(jv) vs \(jrnl)")
        }
        // The same journal as jrnl keeps it on disk: the same ids, so nothing is added.
        let again = try sandbox.run(["import", "--json", world.journal, "--format", "jrnl-txt"])
        #expect(again.status == 0, "\(again)")
        #expect((try again.object()["added"] as? [String: Int] ?? ["?": 1]).values.allSatisfy { $0 == 0 }, "\(again)")
        #expect(try sandbox.list().ids == ours.ids)
    }

    // MARK: age

    @Test("age -d -i KEY decrypts our age export (several recipients, several chunks) to the plaintext export",
          .enabled(if: InteropTools.age != nil, "age cannot be installed here (not root, or apt failed)"))
    func ageDecryptsOurExport() throws {
        let age = try #require(InteropTools.age)
        let sandbox = try Sandbox()
        try sandbox.initVault()
        try interopImportEntries(sandbox, count: 120) // a json export over 128 KiB: three age chunks
        let (keyFile, recipient) = try interopKeyPair(sandbox, name: "alice")
        let (otherKeyFile, otherRecipient) = try interopKeyPair(sandbox, name: "bob")
        let (strangerKeyFile, _) = try interopKeyPair(sandbox, name: "eve")
        for format in ["jrnl-json", "json", "txt"] {
            let output = sandbox.folder.file("export-\(format).age")
            let made = try sandbox.run(["export", "--format", format, "--output", output, "--age-recipient", recipient, "--age-recipient", otherRecipient])
            #expect(made.status == 0, "\(made)")
            let plain = try sandbox.run(["export", "--format", format])
            try Sandbox.requireSuccess(plain)
            if format == "json" { #expect(plain.stdout.count > 2 * 65_536, "\(plain.stdout.count) bytes") }
            for key in [keyFile, otherKeyFile] {
                let decrypted = try sandbox.runTool(age, ["-d", "-i", key, output])
                #expect(decrypted.status == 0, "\(format): \(decrypted)")
                if format == "json" {
                    #expect(try interopWithoutExportedAt(decrypted.stdout) == (try interopWithoutExportedAt(plain.stdout)), "\(format)")
                } else {
                    #expect(decrypted.stdout == plain.stdout, "\(format)")
                }
            }
            let stranger = try sandbox.runTool(age, ["-d", "-i", strangerKeyFile, output])
            #expect(stranger.status != 0 && stranger.stdout.isEmpty, "\(stranger)")
        }
    }

    @Test("a file encrypted by age -r imports with --age-identity; a tampered one does not",
          .enabled(if: InteropTools.age != nil, "age cannot be installed here (not root, or apt failed)"))
    func ageEncryptedFilesImport() throws {
        let age = try #require(InteropTools.age)
        let source = try Sandbox()
        try source.initVault()
        try interopImportEntries(source, count: 100)
        try source.add("Starred and tagged.", ["--star", "--tag", "interop"])
        let plainFile = source.folder.file("export.json")
        try Sandbox.requireSuccess(try source.run(["export", "--output", plainFile]))

        let target = try Sandbox()
        try target.initVault()
        let (keyFile, recipient) = try interopKeyPair(target, name: "me")
        let encrypted = target.folder.file("export.json.age")
        let made = try target.runTool(age, ["-r", recipient, "-o", encrypted, plainFile])
        #expect(made.status == 0, "\(made)")

        var damaged = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        damaged[damaged.count / 2] ^= 0x04
        let damagedPath = try target.folder.write("damaged.age", damaged)
        let refused = try target.run(["import", damagedPath, "--format", "json", "--age-identity", keyFile])
        #expect(refused.status == 65, "\(refused)")
        #expect(try target.list().isEmpty)

        let imported = try target.run(["import", encrypted, "--format", "json", "--age-identity", keyFile])
        #expect(imported.status == 0, "\(imported)")
        #expect(try interopWithoutExportedAt(try target.run(["export", "--format", "json"]).stdout)
            == (try interopWithoutExportedAt(try source.run(["export", "--format", "json"]).stdout)))
        // A jrnl text encrypted by age, from standard input.
        let jrnlText = try target.folder.write("j.txt", "[2024-03-04 09:00:00 PM] Encrypted jrnl. #age\n")
        let piped = try target.runTool(age, ["-r", recipient, jrnlText])
        #expect(piped.status == 0, "\(piped)")
        let fromStdin = try target.run(["import", "-", "--format", "jrnl-txt", "--age-identity", keyFile], stdin: piped.stdout)
        #expect(fromStdin.status == 0, "\(fromStdin)")
        #expect(try target.list(["--tag", "age"]).contents == ["Encrypted jrnl. #age"])
    }
}

// MARK: - Tools (file-private)

/// Finds or installs age, once per test process, under a lock shared with other processes
/// using the same cache (jrnl is `make test-deps`'s: see `JrnlWorld`).
fileprivate enum InteropTools {
    /// `<repository>/.build/interop`.
    static let cache: String = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repository.appendingPathComponent(".build/interop").path
    }()

    /// age from PATH, else `apt-get install -y age` when running as root.
    static let age: String? = {
        if let found = interopWhich("age"), interopWhich("age-keygen") != nil { return found }
        guard getuid() == 0, let aptGet = interopWhich("apt-get") else { return nil }
        return interopWithLock(cache + "/age.lock") {
            if let found = interopWhich("age"), interopWhich("age-keygen") != nil { return found }
            let env = ["DEBIAN_FRONTEND": "noninteractive"]
            if interopRun(aptGet, ["install", "-y", "age"], extraEnvironment: env, timeout: 600).status != 0 {
                _ = interopRun(aptGet, ["update"], extraEnvironment: env, timeout: 600)
                _ = interopRun(aptGet, ["install", "-y", "age"], extraEnvironment: env, timeout: 600)
            }
            return interopWhich("age-keygen") != nil ? interopWhich("age") : nil
        }
    }()

    static var ageKeygen: String? { interopWhich("age-keygen") }
}

fileprivate func interopWhich(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
    return folders.map { $0 + "/" + name }.first { access($0, X_OK) == 0 }
}

/// Runs a set-up program with this process's environment (proxies, HOME for pip's cache).
fileprivate func interopRun(_ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:],
                            timeout: TimeInterval = 120) -> JVResult {
    let io = NSTemporaryDirectory() + "/jv-interop-io-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: io) }
    do {
        try FileManager.default.createDirectory(atPath: io, withIntermediateDirectories: true)
        let environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        return try JV.spawn(executable: executable, arguments: arguments, environment: environment, stdin: nil, ioFolder: io).wait(timeout: timeout)
    } catch {
        return JVResult(command: executable, status: -1, signal: nil, timedOut: false, stdout: Data(), stderr: Data("\(error)".utf8))
    }
}

/// Runs `body` holding an exclusive `flock` on `lockPath` (creating its folder).
fileprivate func interopWithLock<T>(_ lockPath: String, _ body: () -> T?) -> T? {
    try? FileManager.default.createDirectory(atPath: (lockPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return body() }
    defer { close(descriptor) }
    flock(descriptor, LOCK_EX)
    defer { flock(descriptor, LOCK_UN) }
    return body()
}

/// An age identity file and its recipient: from `age-keygen` when installed, else ours.
fileprivate func interopKeyPair(_ sandbox: Sandbox, name: String) throws -> (keyFile: String, recipient: String) {
    let keyFile = sandbox.folder.file("\(name).key")
    if let keygen = InteropTools.ageKeygen {
        let made = try sandbox.runTool(keygen, ["-o", keyFile])
        guard made.status == 0 else { throw HarnessError("age-keygen failed: \(made)") }
        let recipient = try sandbox.runTool(keygen, ["-y", keyFile])
        guard recipient.status == 0 else { throw HarnessError("age-keygen -y failed: \(recipient)") }
        return (keyFile, recipient.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    let identity = try AgeIdentity.generate()
    try sandbox.folder.write("\(name).key", identity.text + "\n")
    return (keyFile, try identity.recipient.text)
}

/// Imports `count` entries of about 1 KiB with a jv-export document.
fileprivate func interopImportEntries(_ sandbox: Sandbox, count: Int) throws {
    let entries: [[String: Any]] = (0..<count).map { index in
        let text = "Entry \(index). " + String(repeating: "Quiet day by the river, a letter from a friend. ", count: 20) + "#bulk"
        return ["id": UUID().uuidString.lowercased(), "content": text, "starred": index % 5 == 0,
                "created_at": String(format: "2025-%02d-%02dT%02d:%02d:00.000+00:00", 1 + index % 12, 1 + index % 28, index % 24, index % 60)]
    }
    let path = try sandbox.folder.write("entries.json", try JSONSerialization.data(withJSONObject: ["format": "jv-export", "version": 1, "entries": entries]))
    try Sandbox.requireSuccess(try sandbox.run(["import", path, "--format", "json"]))
}

/// jrnl's JSON export, parsed, with each entry's tags sorted (jrnl's order is a set's).
fileprivate func interopJrnlJSON(_ data: Data) throws -> NSDictionary {
    guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let entries = object["entries"] as? [[String: Any]] else { throw HarnessError("not jrnl JSON: \(String(decoding: data, as: UTF8.self))") }
    object["entries"] = entries.map { entry in
        var entry = entry
        entry["tags"] = (entry["tags"] as? [String] ?? []).sorted()
        return entry
    }
    return object as NSDictionary
}

fileprivate func interopWithoutExportedAt(_ data: Data) throws -> NSDictionary {
    guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw HarnessError("not a JSON object: \(String(decoding: data.prefix(200), as: UTF8.self))")
    }
    object["exported_at"] = nil
    return object as NSDictionary
}
