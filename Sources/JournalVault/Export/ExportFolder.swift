// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The layout of an export written to a folder (`jv export --output DIR/`): the document
/// (`index.md`, `index.json`) and, under `attachments/`, each attachment of the exported
/// entries as `<id>-<name>`, its name made safe to write and to link.
public enum ExportFolder {
    /// The folder, inside the export's, that holds the attachments.
    public static let attachmentsFolder = "attachments"

    /// The document's name in the folder.
    public static func documentName(of format: ExportFormat) -> String {
        switch format {
        case .json: "index.json"
        case .markdown: "index.md"
        case .txt: "index.txt"
        case .jrnlJSON: "index.jrnl.json"
        }
    }

    /// `attachments/<id>-<name>`: unique by the id, whatever the names; in the name, anything
    /// but letters, digits, `.`, `-`, `_` and spaces becomes `_`, a leading dot too (no hidden
    /// files), and it is cut to keep the whole under 255 bytes, its extension kept.
    public static func attachmentPath(id: UUID, name: String) -> String {
        var safe = String(name.unicodeScalars.map { scalar -> Character in
            let allowed = scalar.properties.isAlphabetic || scalar.properties.numericType != nil || ".-_ ".unicodeScalars.contains(scalar)
            return allowed ? Character(scalar) : "_"
        })
        if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        let room = 255 - 37
        if safe.utf8.count > room {
            let dot = safe.lastIndex(of: ".").map { safe[$0...] } ?? ""
            let kept = dot.utf8.count <= 16 ? dot : ""
            var stem = safe.dropLast(kept.count)
            while stem.utf8.count + kept.utf8.count > room { stem = stem.dropLast() }
            safe = String(stem) + kept
        }
        return "\(attachmentsFolder)/\(id.storageText)-\(safe)"
    }
}
