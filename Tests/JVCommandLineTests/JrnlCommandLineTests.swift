// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import Testing

/// jrnl's command line read as jv's (`alias jrnl=jv`): what `JrnlCommandLine.translated` hands
/// to jv's own parser, and the jrnl forms it refuses with the jv way to do them.
@Suite("jrnl's command line", .tags(.inProcess))
struct JrnlCommandLineTests {
    @Test("A jv command line, or none, is left as it is")
    func jvCommandLines() throws {
        for arguments in [[], ["list", "-n", "5"], ["add", "-n"], ["--version"], ["--help"], ["help", "list"]] {
            #expect(try JrnlCommandLine.translated(arguments) == arguments)
        }
        #expect(try JrnlCommandLine.translated(["help", "jrnl"]) == ["jrnl"])
    }

    @Test("Filters and tags make a listing, in jv's spelling", arguments: [
        (["-n", "5", "@anna"], ["list", "-n", "5", "--any-tag", "@anna"]),
        (["-3"], ["list", "-n", "3"]),
        (["@anna", "-and", "#bob"], ["list", "--tag", "@anna", "--tag", "#bob"]),
        (["-from", "2026-01-01", "-until", "today", "-starred"], ["list", "--from", "2026-01-01", "--to", "today", "--starred"]),
        (["-year", "2025", "-not", "work"], ["list", "--on", "2025", "--not-tag", "work"]),
        (["-today-in-history"], ["list", "--on-this-day", "today"]),
        (["--format", "md", "-contains", "harbour"], ["list", "--format", "markdown", "--contains", "harbour"]),
        (["--tags", "-from", "2026-01-01"], ["tags", "--from", "2026-01-01"]),
        (["--edit", "-on", "yesterday"], ["edit", "--on", "yesterday"]),
        (["--vault", "/v.vault", "-n", "2"], ["list", "--vault", "/v.vault", "-n", "2"]),
    ])
    func listings(given: [String], translated: [String]) throws {
        #expect(try JrnlCommandLine.translated(given) == translated)
    }

    @Test("Other words are a new entry, its text after '--'")
    func entries() throws {
        #expect(try JrnlCommandLine.translated(["Went", "out", "*"]) == ["add", "--", "Went", "out", "*"])
        #expect(try JrnlCommandLine.translated(["@anna", "came", "by"]) == ["add", "--", "@anna", "came", "by"])
        #expect(try JrnlCommandLine.translated(["--template", "daily", "Notes"]) == ["add", "--template", "daily", "--", "Notes"])
        // Everyday words near a short command's name are text: "was" is two edits from "tags".
        #expect(try JrnlCommandLine.translated(["was", "snowing"]) == ["add", "--", "was", "snowing"])
    }

    @Test("A command mistyped is left for 'did you mean', not written as an entry")
    func mistypedCommands() throws {
        for arguments in [["lsit"], ["serach", "harbour"], ["exprot", "notes"], ["shwo", "abcd"], ["version"]] {
            #expect(try JrnlCommandLine.translated(arguments) == arguments)
        }
    }

    @Test("A jrnl form jv has no meaning for is refused with the jv way to do it")
    func refusals() {
        #expect(usageRefusal { try JrnlCommandLine.translated(["--delete"]) }
                == "jv deletes one entry with 'jv delete ID'; several: 'jv edit --from D --to D' and remove them in the editor.")
        #expect(usageRefusal { try JrnlCommandLine.translated(["-n"]) } == "jrnl's -n takes a value.")
        #expect(usageRefusal { try JrnlCommandLine.translated(["-n", "2", "walk"]) }
                == "jrnl reads the words among its filters as tags: write them '@tag' ('jv help jrnl' lists what jv reads).")
        #expect(usageRefusal { try JrnlCommandLine.translated(["--format", "yaml"]) }
                == "jv lists entries as text, short, fancy, json or markdown; 'jv export --format' writes json, markdown, txt or jrnl-json.")
        #expect(usageRefusal { try JrnlCommandLine.translated(["-not", "-starred"]) }
                == "jv has no -not -starred; jrnl's -not @tag is 'jv list --not-tag tag'.")
        #expect(usageRefusal { try JrnlCommandLine.translated(["--tags", "-n", "3"]) }
                == "jv tags counts tags of a period only: 'jv tags --from D --to D'.")
        // An option typed with an escape sequence is shown, not sent to the terminal.
        #expect(usageRefusal { try JrnlCommandLine.translated(["-x\u{1B}]0;owned\u{07}"]) }
                == "Neither jv nor jrnl has an option '-x^[]0;owned^G'; 'jv help' lists jv's commands, 'jv help jrnl' what jv reads of jrnl's.")
    }
}
