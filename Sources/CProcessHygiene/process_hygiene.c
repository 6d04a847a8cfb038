// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "process_hygiene.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

int jv_harden_process(void) {
    umask(077);
    struct rlimit none = {0, 0};
    int status = setrlimit(RLIMIT_CORE, &none);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
    return status;
}

// What the signal guard puts right. Written only outside the handler, and each guard is armed
// (its flag set) only after its data is complete, so the handler never reads half of it.
static char guarded_file[4096];
static volatile sig_atomic_t file_is_guarded = 0;
static volatile sig_atomic_t guarded_child = 0;
// Whether the guarded child's process group has the terminal (is its foreground group).
static volatile sig_atomic_t guarded_child_has_terminal = 0;
static volatile sig_atomic_t guarded_pager = 0;
static volatile sig_atomic_t guarded_pager_input = -1;
static struct termios guarded_terminal_settings;
static volatile sig_atomic_t guarded_terminal = -1;

void jv_guard_terminal(int fd) {
    guarded_terminal = -1;
    if (fd >= 0 && tcgetattr(fd, &guarded_terminal_settings) == 0) guarded_terminal = fd;
}

int jv_set_echo(int fd, int on) {
    struct termios attributes;
    if (tcgetattr(fd, &attributes) != 0) return -1;
    if (on) {
        attributes.c_lflag |= ECHO;
        int status = tcsetattr(fd, TCSAFLUSH, &attributes);
        jv_guard_terminal(-1);
        return status;
    }
    jv_guard_terminal(fd);
    attributes.c_lflag &= ~(tcflag_t)ECHO;
    return tcsetattr(fd, TCSAFLUSH, &attributes);
}

int jv_guard_file(const char *path) {
    file_is_guarded = 0;
    if (path == NULL) return 0;
    size_t length = strlen(path);
    if (length >= sizeof guarded_file) return -1;
    memcpy(guarded_file, path, length + 1);
    file_is_guarded = 1;
    return 0;
}

void jv_guard_pager(int pid, int input) {
    guarded_pager = 0;
    guarded_pager_input = input;
    guarded_pager = pid;
}

/// Makes `group` the terminal's foreground group. From outside the foreground that would stop
/// the process (SIGTTOU) unless the signal is blocked, as shells block it.
static void hand_terminal(int terminal, pid_t group) {
    sigset_t ttou, previous;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &previous);
    tcsetpgrp(terminal, group);
    sigprocmask(SIG_SETMASK, &previous, NULL);
}

int jv_run_guarded_child(const char *path, char *const argv[], char *const envp[], int terminal) {
    int foreground = terminal >= 0 && tcgetpgrp(terminal) == getpgrp();
    sigset_t ttou, previous;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &previous);
    pid_t child = fork();
    if (child == 0) {
        // Only async-signal-safe calls between fork and exec. Handlers go back to the default
        // at exec; the mask is restored here.
        setpgid(0, 0);
        if (foreground) tcsetpgrp(terminal, getpid());
        sigprocmask(SIG_SETMASK, &previous, NULL);
        // Standard input, output and error only: the vault and anything else jv holds stay out.
        if (close_range(3, ~0U, 0) != 0) {
            for (int fd = 3; fd < 1024; fd++) close(fd);
        }
        execve(path, argv, envp);
        _exit(127);
    }
    if (child < 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        return -1;
    }
    // Here too: whichever runs first, the group and the terminal are the child's before the
    // child's program starts or the guard can signal it.
    setpgid(child, child);
    if (foreground) tcsetpgrp(terminal, child);
    guarded_child_has_terminal = foreground;
    guarded_child = child;
    sigprocmask(SIG_SETMASK, &previous, NULL);
    int status = 0;
    while (1) {
        if (waitpid(child, &status, foreground ? WUNTRACED : 0) < 0) {
            if (errno == EINTR) continue;
            status = 127 << 8;
            break;
        }
        if (!WIFSTOPPED(status)) break;
        // The editor was suspended (Ctrl-Z): so is jv's job, with the terminal back, as the
        // shell that started it expects; when the job goes on, the editor goes on.
        hand_terminal(terminal, getpgrp());
        kill(0, SIGTSTP);
        hand_terminal(terminal, child);
        kill(-child, SIGCONT);
    }
    guarded_child = 0;
    if (foreground) hand_terminal(terminal, getpgrp());
    guarded_child_has_terminal = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Only async-signal-safe calls (and strlen): kill, open, lseek, write, fsync, close, unlink, rmdir, tcsetattr,
