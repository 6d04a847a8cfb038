// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// jv's settings from `$XDG_CONFIG_HOME/jv/config.toml` (else `~/.config/jv/config.toml`):
/// defaults a person chooses once instead of typing them every time. A setting left out keeps
/// the built-in default; the command line and the environment beat the file (README
/// "Configuration"). The file holds no secrets, so it may be world-readable.
///
/// ```swift
/// let config = try Config.parse(Array("kdf = 'sensitive'\n[journals]\nwork = '~/work.vault'\n".utf8), file: "config.toml")
/// config.kdf               // .sensitive
/// config.journals["work"]  // "/home/me/work.vault"
/// ```
struct Config: Sendable {
    /// The file the settings came from, present or not, for messages.
    let file: String
    var vault: String?
    var kdf: KDFParameters.Profile?
    var editor: String?
    var session: SessionLength?
    var color: Bool?
    var limit: Int?
    var timeFormat: TimeFormat?
    /// `date_order`: how a date in numbers (`5/11/2026`) is read; else the locale's.
    var dateOrder: DateOrder?
    /// `images`: how images are drawn on a terminal (``TerminalImages``); else `auto`.
    var images: ImageMode?
    /// `image_columns`: the widest an image is drawn; else ``ImageFit/defaultColumns``.
    var imageColumns: Int?
    /// `[journals]`: vault paths by name, for `--journal NAME`.
    var journals: [String: String] = [:]
    /// `[attachments] max_size`: the largest file `jv attach` and `jv add --attach` take, in bytes.
    var attachmentMaxSize: Int64?
    /// `[sync] attachments`: which attachments' contents `jv sync` brings in (`--attachments`).
    var syncAttachments: AttachmentSyncPolicy?

    /// The tables a config file may have.
    fileprivate static let tables = ["journals", "attachments", "sync"]
    fileprivate static let tablesList = "[journals], [attachments] and [sync]"
    fileprivate static let tablesText = "the tables are " + tablesList

    /// The user's settings, read once per process on first use (``VaultCommand`` reads them
    /// before a command runs, so that a fault in the file stops it before it does anything).
    static var current: Config {
        get throws { try loaded.get() }
    }

    private static let loaded = Result { try load(from: folder + "/config.toml") }

    /// `$XDG_CONFIG_HOME/jv`, else `~/.config/jv`: the config file and the entry templates.
    static var folder: String {
        XDGDirectories().config + "/jv"
    }

    /// `$HOME`, else the account's home folder.
    static var home: String { XDGDirectories().home }

    /// The vault `--journal name` stands for.
    func journalPath(named name: String) throws -> String {
        if let path = journals[name] { return path }
        let shown = TerminalText.visible(name)
        guard !journals.isEmpty else {
            throw CLIError.usage("No journal named '\(shown)': \(file) has no [journals] table to name vaults in.")
        }
        throw CLIError.usage("No journal named '\(shown)' in \(file); its journals are \(journals.keys.sorted().joined(separator: ", ")).")
    }
}

// MARK: Reading the file

extension Config {
    /// Files larger than this are refused: a config file holds a few lines.
    private static let largestFile = 64 << 10

