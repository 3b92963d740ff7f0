/* Signals as bytes on a pipe (the self-pipe trick): whichever thread the kernel picks runs the handler, which
 * only writes the signal's number, and the event loop reads it like any descriptor. No signal mask to keep
 * in step across threads. A handler can reach only globals, hence the one write end here. */
#define _GNU_SOURCE
#include "linux_shim.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t write_end = -1;

static void note_signal(int signo) {
    int saved = errno;
    unsigned char number = (unsigned char)signo;
    if (write_end >= 0) (void)!write(write_end, &number, 1);
    errno = saved;
}

int rg_signal_pipe_open(const int *signals, int count) {
    int ends[2];
    if (pipe2(ends, O_NONBLOCK | O_CLOEXEC) != 0) return -1;
    write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = note_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) sigaction(signals[i], &action, NULL);
    return ends[0];
}

void rg_signal_pipe_close(int read_end, const int *signals, int count) {
    for (int i = 0; i < count; i++) signal(signals[i], SIG_IGN);
    int end = write_end;
    write_end = -1;
    if (end >= 0) close(end);
    close(read_end);
}
