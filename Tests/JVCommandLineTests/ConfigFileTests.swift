// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import JournalVault
import Testing
import VaultCrypto

/// `config.toml` as `Config.parse` reads it: every setting of a good file, and the one-line
/// refusals (file and line, never the line's text) of keys, values and bytes it does not read.
@Suite("Config file", .tags(.inProcess))
struct ConfigFileTests {
    private func parse(_ text: String) throws -> Config {
        try Config.parse(Array(text.utf8), file: "/home/me/.config/jv/config.toml")
    }

    private func refusal(_ text: String) -> String? {
        usageRefusal { try parse(text) }
    }

    private func refusal(bytes: [UInt8]) -> String? {
        usageRefusal { try Config.parse(bytes, file: "config.toml") }
    }

    @Test("A file with every setting, comments, both kinds of string and a [journals] table")
    func goodFile() throws {
        let config = try parse("""
            # My defaults
            vault = "~/journal.vault"   # the usual one
            kdf = 'sensitive'
            editor = "nano\\t-w"
            session = "1h30m"
            color = false
            limit = 20
            time_format = "12h"
            date_order = "dmy"
            images = "sixel"
            image_columns = 60

            [journals]
            work = '/srv/work.vault'
            home = "~/home.vault"\r

            """)
        #expect(config.vault == Config.home + "/journal.vault")
        #expect(config.kdf == .sensitive)
        #expect(config.editor == "nano\t-w")
        #expect(config.session?.seconds == 5400)
        #expect(config.color == false)
        #expect(config.limit == 20)
        #expect(config.timeFormat == .twelveHour)
        #expect(config.dateOrder == .dmy)
        #expect(config.images == .sixel && config.imageColumns == 60)
        #expect(config.journals == ["work": "/srv/work.vault", "home": Config.home + "/home.vault"])
        #expect(try config.journalPath(named: "work") == "/srv/work.vault")
    }

    @Test("An empty file, or one of comments, leaves every default")
    func emptyFile() throws {
        for text in ["", "\n\n", "# nothing yet\n   # still nothing\n"] {
            let config = try parse(text)
            #expect(config.vault == nil && config.kdf == nil && config.limit == nil && config.journals.isEmpty, "\(text.debugDescription)")
        }
    }

