/* LD_PRELOAD for EventLoopProcessTests: epoll_wait(2) fails with EBADF, as on a closed epoll descriptor, once
 * the file named by RIDEGATE_TEST_EPOLL_FAILS_WHEN exists. Everything else goes to the C library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout) {
    static int (*real)(int, struct epoll_event *, int, int);
    const char *trigger = getenv("RIDEGATE_TEST_EPOLL_FAILS_WHEN");
    if (trigger != NULL && access(trigger, F_OK) == 0) {
        errno = EBADF;
        return -1;
    }
    if (real == NULL) real = (int (*)(int, struct epoll_event *, int, int))dlsym(RTLD_NEXT, "epoll_wait");
    return real(epfd, events, maxevents, timeout);
}
