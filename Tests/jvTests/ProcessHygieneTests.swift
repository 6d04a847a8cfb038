import Foundation
import Testing

/// SPEC §3.7: the CLI sets umask(077) and disables core dumps, whatever its parent had.
@Suite("Process hygiene", .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs /proc"))
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
}
