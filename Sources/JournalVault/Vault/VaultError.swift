// SPDX-License-Identifier: Apache-2.0
/// Everything that can go wrong for a user of the vault, one case per situation, with its facts
/// as associated values. Each description states what went wrong in one sentence, and names no
/// command of a particular front end: what to do about it is the front end's to say (`jv` words
/// its advice in `Failure`). None contains secret or decrypted text.
///
/// ```swift
/// do { _ = try vault.unlock(passphrase: secret) }
/// catch VaultError.wrongPassphrase { print("try again") }
/// ```
public enum VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No vault at that path.
    case vaultNotFound(path: String)
    /// The backup file to verify or restore does not exist.
    case backupNotFound(path: String)
    /// `init` or `restore` would overwrite an existing file.
    case vaultExists(path: String)
    /// The file is not a vault, or its header rows are missing or malformed.
    case notAVault(path: String, reason: String)
    /// The vault was written by a newer release whose schema this binary does not know.
    case newerSchema(found: Int, supported: Int)
    /// The passphrase does not open any passphrase keyslot.
    case wrongPassphrase
    /// The recovery key does not open the recovery keyslot.
    case wrongRecoveryKey
    /// The recovery key text is not a recovery key (wrong length, characters or checksum).
    case malformedRecoveryKey
    /// `rekey` was asked of a vault unlocked with the recovery key.
    case rekeyNeedsPassphrase
    /// Another process rotated the master key (a rekey) after this one unlocked the vault,
    /// and this one cannot follow (it was unlocked through a session, or with a recovery key the
    /// rotation replaced). Nothing was read wrongly or written.
    case keyRotatedMeanwhile
    /// Three recovery keys already open the vault (interrupted hand-overs), and it was not
    /// unlocked with one of them, so which one the person holds is unknown.
    case tooManyRecoveryKeys
    /// An empty passphrase was given where a new one is being set.
    case emptyPassphrase
    /// Stored key-derivation parameters are outside the policy; refused before any work.
    case kdfParametersRefused(String)
    /// A keyslot's bytes are malformed or were edited.
    case corruptKeyslot(slot: Int)
    /// The vault's key data is damaged (a keyslot missing, or slots that no longer match the
    /// vault's header), so no credential can open it, however right.
    case keyDataDamaged(String)
    /// A record failed authentication or does not match its plaintext columns.
    case tamperedRecord(table: String, id: String, detail: String)
    /// The row-set manifest is missing, malformed or does not authenticate: records may have
    /// been deleted, rolled back or added behind jv's back. Writes are refused until it is resolved.
    case manifestDamaged(String)
    /// SQLite reported the file as corrupt.
    case corruptDatabase(String)
    /// No record of that kind has that id or prefix.
    case notFound(kind: String, id: String)
    /// The prefix matches several records.
    case ambiguousID(prefix: String, matches: Int)
    /// An id prefix shorter than 4 characters or not hexadecimal.
    case invalidID(String)
    /// Content over the size limit.
    case contentTooLong(characters: Int, limit: Int)
    /// Content within the character limit but over the byte limit (``Entry/maximumBytes``).
    case contentTooLarge(bytes: Int, limit: Int)
    /// Content that is empty or only white space.
    case contentBlank
    /// Bytes that are not valid UTF-8.
    case invalidUTF8
    /// A tag with no letters or digits, or with white space inside.
    case invalidTag(String)
    /// Knowledge-graph input that breaks its rules (empty name, strength outside 0…1, …).
    case invalidGraph(String)
    /// A backup file that is damaged, truncated, tampered with or not a backup.
    case backupCorrupt(String)
    /// The vault's file or folder cannot be written: reading works, writing does not.
    case readOnly(path: String, detail: String = "its file or folder cannot be written")
    /// Any other storage failure (disk full, permissions, I/O).
    case storage(String)
    /// The disk holding the vault (or the file being written) has no room left.
    case diskFull(folder: String)
    /// A session (`jv unlock`) cannot be started or used safely: its folder is not private,
    /// or the agent does not start.
    case sessionUnavailable(String)
    /// A sync pack (or keys file) failed its checks: damaged, truncated, moved, replayed or of
    /// another vault. Nothing of it was applied.
    case syncPackRefused(String)
    /// The sync location cannot be reached or used; nothing was changed.
    case syncUnavailable(String)
    /// Sync asked of a vault that was never set up for it.
    case syncNotSetUp
    /// Sync set up on a vault that already syncs through `location` (a vault keeps one).
    case syncAlreadySetUp(location: String)
    /// A clone asked of a location through which several vaults (`vaults`, their ids) sync.
    case severalVaultsAtLocation(location: String, vaults: [String])
    /// Another device rotated the master key; following it needs this device's passphrase (the
    /// vault was unlocked with the recovery key, or through a session).
    case rotationNeedsPassphrase
    /// The session's salt `file` is not one this library wrote (wrong size, or not a file), so
    /// no session can be used until it is removed.
    case sessionSaltUnrecognised(file: String)
    /// This device's new pack was made and kept, but could not be copied up to the sync
    /// location; the next sync sends it.
    case syncNotDelivered(String)
    /// A file to attach is larger than the limit (bytes); nothing was written.
    case attachmentTooLarge(name: String, limit: Int64)
    /// A file to attach cannot be opened or read.
    case attachmentUnreadable(path: String, detail: String)
    /// An attachment's name is empty, names a folder, or is not a file name.
    case invalidAttachmentName(String)
    /// The content of the attachment blob `blobID` is not in this vault file (sync left it at the
    /// location) and cannot be fetched now, for `reason`.
    case attachmentNotStored(blobID: String, reason: String)

    public var description: String {
        switch self {
        case .vaultNotFound(let path):
            "No vault at \(path)."
        case .backupNotFound(let path):
            "No backup file at \(path)."
        case .vaultExists(let path):
            "A file already exists at \(path); refusing to overwrite it."
        case .notAVault(let path, let reason):
            "\(path) is not a readable JournalVault vault: \(reason)."
        case .newerSchema(let found, let supported):
            "This vault has schema version \(found), but this release understands only up to \(supported)."
        case .wrongPassphrase:
            "Wrong passphrase."
        case .wrongRecoveryKey:
            "Wrong recovery key."
        case .malformedRecoveryKey:
            "That is not a valid recovery key (check for typos: it has 56 letters and digits after 'JVR1-')."
        case .rekeyNeedsPassphrase:
            "Rotating the master key needs the passphrase (to re-wrap it)."
        case .keyRotatedMeanwhile:
            "The vault's master key was rotated while this operation ran; nothing was changed."
        case .tooManyRecoveryKeys:
            "Three recovery keys already open this vault (earlier recovery-key hand-overs were interrupted), and it was not unlocked with one of them."
        case .emptyPassphrase:
            "The passphrase must not be empty."
        case .kdfParametersRefused(let reason):
            "Refusing the vault's key-derivation parameters (\(reason)); the file may have been tampered with."
        case .corruptKeyslot(let slot):
            "Keyslot \(slot) is malformed or was modified."
        case .keyDataDamaged(let detail):
            "The vault's key data is damaged (\(detail)); restore the vault from a backup."
        case .tamperedRecord(let table, let id, let detail):
            "Record \(id) in \(table) failed verification (\(detail)); it is corrupt or was tampered with."
        case .manifestDamaged(let reason):
            "The vault's list of records cannot be trusted (\(reason))."
        case .corruptDatabase(let message):
            "The vault file is corrupt: \(message)."
        case .notFound(let kind, let id):
            "No \(kind) with id \(id)."
        case .ambiguousID(let prefix, let matches):
            "The id prefix \(prefix) matches \(matches) records; give more characters."
        case .invalidID(let text):
            "'\(text)' is not an id: give a full UUID or a unique prefix of at least 4 hexadecimal characters."
        case .contentTooLong(let characters, let limit):
            "The text has \(characters) characters; the limit is \(limit)."
        case .contentTooLarge(let bytes, let limit):
            "The text takes \(bytes) bytes of UTF-8; the limit is \(limit) bytes, as well as \(Entry.maximumCharacters) characters."
        case .contentBlank:
            "The text is empty."
        case .invalidUTF8:
            "The text is not valid UTF-8."
        case .invalidTag(let tag):
            "'\(tag)' is not a valid tag: use one word of letters, digits, '_' or '-'."
        case .invalidGraph(let reason):
            "Invalid knowledge-graph data: \(reason)."
        case .backupCorrupt(let reason):
            "The backup cannot be used: \(reason); nothing was written."
        case .readOnly(let path, let detail):
            "The vault at \(path) is read-only (\(detail)); nothing was changed."
        case .storage(let message):
            "Storage error: \(message)."
        case .diskFull(let folder):
            "The disk holding \(folder) is full: free some space and try again; nothing was changed."
        case .sessionUnavailable(let reason):
            "No session: \(reason)."
        case .syncPackRefused(let reason):
            "A sync pack was refused: \(reason); nothing of it was applied."
        case .syncUnavailable(let reason):
            "Cannot sync: \(reason); nothing was changed."
        case .syncNotDelivered(let reason):
            "Cannot reach the sync location: \(reason). This machine's changes are kept and go out at the next sync."
        case .syncNotSetUp:
            "This vault does not sync."
        case .syncAlreadySetUp(let location):
            "This vault already syncs through \(location); it keeps one location."
        case .severalVaultsAtLocation(let location, let vaults):
            "Several vaults sync through \(location) (\(vaults.joined(separator: ", "))); give each its own location."
        case .rotationNeedsPassphrase:
            "Another device rotated this vault's master key; following it needs this device's passphrase (not the recovery key, and not a session)."
        case .sessionSaltUnrecognised(let file):
            "No session: \(file) is not a session salt this library made."
        case .attachmentTooLarge(let name, let limit):
            "\(name) is larger than the limit of \(limit) bytes for an attachment; nothing was written."
        case .attachmentUnreadable(let path, let detail):
            "Cannot read \(path) to attach it: \(detail)."
        case .invalidAttachmentName(let name):
            "'\(name)' is not a file name for an attachment (it must be non-empty, without '/', and at most 255 bytes)."
        case .attachmentNotStored(let blobID, let reason):
            "The content \(blobID) is not in this vault file and cannot be fetched: \(reason)."
        }
    }
}