    @Test("An unknown key names jv's keys, and the nearest one when it is a typo")
    func unknownKey() {
        #expect(refusal("colour = true\n") == "/home/me/.config/jv/config.toml:1: unknown key (did you mean 'color'?); "
                + "jv reads vault, kdf, editor, session, color, limit, time_format, date_order, images, image_columns and tables [journals], [attachments] and [sync].")
        #expect(refusal("# first\nbackground = 'dark'\n") == "/home/me/.config/jv/config.toml:2: unknown key; "
                + "jv reads vault, kdf, editor, session, color, limit, time_format, date_order, images, image_columns and tables [journals], [attachments] and [sync].")
        #expect(refusal("[themes]\n") == "/home/me/.config/jv/config.toml:1: unknown table; the tables are [journals], [attachments] and [sync].")
    }

    @Test("[sync] attachments takes all, thumbnails or none")
    func syncAttachments() throws {
        #expect(try parse("[sync]\nattachments = \"none\"\n").syncAttachments == AttachmentSyncPolicy.none)
        #expect(try parse("").syncAttachments == nil)
        #expect(refusal("[sync]\nattachments = \"some\"\n") == "/home/me/.config/jv/config.toml:2: 'attachments' must be \"all\", \"thumbnails\" or \"none\".")
        #expect(refusal("[sync]\nfetch = true\n") == "/home/me/.config/jv/config.toml:2: unknown key in [sync]; its one key is 'attachments'.")
    }

    @Test("A value of the wrong kind or out of range is refused with what the key takes")
    func badValues() {
        #expect(refusal("limit = 0\n")?.hasSuffix(":1: 'limit' must be a number of entries, 1 or more.") == true)
        #expect(refusal("limit = \"20\"\n")?.hasSuffix(":1: 'limit' must be an integer, not a string.") == true)
        #expect(refusal("limit = 020\n")?.hasSuffix("'limit' has a value jv does not read; it takes \"strings\" or 'strings' in quotes, integers, and true or false.") == true)
        #expect(refusal("limit = 99999999999999999999\n")?.hasSuffix(":1: the integer value of 'limit' is too large.") == true)
        #expect(refusal("color = 'yes'\n")?.hasSuffix(":1: 'color' must be true or false, not a string.") == true)
        #expect(refusal("kdf = 'fast'\n")?.hasSuffix(":1: 'kdf' must be \"interactive\", \"moderate\" or \"sensitive\".") == true)
        #expect(refusal("images = 'iterm'\n")?.hasSuffix(":1: 'images' must be \"auto\", \"kitty\", \"iterm2\", \"sixel\", \"blocks\" or \"none\".") == true)
        #expect(refusal("image_columns = 0\n")?.hasSuffix(":1: 'image_columns' must be a number of columns, 1 or more.") == true)
        #expect(refusal("time_format = '24'\n")?.hasSuffix(":1: 'time_format' must be \"24h\" or \"12h\".") == true)
        #expect(refusal("session = '9h'\n")?.hasSuffix("'session' must be a length such as \"90s\", \"15m\" or \"1h30m\", at most 8 hours.") == true)
        #expect(refusal("vault = 'journal.vault'\n")?.hasSuffix(":1: 'vault' must be an absolute path or start with ~/.") == true)
        #expect(refusal("editor = '  '\n")?.hasSuffix(":1: 'editor' must name a command.") == true)
        #expect(refusal("limit = 5\nlimit = 6\n")?.hasSuffix(":2: 'limit' is set twice (first on line 1).") == true)
        #expect(refusal("limit = 5 6\n")?.hasSuffix(":1: unexpected text after the value of 'limit'.") == true)
        #expect(refusal("[journals]\nwork = 'relative'\n")?.hasSuffix(":2: the key must be an absolute path or start with ~/.") == true)
    }

    @Test("A secret is never read from the file, and no message quotes what a line holds")
    func secretsAndHostileText() {
        #expect(refusal("passphrase = 'correct horse'\n")?.contains("jv never reads secrets from its config file") == true)
        #expect(refusal("recovery_key = 'x'\n")?.contains("jv never reads secrets from its config file") == true)
        // A passphrase pasted into the file on its own: neither as key nor as value in the message.
        for line in ["hunter2-Tr0ub4dor", "hunter2 = 'Tr0ub4dor'", "limit = Tr0ub4dor", "vault = \"Tr0ub4dor", "[hunter2]"] {
            let message = refusal(line + "\n")
            #expect(message?.hasPrefix("/home/me/.config/jv/config.toml:1: ") == true, "\(line): \(message ?? "accepted")")
            #expect(message?.contains("hunter2") == false && message?.contains("Tr0ub4dor") == false, "\(line): \(message ?? "")")
        }
    }

    @Test("Bytes that are not UTF-8, control characters and unsupported TOML are refused by line")
    func hostileBytes() {
        #expect(refusal(bytes: Array("limit = 5\n".utf8) + [0x65, 0x64, 0xFF, 0xFE, 0x0A]) == "config.toml:2: it is not valid UTF-8.")
        #expect(refusal(bytes: Array("editor = \"vi\u{1B}[2J\"\n".utf8)) == "config.toml:1: the value of 'editor' holds a control character, which must be escaped.")
        #expect(refusal(bytes: Array("editor = 'vi\u{7F}'\n".utf8))
                == "config.toml:1: the value of 'editor' holds a control character, which a 'literal string' may not.")
        #expect(refusal(bytes: [0x00, 0x0A]) == "config.toml:1: malformed line; expected key = value, where a key is letters, digits, _ and -.")
        #expect(refusal("editor = \"vi\\x41\"\n")?.hasSuffix(#"the value of 'editor' may only use the escapes \" \\ \n \t and \uXXXX."#) == true)
        #expect(refusal("editor = \"vi\\uD800\"\n")?.hasSuffix(#"\u must be followed by four hexadecimal digits naming a Unicode character."#) == true)
        #expect(refusal("editor = \"vi\n")?.hasSuffix(":1: the string value of 'editor' has no closing quote.") == true)
        #expect(refusal("editor = '''vi'''\n")?.hasSuffix("is a multi-line string, which jv does not read.") == true)
        #expect(refusal("limit = [1, 2]\n")?.hasSuffix("is an array or an inline table, which jv does not read.") == true)
        #expect(refusal("journals.work = '/x'\n")?.hasSuffix(":1: dotted keys are not supported.") == true)
        #expect(refusal("[[journals]]\n")?.hasSuffix(":1: arrays of tables ([[…]]) are not supported; the tables are [journals], [attachments] and [sync].") == true)
        #expect(refusal("[journals]\n[journals]\n")?.hasSuffix(":2: [journals] appears twice (first on line 1).") == true)
    }

    @Test("--journal names a vault of [journals], and a missing name lists those there are")
    func journalNames() throws {
        let config = try parse("[journals]\nwork = '/w.vault'\nhome = '/h.vault'\n")
        #expect(usageRefusal { try config.journalPath(named: "wrok") }
                == "No journal named 'wrok' in /home/me/.config/jv/config.toml; its journals are home, work.")
        #expect(usageRefusal { try parse("").journalPath(named: "x\u{1B}]0;") }
                == "No journal named 'x^[]0;': /home/me/.config/jv/config.toml has no [journals] table to name vaults in.")
    }
}
