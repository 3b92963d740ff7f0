/* Routing Swift concurrency's global and main-executor jobs to ridegate's event loop (see linux_shim.h).
 * The runtime's hooks are process-wide variables by design, so this file keeps the one sink they call. */
#include "linux_shim.h"
#include <stdint.h>
#include <time.h>

#define SWIFT_CC __attribute__((swiftcall))

/* The runtime's own declarations (swift/Runtime/Concurrency.h, ConcurrencyHooks.def), stable since 5.x. */
typedef struct { void *identity; uintptr_t implementation; } rg_serial_executor_ref;
extern SWIFT_CC void swift_job_run(void *job, rg_serial_executor_ref executor);
extern SWIFT_CC rg_serial_executor_ref swift_task_getMainExecutor(void);
extern SWIFT_CC void swift_get_time(long long *seconds, long long *nanoseconds, int clock);

typedef SWIFT_CC void (*enqueue_original)(void *job);
typedef SWIFT_CC void (*delay_original)(unsigned long long delay_ns, void *job);
typedef SWIFT_CC void (*deadline_original)(long long sec, long long nsec, long long tsec, long long tnsec, int clock,
                                           void *job);
extern SWIFT_CC void (*swift_task_enqueueGlobal_hook)(void *job, enqueue_original original);
extern SWIFT_CC void (*swift_task_enqueueGlobalWithDelay_hook)(unsigned long long delay_ns, void *job,
                                                               delay_original original);
extern SWIFT_CC void (*swift_task_enqueueGlobalWithDeadline_hook)(long long sec, long long nsec, long long tsec,
                                                                  long long tnsec, int clock, void *job,
                                                                  deadline_original original);
extern SWIFT_CC void (*swift_task_enqueueMainExecutor_hook)(void *job, enqueue_original original);

static void *sink_context;
static rg_job_sink sink;

unsigned long long rg_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

static SWIFT_CC void enqueue_global(void *job, enqueue_original original) {
    (void)original;
    sink(sink_context, job, 0, 0);
}

static SWIFT_CC void enqueue_main(void *job, enqueue_original original) {
    (void)original;
    sink(sink_context, job, 0, 1);
}

static SWIFT_CC void enqueue_after(unsigned long long delay_ns, void *job, delay_original original) {
    (void)original;
    if (delay_ns > 3000000000000000000ull) delay_ns = 3000000000000000000ull; /* "forever", without overflow */
    sink(sink_context, job, rg_monotonic_ns() + delay_ns, 0);
}

/* A deadline on one of Swift's clocks (continuous or suspending): what is left of it, from now on ours. */
static SWIFT_CC void enqueue_at(long long sec, long long nsec, long long tsec, long long tnsec, int clock, void *job,
                                deadline_original original) {
    (void)tsec, (void)tnsec, (void)original;
    long long now_sec = 0, now_nsec = 0;
    swift_get_time(&now_sec, &now_nsec, clock);
    long long seconds = sec - now_sec;
    if (seconds > 3000000000ll) seconds = 3000000000ll; /* "forever" (about 95 years), without overflow */
    long long left = seconds * 1000000000ll + (nsec - now_nsec);
    sink(sink_context, job, rg_monotonic_ns() + (unsigned long long)(left > 0 ? left : 0), 0);
}

/* Sets *hook to ours only where it is NULL. */
#define RG_CLAIM(hook, ours) \
    ({ __typeof__(hook) expected = 0; __atomic_compare_exchange_n(&(hook), &expected, (ours), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); })
#define RG_RELEASE(hook, ours) \
    do { __typeof__(hook) expected = (ours); __atomic_compare_exchange_n(&(hook), &expected, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } while (0)

int rg_unsafe_try_route_swift_jobs(void *context, rg_job_sink job_sink) {
    if (sink) return -1; /* once per process */
    sink_context = context;
    sink = job_sink;
    int global = RG_CLAIM(swift_task_enqueueGlobal_hook, enqueue_global);
    int delay = RG_CLAIM(swift_task_enqueueGlobalWithDelay_hook, enqueue_after);
    int deadline = RG_CLAIM(swift_task_enqueueGlobalWithDeadline_hook, enqueue_at);
    int main = RG_CLAIM(swift_task_enqueueMainExecutor_hook, enqueue_main);
    if (global && delay && deadline && main) return 0;
    /* Someone else's hook is in place: leave theirs, take back ours. */
    if (global) RG_RELEASE(swift_task_enqueueGlobal_hook, enqueue_global);
    if (delay) RG_RELEASE(swift_task_enqueueGlobalWithDelay_hook, enqueue_after);
    if (deadline) RG_RELEASE(swift_task_enqueueGlobalWithDeadline_hook, enqueue_at);
    if (main) RG_RELEASE(swift_task_enqueueMainExecutor_hook, enqueue_main);
    sink = 0;
    sink_context = 0;
    return -1;
}

void rg_run_main_job(void *job) { swift_job_run(job, swift_task_getMainExecutor()); }
