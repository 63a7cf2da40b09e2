/* weft microbenchmarks ([Argobots §4]): create+join of 256 units
 * repeated, per stream, and on descriptors never used before (cold, one
 * stream); yield and yield-to between two ULTs per stream.
 * Every stream runs the same driver on its own pool at the same time; a
 * point is the mean over streams of the time per unit (or per switch),
 * and the median, min and max of that over repeated runs. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_common.h"
#include "weft.h"
#include "bench_weft_bind.h"

#define UNITS 256
/* create_join_cold: units per repetition and kind, all kept live until the
 * end: (runs + 1) x 2 x this many descriptors of 128 bytes, about 40 MB
 * with --quick (6 x 2 x 25,600) and 135 MB in full (16 x 2 x 32,768). */
#define COLD_UNITS_QUICK (100L * UNITS)
#define COLD_UNITS (128L * UNITS)

static int g_reps, g_runs, g_yields;

/* A page each: a stream's counters next to another's would be pulled over
 * by that stream's prefetchers, and the benchmark would measure its own
 * layout (docs/design.md, "Descriptors that run elsewhere"). */
struct __attribute__((aligned(4096))) driver {
    weft_pool pool;
    int tasklet;
    long executed;  /* units run: checks none was lost */
    long ran[UNITS]; /* each unit bumps its own slot (a stolen one runs elsewhere) */
    double ns;      /* per unit or per switch, this run */
};

static atomic_int g_arrived;
static int g_streams;

/* All drivers start timing together. */
static void start_line(void)
{
    atomic_fetch_add(&g_arrived, 1);
    while (atomic_load(&g_arrived) < g_streams) weft_yield();
}

static void unit_body(void *arg) { ++*(long *)arg; }

static void create_join_driver(void *arg)
{
    struct driver *d = arg;
    weft_thread t[UNITS];
    start_line();
    double t0 = bench_now_ns();
    for (int r = 0; r < g_reps; r++) {
        for (int i = 0; i < UNITS; i++) {
            int rc = d->tasklet ? weft_tasklet_create(d->pool, unit_body, &d->ran[i], &t[i])
                                : weft_thread_create(d->pool, unit_body, &d->ran[i], NULL, &t[i]);
            BENCH_CHECK(rc == WEFT_OK);
        }
        for (int i = 0; i < UNITS; i++) BENCH_CHECK(weft_thread_free(&t[i]) == WEFT_OK);
    }
    d->ns = (bench_now_ns() - t0) / ((double)g_reps * UNITS);
    for (int i = 0; i < UNITS; i++) d->executed += d->ran[i];
}

/* Two ULTs that pass control back and forth. */
static weft_thread g_peer[64][2];
struct pinger { int stream, side, use_yield_to; };

static void ping(void *arg)
{
    struct pinger *p = arg;
    weft_thread other = g_peer[p->stream][1 - p->side];
    for (int i = 0; i < g_yields; i++) {
        int rc = p->use_yield_to ? weft_yield_to(other) : weft_yield();
        BENCH_CHECK(rc == WEFT_OK);
    }
}

static void yield_driver(void *arg)
{
    struct driver *d = arg;
    weft_xstream xs;
    int rank;
    weft_xstream_self(&xs);
    weft_xstream_rank(xs, &rank);
    struct pinger p[2] = {{rank, 0, d->tasklet}, {rank, 1, d->tasklet}};
    start_line();
    double t0 = bench_now_ns();
    /* LIFO private pools would make the driver run first; ours is FIFO. */
    BENCH_CHECK(weft_thread_create(d->pool, ping, &p[0], NULL, &g_peer[rank][0]) == WEFT_OK);
    BENCH_CHECK(weft_thread_create(d->pool, ping, &p[1], NULL, &g_peer[rank][1]) == WEFT_OK);
    BENCH_CHECK(weft_thread_free(&g_peer[rank][0]) == WEFT_OK);
    BENCH_CHECK(weft_thread_free(&g_peer[rank][1]) == WEFT_OK);
    d->ns = (bench_now_ns() - t0) / (2.0 * g_yields);
    d->executed = 1;
}

/* One run: a driver per stream. Returns the mean of the drivers' times;
 * *lo and *hi get the fastest and the slowest stream's. */
