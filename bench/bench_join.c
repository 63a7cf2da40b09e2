/* The join-latency breakdown ([Argobots §3], Figs. 3-5): create+join
 * time per ULT on one stream with the critical-path optimisations switched
 * on one after the other. This program is built four times, against
 * measurement builds of the library without some of the optimisations
 * (bench/CMakeLists.txt); BREAKDOWN_FIRST..BREAKDOWN_LAST say which steps
 * each build measures. Steps 2, 5 and 6 are run-time choices. */
#define _GNU_SOURCE
#include "bench_common.h"
#include "weft.h"
#include "bench_weft_bind.h"

#define UNITS 256

static const char *const STEP_NAME[] = {
    "none",                   /* shared pool, no memory pool, save at end, via scheduler, join one by one */
    "+ memory pool",          /* per-stream caches of descriptors and stacks */
    "+ huge pages",           /* stacks carved from huge-page chunks */
    "+ last-context skip",    /* an ending ULT jumps away without saving its context */
    "+ scheduler bypass",     /* a leaving ULT switches straight to the next one */
    "+ join-many",            /* weft_thread_free_many instead of one free per unit */
    "+ private pool",         /* the stream's pool takes no atomics */
};

static int g_reps;

static void unit_body(void *arg) { ++*(long *)arg; }

struct driver { weft_pool pool; int many; long executed; double ns; };

static void driver(void *arg)
{
    struct driver *d = arg;
    weft_thread t[UNITS];
    double t0 = bench_now_ns();
    for (int r = 0; r < g_reps; r++) {
        for (int i = 0; i < UNITS; i++)
            BENCH_CHECK(weft_thread_create(d->pool, unit_body, &d->executed, NULL, &t[i]) == WEFT_OK);
        if (d->many) BENCH_CHECK(weft_thread_free_many(UNITS, t) == WEFT_OK);
        else
            for (int i = 0; i < UNITS; i++) BENCH_CHECK(weft_thread_free(&t[i]) == WEFT_OK);
    }
    d->ns = (bench_now_ns() - t0) / ((double)g_reps * UNITS);
}

static void step(int k, int runs)
{
    weft_config cfg;
    BENCH_CHECK(weft_config_init(&cfg) == WEFT_OK);
    cfg.num_xstreams = 1;
    cfg.huge_pages = k >= 2;
    cfg.pool_access = k >= 6 ? WEFT_POOL_ACCESS_PRIVATE : WEFT_POOL_ACCESS_MPMC;
    bench_weft_bind(&cfg);
    BENCH_CHECK(weft_init(&cfg) == WEFT_OK);
    weft_xstream xs;
    int n;
    double v[64];
    struct driver d = {.many = k >= 5};
    BENCH_CHECK(weft_xstream_self(&xs) == WEFT_OK);
    BENCH_CHECK(weft_xstream_get_pools(xs, 1, &d.pool, &n) == WEFT_OK);
    for (int r = -1; r < runs; r++) { /* run -1 warms up */
        weft_thread t;
        d.executed = 0;
        BENCH_CHECK(weft_thread_create(d.pool, driver, &d, NULL, &t) == WEFT_OK);
        BENCH_CHECK(weft_thread_free(&t) == WEFT_OK);
        BENCH_CHECK(d.executed == (long)g_reps * UNITS);
        if (r >= 0) v[r] = d.ns;
    }
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    char extra[96];
    snprintf(extra, sizeof extra, "\"step\": %d, \"label\": \"%s\"", k, STEP_NAME[k]);
    bench_report("join_breakdown", "weft-ult", 1, extra, v, runs);
}

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_reps = quick ? 100 : 1000;
    int runs = quick ? 5 : 15;
    for (int k = BREAKDOWN_FIRST; k <= BREAKDOWN_LAST; k++) step(k, runs);
    return 0;
}
