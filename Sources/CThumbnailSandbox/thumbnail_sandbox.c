// SPDX-License-Identifier: Apache-2.0
#include "thumbnail_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define JV_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define JV_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define JV_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define JV_REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define JV_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
/// Refuses system call `nr` (the accumulator holds the call's number).
#define JV_REFUSE_CALL(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), JV_REFUSE
/// For an open call whose flags are argument `arg`: refuses it when they ask to write, create
/// or truncate, else allows it (low 32 bits of the argument: flags are an int).
#define JV_OPEN_CALL(nr, arg)                                                              \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4),                                       \
    JV_LOAD(args[arg]),                                                                    \
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0, 1), \
    JV_REFUSE, JV_ALLOW

/// Refuses system call `nr`, or allows it when `allowed` (not a constant: the filter is built at run time).
#define JV_CALL_ALLOWED_IF(nr, allowed)                                                    \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                                       \
    BPF_STMT(BPF_RET | BPF_K, (allowed) ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))

static int confine(int allow_exec) {
#ifndef JV_AUDIT_ARCH
    (void)allow_exec;
    errno = EOPNOTSUPP;
    return -1;
#else
    struct sock_filter filter[] = {
        // Another architecture's calls (x32, or 32-bit ARM) would have other numbers: ended.
        JV_LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, JV_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        JV_LOAD(nr),
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        JV_OPEN_CALL(SYS_open, 1),
        JV_REFUSE_CALL(SYS_creat),
        JV_REFUSE_CALL(SYS_unlink),
        JV_REFUSE_CALL(SYS_rename),
        JV_REFUSE_CALL(SYS_mkdir),
        JV_REFUSE_CALL(SYS_rmdir),
        JV_REFUSE_CALL(SYS_link),
        JV_REFUSE_CALL(SYS_symlink),
        JV_REFUSE_CALL(SYS_mknod),
#endif
        JV_REFUSE_CALL(SYS_socket),
        JV_REFUSE_CALL(SYS_socketpair),
        JV_CALL_ALLOWED_IF(SYS_execve, allow_exec),
        JV_CALL_ALLOWED_IF(SYS_execveat, allow_exec),
        JV_REFUSE_CALL(SYS_ptrace),
        JV_REFUSE_CALL(SYS_openat2),
        JV_REFUSE_CALL(SYS_unlinkat),
        JV_REFUSE_CALL(SYS_renameat),
        JV_REFUSE_CALL(SYS_renameat2),
        JV_REFUSE_CALL(SYS_mkdirat),
        JV_REFUSE_CALL(SYS_linkat),
        JV_REFUSE_CALL(SYS_symlinkat),
        JV_REFUSE_CALL(SYS_mknodat),
        JV_REFUSE_CALL(SYS_truncate),
        JV_OPEN_CALL(SYS_openat, 2),
        JV_ALLOW,
    };
    struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#endif
}

int jv_thumbnail_confine(void) { return confine(0); }

int jv_thumbnail_confine_for_exec(void) { return confine(1); }
