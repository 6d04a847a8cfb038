// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// A journal of many entries, imported from a generated jv-export document (one `jv import`,
/// not thousands of `jv add`), for the tests of long answers.
enum LongJournal {
    /// Imports `count` entries, one every 7 hours from 2021-01-01, every seventh written at
    /// UTC+02:00, each containing "common" and its own number ("entry 17."); returns their
    /// ids in time order.
    @discardableResult
    static func make(_ sandbox: Sandbox, count: Int) throws -> [String] {
        try sandbox.installEmptyVault()
        let start = 1_609_459_200.0 // 2021-01-01T00:00Z
        var entries: [[String: Any]] = []
        for index in 0..<count {
            let offset = index % 7 == 0 ? 2 : 0
            let local = Date(timeIntervalSince1970: start + Double(index) * 7 * 3600 + Double(offset) * 3600)
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            let created = formatter.string(from: local).dropLast() + (offset == 0 ? "+00:00" : "+02:00")
            let id = String(format: "00000000-0000-4000-8000-%012d", index)
            entries.append(["id": id, "created_at": String(created), "modified_at": String(created), "local_day": String(created.prefix(10)),
                            "starred": index % 5 == 0, "tags": ["t\(index % 3)"], "title": "Title of entry \(index).",
                            "content": "Title of entry \(index).\nA common body, line one of entry \(index).\nLine two."])
        }
        let document: [String: Any] = ["format": "jv-export", "version": 1, "exported_at": "2026-01-01T00:00:00Z", "entries": entries,
                                       "threads": [], "analyses": [], "nodes": [], "relations": []]
        let file = try sandbox.folder.write("long.json", try JSONSerialization.data(withJSONObject: document))
        try Sandbox.requireSuccess(try sandbox.run(["import", file, "--format", "json"]))
        return (0..<count).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
    }