static double run_once(int streams, void (*drv)(void *), int tasklet, long expect_per_stream, double *lo,
                       double *hi, double *each)
{
    static struct driver d[64];
    weft_thread t[64];
    atomic_store(&g_arrived, 0);
    g_streams = streams;
    for (int s = 0; s < streams; s++) {
        weft_xstream xs;
        int n;
        BENCH_CHECK(weft_xstream_get(s, &xs) == WEFT_OK);
        d[s] = (struct driver){.tasklet = tasklet};
        BENCH_CHECK(weft_xstream_get_pools(xs, 1, &d[s].pool, &n) == WEFT_OK);
        BENCH_CHECK(weft_thread_create_to(xs, drv, &d[s], NULL, &t[s]) == WEFT_OK);
    }
    double sum = 0;
    *lo = 1e300;
    *hi = 0;
    for (int s = 0; s < streams; s++) {
        BENCH_CHECK(weft_thread_free(&t[s]) == WEFT_OK);
        sum += d[s].ns;
        if (each) each[s] = d[s].ns;
        if (d[s].ns < *lo) *lo = d[s].ns;
        if (d[s].ns > *hi) *hi = d[s].ns;
    }
    for (int s = 0; s < streams; s++) BENCH_CHECK(d[s].executed == expect_per_stream);
    return sum / streams;
}

/* Pool set-ups of the create/join experiment ([Argobots] Figs. 6-7). */
enum setup { PRIVATE, SHARED, STEALING };
static const char *const SETUP_NAME[] = {"private", "shared", "stealing"};

/* STEALING: each stream's pool is a work-stealing deque and its scheduler
 * steals from the others' when its own is empty. Runs on stream `rank`. */
struct steal_setup { int streams, started; weft_sched sched[64]; };

static void install_randws(void *arg)
{
    struct steal_setup *ss = arg;
    /* A ULT stays on the stream it first runs on: every installer starts on
     * its own stream before any stream steals (a stealing stream could take
     * another's installer before it ran). */
    __atomic_fetch_add(&ss->started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&ss->started, __ATOMIC_ACQUIRE) < ss->streams) BENCH_CHECK(weft_yield() == WEFT_OK);
    weft_xstream xs;
    int rank, n;
    weft_pool all[64], order[64];
    BENCH_CHECK(weft_xstream_self(&xs) == WEFT_OK);
    BENCH_CHECK(weft_xstream_rank(xs, &rank) == WEFT_OK);
    for (int s = 0; s < ss->streams; s++) {
        weft_xstream x;
        BENCH_CHECK(weft_xstream_get(s, &x) == WEFT_OK);
        BENCH_CHECK(weft_xstream_get_pools(x, 1, &all[s], &n) == WEFT_OK);
    }
    for (int i = 0; i < ss->streams; i++) order[i] = all[(rank + i) % ss->streams]; /* own pool first */
    BENCH_CHECK(weft_sched_create_randws(ss->streams, order, &ss->sched[rank]) == WEFT_OK);
    BENCH_CHECK(weft_xstream_set_main_sched(xs, ss->sched[rank]) == WEFT_OK);
}

/* Which library this program is linked with: the shipped one, or a
 * measurement build without a hot-path feature (bench/CMakeLists.txt). */
#ifndef BENCH_BUILD
#define BENCH_BUILD "shipped"
#endif
static int g_features; /* --features: only the points of the feature-cost table */

/* A runtime of `streams` streams (bound one per core when they fit) whose
 * pools are set up as `setup` says. */
static void start_runtime(int streams, enum setup setup)
{
    weft_config cfg;
    BENCH_CHECK(weft_config_init(&cfg) == WEFT_OK);
    cfg.num_xstreams = streams;
    cfg.pool_access = setup == PRIVATE ? WEFT_POOL_ACCESS_PRIVATE : WEFT_POOL_ACCESS_MPMC;
    if (setup == STEALING) {
        cfg.pool_kind = WEFT_POOL_DEQUE;
        cfg.pool_access = WEFT_POOL_ACCESS_SPMC;
    }
    bench_weft_bind(&cfg);
    BENCH_CHECK(weft_init(&cfg) == WEFT_OK);
    static struct steal_setup ss;
    if (setup == STEALING) {
        weft_thread_attr pinned; /* not stolen while it waits for the others */
        weft_thread t[64];
        BENCH_CHECK(weft_thread_attr_init(&pinned) == WEFT_OK);
        pinned.migratable = 0;
        ss.streams = streams;
        ss.started = 0;
        for (int s = 0; s < streams; s++) {
            weft_xstream x;
            BENCH_CHECK(weft_xstream_get(s, &x) == WEFT_OK);
            BENCH_CHECK(weft_thread_create_to(x, install_randws, &ss, &pinned, &t[s]) == WEFT_OK);
        }
        BENCH_CHECK(weft_thread_free_many(streams, t) == WEFT_OK);
    }
}

