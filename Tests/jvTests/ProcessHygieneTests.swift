// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// SECURITY.md: the CLI sets umask(077) and disables core dumps, whatever its parent had.
@Suite("Process hygiene", .tags(.e2e), .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs /proc"))
struct ProcessHygieneTests {
    @Test("a running jv has umask 0077 and a core-file limit of 0, even when started with umask 022")
    func umaskAndCoreLimit() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        // The passphrase command keeps jv alive (waiting for it) long enough to look at it.
        let command = "sleep 2; cat '\(sandbox.passphraseFile)'"
        // Started through `sh -c 'umask 022; exec jv …'`: the same process id, and the usual umask.
        let child = try sandbox.start(["list", "--passphrase-command", command], env: ["JV_PASSPHRASE_FILE": nil], umask022: true)
        var status = "", limits = ""
        let deadline = Date().addingTimeInterval(1.8)
        repeat {
            usleep(20_000)
            status = (try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)) ?? ""
            limits = (try? String(contentsOfFile: "/proc/\(child.pid)/limits", encoding: .utf8)) ?? ""
        } while !(status.contains("Umask:\t0077") && coreLimitIsZero(limits)) && Date() < deadline
        let result = child.wait()
        #expect(result.status == 0, "\(result)")
        #expect(status.contains("Umask:\t0077"), "\(status.split(separator: "\n").filter { $0.hasPrefix("Umask") })")
        #expect(coreLimitIsZero(limits), "\(limits.split(separator: "\n").filter { $0.contains("core") })")
    }

    private func coreLimitIsZero(_ limits: String) -> Bool {
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") }) else { return false }
        let fields = line.dropFirst("Max core file size".count).split(separator: " ")
        return fields.count >= 2 && fields[0] == "0" && fields[1] == "0"
    }

    @Test("entry text given as an argument is wiped from /proc/PID/cmdline while jv runs, and still saved")
    func argumentsAreWipedFromTheCommandLine() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let secret = "Words for nobody else"
        let command = "sleep 1.5; cat '\(sandbox.passphraseFile)'"
        let child = try sandbox.start(["add", secret, "--passphrase-command", command], env: ["JV_PASSPHRASE_FILE": nil])
        var seen: [Data] = []
        let deadline = Date().addingTimeInterval(1.2)
        repeat {
            usleep(50_000)
            if let cmdline = FileManager.default.contents(atPath: "/proc/\(child.pid)/cmdline") { seen.append(cmdline) }
        } while Date() < deadline
        let result = child.wait()
        #expect(result.status == 0, "\(result)")
        // The first look may come before jv has started; from the second on, it must be wiped.
        #expect(seen.count >= 2)
        for cmdline in seen.dropFirst() {
            #expect(cmdline.range(of: Data(secret.utf8)) == nil, "\(String(decoding: cmdline, as: UTF8.self))")
            #expect(cmdline.range(of: Data("sleep".utf8)) == nil, "every argument is wiped, options too")
        }
        #expect(try sandbox.list().contents == [secret])
    }

    @Test("a crash signal ends jv on a terminal at once: no backtrace, no prompt, nothing of its memory printed",
          .enabled(if: JV.tool("script") != nil, "needs script(1) to give jv a terminal"))
    func crashEndsAtOnce() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let script = try #require(JV.tool("script"))
        let pidFile = sandbox.folder.file("jv.pid")
        let environment = sandbox.environment(["JV_PASSPHRASE_FILE": nil, "JVT_PID": pidFile, "JVT_JV": sandbox.binary,
                                               "SHELL": "/bin/sh", "TERM": "xterm"])
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            unlink(pidFile)
            // jv waits at its passphrase prompt, on the pseudo-terminal script(1) gives it.
            let child = try JV.spawn(executable: script, arguments: ["-qec", #"echo $$ > "$JVT_PID"; exec "$JVT_JV" list --no-agent"#, "/dev/null"],
                                     environment: environment, stdin: nil, ioFolder: sandbox.folder.file(".io"))
            let pid = try #require(waitForPrompt(child, pidFile: pidFile), "jv did not reach its prompt")
            kill(pid, signal)
            let signalled = Date()
            let result = child.wait(timeout: 20)
            let jvLeft = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"))
                == URL(fileURLWithPath: sandbox.binary).resolvingSymlinksInPath().path
            if jvLeft { kill(pid, SIGKILL) }
            #expect(!jvLeft && Date().timeIntervalSince(signalled) < 5, "signal \(signal) did not end jv at once")
            let printed = result.out.components(separatedBy: "Passphrase:").dropFirst().joined()
            #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "signal \(signal) printed: \(printed.prefix(600))")
        }
    }

    /// The pid of the jv that `child` (script(1)) runs, once it shows its passphrase prompt.
    private func waitForPrompt(_ child: ChildProcess, pidFile: String) -> Int32? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let shown = (try? String(contentsOfFile: child.stdoutPath, encoding: .utf8)) ?? ""
            if shown.contains("Passphrase:"), let text = try? String(contentsOfFile: pidFile, encoding: .utf8) {
                return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            usleep(20_000)
        }
        return nil
    }

    @Test("invalid UTF-8 in an argument is refused with 65, as on standard input, and nothing is stored")
    func invalidUTF8ArgumentIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        for arguments in [#""$JVT_JV" add "$(printf 'bad \377 byte')""#, #""$JVT_JV" add "$(printf 'cut \342\202')""#,
                          #""$JVT_JV" search "$(printf '\300\200')""#] {
            let result = try sandbox.runTool("/bin/sh", ["-c", arguments], env: ["JVT_JV": sandbox.binary])
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.err.contains("not valid UTF-8"), "\(result)")
        }
        #expect(try sandbox.entryCount() == 0)
    }

}
