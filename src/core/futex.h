/* The one place weft talks to the futex system call (process-private
 * futexes only). Plain OS threads wait here; ULTs never do, they park. */
#ifndef WEFT_CORE_FUTEX_H
#define WEFT_CORE_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleep while the 32-bit word at `addr` holds `val`, at most `rel` (NULL:
 * no limit). Returns early on a wake, a signal or a changed word. */
static inline void futex_wait(void *addr, uint32_t val, const struct timespec *rel)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, rel, NULL, 0);
}

/* As futex_wait, until the CLOCK_MONOTONIC time `deadline_ns`. False once
 * that time has passed. */
static inline bool futex_wait_until(void *addr, uint32_t val, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000ull),
                          .tv_nsec = (long)(deadline_ns % 1000000000ull)};
    long r = syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, val, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
    return !(r == -1 && errno == ETIMEDOUT);
}

/* Wake up to `n` sleepers on `addr` (INT_MAX: all). */
static inline void futex_wake(void *addr, int n)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

#endif
