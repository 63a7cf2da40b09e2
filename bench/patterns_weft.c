/* The patterns (bench/patterns.h) over weft's native API: runtime
 * "weft-ult" or "weft-tasklet" (--unit=), with a private pool per stream
 * (the main ULT dispatches round robin to the streams), one pool shared
 * by all streams (--pool=shared), or a deque per stream that the creator
 * pushes to and idle streams steal from (--pool=stealing, as TBB and
 * LLVM's OpenMP tasks do). Where a unit must wait for others (an
 * outer loop, a parallel region), it is a ULT even in tasklet mode: a
 * tasklet cannot block. Threads = execution streams, bound one per core
 * when they fit (weft's default). */
#define _GNU_SOURCE
#define PATTERNS_MAIN
#include "patterns.h"

#include "weft.h"
#include "bench_weft_bind.h"

enum setup { PRIVATE, SHARED, STEALING };
static const char *const SETUP_NAME[] = {"private", "shared", "stealing"};
static int g_tasklet;
static enum setup g_setup;
static weft_xstream g_xs[64];
static weft_pool g_shared_pool;
static weft_sched g_sched[64];

static const char *name(void) { return g_tasklet ? "weft-tasklet" : "weft-ult"; }
static const char *extra(void)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "\"pool\": \"%s\"", SETUP_NAME[g_setup]);
    return buf;
}

static int arg(const char *a)
{
    if (!strcmp(a, "--unit=tasklet")) g_tasklet = 1;
    else if (!strcmp(a, "--unit=ult")) g_tasklet = 0;
    else if (!strcmp(a, "--pool=private")) g_setup = PRIVATE;
    else if (!strcmp(a, "--pool=shared")) g_setup = SHARED;
    else if (!strcmp(a, "--pool=stealing")) g_setup = STEALING;
    else return 0;
    return 1;
}

/* SHARED: each stream's scheduler takes from the shared pool, then from its
 * own (where its main or blocked ULTs go back). STEALING: each stream's pool
 * is a deque its owner pushes to; its scheduler steals from the others' when
 * its own is empty. Runs on stream `rank`. */
static int g_installers;

static void install_sched(void *arg)
{
    int rank = (int)(intptr_t)arg, n;
    weft_pool pools[64];
    /* A non-migratable ULT stays on the stream it first runs on: every
     * installer starts on its own stream before any stream steals. */
    __atomic_fetch_add(&g_installers, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&g_installers, __ATOMIC_ACQUIRE) < pat_threads) BENCH_CHECK(weft_yield() == WEFT_OK);
    if (g_setup == SHARED) {
        pools[0] = g_shared_pool;
        BENCH_CHECK(weft_xstream_get_pools(g_xs[rank], 1, &pools[1], &n) == WEFT_OK);
        BENCH_CHECK(weft_sched_create_basic(2, pools, &g_sched[rank]) == WEFT_OK);
    } else {
        for (int i = 0; i < pat_threads; i++) /* own pool first */
            BENCH_CHECK(weft_xstream_get_pools(g_xs[(rank + i) % pat_threads], 1, &pools[i], &n) == WEFT_OK);
        BENCH_CHECK(weft_sched_create_randws(pat_threads, pools, &g_sched[rank]) == WEFT_OK);
    }
    BENCH_CHECK(weft_xstream_set_main_sched(g_xs[rank], g_sched[rank]) == WEFT_OK);
}

static void init(int threads)
{
    weft_config cfg;
    BENCH_CHECK(weft_config_init(&cfg) == WEFT_OK);
    cfg.num_xstreams = threads;
    if (g_setup == STEALING) {
        cfg.pool_kind = WEFT_POOL_DEQUE;
        cfg.pool_access = WEFT_POOL_ACCESS_SPMC;
    }
    bench_weft_bind(&cfg);
    BENCH_CHECK(weft_init(&cfg) == WEFT_OK);
    for (int s = 0; s < threads; s++) BENCH_CHECK(weft_xstream_get(s, &g_xs[s]) == WEFT_OK);
    if (g_setup == SHARED)
        BENCH_CHECK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_shared_pool) == WEFT_OK);
    weft_thread_attr pinned; /* an installer must run on its stream, not be stolen */
    BENCH_CHECK(weft_thread_attr_init(&pinned) == WEFT_OK);
    pinned.migratable = 0;
    weft_thread t[64];
    if (g_setup != PRIVATE) {
        for (int s = 0; s < threads; s++)
            BENCH_CHECK(weft_thread_create_to(g_xs[s], install_sched, (void *)(intptr_t)s, &pinned, &t[s]) == WEFT_OK);
        BENCH_CHECK(weft_thread_free_many(threads, t) == WEFT_OK);
    }
}

