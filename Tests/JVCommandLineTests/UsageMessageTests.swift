// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
@testable import JVCommandLine
import Testing

/// argument-parser's refusals as jv says them: one sentence naming where the usage is shown.
@Suite("Usage messages", .tags(.inProcess))
struct UsageMessageTests {
    /// What jv prints for `arguments` that argument-parser refuses.
    private func sentence(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            _ = try JV.parseAsRoot(arguments)
            Issue.record("argument-parser accepted \(arguments)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return UsageMessage.sentence(for: JV.message(for: error), arguments: arguments)
        }
    }

    @Test("An unknown option names the one it extends or is a typo of, else only where the options are")
    func unknownOptions() {
        #expect(sentence(["export", "--out", "x"]) == "Unknown option '--out'; did you mean '--output'? ('jv export --help' lists the options.)")
        #expect(sentence(["export", "--on", "today"]) == "Unknown option '--on'; 'jv export --help' lists the options.")
        #expect(sentence(["list", "--josn"]) == "Unknown option '--josn'; did you mean '--json'? ('jv list --help' lists the options.)")
        #expect(sentence(["list", "--\u{1B}[2J"]) == "Unknown option '--^[[2J'; 'jv list --help' lists the options.")
    }

    @Test("A negative count is said as such, not as a missing value")
    func negativeCount() {
        #expect(sentence(["list", "-n", "-3"]) == "-n takes a positive number, not -3.")
    }

    @Test("A mistyped subcommand of a group names the nearest")
    func subcommands() {
        #expect(sentence(["graph", "shw"]) == "No command 'shw' in 'jv graph'; did you mean 'show'? ('jv graph --help' lists them.)")
    }

    @Test("Any other refusal is one line ending with where the usage is")
    func otherRefusals() throws {
        let message = try #require(sentence(["show"]))
        #expect(!message.contains("\n"), "\(message)")
        #expect(message.hasSuffix("; see 'jv show --help'."), "\(message)")
    }
}