    /// The ids of a listing's `--short` lines (their short ids are all `00000000`: the title says which).
    static func numbers(in lines: [String]) -> [Int] {
        lines.compactMap { line in line.range(of: "Title of entry ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) } }
    }
}

@Suite("Long answers stream", .tags(.e2e))
struct StreamingTests {
    private static let fixture = Result {
        try Fixture { sandbox in
            let ids = try LongJournal.make(sandbox, count: 3000)
            return ["last": ids[2999], "late": ids[2900], "middle": ids[2000]]
        }
    }

    private func journal() throws -> Sandbox {
        try Sandbox(from: try Self.fixture.get())
    }

    /// Flips a bit in the middle of an entry's sealed content, as a disk error would.
    private static func damageContent(of id: String?, in sandbox: Sandbox) throws {
        let hex = try sandbox.sqlite("SELECT hex(content) FROM entry WHERE id = '\(try #require(id))'")
        var bytes = try #require(Data(hexString: hex))
        bytes[bytes.count / 2] ^= 0x01
        try sandbox.sqlite("UPDATE entry SET content = X'\(bytes.hex)' WHERE id = '\(try #require(id))'")
    }

    @Test("list prints entries as they are decrypted: those before a damaged record are out when it stops the listing (65)")
    func printedBeforeTheEnd() throws {
        let sandbox = try journal()
        let victim = try Self.fixture.get()["late"]
        try Self.damageContent(of: victim, in: sandbox)
        let result = try sandbox.run(["list", "--short"])
        #expect(result.status == 65 && result.err.contains(victim), "\(result)")
        // Whole batches before the damaged one: a prefix of the listing, well before its end.
        let printed = LongJournal.numbers(in: result.lines)
        #expect(printed.count >= 1000 && printed.count < 2900, "\(printed.count) entries printed")
        #expect(printed == Array(0..<printed.count))
    }

    @Test("search without a session prints the newest matches as the scan finds them: those before a damaged older record are out when it stops the search (65)")
    func searchPrintsBeforeTheEnd() throws {
        let sandbox = try journal()
        let victim = try Self.fixture.get()["middle"]
        try Self.damageContent(of: victim, in: sandbox)
        let result = try sandbox.run(["search", "common"])
        #expect(result.status == 65 && result.err.contains(victim), "\(result)")
        // Entry 2000 is the 1,000th newest: whole batches of the newer ones came out before it.
        let printed = LongJournal.numbers(in: result.lines)
        #expect(printed.count >= 128 && printed.count < 1000, "\(printed.count) entries printed")
        #expect(printed == Array((3000 - printed.count)..<3000).reversed())
    }

    @Test("a closed pipe (jv list | head -1) ends jv quietly, with SIGPIPE as other tools do or, where it is ignored, status 141")
    func closedPipe() throws {
        let sandbox = try journal()
        for ignoring in [false, true] {
            let status = sandbox.folder.file("status"), errors = sandbox.folder.file("errors")
            let script = (ignoring ? "trap '' PIPE; " : "") + "{ \"$0\" list; echo $? > '\(status)'; } 2> '\(errors)' | head -1"
            let result = try sandbox.runTool("/bin/sh", ["-c", script, sandbox.binary])
            #expect(result.status == 0 && result.lines.count == 1 && result.out.contains("Title of entry 0."), "\(result)")
            let exit = try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(exit == "141", "ignoring SIGPIPE: \(ignoring)")
            let said = try String(contentsOfFile: errors, encoding: .utf8).split(separator: "\n")
                .filter { !$0.contains("warning: this process may not lock memory") }
            #expect(said.isEmpty, "nothing on standard error: \(said)")
        }
    }

    @Test("list --json and search --json stream one valid array, as the entries in time order (reversed, limited; a search newest first)")
    func jsonArrays() throws {
        let sandbox = try journal()
        let ids = (0..<3000).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        let all = try sandbox.run(["list", "--json"])
        #expect(try all.array().ids == ids)
        #expect(try all.array()[17]["content"] as? String == "Title of entry 17.\nA common body, line one of entry 17.\nLine two.")
        #expect(all.out.hasPrefix("[\n  {\n    \"id\": ") && all.out.hasSuffix("\n  }\n]\n"), "pretty-printed as before")
        #expect(try sandbox.list(["--reverse"]).ids == ids.reversed())
        #expect(try sandbox.list(["-n", "3"]).ids == Array(ids.suffix(3)))
        #expect(try sandbox.list(["-n", "3", "--reverse"]).ids == ids.suffix(3).reversed())
        #expect(try sandbox.list(["--tag", "t1", "--not-tag", "t2"]).ids == ids.enumerated().filter { $0.offset % 3 == 1 }.map(\.element))
        let search = try sandbox.run(["search", "common", "--kind", "entry", "--json"])
        #expect(try search.array().ids == ids.reversed(), "a search gives the newest first")
        let few = try sandbox.run(["search", "entry 2999.", "--json"])
        #expect(try few.array().ids == [ids[2999]])
    }

    @Test("times show their offsets when the entries listed were written in several zones, decided before the first is printed")
    func offsetsOfAStream() throws {
        let sandbox = try journal()
        let both = try sandbox.run(["list", "--short", "--to", "2021-01-03"])
        #expect(both.lines.first?.hasPrefix("2021-01-01 02:00 +02:00") == true, "\(both)")
        #expect(both.lines.count == 11 && both.lines.allSatisfy { $0.contains(" +00:00 ") || $0.contains(" +02:00 ") }, "\(both)")
        let one = try sandbox.run(["list", "--short", "--from", "2021-01-01 05:00", "--to", "2021-01-02"])
        #expect(!one.out.contains("+00:00") && one.lines.count == 6, "one zone, no offsets: \(one)")
    }

    @Test("export streams every format: json and jrnl-json stay valid documents of every entry, txt and markdown hold them all")
    func exports() throws {
        let sandbox = try journal()
        let json = try sandbox.run(["export", "--format", "json"])
        let document = try json.object()
        #expect((document["entries"] as? [[String: Any]])?.count == 3000 && document["relations"] as? [Any] != nil)
        let jrnl = try sandbox.run(["export", "--format", "jrnl-json"]).object()
        #expect((jrnl["entries"] as? [[String: Any]])?.count == 3000)
        #expect(jrnl["tags"] as? [String: Int] == ["@t0": 1000, "@t1": 1000, "@t2": 1000], "counted before the entries are written")
        let text = try sandbox.run(["export", "--format", "txt"])
        #expect(LongJournal.numbers(in: text.lines) == Array(0..<3000), "jrnl's order: by wall-clock time")
        let markdown = try sandbox.run(["export", "--format", "markdown"])
        #expect(markdown.lines.filter { $0.hasPrefix("### ") }.count == 3000)
    }

    /// 600 entries of nearly 50,000 characters (30 MB of text), one a day.
    private static let longEntries = Result {
        try Fixture { sandbox in
            let filler = String(repeating: "The sea was calm and we walked along the harbour, talking. ", count: 845)
            let days = ISO8601DateFormatter()
            days.timeZone = TimeZone(identifier: "UTC")
            let entries: [[String: Any]] = (0..<600).map { index in
                ["id": String(format: "00000000-0000-4000-8000-%012d", index),
                 "created_at": days.string(from: Date(timeIntervalSince1970: 1_704_096_000 + Double(index) * 86_400)).dropLast() + "+00:00",
                 "content": "Long entry \(index).\n" + filler]
            }
            let file = try sandbox.folder.write("long.json", try JSONSerialization.data(withJSONObject: ["format": "jv-export", "version": 1, "entries": entries]))
            try Sandbox.requireSuccess(try sandbox.run(["import", file, "--format", "json"]))
            return [:]
        }
    }

    @Test("a listing or export of long entries stays within 64 MiB: batches end at a byte bound as well as at a count",
          .tags(.slow), .notInQuickRun)
    func longEntriesStayWithinTheMemoryBound() throws {
        let fixture = try Self.longEntries.get()
        let sandbox = try Sandbox(from: fixture)
        // Opened with the recovery key: Argon2id's own 64 MiB is no part of a listing's memory.
        let key = try sandbox.folder.write("recovery.txt", fixture.recoveryKey)
        for arguments in [["list"], ["search", "harbour"], ["export", "--format", "txt"]] {
            let child = try sandbox.start(arguments + ["--recovery-key-file", key], env: ["JV_PASSPHRASE_FILE": nil])
            var peakKiB = 0
            // VmHWM is the process's peak resident memory so far; a process that has ended has none.
            while let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) {
                peakKiB = max(peakKiB, Int(line.filter(\.isNumber)) ?? 0)
                usleep(1_000)
            }
            let result = child.wait()
            #expect(result.status == 0 && result.out.contains("Long entry 599."), "\(arguments): \(result.err)")
            #expect(peakKiB > 0 && peakKiB <= 64 << 10, "\(arguments): peak \(peakKiB >> 10) MiB")
        }
    }
}
