#include "process_hygiene.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>

int jv_harden_process(void) {
    umask(077);
    struct rlimit none = {0, 0};
    int status = setrlimit(RLIMIT_CORE, &none);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
    return status;
}

int jv_set_echo(int fd, int on) {
    struct termios attributes;
    if (tcgetattr(fd, &attributes) != 0) return -1;
    if (on) {
        attributes.c_lflag |= ECHO;
    } else {
        attributes.c_lflag &= ~(tcflag_t)ECHO;
    }
    return tcsetattr(fd, TCSAFLUSH, &attributes);
}
