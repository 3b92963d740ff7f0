/* Linux calls that Swift's Glibc module does not expose (they sit behind feature-test macros). */
#ifndef RIDEGATE_LINUX_SHIM_H
#define RIDEGATE_LINUX_SHIM_H
#include <stddef.h>

/* posix_openpt(3) + grantpt(3) + unlockpt(3) + ptsname_r(3): a new pty pair. Returns the controller
 * descriptor and writes the device path into `path`; -1 with errno set on failure. */
int rg_open_pty(char *path, size_t path_size);

/* adjtimex(2): 1 when the kernel considers the system clock synchronised (NTP or similar), 0 when not,
 * -1 with errno set when the kernel would not say (e.g. EPERM under a seccomp filter). */
int rg_clock_synchronised(void);

/* The event loop's kernel objects, as small calls (sys/epoll.h's packed struct and eventfd.h are not in
 * Glibc's module). rg_epoll_* return what epoll_create1/epoll_ctl/epoll_wait return; `fds` receives the
 * ready descriptors (the loop registers each descriptor with its own number as the event's data) and
 * `hangups` whether each reported EPOLLHUP or EPOLLERR. */
int rg_epoll_create(void);
int rg_epoll_add_readable(int epfd, int fd);
/* What wakes the loop for `fd` besides a hang-up (EPOLLRDHUP, HUP and ERR always do): data to read
 * (EPOLLIN) and room to write (EPOLLOUT, for output that waits in user space). */
int rg_epoll_interest(int epfd, int fd, int readable, int writable);
int rg_epoll_remove(int epfd, int fd);
int rg_epoll_wait(int epfd, int *fds, int *hangups, int capacity, int timeout_ms);
/* eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC). */
int rg_eventfd(void);

/* mallopt(M_ARENA_MAX, 1): every thread allocates from the main arena. glibc gives a thread of its own an
 * arena of its own, whose pages stay with the process after the thread ends. 1 on success, 0 if refused. */
int rg_one_malloc_arena(void);

/* Swift concurrency's jobs, routed to ridegate's event loop instead of Dispatch's thread pool (whose
 * 1 Hz pool monitor would wake an idle daemon forever). `sink` receives every job the runtime would give
 * to its global or main executor, with the CLOCK_MONOTONIC nanoseconds at which it may run (0: now) and
 * whether it belongs to the main executor. Install once, before the first task, from the thread that will
 * run the loop; it holds `context` for the life of the process. Where the runtime schedules timers
 * without the hooks (Swift 6.2+ Task.sleep), Dispatch still serves them: use the loop's own sleep.
 *
 * Unsafe: the hooks are the runtime's process-wide variables (ConcurrencyHooks.def), declared here with
 * hand-copied swiftcall signatures, verified against the toolchains EventLoop.runProcess's compiler fence
 * names. Each hook is set only if it is unset (a compare-and-swap against NULL): if any was set already
 * (another library took over the executor), none is changed and -1 is returned; 0 when all four are ours. */
typedef void (*rg_job_sink)(void *context, void *job, unsigned long long due_ns, int main_executor);
int rg_unsafe_try_route_swift_jobs(void *context, rg_job_sink sink);
/* Runs a job the runtime gave to its main executor, as that executor (isolation checks hold). */
void rg_run_main_job(void *job);
/* CLOCK_MONOTONIC in nanoseconds: the clock of `due_ns` and of the loop's timers. */
unsigned long long rg_monotonic_ns(void);

/* Installs a handler for each of `signals` that writes the signal's number (one byte) to a new non-blocking
 * pipe; returns the pipe's read end, or -1 with errno set. One set at a time. Closing sets the signals to
 * SIG_IGN first (a handler must never write to a closed pipe). */
int rg_signal_pipe_open(const int *signals, int count);
void rg_signal_pipe_close(int read_end, const int *signals, int count);

#endif
