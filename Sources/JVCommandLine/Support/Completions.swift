// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// Shell completion of entry ids, tag, journal and template names (`jv show 3f<TAB>`,
/// `jv list --tag ga<TAB>`, `jv -j w<TAB>`, `jv add --template g<TAB>`).
/// Completion runs jv on every TAB, so it must never ask for anything: ids come from the
/// vault's plaintext columns (no passphrase), tags only through an open session (`jv unlock`),
/// journals and templates from the config folder, and anything that fails completes nothing.
enum Completions {
    static let entryID = CompletionKind.custom { words, _, prefix in entryIDs(words: words, prefix: prefix) }
    static let tag = CompletionKind.custom { words, _, prefix in tagNames(words: words, prefix: prefix) }
    static let journal = CompletionKind.custom { _, _, prefix in journalNames(prefix: prefix) }
    static let template = CompletionKind.custom { _, _, prefix in templateNames(prefix: prefix) }

    /// The newest ids starting with `prefix`, shortened to their first 8 characters (what
    /// `jv list` shows) when those tell them apart.
    static func entryIDs(words: [String], prefix: String) -> [String] {
        guard let path = vaultPath(in: words), let vault = try? Vault.open(at: path, access: .readOnly),
              let ids = try? vault.entryIDs(startingWith: prefix, limit: 50) else { return [] }
        let short = ids.map { String($0.prefix(max(8, prefix.count))) }
        return Set(short).count == short.count ? short : ids
    }

    /// The vault's tags starting with `prefix`, most used first, when a session is open.
    static func tagNames(words: [String], prefix: String) -> [String] {
        guard let path = vaultPath(in: words), let vault = try? Vault.open(at: path, access: .readOnly),
              let journal = try? vault.unlockThroughSession(),
              let counts = try? journal.tagCounts() else { return [] }
        let wanted = prefix.lowercased()
        return counts.map(\.tag).filter { $0.hasPrefix(wanted) }
    }

    /// The config file's `[journals]` names starting with `prefix`, in order.
    static func journalNames(prefix: String) -> [String] {
        guard let journals = try? Config.current.journals else { return [] }
        return journals.keys.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The templates (`NAME.md` in the templates folder) whose names start with `prefix`, in order.
    static func templateNames(prefix: String) -> [String] {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: Templates.folder) else { return [] }
        return files.filter { $0.hasSuffix(".md") && !$0.hasPrefix(".") }.map { String($0.dropLast(3)) }
            .filter { !$0.isEmpty && $0.hasPrefix(prefix) }.sorted()
    }

    /// The vault the words being completed name (`--vault`, `--journal`), resolved as the
    /// command itself would; nil when it cannot be.
    private static func vaultPath(in words: [String]) -> String? {
        try? GlobalOptions.parse(GlobalOptions.vaultChoice(in: words)).vaultPath
    }
}
