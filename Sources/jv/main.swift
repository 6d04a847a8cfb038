import CProcessHygiene

// Before anything else: private file modes, no core dumps, no ptrace by same-user processes.
_ = jv_harden_process()
JV.main(GlobalOptions.hoistingGlobalOptions(Array(CommandLine.arguments.dropFirst())))
