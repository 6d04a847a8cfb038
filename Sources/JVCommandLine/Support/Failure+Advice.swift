// SPDX-License-Identifier: Apache-2.0
import JournalVault

/// What jv prints for the library's errors. The library states what went wrong; where the person
/// can do something about it with jv, jv adds which command to run, here and nowhere else.
extension Failure {
    /// How a vault that does not sync yet is set up: the end of the sentence that says so.
    static let syncSetUpAdvice = "set it up with `jv sync init LOCATION` or `jv sync clone LOCATION`"

    /// The sentence for `error`, with jv's advice where it has some.
    static func sentence(for error: VaultError) -> String {
        switch error {
        case .vaultNotFound(let path):
            "No vault at \(path); create one with 'jv init' or pass --vault."
        case .newerSchema(let found, let supported):
            "This vault has schema version \(found), but this jv understands only up to \(supported); upgrade jv to open it."
        case .rekeyNeedsPassphrase:
            "Rotating the master key needs the passphrase (to re-wrap it); if you forgot it, set a new one first with 'jv passwd --recovery-key-file FILE'."
        case .keyRotatedMeanwhile:
            "The vault's master key was rotated ('jv rekey') while this command ran; nothing was changed: run the command again."
        case .tooManyRecoveryKeys:
            "Three recovery keys already open this vault (earlier runs of 'jv recovery-key' were interrupted); run it again with the one you hold "
                + "('--recovery-key-file FILE'), and jv keeps that one until the new key is shown."
        case .manifestDamaged(let reason):
            "The vault's list of records cannot be trusted (\(reason)); run 'jv check', and restore a backup if it reports problems."
        case .syncNotDelivered(let reason):
            "Cannot reach the sync location: \(reason). This machine's changes are kept and go out at the next 'jv sync'."
        case .syncNotSetUp:
            "This vault does not sync yet: \(syncSetUpAdvice)."
        case .rotationNeedsPassphrase:
            "Another device rotated this vault's master key (jv rekey); to follow it, run jv sync with this device's passphrase "
                + "(not the recovery key, and not through a session: add --no-agent)."
        case .sessionSaltUnrecognised(let file):
            "No session: \(unrecognisedSalt(file))."
        case .attachmentTooLarge(let name, let limit):
            "\(name) is larger than the limit of \(limit) bytes for an attachment (the config key attachments.max_size); nothing was written."
        case .backupNotFound, .vaultExists, .notAVault, .wrongPassphrase, .wrongRecoveryKey, .malformedRecoveryKey, .emptyPassphrase,
             .kdfParametersRefused, .corruptKeyslot, .keyDataDamaged, .tamperedRecord, .corruptDatabase, .notFound, .ambiguousID, .invalidID,
             .contentTooLong, .contentTooLarge, .contentBlank, .invalidUTF8, .invalidTag, .invalidGraph, .backupCorrupt, .readOnly, .storage,
             .diskFull, .sessionUnavailable, .syncPackRefused, .syncUnavailable, .syncAlreadySetUp, .severalVaultsAtLocation,
             .attachmentUnreadable, .invalidAttachmentName, .attachmentNotStored:
            error.description
        }
    }

    /// Why no session can be used, when that is what `error` says (jv then goes on without one
    /// where it can); nil for any other error.
    static func sessionProblem(in error: VaultError) -> String? {
        switch error {
        case .sessionUnavailable(let reason): reason
        case .sessionSaltUnrecognised(let file): unrecognisedSalt(file)
        default: nil
        }
    }

    private static func unrecognisedSalt(_ file: String) -> String {
        "\(file) is not a salt jv made; remove it (after 'jv lock --all') and run 'jv unlock' again"
    }

    /// An unrecognised date, with where jv lists the forms it reads.
    static func sentence(for error: DateExpressionError) -> String {
        guard error.misread == nil else { return error.description }
        return String(error.description.dropLast()) + " ('jv list --help' lists every form)."
    }

    /// Edited entries that cannot be saved, with how to edit the one that cannot be edited with others.
    static func sentence(for error: EntryEditError) -> String {
        switch error {
        case .unreadable:
            error.description
        case .headerInText(let id):
            String(error.description.dropLast()) + "; edit it on its own with 'jv edit \(String(id.uuidString.lowercased().prefix(8)))'."
        }
    }
}
