// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation

// Before anything else: private file modes, no core dumps, no ptrace by same-user processes.
_ = jv_harden_process()
// Ctrl-C, a closed terminal or a kill: no plaintext file left, no terminal left without echo.
_ = jv_install_signal_guard()
// A crash ends the process there and then, the same way, printing nothing of its memory.
_ = jv_install_crash_guard()
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
