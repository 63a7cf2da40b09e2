/* Binding the same way for every runtime. bench/run.py gives each
 * program's process the CPUs of a point (the first `threads` when the
 * machine has that many, else all); a runtime whose workers live across
 * the measurement binds worker i to the i-th of them when there is one CPU
 * per worker, as weft's streams and OpenMP's `close` binding do. With more
 * workers than CPUs nobody binds. Needs _GNU_SOURCE (C++: always). */
#ifndef WEFT_BENCH_BIND_H
#define WEFT_BENCH_BIND_H

#include <sched.h>

#include "bench_common.h"

/* The process's CPUs, read by bench_cpus_init() at start-up, before any
 * thread binds itself (a bound thread's own mask is one CPU, and threads
 * it starts inherit that). */
static cpu_set_t bench_cpus;

static inline void bench_cpus_init(void) { BENCH_CHECK(sched_getaffinity(0, sizeof bench_cpus, &bench_cpus) == 0); }

/* The CPU of worker i of n, or -1: do not bind. */
static inline int bench_worker_cpu(int i, int n)
{
    if (i < 0 || n > CPU_COUNT(&bench_cpus)) return -1;
    for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &bench_cpus) && k++ == i) return c;
    return -1;
}

/* One-CPU mask of worker i of n in *one; 0 if it is not to be bound. */
static inline int bench_worker_mask(int i, int n, cpu_set_t *one)
{
    int cpu = bench_worker_cpu(i, n);
    if (cpu < 0) return 0;
    CPU_ZERO(one);
    CPU_SET(cpu, one);
    return 1;
}

/* Binds the calling thread as worker i of n (nothing if it is not to be). */
static inline void bench_bind_worker(int i, int n)
{
    cpu_set_t one;
    if (bench_worker_mask(i, n, &one)) BENCH_CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
}

#endif