static void measure(const char *experiment, const char *runtime, int streams, enum setup setup,
                    void (*drv)(void *), int flag, long expect)
{
    start_runtime(streams, setup);
    double v[256], lo[256], hi[256], a, b;
    run_once(streams, drv, flag, expect, &a, &b, NULL); /* warm-up: caches filled, pages touched */
    for (int r = 0; r < g_runs; r++) v[r] = run_once(streams, drv, flag, expect, &lo[r], &hi[r], NULL);
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    /* The spread between streams: medians over the runs of the fastest and
     * the slowest stream. */
    qsort(lo, (size_t)g_runs, sizeof *lo, bench_cmp);
    qsort(hi, (size_t)g_runs, sizeof *hi, bench_cmp);
    char extra[256];
    int len = snprintf(extra, sizeof extra, "\"pool\": \"%s\", \"stream_min\": %.3f, \"stream_max\": %.3f",
                       SETUP_NAME[setup], lo[g_runs / 2], hi[g_runs / 2]);
    if (g_features)
        snprintf(extra + len, sizeof extra - (size_t)len, ", \"build\": \"%s\", \"what\": \"%s\"", BENCH_BUILD,
                 experiment);
    bench_report(g_features ? "feature_cost" : experiment, runtime, streams, extra, v, g_runs);
}

/* Create+join on descriptors the process has never used. The recycled
 * driver above frees every unit, so its descriptors come back from the
 * stream's cache, warm; the microbenchmarks of the GLT authors free
 * nothing while they measure, so each unit is new memory (slabs carved
 * from handle memory never touched before: page faults, cache misses).
 * Here one driver on one stream (private pool) runs every repetition, ULTs
 * and tasklets in turn: a repetition creates and joins `units` new units
 * in batches of UNITS, as the recycled driver does, joins without freeing,
 * and keeps every handle; all are freed only after the last repetition.
 * Repetition 0 is the warm-up: it also takes up whatever descriptors
 * earlier runtimes of this process left, so the timed ones get fresh
 * memory only.
 *
 * The platform's share: before each timed repetition, a plain loop writes
 * once per descriptor's worth (128 bytes) into as much fresh memory
 * (huge pages allowed, as weft's), kept mapped to the end so that neither
 * side gets the other's freed pages back. On a VM whose host backs guest
 * memory lazily that alone can cost more than a whole create+join. */
#define COLD_DESC 128
struct cold {
    weft_pool pool;
    weft_thread *h; /* (g_runs + 1) * 2 * units handles, all live until the end */
    long units;     /* per repetition and kind, a multiple of UNITS */
    long ran[UNITS];
    double ns[2][257]; /* [tasklet][repetition], per unit */
    double touch[2][257]; /* the plain loop's first touch, per 128 bytes */
    void *probe[2][257];
    size_t probe_len;
};

/* The plain loop: ns per COLD_DESC bytes of fresh memory written once. */
static double first_touch(struct cold *c, int tasklet, int r)
{
    char *m = mmap(NULL, c->probe_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    BENCH_CHECK(m != MAP_FAILED);
    (void)madvise(m, c->probe_len, MADV_HUGEPAGE);
    c->probe[tasklet][r] = m;
    long n = (long)(c->probe_len / COLD_DESC);
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) ((volatile char *)m)[i * COLD_DESC] = 1;
    return (bench_now_ns() - t0) / (double)n;
}

