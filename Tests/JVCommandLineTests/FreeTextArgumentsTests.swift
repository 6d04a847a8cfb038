// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import Testing

/// Text that starts with '-' given to `jv add`, `jv search` or `jv chat add`: stored as text
/// (passed after `--`), while the command's own options stay options and a mistyped option is
/// refused rather than written.
@Suite("Free text arguments", .tags(.inProcess))
struct FreeTextArgumentsTests {
    @Test("Words that start with '-' but name no option are text", arguments: [
        (["add", "--star", "-5 degrees"], ["add", "--star", "--", "-5 degrees"]),
        (["add", "-5", "degrees", "this", "morning"], ["add", "--", "-5", "degrees", "this", "morning"]),
        (["add", "-", "bought", "milk"], ["add", "--", "-", "bought", "milk"]),
        (["search", "-40 °C"], ["search", "--", "-40 °C"]),
        (["chat", "add", "abcd", "-3 °C"], ["chat", "add", "--", "abcd", "-3 °C"]),
        (["add", "--", "--star", "is text"], ["add", "--", "--star", "is text"]),
    ])
    func textAfterDashes(given: [String], separated: [String]) throws {
        #expect(try FreeTextArguments.separated(given) == separated)
    }

    @Test("An option's value may start with '-': it is joined to the option's long name")
    func optionValues() throws {
        #expect(try FreeTextArguments.separated(["add", "--at", "-1d", "text"]) == ["add", "--at=-1d", "--", "text"])
        #expect(try FreeTextArguments.separated(["add", "--tag", "work", "-x is text"]) == ["add", "--tag", "work", "--", "-x is text"])
        #expect(try FreeTextArguments.separated(["add", "-j", "-w", "text"]) == ["add", "--journal=-w", "--", "text"])
    }

    @Test("Commands that take no free text, and free text without dashes, are untouched")
    func untouched() throws {
        for arguments in [["list", "-n", "5"], ["add", "plain", "words"], ["export", "--format", "json"]] {
            #expect(try FreeTextArguments.separated(arguments) == arguments)
        }
    }

    @Test("A word shaped like an option the command lacks is refused, saying how to write it as text")
    func mistypedOptions() {
        #expect(usageRefusal { try FreeTextArguments.separated(["add", "--stra", "text"]) }
                == "jv add has no option '--stra'; for text that starts with '-', put '--' before it: jv add -- '--stra'")
        #expect(usageRefusal { try FreeTextArguments.separated(["chat", "add", "abcd", "-x"]) }
                == "jv chat add has no option '-x'; for text that starts with '-', put '--' before it: jv chat add -- '-x'")
    }

    @Test("A command's options are read from argument-parser's own description of it")
    func optionNames() throws {
        let options = FreeTextArguments.optionNames(of: Add.self)
        #expect(options["--at"]?.takesValue == true)
        #expect(options["--star"]?.takesValue == false)
        #expect(options["-j"]?.long == "--journal")
        #expect(options["--help"] != nil && options["--version"] != nil)
        #expect(FreeTextArguments.command(in: ["chat", "add", "x"]).depth == 2)
        #expect(ObjectIdentifier(FreeTextArguments.command(in: ["chat", "add", "x"]).type) == ObjectIdentifier(ChatAdd.self))
    }
}
