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
            Exit codes: 0 ok, 64 usage, 65 bad or tampered data, 66 not found, 73 refusing to \
            overwrite or cannot create a file, 77 wrong passphrase or recovery key, 1 anything else.
            Coming from jrnl: 'jv help jrnl' lists what jv reads of jrnl's command line.
            """,
        version: "0.1.0",
        subcommands: [
            Init.self, Info.self, Add.self, List.self, Show.self, Edit.self, Delete.self,
            Search.self, TagsCommand.self, Stats.self, CalendarCommand.self, Chat.self, AnalysisCommand.self, Analyze.self, Graph.self,
            BackupCommand.self, Restore.self, VerifyBackup.self, Export.self, Import.self,
            Check.self, Passwd.self, RecoveryKeyCommand.self, Rekey.self, Unlock.self, Lock.self, Sync.self,
            SessionAgentCommand.self, SessionCheckCommand.self, JrnlHelp.self,
        ]
    )
}
