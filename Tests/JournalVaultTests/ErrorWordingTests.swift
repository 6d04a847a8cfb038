// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import JournalVault

/// The library's errors state what went wrong and leave the advice to the front end: a GUI or a
/// script using the library must not tell its user to type jv commands (jv adds them, in
/// `Failure+Advice.swift`).
@Suite struct ErrorWordingTests {
    /// What a description naming a jv command or flag contains.
    static let frontEndWords = ["'jv ", "`jv ", "jv ", " --"]

    @Test("no library error's description names a jv command or flag")
    func descriptionsNameNoCommand() {
        let descriptions = VaultError.samples.map(\.description) + DateExpressionError.samples.map(\.description)
            + EntryEditError.samples.map(\.description)
        for description in descriptions {
            #expect(!Self.frontEndWords.contains { description.contains($0) }, "\(description)")
            #expect(description.hasSuffix("."), "one sentence: \(description)")
        }
    }

    @Test("the samples hold every case of VaultError, so a new case is checked too")
    func everyVaultErrorCaseHasASample() {
        let missing = Set(VaultError.Kind.allCases).subtracting(VaultError.samples.map(VaultError.Kind.init))
        #expect(missing.isEmpty, "no sample of \(missing.map { "\($0)" }.sorted())")
    }
}

extension VaultError {
    /// One of each case, with facts of the kind the library puts in them.
    static let samples: [VaultError] = [
        .vaultNotFound(path: "/home/me/journal.vault"), .backupNotFound(path: "/home/me/journal.jvbak"),
        .vaultExists(path: "/home/me/journal.vault"), .notAVault(path: "/home/me/notes.txt", reason: "its header rows are missing"),
        .newerSchema(found: 9, supported: 8), .wrongPassphrase, .wrongRecoveryKey, .malformedRecoveryKey, .rekeyNeedsPassphrase,
        .keyRotatedMeanwhile, .tooManyRecoveryKeys, .emptyPassphrase, .kdfParametersRefused("memory limit 8 GiB is over the policy"),
        .corruptKeyslot(slot: 2), .keyDataDamaged("keyslot 1 is missing"), .tamperedRecord(table: "entry", id: "1a2b3c4d", detail: "bad tag"),
        .manifestDamaged("it does not authenticate"), .corruptDatabase("database disk image is malformed"),
        .notFound(kind: "entry", id: "1a2b3c4d"), .ambiguousID(prefix: "1a2b", matches: 3), .invalidID("xyz"),
        .contentTooLong(characters: 1_000_001, limit: 1_000_000), .contentTooLarge(bytes: 4_000_001, limit: 4_000_000), .contentBlank,
        .invalidUTF8, .invalidTag("two words"), .invalidGraph("the strength 2 is outside 0…1"), .backupCorrupt("it is truncated"),
        .readOnly(path: "/home/me/journal.vault"), .storage("I/O error"), .diskFull(folder: "/home/me"),
        .sessionUnavailable("the agent stopped before it was given the key"), .syncPackRefused("it is of another vault"),
        .syncUnavailable("rclone is not installed"), .syncNotSetUp, .syncAlreadySetUp(location: "/media/usb/journal"),
        .severalVaultsAtLocation(location: "/media/usb/journal", vaults: ["1a2b3c4d", "5e6f7a8b"]), .rotationNeedsPassphrase,
        .sessionSaltUnrecognised(file: "/run/user/1000/jv/salt"), .syncNotDelivered("the remote does not answer"),
        .attachmentTooLarge(name: "holiday.mov", limit: 2_147_483_648), .attachmentUnreadable(path: "/home/me/a.jpg", detail: "Permission denied"),
        .invalidAttachmentName("a/b"), .attachmentNotStored(blobID: "3f2a9c1e", reason: "it was left at the sync location"),
    ]

