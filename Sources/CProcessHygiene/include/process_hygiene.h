#ifndef JOURNALVAULT_PROCESS_HYGIENE_H
#define JOURNALVAULT_PROCESS_HYGIENE_H

/// Makes the process unfit to leak secrets: umask 077 (files it creates are private),
/// no core dumps (RLIMIT_CORE 0) and not dumpable (PR_SET_DUMPABLE 0: no core, and other
/// processes of the same user cannot ptrace it or read /proc/PID/mem).
/// Returns 0, or -1 if a step failed (errno says which).
int jv_harden_process(void);

/// Turns terminal echo off (on != 0: back on) for the open terminal `fd`.
/// Returns 0, or -1 when `fd` is not a terminal.
int jv_set_echo(int fd, int on);

#endif
