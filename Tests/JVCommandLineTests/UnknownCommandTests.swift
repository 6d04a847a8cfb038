// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import Testing

/// A first word that names no command: "did you mean" the nearest command when one is close.
@Suite("Unknown commands", .tags(.inProcess))
struct UnknownCommandTests {
    @Test("A typo names the nearest command; a word far from every command points to 'jv help'")
    func messages() {
        #expect(UnknownCommand.message(for: ["lst"]) == "No command 'lst'; did you mean 'list'? ('jv help' lists the commands.)")
        #expect(UnknownCommand.message(for: ["lst", "today"])
                == "No command 'lst'; did you mean 'list'? ('jv add TEXT' writes an entry that starts with that word.)")
        #expect(UnknownCommand.message(for: ["lst", "--json"]) == "No command 'lst'; did you mean 'list'? ('jv help' lists the commands.)")
        #expect(UnknownCommand.message(for: ["help", "shwo"]) == "No command 'shwo'; did you mean 'show'? ('jv help' lists the commands.)")
        #expect(UnknownCommand.message(for: ["xyzzy"]) == "No command 'xyzzy'; 'jv help' lists the commands.")
        #expect(UnknownCommand.message(for: ["version"]) == "No command 'version'; did you mean 'jv --version'?")
        #expect(UnknownCommand.message(for: ["l\u{1B}[2Jst"]) == "No command 'l^[[2Jst'; 'jv help' lists the commands.")
    }

    @Test("Commands, help on a command and options are not refused")
    func known() {
        for arguments in [["list"], ["help"], ["help", "sync"], ["--json"], [], ["sync", "init", "x"]] {
            #expect(UnknownCommand.message(for: arguments) == nil, "\(arguments)")
        }
    }

    @Test("Distance counts a swap of neighbouring letters as one typo, ignoring case")
    func distance() {
        #expect(UnknownCommand.distance("lsit", "list") == 1)
        #expect(UnknownCommand.distance("lsit", "init") == 2)
        #expect(UnknownCommand.distance("LIST", "list") == 0)
        #expect(UnknownCommand.distance("", "show") == 4)
        #expect(UnknownCommand.distance("exprot", "export") == 1)
    }

    @Test("Only a near miss of a command, in lower case, counts as mistyped among words of text")
    func mistypedAmongWords() {
        for word in ["serach", "exprot", "delte", "lsit", "shwo", "tgas"] {
            #expect(UnknownCommand.isMistypedCommand(word), "\(word)")
        }
        for word in ["was", "last", "into", "snow", "Serach", "2026", "lst"] {
            #expect(!UnknownCommand.isMistypedCommand(word), "\(word)")
        }
    }
}