    /// Each case without its facts. `init` switches over every case without a `default`, so a new
    /// case does not compile until it has a kind here, and the test then wants a sample of it.
    enum Kind: CaseIterable {
        case vaultNotFound, backupNotFound, vaultExists, notAVault, newerSchema, wrongPassphrase, wrongRecoveryKey, malformedRecoveryKey
        case rekeyNeedsPassphrase, keyRotatedMeanwhile, tooManyRecoveryKeys, emptyPassphrase, kdfParametersRefused, corruptKeyslot
        case keyDataDamaged, tamperedRecord, manifestDamaged, corruptDatabase, notFound, ambiguousID, invalidID, contentTooLong
        case contentTooLarge, contentBlank, invalidUTF8, invalidTag, invalidGraph, backupCorrupt, readOnly, storage, diskFull
        case sessionUnavailable, sessionSaltUnrecognised, syncPackRefused, syncUnavailable, syncNotSetUp, syncAlreadySetUp
        case severalVaultsAtLocation, rotationNeedsPassphrase, syncNotDelivered
        case attachmentTooLarge, attachmentUnreadable, invalidAttachmentName, attachmentNotStored

        init(_ error: VaultError) {
            self = switch error {
            case .vaultNotFound: .vaultNotFound
            case .backupNotFound: .backupNotFound
            case .vaultExists: .vaultExists
            case .notAVault: .notAVault
            case .newerSchema: .newerSchema
            case .wrongPassphrase: .wrongPassphrase
            case .wrongRecoveryKey: .wrongRecoveryKey
            case .malformedRecoveryKey: .malformedRecoveryKey
            case .rekeyNeedsPassphrase: .rekeyNeedsPassphrase
            case .keyRotatedMeanwhile: .keyRotatedMeanwhile
            case .tooManyRecoveryKeys: .tooManyRecoveryKeys
            case .emptyPassphrase: .emptyPassphrase
            case .kdfParametersRefused: .kdfParametersRefused
            case .corruptKeyslot: .corruptKeyslot
            case .keyDataDamaged: .keyDataDamaged
            case .tamperedRecord: .tamperedRecord
            case .manifestDamaged: .manifestDamaged
            case .corruptDatabase: .corruptDatabase
            case .notFound: .notFound
            case .ambiguousID: .ambiguousID
            case .invalidID: .invalidID
            case .contentTooLong: .contentTooLong
            case .contentTooLarge: .contentTooLarge
            case .contentBlank: .contentBlank
            case .invalidUTF8: .invalidUTF8
            case .invalidTag: .invalidTag
            case .invalidGraph: .invalidGraph
            case .backupCorrupt: .backupCorrupt
            case .readOnly: .readOnly
            case .storage: .storage
            case .diskFull: .diskFull
            case .sessionUnavailable: .sessionUnavailable
            case .sessionSaltUnrecognised: .sessionSaltUnrecognised
            case .syncPackRefused: .syncPackRefused
            case .syncUnavailable: .syncUnavailable
            case .syncNotSetUp: .syncNotSetUp
            case .syncAlreadySetUp: .syncAlreadySetUp
            case .severalVaultsAtLocation: .severalVaultsAtLocation
            case .rotationNeedsPassphrase: .rotationNeedsPassphrase
            case .syncNotDelivered: .syncNotDelivered
            case .attachmentTooLarge: .attachmentTooLarge
            case .attachmentUnreadable: .attachmentUnreadable
            case .invalidAttachmentName: .invalidAttachmentName
            case .attachmentNotStored: .attachmentNotStored
            }
        }
    }
}

extension DateExpressionError {
    /// An input read in no way, and a day the order in use cannot read.
    static let samples = [
        DateExpressionError(input: "foo"),
        DateExpressionError(input: "5/13/2026", misread: .init(order: .dmy, otherwise: CivilDay(year: 2026, month: 5, day: 13))),
    ]
}

extension EntryEditError {
    static let samples: [EntryEditError] = [
        .unreadable(line: 3, reason: "{jv:9f9f9f9f} is not the marker of an entry being edited"),
        .headerInText(id: UUID(uuidString: "1A2B3C4D-0000-4000-8000-000000000000")!),
    ]
}