static void cold_driver(void *arg)
{
    struct cold *c = arg;
    weft_thread *h = c->h;
    for (int r = 0; r <= g_runs; r++)
        for (int j = 0; j < 2; j++) {
            int tasklet = j ^ (r & 1); /* alternate which kind goes first */
            c->touch[tasklet][r] = first_touch(c, tasklet, r);
            double t0 = bench_now_ns();
            for (long b = 0; b < c->units; b += UNITS) {
                for (int i = 0; i < UNITS; i++) {
                    int rc = tasklet ? weft_tasklet_create(c->pool, unit_body, &c->ran[i], &h[b + i])
                                     : weft_thread_create(c->pool, unit_body, &c->ran[i], NULL, &h[b + i]);
                    BENCH_CHECK(rc == WEFT_OK);
                }
                for (int i = 0; i < UNITS; i++) BENCH_CHECK(weft_thread_join(h[b + i]) == WEFT_OK);
            }
            c->ns[tasklet][r] = (bench_now_ns() - t0) / (double)c->units;
            h += c->units;
        }
}

static void measure_cold(long units)
{
    static struct cold c;
    long total = (long)(g_runs + 1) * 2 * units;
    c = (struct cold){.units = units, .h = malloc((size_t)total * sizeof(weft_thread)),
                      .probe_len = (size_t)units * COLD_DESC};
    BENCH_CHECK(c.h != NULL);
    memset(c.h, 0, (size_t)total * sizeof(weft_thread)); /* the handle array's own pages faulted in now */
    start_runtime(1, PRIVATE);
    weft_xstream xs;
    weft_thread drv;
    int n;
    BENCH_CHECK(weft_xstream_get(0, &xs) == WEFT_OK);
    BENCH_CHECK(weft_xstream_get_pools(xs, 1, &c.pool, &n) == WEFT_OK);
    BENCH_CHECK(weft_thread_create_to(xs, cold_driver, &c, NULL, &drv) == WEFT_OK);
    BENCH_CHECK(weft_thread_free(&drv) == WEFT_OK);
    for (long i = 0; i < total; i++) BENCH_CHECK(weft_thread_free(&c.h[i]) == WEFT_OK);
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    long ran = 0;
    for (int i = 0; i < UNITS; i++) ran += c.ran[i];
    BENCH_CHECK(ran == total);
    free(c.h);
    for (int k = 0; k < 2; k++)
        for (int r = 0; r <= g_runs; r++) munmap(c.probe[k][r], c.probe_len);
    for (int k = 0; k < 2; k++) {
        /* The plain loop's median beside the runtime's, as one point. */
        double t[257];
        memcpy(t, c.touch[k] + 1, sizeof(double) * (size_t)g_runs);
        qsort(t, (size_t)g_runs, sizeof *t, bench_cmp);
        char extra[192];
        snprintf(extra, sizeof extra, "\"pool\": \"private\", \"units\": %ld, \"first_touch\": %.3f, "
                 "\"first_touch_min\": %.3f, \"first_touch_max\": %.3f", units, t[g_runs / 2], t[0], t[g_runs - 1]);
        bench_report("create_join_cold", k ? "weft-tasklet" : "weft-ult", 1, extra, c.ns[k] + 1, g_runs);
    }
}

/* Does a second stream slow the first? One run of the pair: one stream
 * alone on each CPU in turn, then a stream on every CPU at once, each in a
 * fresh runtime; runs alternate, so both sides see the same machine (the
 * CPUs of a shared VM differ, and drift, by more than the loss we look
 * for). The loss of a run: the mean over CPUs of together / alone. */
static double pair_side(int streams, int cpu, enum setup setup, int tasklet, long expect, double *each)
{
    start_runtime(streams, setup); /* streams <= CPUs here: bound */
    if (cpu >= 0) {
        weft_xstream x0;
        BENCH_CHECK(weft_xstream_get(0, &x0) == WEFT_OK);
        BENCH_CHECK(weft_xstream_set_cpubind(x0, cpu) == WEFT_OK);
    }
    double lo, hi;
    run_once(streams, create_join_driver, tasklet, expect, &lo, &hi, NULL); /* warm-up */
    double mean = run_once(streams, create_join_driver, tasklet, expect, &lo, &hi, each);
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    return mean;
}

