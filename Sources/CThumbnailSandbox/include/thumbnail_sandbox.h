// SPDX-License-Identifier: Apache-2.0
#ifndef JOURNALVAULT_THUMBNAIL_SANDBOX_H
#define JOURNALVAULT_THUMBNAIL_SANDBOX_H

/// Confines the calling process (and every thread it starts afterwards) with a seccomp filter,
/// for the rest of its life: no socket, no program run, no ptrace, and no file opened for
/// writing, created, removed, renamed, linked or truncated — each refused with EACCES. The
/// standard descriptors it was given stay usable. Sets no_new_privs first, as the kernel
/// requires of a process without CAP_SYS_ADMIN.
/// Returns 0, or -1 if the kernel refused (errno says why) or the architecture is not one the
/// filter knows (x86-64, AArch64: EOPNOTSUPP).
int jv_thumbnail_confine(void);

/// The same filter with execve and execveat allowed: for the process that then becomes ffmpeg
/// (a video's first frame). The program it runs, and anything that one runs, stays under the
/// filter: no socket, no ptrace, no file written, created or removed.
int jv_thumbnail_confine_for_exec(void);

#endif
