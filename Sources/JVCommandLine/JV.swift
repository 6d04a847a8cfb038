// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `jv`: an encrypted journal in the shell.
struct JV: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jv",
        abstract: "An encrypted personal journal vault.",
        discussion: """
            Every entry is encrypted with a key only your passphrase (or recovery key) unlocks; \
            dates stay readable so 'jv calendar' and 'jv info' need no passphrase.
            After 'jv unlock', commands on that vault use its session and ask for nothing \
            (--no-agent: not). Passphrase sources, first found wins: --passphrase-file, --passphrase-command, \
            --recovery-key-file, $JV_PASSPHRASE_FILE, $JV_PASSPHRASE_COMMAND, $JV_PASSPHRASE \
            (least safe), $JV_RECOVERY_KEY_FILE, else a prompt on the terminal.
            Exit codes: \(ExitStatus.summary).
            Coming from jrnl: 'jv help jrnl' lists what jv reads of jrnl's command line.
            """,
        version: "0.1.0",
        subcommands: [
            Init.self, Info.self, Add.self, List.self, Show.self, Edit.self, Delete.self,
            Attach.self, AttachmentsCommand.self, AttachmentCommand.self,
            Search.self, TagsCommand.self, FieldsCommand.self, Stats.self, CalendarCommand.self, Report.self, Chat.self, AnalysisCommand.self, Analyze.self, Graph.self,
            DigestCommand.self,
            BackupCommand.self, Restore.self, VerifyBackup.self, Export.self, Import.self,
            Check.self, Passwd.self, RecoveryKeyCommand.self, Rekey.self, Unlock.self, Lock.self, Sync.self,
            SessionAgentCommand.self, SessionCheckCommand.self, JrnlHelp.self,
        ]
    )

    /// The global options, here too: they may stand before the command (`jv --vault X list`),
    /// and the completion scripts argument-parser writes complete only the options a command
    /// declares — without these, `jv --vault <TAB>` offered the commands. The command's own
    /// copy receives their values.
    @OptionGroup var options: GlobalOptions
}
