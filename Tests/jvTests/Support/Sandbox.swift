// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One test's world: a temporary folder holding `HOME`, the vault and a passphrase file, and a
/// minimal environment for `jv` (PATH, HOME, TZ, LANG, `JV_VAULT`, `JV_PASSPHRASE_FILE`).
/// Every test makes its own, so tests can run in parallel.
final class Sandbox: @unchecked Sendable {
    static let passphrase = "correct horse battery staple"

    let folder: TemporaryFolder
    let binary: String
    /// `JV_VAULT`: `<folder>/vault/journal.vault` (its folder does not exist before `jv init`).
    let vault: String
    let home: String
    /// `XDG_RUNTIME_DIR`: a private folder on tmpfs (`/dev/shm`), where jv puts the editor's
    /// file and its scratch files.
    let runtime: TemporaryFolder
    let passphraseFile: String
    /// The environment every run starts from; tests may change it.
    var environment: [String: String]

    /// A sandbox whose vault starts as a copy of `fixture`'s (same passphrase, same recovery key).
    convenience init(from fixture: Fixture, timeZone: String = "UTC") throws {
        try self.init(timeZone: timeZone)
        try install(fixture)
    }

    init(timeZone: String = "UTC") throws {
        binary = try JV.requireBinary()
        folder = try TemporaryFolder()
        vault = folder.file("vault/journal.vault")
        home = folder.file("home")
        // On tmpfs where there is one (jv puts the editor's file only on tmpfs or ramfs).
        runtime = try TemporaryFolder(prefix: "jvTests-runtime", in: access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory())
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file(".io"), withIntermediateDirectories: true)
        passphraseFile = try folder.write("passphrase.txt", Self.passphrase + "\n")
        environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "TZ": timeZone,
            "LANG": "C.UTF-8",
            "JV_VAULT": vault,
            "JV_PASSPHRASE_FILE": passphraseFile,
            "XDG_RUNTIME_DIR": runtime.path,
            // Debug builds of jv keep each Argon2id result here (VaultCrypto's TestKDFCache), so
            // a vault unlocked by many commands pays its key derivation once.
            "JV_TEST_KDF_CACHE": Self.kdfCache,
        ]
    }

    /// One folder for the whole test run's Argon2id results (see `TestKDFCache`).
    static let kdfCache = NSTemporaryDirectory() + "/jv-test-kdf-cache-\(getuid())"

    /// Hidden copies of the vault, or of a backup in the making, left in the vault's folder,
    /// the sandbox's folder or the runtime folder (a killed command leaves none that
    /// the next writing command does not remove).
    func leftoverCopies() throws -> [String] {
        let markers = [".creating-", ".snapshot-", ".restoring-", ".verifying-", ".writing-"]
        return try [URL(fileURLWithPath: vault).deletingLastPathComponent().path, folder.path, runtime.path].flatMap { place in
            try FileManager.default.contentsOfDirectory(atPath: place)
                .filter { name in name.hasPrefix(".") && markers.contains { name.contains($0) } }
                .map { place + "/" + $0 }
        }
    }

    /// The environment with `changes` applied (a nil value removes the variable).
    func environment(_ changes: [String: String?]) -> [String: String] {
        var result = environment
        for (name, value) in changes { result[name] = value }
        return result
    }

    /// Starts `jv` with `arguments`; see ``run(_:stdin:env:umask022:timeout:)``.
    func start(_ arguments: [String], stdin: Data? = nil, env: [String: String?] = [:], umask022: Bool = false) throws -> ChildProcess {
        if umask022 {
            return try JV.spawn(executable: "/bin/sh", arguments: ["-c", "umask 022; exec \"$0\" \"$@\"", binary] + arguments,
                                environment: environment(env), stdin: stdin, ioFolder: folder.file(".io"))
        }
        return try JV.spawn(executable: binary, arguments: arguments, environment: environment(env), stdin: stdin,
                            ioFolder: folder.file(".io"))
    }

    /// Runs `jv` to completion. `stdin` nil connects `/dev/null`; `env` changes the sandbox
    /// environment for this run (nil removes a variable); `umask022` runs it from a shell with
    /// `umask 022` (the usual login default), to show `jv` does not rely on the caller's umask.
    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil, env: [String: String?] = [:], umask022: Bool = false,
             timeout: TimeInterval = 90) throws -> JVResult {
        try start(arguments, stdin: stdin, env: env, umask022: umask022).wait(timeout: timeout)
    }

    /// Runs `jv` with text on standard input.
    @discardableResult
    func run(_ arguments: [String], input: String, env: [String: String?] = [:]) throws -> JVResult {
        try run(arguments, stdin: Data(input.utf8), env: env)
    }

    /// Runs any program with the sandbox's environment.
    @discardableResult
    func runTool(_ executable: String, _ arguments: [String], stdin: Data? = nil, env: [String: String?] = [:]) throws -> JVResult {
        try JV.spawn(executable: executable, arguments: arguments, environment: environment(env), stdin: stdin,
                     ioFolder: folder.file(".io")).wait()
    }

    /// Runs `jv arguments` on a pseudo-terminal (script(1)): jv colours its output there, and
    /// `jv add` without text opens the editor.
    func onTerminal(_ arguments: [String], env: [String: String?] = [:]) throws -> JVResult {
        let script = try #require(JV.tool("script"))
        let command = ([binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try runTool(script, ["-qec", command, "/dev/null"], env: env.merging(["SHELL": "/bin/sh"]) { $1 })
    }

    // MARK: Shortcuts that must succeed

    /// `jv init --kdf <kdf> --json`; returns the recovery key.
    @discardableResult
    func initVault(kdf: String = "interactive") throws -> String {
        let result = try run(["init", "--kdf", kdf, "--json"])
        try Self.requireSuccess(result)
        guard let key = try result.object()["recovery_key"] as? String else { throw HarnessError("no recovery_key: \(result)") }
        return key
    }

    /// Like ``initVault(kdf:)``, but the vault is a copy of one made by `jv init --kdf interactive`
    /// once per test run (``Fixture/empty()``): Argon2 and process start-up dominate the
    /// suite's time, and only tests about `init` itself need a vault of their own making.
    /// Every such vault has the same vault id, master key and recovery key.
    @discardableResult
    func installEmptyVault() throws -> String {
        try install(Fixture.empty())
    }

    /// Puts a copy of `fixture`'s vault at ``vault`` (its folder 0700, the file 0600, as jv makes them).
    @discardableResult
    func install(_ fixture: Fixture, at path: String? = nil) throws -> String {
        let target = path ?? vault
        let folderPath = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        guard FileManager.default.createFile(atPath: target, contents: fixture.vaultBytes, attributes: [.posixPermissions: 0o600]) else {
            throw HarnessError("cannot write \(target)")
        }
        return fixture.recoveryKey
    }

    /// Hidden files (temporaries) anywhere under `folder`.
    func hiddenFiles(in folder: String) throws -> [String] {
        try (FileManager.default.subpathsOfDirectory(atPath: folder)).filter { ($0 as NSString).lastPathComponent.hasPrefix(".") }
    }

    /// `jv add` with `text` as one argument (plus `options`); returns the new entry's id.
    @discardableResult
    func add(_ text: String, _ options: [String] = []) throws -> String {
        let result = try run(["add"] + options + ["--", text])
        try Self.requireSuccess(result)
        let id = result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        guard UUID(uuidString: id) != nil else { throw HarnessError("add did not print an id: \(result)") }
        return id
    }

    /// `jv add --json` from arguments; returns the printed entry.
    func addJSON(_ text: String, _ options: [String] = []) throws -> [String: Any] {
        let result = try run(["add", "--json"] + options + ["--", text])
        try Self.requireSuccess(result)
        return try result.object()
    }

    /// `jv list --json` with `options`; returns the entries.
    func list(_ options: [String] = []) throws -> [[String: Any]] {
        let result = try run(["list", "--json"] + options)
        try Self.requireSuccess(result)
        return try result.array()
    }

    /// `jv show --json ID`.
    func show(_ id: String) throws -> [String: Any] {
        let result = try run(["show", "--json", id])
        try Self.requireSuccess(result)
        return try result.object()
    }

    /// The number of entries according to `jv info --json` (no passphrase needed).
    func entryCount() throws -> Int {
        let result = try run(["info", "--json"], env: ["JV_PASSPHRASE_FILE": nil])
        try Self.requireSuccess(result)
        guard let counts = try result.object()["counts"] as? [String: Any], let entries = counts["entries"] as? Int else {
            throw HarnessError("info --json has no counts.entries: \(result)")
        }
        return entries
    }

    /// Runs `sql` on the vault file with the sqlite3 command-line shell (tampering tests).
    @discardableResult
    func sqlite(_ sql: String) throws -> String {
        guard let sqlite3 = JV.tool("sqlite3") else { throw HarnessError("sqlite3 is not installed") }
        return try SQLiteShell.run(sqlite3, vault: vault, sql)
    }

    // MARK: Runs checked where the test calls them

    /// Runs `jv` with `input` (if any) on standard input and requires exit status 0.
    @discardableResult
    func ok(_ arguments: [String], input: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> JVResult {
        let result = try run(arguments, stdin: input.map { Data($0.utf8) })
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs `jv` and expects exit status `status`, with something said on standard error and no crash.
    @discardableResult
    func fails(_ arguments: [String], status: Int32, input: String? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) throws -> JVResult {
        let result = try run(arguments, stdin: input.map { Data($0.utf8) })
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(!result.err.isEmpty, "\(result)", sourceLocation: sourceLocation)
        #expect(!result.err.contains("Fatal error"), "\(result)", sourceLocation: sourceLocation)
        return result
    }

    static func requireSuccess(_ result: JVResult) throws {
        if result.status != 0 {
            throw HarnessError("expected success: \(result)")
        }
    }
}

/// A vault prepared once per test run by really running `jv` (init, adds), kept as bytes so
/// that each test starts from its own copy. `values` holds what the preparation wants to
/// remember, e.g. entry ids by name.
final class Fixture: Sendable {
    let vaultBytes: Data
    let recoveryKey: String
    let values: [String: String]

    /// Runs `prepare` on a fresh vault (made by `jv init --kdf interactive`) and keeps the result.
    init(_ prepare: (Sandbox) throws -> [String: String]) throws {
        let sandbox = try Sandbox()
        recoveryKey = try sandbox.initVault()
        values = try prepare(sandbox)
        // Every jv process has exited: the WAL is checkpointed into the file and removed.
        if let wal = try? FileManager.default.attributesOfItem(atPath: sandbox.vault + "-wal"), (wal[.size] as? Int ?? 0) > 0 {
            throw HarnessError("a WAL file is left beside the fixture vault")
        }
        guard let bytes = FileManager.default.contents(atPath: sandbox.vault) else { throw HarnessError("no vault file") }
        vaultBytes = bytes
    }

    subscript(_ name: String) -> String { values[name] ?? "missing fixture value \(name)" }

    /// A vault with no entries.
    static func empty() throws -> Fixture { try emptyVault.get() }
    private static let emptyVault = Result { try Fixture { _ in [:] } }
}

// MARK: Small helpers

extension Array where Element == [String: Any] {
    /// The `id` of each entry, in order.
    var ids: [String] { map { $0["id"] as? String ?? "?" } }
    /// The `content` of each entry, in order.
    var contents: [String] { map { $0["content"] as? String ?? "?" } }
}

/// Today's calendar day in `zone`, plus `days`, as YYYY-MM-DD.
func civilDay(offsetBy days: Int = 0, zone: TimeZone = TimeZone(identifier: "UTC")!) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let date = calendar.date(byAdding: .day, value: days, to: Date())!
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
}

/// The recovery key format printed by `jv init` and `jv recovery-key`.
let recoveryKeyPattern = "^JVR1(-[a-z2-7]{4}){14}$"

/// The 36-character lowercase UUID form `jv` prints.
let uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

/// Whether `text` contains a match of the regular expression `pattern` (anchor it with ^…$ for the whole text).
func matches(_ text: String, _ pattern: String) -> Bool {
    text.range(of: pattern, options: .regularExpression) != nil
}

/// Whether `haystack` contains the bytes of `needle`.
func containsBytes(_ haystack: Data, _ needle: Data) -> Bool {
    haystack.range(of: needle) != nil
}
