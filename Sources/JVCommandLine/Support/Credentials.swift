// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// Finds the passphrase (or recovery key) from the sources README "How jv gets the passphrase" lists, first found wins:
/// `--passphrase-file`, `--passphrase-command`, `--recovery-key-file`, then `$JV_PASSPHRASE_FILE`,
/// `$JV_PASSPHRASE_COMMAND`, `$JV_PASSPHRASE`, `$JV_RECOVERY_KEY_FILE`, then a prompt on the
/// terminal without echo.
struct Credentials {
    let options: GlobalOptions
    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The credential to unlock with; prompts once on the terminal if nothing else is given.
    func forUnlocking() throws -> VaultCredential {
        if let credential = try fromOptions() ?? fromEnvironment() { return credential }
        guard let terminal = Terminal.open() else { throw Self.noSource }
        defer { terminal.close() }
        return .passphrase(try terminal.readSecret(prompt: "Passphrase: "))
    }

    /// Tries a passphrase typed at the prompt gets, as jrnl allows.
    static let promptAttempts = 3

    /// `vault` unlocked with the first credential found; a passphrase typed at the terminal
    /// prompt may be typed again after a mistake, up to ``promptAttempts`` times in all.
    func unlock(_ vault: Vault) throws -> UnlockedVault {
        if let credential = try fromOptions() ?? fromEnvironment() { return try vault.unlock(credential) }
        guard let terminal = Terminal.open() else { throw Self.noSource }
        defer { terminal.close() }
        var attempt = 1
        while true {
            do {
                return try vault.unlock(.passphrase(try terminal.readSecret(prompt: "Passphrase: ")))
            } catch VaultError.wrongPassphrase where attempt < Self.promptAttempts {
                attempt += 1
                terminal.write("Wrong passphrase; try again.\n")
            }
        }
    }

    /// A new passphrase: from the non-interactive sources (warned of if short, before it is
    /// used), else asked twice on the terminal.
    func newPassphrase(prompt: String = "New passphrase: ") throws -> SecureBytes {
        if case .passphrase(let secret)? = try fromOptions() ?? fromEnvironment() {
            Self.warnIfShort(secret)
            return secret
        }
        return try Self.askTwice(prompt: prompt)
    }

    /// Passphrases shorter than this (in characters) are accepted with a warning: the vault is
    /// only as strong as its passphrase against someone who has a copy of the file.
    static let recommendedLength = 12

    /// Warns on standard error when a new passphrase is short (as age and KeePassXC do), before
    /// it is used.
    static func warnIfShort(_ passphrase: SecureBytes) {
        if let warning = shortness(of: passphrase) { Console.note("jv: warning: " + warning + "; 'jv passwd' changes it.") }
    }

    /// Why `passphrase` is weak, when it is shorter than ``recommendedLength``.
    private static func shortness(of passphrase: SecureBytes) -> String? {
        // Characters counted as UTF-8 lead bytes: no copy of the secret is made.
        let characters = passphrase.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
        guard characters < recommendedLength else { return nil }
        return "this passphrase has only \(characters) character\(characters == 1 ? "" : "s"); anyone with a copy of the vault "
            + "can try short ones quickly. Several random words (\(recommendedLength) characters or more) are far stronger"
    }

    /// Asks for a new passphrase twice on the terminal; a short one is warned of there, and kept
    /// only if the user says so (else asked for again).
    static func askTwice(prompt: String) throws -> SecureBytes {
        guard let terminal = Terminal.open() else { throw noSource }
        defer { terminal.close() }
        while true {
            let first = try terminal.readSecret(prompt: prompt)
            let second = try terminal.readSecret(prompt: "Repeat it: ")
            guard first.constantTimeEquals(second) else { throw CLIError.usage("The two passphrases differ; nothing was changed.") }
            guard let warning = shortness(of: first) else { return first }
            terminal.write("Warning: \(warning).\n")
            if terminal.confirm("Use it anyway?") { return first }
        }
    }

    static let noSource = CLIError.usage(
        "No passphrase: there is no terminal to ask on; use --passphrase-file, --passphrase-command, "
            + "$JV_PASSPHRASE_FILE, $JV_PASSPHRASE_COMMAND or $JV_PASSPHRASE.")

    private func fromOptions() throws -> VaultCredential? {
        if let path = options.passphraseFile { return .passphrase(try Self.firstLine(ofFile: path)) }
        if let command = options.passphraseCommand { return .passphrase(try Self.firstLine(ofCommand: command)) }
        if let path = options.recoveryKeyFile { return .recoveryKey(try Self.recoveryKey(inFile: path)) }
        return nil
    }

