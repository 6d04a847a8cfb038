// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The XDG folders jv uses follow the XDG Base Directory specification's rule, all alike: an
/// absolute `$XDG_…` value is used; a relative or empty one is invalid and ignored, so the
/// default is used — never a folder named relative to wherever jv was started.
@Suite("XDG folders")
struct XDGFolderTests {
    /// Runs `jv arguments` with `folder` as its working folder, where a relative `$XDG_…` value
    /// would lead.
    private func run(_ sandbox: Sandbox, in folder: String, _ arguments: [String], env: [String: String?]) throws -> JVResult {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try sandbox.runTool("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", folder, sandbox.binary] + arguments, env: env)
    }

    /// The vault `jv info` opens, run from `folder`.
    private func vaultPath(_ sandbox: Sandbox, in folder: String, env: [String: String?]) throws -> String? {
        let result = try run(sandbox, in: folder, ["info", "--json"], env: env.merging(["JV_VAULT": nil]) { $1 })
        try Sandbox.requireSuccess(result)
        return try result.object()["path"] as? String
    }

    @Test("$XDG_CONFIG_HOME: a relative or empty value is ignored and ~/.config/jv/config.toml read; an absolute one is used")
    func configHome() throws {
        let sandbox = try Sandbox()
        let work = sandbox.folder.file("work")
        try sandbox.folder.write("home/.config/jv/config.toml", "vault = '~/default.vault'\n")
        try sandbox.folder.write("work/relative/jv/config.toml", "vault = '~/relative.vault'\n")
        try sandbox.install(Fixture.empty(), at: sandbox.home + "/default.vault")
        try sandbox.install(Fixture.empty(), at: sandbox.home + "/relative.vault")
        for value in ["relative", "./relative", ""] {
            #expect(try vaultPath(sandbox, in: work, env: ["XDG_CONFIG_HOME": value]) == sandbox.home + "/default.vault", "\(value)")
        }
        #expect(try vaultPath(sandbox, in: work, env: ["XDG_CONFIG_HOME": work + "/relative"]) == sandbox.home + "/relative.vault")
    }

    @Test("$XDG_DATA_HOME: a relative or empty value is ignored and the default vault is ~/.local/share/jv/journal.vault")
    func dataHome() throws {
        let sandbox = try Sandbox()
        let work = sandbox.folder.file("work")
        let noConfig = ["XDG_CONFIG_HOME": sandbox.folder.file("no-config")]
        let standard = sandbox.home + "/.local/share/jv/journal.vault"
        try sandbox.install(Fixture.empty(), at: standard)
        try sandbox.install(Fixture.empty(), at: work + "/data/jv/journal.vault")
        for value in ["data", ""] {
            #expect(try vaultPath(sandbox, in: work, env: noConfig.merging(["XDG_DATA_HOME": value]) { $1 }) == standard, "\(value)")
        }
        #expect(try vaultPath(sandbox, in: work, env: noConfig.merging(["XDG_DATA_HOME": work + "/data"]) { $1 })
                == work + "/data/jv/journal.vault")
    }

    @Test("$XDG_STATE_HOME: with a relative value the high-water mark is kept in ~/.local/state/jv")
    func stateHome() throws {
        let sandbox = try Sandbox()
        let work = sandbox.folder.file("work")
        try sandbox.installEmptyVault()
        try Sandbox.requireSuccess(try run(sandbox, in: work, ["add", "An entry."], env: ["XDG_STATE_HOME": "state"]))
        #expect(FileManager.default.fileExists(atPath: sandbox.home + "/.local/state/jv/high-water"))
        #expect(!FileManager.default.fileExists(atPath: work + "/state"), "nothing is written relative to the working folder")
    }

    @Test("$XDG_RUNTIME_DIR: a relative value is ignored, even naming a tmpfs folder: the editor's file goes to /dev/shm",
          .enabled(if: access("/dev/shm", W_OK) == 0, "needs a writable /dev/shm"))
    func runtimeDirectory() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        try sandbox.add("An entry.")
        // On tmpfs, so that only its being relative can make jv pass it over.
        let work = sandbox.runtime.file("work")
        try FileManager.default.createDirectory(atPath: work + "/runtime", withIntermediateDirectories: true)
        let opened = sandbox.folder.file("editor.opened")
        let editor = try sandbox.folder.write("editor.sh", """
            for f in "$@"; do :; done
            printf '%s' "$f" > '\(opened)'
            """)
        _ = try run(sandbox, in: work, ["edit", "--from", "2000-01-01"], env: ["XDG_RUNTIME_DIR": "runtime", "EDITOR": "/bin/sh " + editor])
        let path = try String(contentsOfFile: opened, encoding: .utf8)
        #expect(path.hasPrefix("/dev/shm/.jv.editing-"), "\(path)")
    }
}
