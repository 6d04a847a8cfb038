// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

extension UnlockedVault {
    /// The entries of the Markdown notes in `folder` (Obsidian's daily notes: see
    /// ``MarkdownFolderReader``) and the files they embed, ready for ``importSnapshot(_:overwrite:attachmentLimit:progress:)``.
    /// Times without an offset are read in `zone`. Each entry's id is derived from where it is
    /// in the folder under this vault's key (FORMAT.md §9), so importing the same folder again
    /// adds nothing, while the id tells no one without the key which note it came from.
    ///
    /// ```swift
    /// let snapshot = try journal.readMarkdownFolder("/home/me/Obsidian/Daily")
    /// let summary = try journal.importSnapshot(snapshot)
    /// ```
    public func readMarkdownFolder(_ folder: String, zone: TimeZone = .current) throws -> VaultSnapshot {
        try MarkdownFolderReader.read(folder: folder, zone: zone) { Self.importedNoteEntryID(origin: $0, syncKey: keys.syncKey) }
    }

    /// ``ConflictCopy/id(domain:table:id:syncKey:version:)`` of `"JVLT-import-note"`, no record
    /// (16 zero bytes) and the entry's origin in the folder (``MarkdownFolderReader/origin(path:part:)``).
    static func importedNoteEntryID(origin: String, syncKey: SecureBytes) -> UUID {
        let none = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        return ConflictCopy.id(domain: "JVLT-import-note", table: .entry, id: none, syncKey: syncKey) { $0.raw(origin.utf8) }
    }
}
