// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A sandbox with a jrnl 4.6 configuration (FORMAT.md §9's defaults: `%F %r`, tags `#@`, no
/// encryption), its journal file and HOME inside it; jrnl runs with TZ=UTC, as `Sandbox` runs jv,
/// and standard input from /dev/null.
///
/// jrnl is the one `make test-deps` installs (scripts/ensure-jrnl.sh, in
/// `.build-tools/jrnl`), or `$JV_TEST_JRNL`. Without it a test fails, naming `make test-deps`:
/// the comparisons with jrnl are part of what the suite shows, not an extra.
struct JrnlWorld {
    let sandbox: Sandbox
    let config: String
    let journal: String

    init(journal text: String = "") throws {
        sandbox = try Sandbox()
        journal = try sandbox.folder.write("jrnl/journal.txt", text)
        config = try sandbox.folder.write("jrnl/jrnl.yaml", """
            colors: {body: none, date: none, tags: none, title: none}
            default_hour: 9
            default_minute: 0
            editor: ''
            encrypt: false
            highlight: true
            indent_character: '|'
            journals:
              default:
                journal: \(journal)
            linewrap: 79
            tagsymbols: '#@'
            template: false
            timeformat: '%F %r'
            version: v4.6

            """)
    }

    func jrnl(_ arguments: [String], stdin: Data? = nil) throws -> JVResult {
        try sandbox.runTool(try Self.executable(), ["--config-file", config] + arguments, stdin: stdin, env: ["TZ": "UTC"])
    }

    /// `$JV_TEST_JRNL`, else `<repository>/.build-tools/jrnl/bin/jrnl`, checked to be jrnl 4.6.
    static func executable() throws -> String {
        try found.get()
    }

    private static let found: Result<String, HarnessError> = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let executable = ProcessInfo.processInfo.environment["JV_TEST_JRNL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? repository.appendingPathComponent(".build-tools/jrnl/bin/jrnl").path
        let hint = "run 'make test-deps' (it installs jrnl 4.6 from PyPI into .build-tools/jrnl), or set JV_TEST_JRNL"
        guard access(executable, X_OK) == 0 else { return .failure(HarnessError("jrnl is not installed at \(executable): \(hint).")) }
        let io = NSTemporaryDirectory() + "/jv-jrnl-version-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: io) }
        do {
            try FileManager.default.createDirectory(atPath: io, withIntermediateDirectories: true)
            let version = try JV.spawn(executable: executable, arguments: ["--version"], environment: ProcessInfo.processInfo.environment,
                                       stdin: nil, ioFolder: io).wait(timeout: 60)
            guard version.out.hasPrefix("jrnl v4.6\n") else {
                return .failure(HarnessError("\(executable) is not jrnl 4.6 (\(version.out.prefix(40))): \(hint)."))
            }
        } catch {
            return .failure(HarnessError("\(executable) --version failed (\(error)): \(hint)."))
        }
        return .success(executable)
    }()
}
