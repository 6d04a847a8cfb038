// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import JournalVault

/// Errors of the command line itself (not of the vault).
enum CLIError: Error, CustomStringConvertible {
    /// Wrong use of the command: exit 64.
    case usage(String)
    /// A named input file is missing: exit 66.
    case inputNotFound(String)
    /// The user declined, or nothing was changed: exit 1.
    case cancelled(String)
    /// A file is in the way and was not replaced: exit 73.
    case exists(String)
    /// Input that cannot be used as given (and was not): exit 65.
    case refused(String)
    /// An output file cannot be created (its folder is missing or not writable): exit 73.
    case cannotCreate(String)
    /// Anything else: exit 1.
    case failed(String)

    var description: String {
        switch self {
        case .usage(let message), .inputNotFound(let message), .cancelled(let message), .exists(let message), .refused(let message),
             .cannotCreate(let message),
             .failed(let message): message
        }
    }
}

/// Every exit status jv chooses (README "Exit codes", jv(1) "EXIT STATUS"; `jv --help` lists
/// them from here). A death by signal is the shell's 128 + its number, as for any program.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case usage = 64
    case badData = 65
    case notFound = 66
    case cannotCreate = 73
    case wrongSecret = 77
    case failure = 1

    private var meaning: String {
        switch self {
        case .success: "ok"
        case .usage: "usage"
        case .badData: "bad or tampered data"
        case .notFound: "not found"
        case .cannotCreate: "refusing to overwrite or cannot create a file"
        case .wrongSecret: "wrong passphrase or recovery key"
        case .failure: "anything else"
        }
    }

    /// "0 ok, 64 usage, …, 1 anything else".
    static var summary: String {
        allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: ", ")
    }
}

/// Turns any error into one sentence on standard error and the exit code README "Exit codes" lists.
enum Failure {
    static func exit(for error: Error) -> ExitCode {
        if error is ExitCode || error is CleanExit { return error as? ExitCode ?? .success }
        if let closed = error as? OutputClosed { return ExitCode(closed.status) }
        Console.error(sentence(for: error))
        return ExitCode(code(for: error))
    }

    static func code(for error: Error) -> Int32 {
        status(for: error).rawValue
    }

    private static func status(for error: Error) -> ExitStatus {
        switch error {
        case let error as VaultError:
            switch error {
            case .vaultNotFound, .backupNotFound, .notFound: .notFound
            case .vaultExists: .cannotCreate
            case .wrongPassphrase, .wrongRecoveryKey, .malformedRecoveryKey: .wrongSecret
            case .notAVault, .newerSchema, .kdfParametersRefused, .corruptKeyslot, .keyDataDamaged, .tamperedRecord, .manifestDamaged,
                 .corruptDatabase, .contentTooLong, .contentTooLarge, .contentBlank, .invalidUTF8, .invalidGraph, .backupCorrupt, .syncPackRefused,
                 .attachmentTooLarge: .badData
            case .attachmentUnreadable: .notFound
            case .ambiguousID, .invalidID, .invalidTag, .emptyPassphrase, .rekeyNeedsPassphrase, .tooManyRecoveryKeys, .invalidAttachmentName: .usage
            case .storage, .readOnly, .diskFull, .sessionUnavailable, .sessionSaltUnrecognised, .syncUnavailable, .syncNotSetUp, .syncAlreadySetUp,
                 .severalVaultsAtLocation, .rotationNeedsPassphrase, .syncNotDelivered, .attachmentNotStored: .failure
            case .keyRotatedMeanwhile: .failure
            }
        case is DateExpressionError, is SearchQueryError, is MeasureError: .usage
        case is ImportError, is AgeError, is EntryEditError: .badData
        case let error as CLIError:
            switch error {
            case .usage: .usage
            case .inputNotFound: .notFound
            case .exists, .cannotCreate: .cannotCreate
            case .refused: .badData
            case .cancelled, .failed: .failure
            }
        default: .failure
        }
    }

    static func sentence(for error: Error) -> String {
        switch error {
        case let error as VaultError: sentence(for: error)
        case let error as DateExpressionError: sentence(for: error)
        case let error as EntryEditError: sentence(for: error)
        case let error as CustomStringConvertible where error is CLIError || error is ImportError || error is AgeError || error is SearchQueryError
                                                         || error is MeasureError:
            error.description
        default:
            // Foundation and system errors: their localized text, never a dump.
            (error as NSError).localizedDescription
        }
    }
}

/// A command that reports failures as one sentence and an exit code.
protocol VaultCommand: ParsableCommand {
    func execute() throws
}

/// A command with `--force` to replace an existing file: its refusal says so.
protocol ReplacingWithForce {}

extension VaultCommand {
    func run() throws {
        // Also after a failure: the mark follows whatever was committed, and the vault is let go.
        defer { HighWater.update() }
        do {
            // Read now: a fault in the config file stops the command before it does anything.
            _ = try Config.current
            try execute()
        } catch VaultError.vaultExists(let path) where self is ReplacingWithForce {
            throw Failure.exit(for: CLIError.exists("A file already exists at \(path); add --force to replace it."))
        } catch {
            throw Failure.exit(for: error)
        }
    }
}