static void measure_pair(const char *runtime, enum setup setup, int tasklet, int ncpu, long expect)
{
    static double alone[64][256], together[64][256];
    double loss[256], tog[256], alo[256], each[64];
    for (int r = 0; r < g_runs; r++) {
        double a = 0, l = 0;
        for (int c = 0; c < ncpu; c++) {
            alone[c][r] = pair_side(1, c, setup, tasklet, expect, each);
            a += alone[c][r];
        }
        tog[r] = pair_side(ncpu, -1, setup, tasklet, expect, each); /* stream c is bound to CPU c */
        for (int c = 0; c < ncpu; c++) {
            together[c][r] = each[c];
            l += each[c] / alone[c][r];
        }
        alo[r] = a / ncpu;
        loss[r] = (l / ncpu - 1) * 100;
    }
    qsort(loss, (size_t)g_runs, sizeof *loss, bench_cmp);
    qsort(alo, (size_t)g_runs, sizeof *alo, bench_cmp);
    char extra[1024];
    int len = snprintf(extra, sizeof extra,
                       "\"pool\": \"%s\", \"alone\": %.3f, \"loss_pct\": %.2f, \"loss_pct_min\": %.2f, "
                       "\"loss_pct_max\": %.2f",
                       SETUP_NAME[setup], alo[g_runs / 2], loss[g_runs / 2], loss[0], loss[g_runs - 1]);
    for (int side = 0; side < 2; side++) {
        len += snprintf(extra + len, sizeof extra - (size_t)len, ", \"%s\": {", side ? "together_cpu" : "alone_cpu");
        for (int c = 0; c < ncpu; c++) {
            double *v = side ? together[c] : alone[c];
            qsort(v, (size_t)g_runs, sizeof *v, bench_cmp);
            len += snprintf(extra + len, sizeof extra - (size_t)len, "%s\"%d\": %.3f", c ? ", " : "", c, v[g_runs / 2]);
        }
        len += snprintf(extra + len, sizeof extra - (size_t)len, "}");
    }
    bench_report("second_stream", runtime, ncpu, extra, tog, g_runs);
}

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_reps = quick ? 100 : 1000;
    g_runs = quick ? 5 : 15;
    g_yields = quick ? 20000 : 200000;
    int maxs = 2;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--streams=", 10)) maxs = atoi(argv[i] + 10);
    if (maxs < 1 || maxs > 64) maxs = 2;
    int maxt = maxs; /* --threads=: the largest stream count of yield and yield_to */
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--threads=", 10)) maxt = atoi(argv[i] + 10);
    if (maxt < 1 || maxt > 64) maxt = maxs;
    long per = (long)g_reps * UNITS;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--features")) g_features = 1;
    if (g_features) { /* create+join and yield on one stream, private pool */
        measure("create_join", "weft-ult", 1, PRIVATE, create_join_driver, 0, per);
        measure("create_join", "weft-tasklet", 1, PRIVATE, create_join_driver, 1, per);
        measure("yield", "weft-ult", 1, PRIVATE, yield_driver, 0, 1);
        return 0;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--cold")) { /* the cold rows and the recycled ones they compare with */
            measure("create_join", "weft-ult", 1, PRIVATE, create_join_driver, 0, per);
            measure("create_join", "weft-tasklet", 1, PRIVATE, create_join_driver, 1, per);
            measure_cold(quick ? COLD_UNITS_QUICK : COLD_UNITS);
            return 0;
        }
    for (int s = 1; s <= maxs; s *= 2)
        for (int k = PRIVATE; k <= STEALING; k++) {
            measure("create_join", "weft-ult", s, (enum setup)k, create_join_driver, 0, per);
            measure("create_join", "weft-tasklet", s, (enum setup)k, create_join_driver, 1, per);
            /* Beside the recycled rows it is compared with (1 stream, private). */
            if (s == 1 && k == PRIVATE) measure_cold(quick ? COLD_UNITS_QUICK : COLD_UNITS);
        }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int ncpu = online < maxs ? (int)online : maxs;
    if (ncpu > 1)
        for (int k = PRIVATE; k <= SHARED; k++) {
            measure_pair("weft-ult", (enum setup)k, 0, ncpu, per);
            measure_pair("weft-tasklet", (enum setup)k, 1, ncpu, per);
        }
    /* Yield at the thread counts of the patterns (bench/patterns.h), past the
     * cores too: streams then share CPUs, as their peers' threads do. */
    for (int s = 1; s <= maxt; s *= 2) {
        measure("yield", "weft-ult", s, PRIVATE, yield_driver, 0, 1);
        measure("yield_to", "weft-ult", s, PRIVATE, yield_driver, 1, 1);
    }
    return 0;
}