static void fini(void) { BENCH_CHECK(weft_finalize() == WEFT_OK); }

static void spawn_here(int tasklet, void (*fn)(void *), void *arg, weft_thread *out);

/* Spawn fn(arg) as the `i`-th unit of a parallel step: into the shared pool,
 * round robin into the streams' private pools, or into the caller's own
 * deque for the others to steal. */
static void spawn(int i, int tasklet, void (*fn)(void *), void *arg, weft_thread *out)
{
    int rc;
    if (g_setup == STEALING) return spawn_here(tasklet, fn, arg, out);
    if (g_setup == SHARED)
        rc = tasklet ? weft_tasklet_create(g_shared_pool, fn, arg, out)
                     : weft_thread_create(g_shared_pool, fn, arg, NULL, out);
    else
        rc = tasklet ? weft_tasklet_create_to(g_xs[i % pat_threads], fn, arg, out)
                     : weft_thread_create_to(g_xs[i % pat_threads], fn, arg, NULL, out);
    BENCH_CHECK(rc == WEFT_OK);
}

/* Spawn into the caller's own pool (tasks of a parallel region). */
static void spawn_here(int tasklet, void (*fn)(void *), void *arg, weft_thread *out)
{
    if (g_setup == SHARED) return spawn(0, tasklet, fn, arg, out);
    weft_xstream self;
    BENCH_CHECK(weft_xstream_self(&self) == WEFT_OK);
    int rc = tasklet ? weft_tasklet_create_to(self, fn, arg, out) : weft_thread_create_to(self, fn, arg, NULL, out);
    BENCH_CHECK(rc == WEFT_OK);
}

static void join_all(int n, weft_thread *u) { BENCH_CHECK(weft_thread_free_many(n, u) == WEFT_OK); }

static void unit_fn(void *arg) { pat_unit((int)(intptr_t)arg); }

static void create_join(double *create_ns, double *join_ns)
{
    weft_thread u[64];
    double t0 = bench_now_ns();
    for (int i = 0; i < pat_threads; i++) spawn(i, g_tasklet, unit_fn, (void *)(intptr_t)i, &u[i]);
    double t1 = bench_now_ns();
    join_all(pat_threads, u);
    *join_ns = bench_now_ns() - t1;
    *create_ns = t1 - t0;
}

static void chunk_fn(void *arg)
{
    pat_chunk((int)(intptr_t)arg);
}

static void for_loop(void)
{
    weft_thread u[64];
    for (int k = 0; k < pat_threads; k++) spawn(k, g_tasklet, chunk_fn, (void *)(intptr_t)k, &u[k]);
    join_all(pat_threads, u);
}

static void elem_fn(void *arg) { pat_scale_one((int)(intptr_t)arg); }
static weft_thread g_tasks[PAT_N];

static void tasks_single(void)
{
    for (int i = 0; i < PAT_N; i++) spawn(i, g_tasklet, elem_fn, (void *)(intptr_t)i, &g_tasks[i]);
    join_all(PAT_N, g_tasks);
}

/* A parallel region's unit: the tasks of its chunk, into its own pool. */
static void region_fn(void *arg)
{
    int k = (int)(intptr_t)arg, lo = pat_lo(PAT_N, k, pat_threads), hi = pat_hi(PAT_N, k, pat_threads);
    for (int i = lo; i < hi; i++) spawn_here(g_tasklet, elem_fn, (void *)(intptr_t)i, &g_tasks[i]);
    join_all(hi - lo, &g_tasks[lo]);
}

static void tasks_parallel(void)
{
    weft_thread u[64];
    for (int k = 0; k < pat_threads; k++) spawn(k, 0, region_fn, (void *)(intptr_t)k, &u[k]);
    join_all(pat_threads, u);
}

static void inner_fn(void *arg)
{
    pat_inner((intptr_t)arg);
}

static void outer_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    weft_thread u[64];
    for (int i = pat_lo(pat_mn, k, pat_threads); i < pat_hi(pat_mn, k, pat_threads); i++) {
        for (int p = 0; p < pat_threads; p++) spawn(p, g_tasklet, inner_fn, (void *)pat_inner_arg(i, p), &u[p]);
        join_all(pat_threads, u);
    }
}

static void nested_for(void)
{
    weft_thread u[64];
    for (int k = 0; k < pat_threads; k++) spawn(k, 0, outer_fn, (void *)(intptr_t)k, &u[k]);
    join_all(pat_threads, u);
}

/* create_join_per_stream and yield: bench_weft.c, with more pool set-ups. */
const struct pat_runtime pat_rt = {name, extra, arg, init, fini, create_join, for_loop, tasks_single,
                                   tasks_parallel, nested_for, NULL, NULL};
