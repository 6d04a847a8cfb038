// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import JVCommandLine

// Before anything else: private file modes, no core dumps, no ptrace by same-user processes.
_ = jv_harden_process()
// Ctrl-C, a closed terminal or a kill: no plaintext file left, no terminal left without echo.
_ = jv_install_signal_guard()
// A crash ends the process there and then, the same way, printing nothing of its memory.
_ = jv_install_crash_guard()
CommandLineProgram.run()
