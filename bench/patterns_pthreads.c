/* The patterns (bench/patterns.h) with plain OS threads, as [Threading-HPC] ran
 * them: a thread per unit and per task (pthread_create, pthread_join).
 * bench/run.py limits the process to `threads` CPUs when the machine has
 * that many ([Threading-HPC] used taskset); a thread that lives for one unit is
 * not bound further. */
#define _GNU_SOURCE
#define PAT_OS_THREADS
#define PATTERNS_MAIN
#include "patterns.h"

#include <pthread.h>

static const char *name(void) { return "pthreads"; }

static void init(int threads) { (void)threads; }

static void fini(void) {}

static void spawn(pthread_t *t, void *(*fn)(void *), intptr_t arg)
{
    BENCH_CHECK(pthread_create(t, NULL, fn, (void *)arg) == 0);
}

static void join_all(int n, pthread_t *t)
{
    for (int i = 0; i < n; i++) BENCH_CHECK(pthread_join(t[i], NULL) == 0);
}

static void *unit_fn(void *arg)
{
    pat_unit((int)(intptr_t)arg);
    return NULL;
}

static void create_join(double *create_ns, double *join_ns)
{
    pthread_t t[64];
    double t0 = bench_now_ns();
    for (int i = 0; i < pat_threads; i++) spawn(&t[i], unit_fn, i);
    double t1 = bench_now_ns();
    join_all(pat_threads, t);
    *join_ns = bench_now_ns() - t1;
    *create_ns = t1 - t0;
}

static void *chunk_fn(void *arg)
{
    pat_chunk((int)(intptr_t)arg);
    return NULL;
}

static void for_loop(void)
{
    pthread_t t[64];
    for (int k = 0; k < pat_threads; k++) spawn(&t[k], chunk_fn, k);
    join_all(pat_threads, t);
}

static void *elem_fn(void *arg)
{
    pat_scale_one((int)(intptr_t)arg);
    return NULL;
}

static pthread_t g_tasks[PAT_N];

static void tasks_single(void)
{
    for (int i = 0; i < PAT_N; i++) spawn(&g_tasks[i], elem_fn, i);
    join_all(PAT_N, g_tasks);
}

static void *region_fn(void *arg)
{
    int k = (int)(intptr_t)arg, lo = pat_lo(PAT_N, k, pat_threads), hi = pat_hi(PAT_N, k, pat_threads);
    for (int i = lo; i < hi; i++) spawn(&g_tasks[i], elem_fn, i);
    join_all(hi - lo, &g_tasks[lo]);
    return NULL;
}

static void tasks_parallel(void)
{
    pthread_t t[64];
    for (int k = 0; k < pat_threads; k++) spawn(&t[k], region_fn, k);
    join_all(pat_threads, t);
}

static void *inner_fn(void *arg)
{
    pat_inner((intptr_t)arg);
    return NULL;
}

static void *outer_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    pthread_t t[64];
    for (int i = pat_lo(pat_mn, k, pat_threads); i < pat_hi(pat_mn, k, pat_threads); i++) {
        for (int p = 0; p < pat_threads; p++) spawn(&t[p], inner_fn, pat_inner_arg(i, p));
        join_all(pat_threads, t);
    }
    return NULL;
}

static void nested_for(void)
{
    pthread_t t[64];
    for (int k = 0; k < pat_threads; k++) spawn(&t[k], outer_fn, k);
    join_all(pat_threads, t);
}

/* create_join_per_stream: one creator thread per "stream", each creating
 * and joining PAT_CJ_UNITS threads at a time. */
static int g_reps;
static long g_ran;
static pthread_barrier_t g_start;
static double g_each[128];

static void *count_fn(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&g_ran, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void *creator_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    pthread_t t[PAT_CJ_UNITS];
    pthread_barrier_wait(&g_start);
    double t0 = bench_now_ns();
    for (int r = 0; r < g_reps; r++) {
        for (int i = 0; i < PAT_CJ_UNITS; i++) spawn(&t[i], count_fn, 0);
        join_all(PAT_CJ_UNITS, t);
    }
    g_each[k] = (bench_now_ns() - t0) / ((double)g_reps * PAT_CJ_UNITS);
    return NULL;
}

/* Runs fn(k) on `n` threads started together; the mean of g_each. */
static double run_together(int n, void *(*fn)(void *))
{
    pthread_t t[128];
    BENCH_CHECK(pthread_barrier_init(&g_start, NULL, (unsigned)n) == 0);
    for (int k = 0; k < n; k++) spawn(&t[k], fn, k);
    join_all(n, t);
    pthread_barrier_destroy(&g_start);
    double sum = 0;
    for (int k = 0; k < n; k++) sum += g_each[k];
    return sum / n;
}

static double create_join_per_stream(int reps)
{
    g_reps = reps < 1 ? 1 : reps;
    g_ran = 0;
    double per = run_together(pat_threads, creator_fn);
    BENCH_CHECK(g_ran == (long)g_reps * PAT_CJ_UNITS * pat_threads);
    return per;
}

/* yield: two threads per CPU slot call sched_yield() in turn. */
static long g_yields;

static void *yielder_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    pthread_barrier_wait(&g_start);
    double t0 = bench_now_ns();
    for (long i = 0; i < g_yields; i++) sched_yield();
    g_each[k] = (bench_now_ns() - t0) / (2.0 * (double)g_yields); /* two threads share a CPU */
    return NULL;
}

static double yield(long yields)
{
    g_yields = yields;
    return run_together(2 * pat_threads, yielder_fn);
}

const struct pat_runtime pat_rt = {name, NULL, NULL, init, fini, create_join, for_loop, tasks_single,
                                   tasks_parallel, nested_for, create_join_per_stream, yield};
