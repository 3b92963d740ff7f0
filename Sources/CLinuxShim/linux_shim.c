#define _GNU_SOURCE
#include "linux_shim.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/timex.h>
#include <unistd.h>

int rg_open_pty(char *path, size_t path_size) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return -1;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, path, path_size) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int rg_clock_synchronised(void) {
    struct timex t = {0};
    int state = adjtimex(&t);
    /* A seccomp filter (systemd's ProtectClock=) makes even this read fail: unknown, not "synchronised". */
    if (state < 0) return -1;
    return state != TIME_ERROR && !(t.status & STA_UNSYNC);
}