// tcsetpgrp, getpgrp, waitpid, sigaction, raise.
static void wipe_guarded_file(void) {
    int fd = open(guarded_file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
        static const char zeros[4096];
        off_t remaining = lseek(fd, 0, SEEK_END);
        lseek(fd, 0, SEEK_SET);
        while (remaining > 0) {
            ssize_t written = write(fd, zeros, remaining < (off_t)sizeof zeros ? (size_t)remaining : sizeof zeros);
            if (written <= 0) break;
            remaining -= written;
        }
        fsync(fd);
        close(fd);
    }
    unlink(guarded_file);
    // Its folder of its own goes too, when nothing else is in it (else the next jv removes it).
    size_t index = strlen(guarded_file);
    while (index-- > 1) {
        if (guarded_file[index] != '/') continue;
        guarded_file[index] = 0;
        rmdir(guarded_file);
        break;
    }
}

static void on_fatal_signal(int signal_number) {
    int saved_errno = errno;
    if (guarded_child > 0) {
        // Its whole process group: an editor started by a wrapper script ends with the script.
        // SIGCONT after SIGHUP, so that a suspended one gets it too, as shells do.
        kill(-(pid_t)guarded_child, SIGHUP);
        kill(-(pid_t)guarded_child, SIGCONT);
    }
    if (file_is_guarded) wipe_guarded_file();
    if (guarded_terminal >= 0) {
        // jv is outside the terminal's foreground while the editor has it: changing the terminal
        // from there stops the process (SIGTTOU) unless the signal is ignored.
        struct sigaction ignore;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGTTOU, &ignore, NULL);
        if (guarded_child_has_terminal) tcsetpgrp(guarded_terminal, getpgrp());
        tcsetattr(guarded_terminal, TCSANOW, &guarded_terminal_settings);
    }
    // The pager has the terminal: it is left to finish (it ends its input and the user quits
    // it), so the shell does not come back while it still draws, nor find the terminal in its mode.
    if (guarded_pager > 0) {
        close(guarded_pager_input);
        while (waitpid((pid_t)guarded_pager, NULL, 0) < 0 && errno == EINTR) {}
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, NULL);
    errno = saved_errno;
    raise(signal_number);
}

int jv_install_signal_guard(void) {
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) sigaddset(&action.sa_mask, signals[index]);
    int status = 0;
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        // A signal jv was started ignoring (nohup, a background job of a script) stays ignored.
        struct sigaction current;
        if (sigaction(signals[index], NULL, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        if (sigaction(signals[index], &action, NULL) != 0) status = -1;
    }
    return status;
}

int jv_install_crash_guard(void) {
    // A crash may be a stack overflow: the handler runs on a stack of its own.
    static char alternate_stack[64 * 1024];
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
    int status = sigaltstack(&stack, NULL);
    static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_fatal_signal;
    action.sa_flags = SA_ONSTACK;
    sigfillset(&action.sa_mask);
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        if (sigaction(signals[index], &action, NULL) != 0) status = -1;
    }
    return status;
}

int jv_is_memory_filesystem(const char *path) {
    const long tmpfs_magic = 0x01021994;
    const long ramfs_magic = 0x858458f6;
    struct statfs status;
    if (statfs(path, &status) != 0) return -1;
    return status.f_type == tmpfs_magic || status.f_type == ramfs_magic;
}

int jv_start_writeback(int descriptor, long long offset, long long length) {
    return sync_file_range(descriptor, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE) == 0 ? 0 : -1;
}

int jv_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1;
}

/// The parent process id in /proc/PID/stat, or -1. The command name (field 2) may hold spaces
/// and parentheses, so the fields are read after its last ')'.
static pid_t parent_of(const char *pid_text) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/stat", pid_text);
    FILE *file = fopen(path, "re");
    if (file == NULL) return -1;
    char buffer[1024];
    size_t length = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    buffer[length] = 0;
    char *end_of_name = strrchr(buffer, ')');
    char state;
    int parent;
    if (end_of_name == NULL || sscanf(end_of_name + 1, " %c %d", &state, &parent) != 2) return -1;
    return (pid_t)parent;
}

int jv_end_descendants(void) {
    pid_t self = getpid();
    int killed = 0;
    for (int round = 0; round < 64; round++) {
        int found = 0;
        DIR *processes = opendir("/proc");
        if (processes == NULL) break;
        struct dirent *entry;
        while ((entry = readdir(processes)) != NULL) {
            if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
            if (parent_of(entry->d_name) != self) continue;
            pid_t child = (pid_t)atoi(entry->d_name);
            if (kill(child, SIGKILL) == 0) killed++;
            found++;
        }
        closedir(processes);
        if (found == 0) break;
        // Reaping a child hands its own children to this process (the subreaper).
        int status;
        while (waitpid(-1, &status, 0) > 0) {}
    }
    return killed;
}