    /// The settings in the file at `path`; none if there is no file.
    static func load(from path: String) throws -> Config {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return Config(file: path) }
            throw CLIError.usage("Cannot read the config file \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.usage("Cannot read the config file \(path): \(String(cString: strerror(errno))).")
            }
            bytes += buffer[..<count]
            guard bytes.count <= largestFile else {
                throw CLIError.usage("The config file \(path) is over \(largestFile >> 10) KiB; it should hold only a few settings.")
            }
        }
        return try parse(bytes, file: path)
    }

    /// The settings in `bytes`, a strict subset of TOML: comments, `key = value` with a string
    /// ("basic" with the escapes \" \\ \n \t \uXXXX, or 'literal'), an integer or a boolean, and
    /// a `[journals]` table. Anything else is an error naming `file` and the line.
    static func parse(_ bytes: [UInt8], file: String) throws -> Config {
        var config = Config(file: file)
        var firstLines: [String: Int] = [:]
        var tableLines: [String: Int] = [:]
        var table: String?
        for (index, bytesOfLine) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            do {
                let withoutReturn = bytesOfLine.last == UInt8(ascii: "\r") ? bytesOfLine.dropLast() : bytesOfLine
                guard let text = String(validating: withoutReturn, as: UTF8.self) else { throw Problem("it is not valid UTF-8") }
                var line = LineScanner(text)
                switch try line.statement() {
                case .blank:
                    continue
                case .table(let name):
                    guard Self.tables.contains(name) else { throw Problem("unknown table; \(Self.tablesText)") }
                    if let first = tableLines[name] { throw Problem("[\(name)] appears twice (first on line \(first))") }
                    tableLines[name] = number
                    table = name
                case .pair(let key, let value):
                    let qualified = table.map { "[\($0)] " + key } ?? key
                    if let first = firstLines[qualified] { throw Problem("\(Self.named(key)) is set twice (first on line \(first))") }
                    firstLines[qualified] = number
                    switch table {
                    case nil: try config.set(key, to: value)
                    case "journals": config.journals[key] = try value.path(key)
                    case "sync": try config.setSync(key, to: value)
                    default: try config.setAttachments(key, to: value)
                    }
                }
            } catch let problem as Problem {
                throw CLIError.usage("\(file):\(number): \(problem.text).")
            }
        }
        return config
    }

    fileprivate static let keys = ["vault", "kdf", "editor", "session", "color", "limit", "time_format", "date_order", "images", "image_columns"]

    /// A key of the `[attachments]` table.
    private mutating func setAttachments(_ key: String, to value: Value) throws {
        guard key == "max_size" else { throw Problem("unknown key in [attachments]; its one key is 'max_size'") }
        let bytes = try value.integer(key)
        guard bytes >= 1 else { throw Problem("'max_size' must be a number of bytes, 1 or more") }
        attachmentMaxSize = Int64(bytes)
    }

    /// A key of the `[sync]` table.
    private mutating func setSync(_ key: String, to value: Value) throws {
        guard key == "attachments" else { throw Problem("unknown key in [sync]; its one key is 'attachments'") }
        guard let policy = AttachmentSyncPolicy(rawValue: try value.string(key)) else {
            throw Problem("'attachments' must be \(Self.choices(AttachmentSyncPolicy.allCases.map(\.rawValue)))")
        }
        syncAttachments = policy
    }

    /// How a message names `key`: quoted if it is one of jv's keys, else "the key". A line jv
    /// cannot read may be a passphrase pasted into the wrong file, and any word of it may be
    /// part of the passphrase, so a message names the line (by its number), never its text.
    fileprivate static func named(_ key: String) -> String {
        keys.contains(key) ? "'\(key)'" : "the key"
    }

    private mutating func set(_ key: String, to value: Value) throws {
        // Never a secret in a file that may be world-readable (and is often shared as dotfiles).
        let lowercased = key.lowercased()
        if ["pass", "secret", "recovery"].contains(where: { lowercased.contains($0) }) {
            throw Problem("the key names a secret, and jv never reads secrets from its config file; give the passphrase with "
                          + "--passphrase-file or --passphrase-command (or $JV_PASSPHRASE_FILE, $JV_PASSPHRASE_COMMAND)")
        }
        switch key {
        case "vault":
            vault = try value.path(key)
        case "kdf":
            guard let profile = KDFParameters.Profile(rawValue: try value.string(key)) else {
                throw Problem("'kdf' must be \(Self.choices(KDFParameters.Profile.allCases.map(\.rawValue)))")
            }
            kdf = profile
        case "editor":
            let command = try value.string(key)
            guard command.contains(where: { !$0.isWhitespace }) else { throw Problem("'editor' must name a command") }
            editor = command
        case "session":
            guard let length = SessionLength(argument: try value.string(key)) else {
                throw Problem("'session' must be a length such as \"90s\", \"15m\" or \"1h30m\", at most 8 hours")
            }
            session = length
        case "color":
            color = try value.boolean(key)
        case "limit":
            let count = try value.integer(key)
            guard count >= 1 else { throw Problem("'limit' must be a number of entries, 1 or more") }
            limit = count
        case "time_format":
            guard let format = TimeFormat(rawValue: try value.string(key)) else {
                throw Problem("'time_format' must be \(Self.choices(TimeFormat.allCases.map(\.rawValue)))")
            }
            timeFormat = format
        case "date_order":
            guard let order = DateOrder(rawValue: try value.string(key)) else {
                throw Problem("'date_order' must be \(Self.choices(DateOrder.allCases.map(\.rawValue)))")
            }
            dateOrder = order
        case "images":
            guard let mode = ImageMode(rawValue: try value.string(key)) else {
                throw Problem("'images' must be \(Self.choices(ImageMode.allCases.map(\.rawValue)))")
            }
            images = mode
        case "image_columns":
            let count = try value.integer(key)
            guard count >= 1 else { throw Problem("'image_columns' must be a number of columns, 1 or more") }
            imageColumns = count
        default:
            let nearest = Self.keys.min { UnknownCommand.distance(key, $0) < UnknownCommand.distance(key, $1) }
            let guess = nearest.map { UnknownCommand.distance(key, $0) <= 2 ? " (did you mean '\($0)'?)" : "" } ?? ""
            throw Problem("unknown key\(guess); jv reads \(Self.keys.joined(separator: ", ")) and tables \(Self.tablesList)")
        }
    }

    /// `"a", "b" or "c"`.
    private static func choices(_ names: [String]) -> String {
        let quoted = names.map { "\"\($0)\"" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}

/// What is wrong with one line; ``Config/parse(_:file:)`` adds the file and line number.
private struct Problem: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

/// A value as the file writes it. Messages never quote a value, nor a key other than jv's
/// own (``Config/named(_:)``): it might be a secret typed in the wrong place.
private enum Value {
    case string(String), integer(Int), boolean(Bool)

    private var kind: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .boolean: "a boolean"
        }
    }

    func string(_ key: String) throws -> String {
        guard case .string(let text) = self else { throw Problem("\(Config.named(key)) must be a string in quotes, not \(kind)") }
        return text
    }

    func integer(_ key: String) throws -> Int {
        guard case .integer(let number) = self else { throw Problem("\(Config.named(key)) must be an integer, not \(kind)") }
        return number
    }

    func boolean(_ key: String) throws -> Bool {
        guard case .boolean(let flag) = self else { throw Problem("\(Config.named(key)) must be true or false, not \(kind)") }
        return flag
    }

    /// A path: absolute, or from the home folder (`~/…`).
    func path(_ key: String) throws -> String {
        let text = try string(key)
        let expanded = text == "~" || text.hasPrefix("~/") ? Config.home + text.dropFirst() : text
        guard expanded.hasPrefix("/") else { throw Problem("\(Config.named(key)) must be an absolute path or start with ~/") }
        return expanded
    }
}

