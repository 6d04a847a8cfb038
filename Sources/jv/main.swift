import CProcessHygiene
import Foundation

// Before anything else: private file modes, no core dumps, no ptrace by same-user processes.
_ = jv_harden_process()
// Ctrl-C, a closed terminal or a kill: no plaintext file left, no terminal left without echo.
_ = jv_install_signal_guard()
// A crash ends the process there and then, the same way, printing nothing of its memory.
_ = jv_install_crash_guard()
do {
    let arguments = GlobalOptions.fillingOptionalValues(GlobalOptions.hoistingGlobalOptions(try CommandArguments.take()))
    if let unknown = UnknownCommand.message(for: arguments) {
        Console.error(unknown)
        exit(64)
    }
    UsageMessage.run(try FreeTextArguments.separated(arguments))
} catch let error as CLIError {
    Console.error(error.description)
    exit(Failure.code(for: error))
} catch {
    Console.error(String(describing: error))
    exit(65)
}
