/* The patterns (bench/patterns.h) through the GLT API: one source, built
 * over weft (bench_glt_weft, runtime "weft-glt") and over OS threads
 * (bench_glt_pthreads with -DGLT_BACKEND_PTHREADS, runtime "glt-pthreads").
 * Threads = GLT threads. Tasklets where a unit never waits, ULTs where it
 * does (outer loops, parallel regions, yielders), as a GLT user writes it. */
#define _GNU_SOURCE
#ifdef GLT_BACKEND_PTHREADS
#define PAT_OS_THREADS
#endif
#define PATTERNS_MAIN
#include "patterns.h"

#include "glt.h"

#ifdef GLT_BACKEND_PTHREADS
#define RUNTIME "glt-pthreads"
#else
#define RUNTIME "weft-glt"
#endif

static const char *name(void) { return RUNTIME; }

static void init(int threads)
{
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    setenv("GLT_NUM_THREADS", n, 1);
#ifndef GLT_BACKEND_PTHREADS
    /* weft's streams bound as every runtime's workers are here, one per CPU
     * when they fit (bench_weft_bind.h), unless WEFT_BIND says otherwise. */
    static int user_bind = -1;
    if (user_bind < 0) user_bind = getenv("WEFT_BIND") != NULL;
    if (!user_bind) setenv("WEFT_BIND", threads <= CPU_COUNT(&bench_cpus) ? "1" : "0", 1);
#endif
    glt_init(0, NULL);
    BENCH_CHECK(glt_get_num_threads() == threads);
}

static void fini(void) { glt_finalize(); }

static void join_tasklets(int n, GLT_tasklet *t)
{
    for (int i = 0; i < n; i++) glt_tasklet_join(&t[i]);
    for (int i = 0; i < n; i++) glt_tasklet_free(&t[i]);
}

static void join_ults(int n, GLT_ult *u)
{
    for (int i = 0; i < n; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < n; i++) glt_ult_free(&u[i]);
}

static void unit_fn(void *arg) { pat_unit((int)(intptr_t)arg); }

static void create_join(double *create_ns, double *join_ns)
{
    GLT_tasklet t[64];
    double t0 = bench_now_ns();
    for (int i = 0; i < pat_threads; i++) glt_tasklet_create_to(unit_fn, (void *)(intptr_t)i, &t[i], i);
    double t1 = bench_now_ns();
    join_tasklets(pat_threads, t);
    *join_ns = bench_now_ns() - t1;
    *create_ns = t1 - t0;
}

static void chunk_fn(void *arg)
{
    pat_chunk((int)(intptr_t)arg);
}

static void for_loop(void)
{
    GLT_tasklet t[64];
    for (int k = 0; k < pat_threads; k++) glt_tasklet_create_to(chunk_fn, (void *)(intptr_t)k, &t[k], k);
    join_tasklets(pat_threads, t);
}

static void elem_fn(void *arg) { pat_scale_one((int)(intptr_t)arg); }
static GLT_tasklet g_tasks[PAT_N];

static void tasks_single(void)
{
    for (int i = 0; i < PAT_N; i++) glt_tasklet_create_to(elem_fn, (void *)(intptr_t)i, &g_tasks[i], i);
    join_tasklets(PAT_N, g_tasks);
}

/* A parallel region's unit: the tasks of its chunk, on its own thread. */
static void region_fn(void *arg)
{
    int k = (int)(intptr_t)arg, lo = pat_lo(PAT_N, k, pat_threads), hi = pat_hi(PAT_N, k, pat_threads);
    for (int i = lo; i < hi; i++) glt_tasklet_create(elem_fn, (void *)(intptr_t)i, &g_tasks[i]);
    join_tasklets(hi - lo, &g_tasks[lo]);
}

static void tasks_parallel(void)
{
    GLT_ult u[64];
    for (int k = 0; k < pat_threads; k++) glt_ult_create_to(region_fn, (void *)(intptr_t)k, &u[k], k);
    join_ults(pat_threads, u);
}

static void inner_fn(void *arg)
{
    pat_inner((intptr_t)arg);
}

static void outer_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    GLT_tasklet t[64];
    for (int i = pat_lo(pat_mn, k, pat_threads); i < pat_hi(pat_mn, k, pat_threads); i++) {
        for (int p = 0; p < pat_threads; p++)
            glt_tasklet_create_to(inner_fn, (void *)pat_inner_arg(i, p), &t[p], p);
        join_tasklets(pat_threads, t);
    }
}

static void nested_for(void)
{
    GLT_ult u[64];
    for (int k = 0; k < pat_threads; k++) glt_ult_create_to(outer_fn, (void *)(intptr_t)k, &u[k], k);
    join_ults(pat_threads, u);
}

/* create_join_per_stream: a ULT per thread creates PAT_CJ_UNITS tasklets on
 * its thread and joins them, g_reps times. */
static int g_reps;
static long g_ran, g_yields;
static double g_each[128];

static void count_fn(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&g_ran, 1, __ATOMIC_RELAXED);
}

static void creator_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    GLT_tasklet t[PAT_CJ_UNITS];
    double t0 = bench_now_ns();
    for (int r = 0; r < g_reps; r++) {
        for (int i = 0; i < PAT_CJ_UNITS; i++) glt_tasklet_create(count_fn, NULL, &t[i]);
        join_tasklets(PAT_CJ_UNITS, t);
    }
    g_each[k] = (bench_now_ns() - t0) / ((double)g_reps * PAT_CJ_UNITS);
}

/* Runs fn(k) as a ULT on thread k % threads for k < n; the mean of g_each. */
static double run_spread(int n, void (*fn)(void *))
{
    GLT_ult u[128];
    for (int k = 0; k < n; k++) glt_ult_create_to(fn, (void *)(intptr_t)k, &u[k], k);
    join_ults(n, u);
    double sum = 0;
    for (int k = 0; k < n; k++) sum += g_each[k];
    return sum / n;
}

static double create_join_per_stream(int reps)
{
    g_reps = reps < 1 ? 1 : reps;
    g_ran = 0;
    double per = run_spread(pat_threads, creator_fn);
    BENCH_CHECK(g_ran == (long)g_reps * PAT_CJ_UNITS * pat_threads);
    return per;
}

/* Two ULTs per thread yield in turn; time per yield. */
static void yielder_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    double t0 = bench_now_ns();
    for (long i = 0; i < g_yields; i++) glt_yield();
    g_each[k] = (bench_now_ns() - t0) / (2.0 * (double)g_yields);
}

static double yield(long yields)
{
    g_yields = yields;
    return run_spread(2 * pat_threads, yielder_fn);
}

const struct pat_runtime pat_rt = {name, NULL, NULL, init, fini, create_join, for_loop, tasks_single,
                                   tasks_parallel, nested_for, create_join_per_stream, yield};