/// One line of the file, read left to right.
private struct LineScanner {
    enum Statement {
        case blank
        case table(String)
        case pair(key: String, value: Value)
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ line: String) { scalars = Array(line.unicodeScalars) }

    private var next: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func isNext(_ text: String) -> Bool {
        scalars[position...].starts(with: text.unicodeScalars)
    }

    mutating func statement() throws -> Statement {
        skipSpaces()
        if next == nil || next == "#" { return .blank }
        if next == "[" {
            position += 1
            if next == "[" { throw Problem("arrays of tables ([[…]]) are not supported; \(Config.tablesText)") }
            skipSpaces()
            let name = bareKey()
            skipSpaces()
            guard !name.isEmpty, next == "]" else { throw Problem("malformed table header; \(Config.tablesText)") }
            position += 1
            try end(after: "the table header")
            return .table(name)
        }
        let key = bareKey()
        guard !key.isEmpty else {
            throw Problem("malformed line; expected key = value, where a key is letters, digits, _ and -")
        }
        skipSpaces()
        if next == "." { throw Problem("dotted keys are not supported") }
        guard next == "=" else { throw Problem("malformed line; expected '=' after \(Config.named(key))") }
        position += 1
        skipSpaces()
        let value = try value(of: Config.named(key))
        try end(after: "the value of \(Config.named(key))")
        return .pair(key: key, value: value)
    }

