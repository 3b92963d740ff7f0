#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "linux_shim.h"
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
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

int rg_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int rg_epoll_add_readable(int epfd, int fd) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data = {.fd = fd}};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int rg_epoll_interest(int epfd, int fd, int readable, int writable) {
    struct epoll_event event = {.events = EPOLLRDHUP | (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0), .data = {.fd = fd}};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
}

int rg_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int rg_epoll_wait(int epfd, int *fds, int *hangups, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        fds[i] = events[i].data.fd;
        hangups[i] = (events[i].events & (EPOLLHUP | EPOLLERR)) != 0;
    }
    return n;
}

int rg_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int rg_one_malloc_arena(void) { return mallopt(M_ARENA_MAX, 1); }