    private func fromEnvironment() throws -> VaultCredential? {
        if let path = nonEmpty("JV_PASSPHRASE_FILE") { return .passphrase(try Self.firstLine(ofFile: path)) }
        if let command = nonEmpty("JV_PASSPHRASE_COMMAND") { return .passphrase(try Self.firstLine(ofCommand: command)) }
        if let secret = getenv("JV_PASSPHRASE"), secret.pointee != 0 {
            // Copied from the environment block straight into secure memory.
            return .passphrase(try SecureBytes(copying: UnsafeBufferPointer(start: secret, count: strlen(secret)).map { UInt8(bitPattern: $0) }))
        }
        if let path = nonEmpty("JV_RECOVERY_KEY_FILE") { return .recoveryKey(try Self.recoveryKey(inFile: path)) }
        return nil
    }

    private func nonEmpty(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func firstLine(ofFile path: String) throws -> SecureBytes {
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.inputNotFound("No passphrase file at \(path).") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError.inputNotFound("Cannot read the passphrase file \(path) (\(String(cString: strerror(errno)))).")
        }
        var data = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readDataToEndOfFile()
        defer { data.withUnsafeMutableBytes { Sodium.wipe($0) } }
        let line = try firstLine(of: data)
        guard line.count > 0 else { throw CLIError.usage("The passphrase file \(path) is empty (its first line is the passphrase).") }
        return line
    }

    /// Runs `command` as every shell command jv runs (``ShellCommand``): jv's standard input and
    /// error, its standard output read here.
    private static func firstLine(ofCommand command: String) throws -> SecureBytes {
        var ends: [Int32] = [-1, -1]
        // Close-on-exec: the command's standard output (a copy of the write end) is all it gets of the pipe.
        guard pipe(&ends) == 0 else { throw CLIError.failed("Cannot run the passphrase command.") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let pid: pid_t
        do {
            pid = try ShellCommand(command).spawn(standardInput: STDIN_FILENO, standardOutput: ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw CLIError.failed("Cannot run the passphrase command.")
        }
        close(ends[1])
        var data = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true).readDataToEndOfFile()
        defer { data.withUnsafeMutableBytes { Sodium.wipe($0) } }
        let termination = Termination(waitingFor: pid)
        guard termination == .exited(0) else {
            throw CLIError.failed("The passphrase command failed (exit status \(termination.shellStatus)).")
        }
        let line = try firstLine(of: data)
        guard line.count > 0 else { throw CLIError.usage("The passphrase command printed no passphrase (its first line is empty).") }
        return line
    }

    private static func firstLine(of data: Data) throws -> SecureBytes {
        var line = data.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return try SecureBytes(copying: line)
    }

    private static func recoveryKey(inFile path: String) throws -> RecoveryKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.inputNotFound("Cannot read the recovery key file \(path).")
        }
        return try RecoveryKey(text: String(decoding: data, as: UTF8.self))
    }
}

extension GlobalOptions {
    /// The vault, opened and unlocked with the key of its open session (`jv unlock`), else with
    /// the first credential found. Reading commands open it `.readOnly`: they change no byte of
    /// it, and work where it cannot be written. Commands that change or show the secrets
    /// themselves pass `throughSession: false` and always ask. A vault whose manifest is missing or
    /// damaged, or whose rows are not as many as its row-set manifest lists
    /// (``UnlockedVault/verifyRowCounts()``), is met as `onDamage` says.
    func unlockedVault(access: Vault.Access = .readWrite, throughSession: Bool = true,
                       onDamage: DamageResponse = .refuse) throws -> UnlockedVault {
        let vault = try openVault(access: access)
        if !Sodium.canLockMemory() {
            Console.note("jv: warning: this process may not lock memory (RLIMIT_MEMLOCK is 0); keys could be swapped to disk.")
        }
        let journal = try (throughSession && !noAgent ? Self.unlockThroughSession(vault) : nil) ?? Credentials(options: self).unlock(vault)
        do {
            try HighWater.observe(journal, refusingDamage: onDamage != .report)
            if onDamage != .report { try journal.verifyRowCounts() }
        } catch let error as VaultError {
            guard case .manifestDamaged = error, onDamage == .warn else { throw error }
            Console.note("jv: warning: \(Failure.sentence(for: error)) What the vault still holds is written all the same.")
        }
        return journal
    }

    /// `vault` unlocked by its session; nil without one. A session folder others could reach is
    /// never used (said once, then the passphrase is asked for as without a session).
    private static func unlockThroughSession(_ vault: Vault) throws -> UnlockedVault? {
        do {
            let journal = try vault.unlockThroughSession()
            if journal != nil { SessionCheckCommand.report(for: vault) }
            return journal
        } catch let error as VaultError {
            guard let reason = Failure.sessionProblem(in: error) else { throw error }
            Console.note("jv: warning: the session is not used: \(reason).")
            return nil
        }
    }
}