    private mutating func skipSpaces() {
        while next == " " || next == "\t" { position += 1 }
    }

    private mutating func bareKey() -> String {
        var key = String.UnicodeScalarView()
        while let scalar = next, scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" {
            key.append(scalar)
            position += 1
        }
        return String(key)
    }

    /// Only spaces and a comment may follow.
    private mutating func end(after what: String) throws {
        skipSpaces()
        guard next == nil || next == "#" else { throw Problem("unexpected text after \(what)") }
    }

    private mutating func value(of name: String) throws -> Value {
        if isNext("\"\"\"") || isNext("'''") { throw Problem("the value of \(name) is a multi-line string, which jv does not read") }
        switch next {
        case "\"": return .string(try basicString(of: name))
        case "'": return .string(try literalString(of: name))
        case nil, "#": throw Problem("\(name) has no value")
        case "[", "{": throw Problem("the value of \(name) is an array or an inline table, which jv does not read")
        default: break
        }
        var word = String.UnicodeScalarView()
        while let scalar = next, scalar != " ", scalar != "\t", scalar != "#" {
            word.append(scalar)
            position += 1
        }
        let text = String(word)
        if text == "true" || text == "false" { return .boolean(text == "true") }
        if Self.isInteger(text) {
            guard let number = Int(text) else { throw Problem("the integer value of \(name) is too large") }
            return .integer(number)
        }
        throw Problem("\(name) has a value jv does not read; it takes \"strings\" or 'strings' in quotes, integers, and true or false")
    }

    /// Whether `text` is a TOML decimal integer: an optional sign, then digits without leading zeros.
    private static func isInteger(_ text: String) -> Bool {
        let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber } && (digits == "0" || digits.first != "0")
    }

    private mutating func basicString(of name: String) throws -> String {
        position += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = next else { throw Problem("the string value of \(name) has no closing quote") }
            position += 1
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                text.append(try escaped(of: name))
            default:
                guard !Self.isControl(scalar) else { throw Problem("the value of \(name) holds a control character, which must be escaped") }
                text.append(scalar)
            }
        }
    }

    /// The character after a backslash: \" \\ \n \t \uXXXX.
    private mutating func escaped(of name: String) throws -> Unicode.Scalar {
        let unsupported = Problem(#"the value of \#(name) may only use the escapes \" \\ \n \t and \uXXXX"#)
        guard let scalar = next else { throw unsupported }
        position += 1
        switch scalar {
        case "\"": return "\""
        case "\\": return "\\"
        case "n": return "\n"
        case "t": return "\t"
        case "u":
            let hex = String(String.UnicodeScalarView(scalars[position..<min(position + 4, scalars.count)]))
            guard hex.count == 4, hex.allSatisfy(\.isHexDigit), let code = UInt32(hex, radix: 16), let character = Unicode.Scalar(code) else {
                throw Problem(#"in the value of \#(name), \u must be followed by four hexadecimal digits naming a Unicode character"#)
            }
            position += 4
            return character
        default:
            throw unsupported
        }
    }

    private mutating func literalString(of name: String) throws -> String {
        position += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = next else { throw Problem("the string value of \(name) has no closing quote") }
            position += 1
            if scalar == "'" { return String(text) }
            guard !Self.isControl(scalar) else { throw Problem("the value of \(name) holds a control character, which a 'literal string' may not") }
            text.append(scalar)
        }
    }

    /// Control characters other than tab, which TOML strings may not hold as they are.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }
}
