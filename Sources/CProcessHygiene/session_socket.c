// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "session_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

// A socket address holds at most 107 bytes of path, and $XDG_RUNTIME_DIR may be longer: the
// socket at `path` is reached as "/proc/self/fd/N/NAME" instead, N a descriptor of its folder
// (O_PATH, the folder itself, not a link), which the kernel resolves for bind and connect alike.
// Returns that descriptor, to be closed once bound or connected, or -1 with errno set.
static int socket_address(const char *path, struct sockaddr_un *address) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL || slash[1] == 0) {
        errno = EINVAL;
        return -1;
    }
    char *folder_path = strndup(path, slash == path ? 1 : (size_t)(slash - path));
    if (folder_path == NULL) return -1;
    int folder = open(folder_path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    free(folder_path);
    if (folder < 0) return -1;
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    int length = snprintf(address->sun_path, sizeof address->sun_path, "/proc/self/fd/%d/%s", folder, slash + 1);
    if (length < 0 || (size_t)length >= sizeof address->sun_path) {
        close(folder);
        errno = ENAMETOOLONG;
        return -1;
    }
    return folder;
}

static int set_timeouts(int fd, int timeout_ms) {
    struct timeval timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) return -1;
    return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

static int close_keeping_errno(int fd) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int jv_unix_listen(const char *path) {
    struct sockaddr_un address;
    int folder = socket_address(path, &address);
    if (folder < 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return close_keeping_errno(folder);
    // Bound under umask 077 so it is never reachable by others, even before the chmod.
    mode_t previous = umask(077);
    int bound = bind(fd, (struct sockaddr *)&address, sizeof address);
    umask(previous);
    close_keeping_errno(folder);
    if (bound != 0) return close_keeping_errno(fd);
    if (chmod(path, 0600) != 0 || listen(fd, 16) != 0) {
        int saved = errno;
        unlink(path);
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int jv_unix_connect(const char *path, int timeout_ms) {
    struct sockaddr_un address;
    int folder = socket_address(path, &address);
    if (folder < 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return close_keeping_errno(folder);
    int connected = set_timeouts(fd, timeout_ms) == 0 && connect(fd, (struct sockaddr *)&address, sizeof address) == 0;
    close_keeping_errno(folder);
    return connected ? fd : close_keeping_errno(fd);
}

int jv_unix_accept(int fd, int timeout_ms) {
    int connection = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    if (connection < 0) return -1;
    if (set_timeouts(connection, timeout_ms) != 0) return close_keeping_errno(connection);
    return connection;
}

int jv_peer_credentials(int fd, unsigned int *uid, int *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *pid = credentials.pid;
    return 0;
}

int jv_spawn_detached(const char *path, char *const argv[], int stdin_fd, int stdout_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (posix_spawn_file_actions_init(&actions) != 0) return -1;
    if (posix_spawnattr_init(&attributes) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return -1;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int status = 0;
    status |= posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    status |= posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    status |= posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // The vault file, the terminal and anything else this process holds stay out of the child.
    status |= posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    status |= posix_spawnattr_setsigmask(&attributes, &none);
    status |= posix_spawnattr_setsigdefault(&attributes, &all);
    status |= posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *const environment[] = {NULL};
    pid_t pid = -1;
    if (status == 0) status = posix_spawn(&pid, path, &actions, &attributes, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (status != 0) {
        errno = status;
        return -1;
    }
    return pid;
}

int jv_spawn_actions_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

static int signal_pipe_writer = -1;

static void forward_signal(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    (void)!write(signal_pipe_writer, &byte, 1);
    errno = saved;
}

int jv_signal_pipe(void) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    signal_pipe_writer = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t index = 0; index < sizeof forwarded / sizeof forwarded[0]; index++) {
        if (sigaction(forwarded[index], &action, NULL) != 0) return -1;
    }
    signal(SIGPIPE, SIG_IGN);
    return ends[0];
}
