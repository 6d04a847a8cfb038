// SPDX-License-Identifier: Apache-2.0
#ifndef JOURNALVAULT_PROCESS_HYGIENE_H
#define JOURNALVAULT_PROCESS_HYGIENE_H

/// Makes the process unfit to leak secrets: umask 077 (files it creates are private),
/// no core dumps (RLIMIT_CORE 0) and not dumpable (PR_SET_DUMPABLE 0: no core, and other
/// processes of the same user cannot ptrace it or read /proc/PID/mem).
/// Returns 0, or -1 if a step failed (errno says which).
int jv_harden_process(void);

/// Turns terminal echo off (on != 0: back on) for the open terminal `fd`. While echo is off,
/// the signal guard puts the terminal back as it was if a signal ends the process.
/// Returns 0, or -1 when `fd` is not a terminal.
int jv_set_echo(int fd, int on);

/// Installs the signal guard: on SIGINT, SIGTERM, SIGHUP or SIGQUIT it ends the guarded child's
/// process group (SIGHUP), overwrites the guarded file with zeros and removes it, restores the
/// guarded terminal (and its foreground group), waits for the guarded pager, then lets the
/// signal end the process as it would have (exit status 128 + signal).
/// Returns 0, or -1 if a handler could not be installed.
int jv_install_signal_guard(void);

/// Installs the crash guard: on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP or SIGSYS —
/// a fault, or the signal sent with kill(2) — it does what the signal guard does, then the
/// signal ends the process at once (no core file: RLIMIT_CORE is 0), on whichever thread it
/// came. It replaces the handlers of Swift's runtime, whose backtracer prints source lines (and
/// can print registers and memory), waits at a terminal for a key that offers a debugger, and
/// for a signal that was sent rather than a fault returns and lets the process go on.
/// Returns 0, or -1 if a handler or its stack could not be installed.
int jv_install_crash_guard(void);

/// Guards the plaintext file at `path` (a copy of the path is kept), alone in a folder of its
/// own, which goes with it if empty; NULL stops guarding it.
/// Returns 0, or -1 if the path is too long to guard (nothing is guarded then).
int jv_guard_file(const char *path);

/// Runs `path` with `argv` and `envp` (NULL-terminated) in a process group of its own, guarded
/// (the signal guard ends the whole group: a program a wrapper script started too), and waits
/// for it. When this process has the terminal `terminal` (-1: none) in the foreground, the
/// child's group gets it while it runs (an editor reads it, and Ctrl-C and Ctrl-Z go to the
/// editor alone), and it comes back afterwards; a suspended child suspends this process's job.
/// Returns the exit status, 128 + the signal that ended it, or -1 if it could not be started.
int jv_run_guarded_child(const char *path, char *const argv[], char *const envp[], int terminal);

/// Guards the pager `pid` that reads jv's output from `input` (pid 0 stops guarding it): a
/// signal that ends jv closes `input` and waits for the pager to exit, killing nothing.
void jv_guard_pager(int pid, int input);

/// Saves the settings of terminal `fd` to be restored if a signal ends the process
/// (`fd` < 0 stops guarding it).
void jv_guard_terminal(int fd);

/// 1 when `path` is on a file system kept in memory only (tmpfs or ramfs), 0 when it is on
/// another, -1 when it cannot be examined.
int jv_is_memory_filesystem(const char *path);

/// Starts writing `length` bytes of `descriptor`'s file from `offset` to its disk, without
/// waiting for them (sync_file_range, SYNC_FILE_RANGE_WRITE): a hint that lets a large output
/// reach the disk while it is still being written; it makes nothing durable. 0, or -1.
int jv_start_writeback(int descriptor, long long offset, long long length);

/// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): a
/// process a child started stays below this one even if it leaves its process group and
/// session (setsid) and its parent exits. Returns 0, or -1 if the kernel refused.
int jv_become_subreaper(void);

/// Kills (SIGKILL) and reaps every descendant of this process, rounds at a time: children, then
/// the orphans that come back to this process as their parents die. Returns how many it killed.
int jv_end_descendants(void);

#endif
