// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What `jv` does once its process is hardened (Sources/jv/main.swift): reads the arguments,
/// translates jrnl's command line, refuses an unknown command, runs the command and exits with
/// its status. Never returns.
public enum CommandLineProgram {
    public static func run() -> Never {
        // A jv killed outright while its editor was open left the file: its text goes now.
        _ = Editor.abandonedFilesRemoved
        do {
            let given = GlobalOptions.fillingOptionalValues(GlobalOptions.hoistingGlobalOptions(try CommandArguments.take()))
            // jrnl's command line, when the first word is not a jv command: `alias jrnl=jv` works.
            let arguments = try JrnlCommandLine.translated(given)
            if let unknown = UnknownCommand.message(for: arguments) {
                Console.error(unknown)
                exit(ExitStatus.usage.rawValue)
            }
            UsageMessage.run(try FreeTextArguments.separated(arguments))
        } catch let error as CLIError {
            Console.error(error.description)
            exit(Failure.code(for: error))
        } catch {
            Console.error(String(describing: error))
            exit(ExitStatus.badData.rawValue)
        }
    }
}
