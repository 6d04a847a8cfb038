// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `jv digest …`: a period's entries in one text, and a local model's reflections on it.
struct DigestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest",
        abstract: "Gather a week's, month's or year's entries, figures and analyses into one text; ask a local model to reflect on it.",
        discussion: """
            `jv digest --week` prints the current ISO week's digest, `jv digest --month 2026-11` November's, \
            `jv digest --year --ago 1` last year's, with the reflections stored for that period under it; \
            `jv digest --week --command CMD` asks CMD for a reflection and stores it. See README, “Digests”.
            """,
        subcommands: [DigestShow.self, DigestDelete.self],
        defaultSubcommand: DigestShow.self)
}
