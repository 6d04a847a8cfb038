// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
@testable import JVCommandLine
import Testing

/// Every command names itself. Without a name, argument-parser derives one with
/// `String(describing:)` of the type, and the Swift runtime answers each such call by scanning
/// every protocol conformance of the static binary — about 26 million instructions, the larger
/// part of every `jv` process's start-up, spent before a single argument is read.
@Suite("Command names", .tags(.inProcess))
struct CommandNamesTests {
    /// The command tree below `command`, depth first.
    static func tree(_ command: ParsableCommand.Type) -> [ParsableCommand.Type] {
        [command] + command.configuration.subcommands.flatMap { tree($0) }
    }

    @Test("Each command of jv's tree sets commandName, and it is the word users type")
    func everyCommandIsNamed() {
        let commands = Self.tree(JV.self)
        #expect(commands.count > 30)
        for command in commands {
            #expect(command.configuration.commandName != nil, "\(command) has no commandName")
            #expect(command.configuration.commandName?.allSatisfy { $0.isLowercase || $0 == "-" } == true)
        }
        #expect(UnknownCommand.commandNames.contains("restore") && UnknownCommand.commandNames.contains("passwd"))
    }
}
