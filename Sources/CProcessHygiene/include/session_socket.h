// SPDX-License-Identifier: Apache-2.0
#ifndef JOURNALVAULT_SESSION_SOCKET_H
#define JOURNALVAULT_SESSION_SOCKET_H

#include <spawn.h>
#include <sys/types.h>

/// A listening Unix stream socket bound at `path` (close-on-exec, mode 0600 once bound), a path
/// of any length: it is bound through a descriptor of its folder (which may not be a link).
/// Returns the descriptor, or -1 with errno set (ENAMETOOLONG when the socket's own name is
/// too long, EADDRINUSE when something is at `path` already).
int jv_unix_listen(const char *path);

/// A connection to the Unix stream socket at `path` (of any length, as for jv_unix_listen),
/// whose reads and writes give up after `timeout_ms` milliseconds. Returns the descriptor, or
/// -1 with errno set (ECONNREFUSED when nothing listens there any more, ENOENT when there is no
/// socket).
int jv_unix_connect(const char *path, int timeout_ms);

/// The next connection on listening socket `fd` (close-on-exec), whose reads and writes give
/// up after `timeout_ms` milliseconds. Returns the descriptor, or -1 with errno set.
int jv_unix_accept(int fd, int timeout_ms);

/// The user id and process id of the process at the other end of the connected Unix socket
/// `fd`, as the kernel recorded them at connect time (SO_PEERCRED): nothing the peer says.
/// Returns 0, or -1 with errno set.
int jv_peer_credentials(int fd, unsigned int *uid, int *pid);

/// Starts `path` with `argv` (NULL-terminated) and an empty environment as a detached process:
/// a new session (no controlling terminal, not in the caller's process group), standard input
/// from `stdin_fd`, standard output to `stdout_fd`, standard error to /dev/null, and no other
/// descriptor of the caller open in it. Returns the child's pid, or -1 with errno set.
int jv_spawn_detached(const char *path, char *const argv[], int stdin_fd, int stdout_fd);

/// Adds to `actions` the closing of every descriptor from `lowest` up, after the actions
/// before it (glibc's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module
/// does not declare). Returns 0, or an error number.
int jv_spawn_actions_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Replaces the handlers of SIGINT, SIGTERM, SIGHUP and SIGQUIT by ones that write the signal
/// number to a pipe, and ignores SIGPIPE: a loop waiting in poll(2) sees a signal as a readable
/// descriptor and can end in order. Returns the pipe's read end, or -1 with errno set.
int jv_signal_pipe(void);

#endif
