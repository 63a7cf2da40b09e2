/* What GLT costs over weft's own calls: create, join and free N units on
 * one stream, through glt.h and through the native API, in one process.
 * Seven pairs of runs alternate native and GLT (so that drift in clock or
 * cache state hits both alike); each pair gives a ratio glt/native, and
 * the report carries their median, min and max with the GLT point.
 *
 * The native loop is the cheapest way weft offers: the caller's pool taken
 * once, weft_{thread,tasklet}_create into it, then weft_thread_free on each
 * (join and release in one call). The GLT loop does the same work with
 * GLT's calls: glt_{ult,tasklet}_create, then glt_*_join and glt_*_free on
 * each unit. (A program that joins all units, then frees all in a second
 * loop, pays that loop's own pass over its handles on top: no call of
 * either API is in it.)
 *
 * Output: bench_common.h's JSON lines, experiments glt_cost_ult and
 * glt_cost_tasklet, runtimes weft-native and weft-glt (with "ratio",
 * "ratio_min", "ratio_max"); ns per unit. --quick: fewer repetitions. */
#define _GNU_SOURCE
#include "bench_common.h"
#include "glt.h"

#define UNITS 256
#define PAIRS 7

static long g_ran;
static void body(void *arg) { ++*(long *)arg; }

static weft_thread g_t[UNITS];
static GLT_ult g_u[UNITS];

static double native_run(weft_pool pool, int tasklet, int reps)
{
    double t0 = bench_now_ns();
    for (int r = 0; r < reps; r++) {
        if (tasklet) {
            for (int i = 0; i < UNITS; i++) BENCH_CHECK(weft_tasklet_create(pool, body, &g_ran, &g_t[i]) == WEFT_OK);
        } else {
            for (int i = 0; i < UNITS; i++)
                BENCH_CHECK(weft_thread_create(pool, body, &g_ran, NULL, &g_t[i]) == WEFT_OK);
        }
        for (int i = 0; i < UNITS; i++) BENCH_CHECK(weft_thread_free(&g_t[i]) == WEFT_OK);
    }
    return (bench_now_ns() - t0) / ((double)reps * UNITS);
}

static double glt_run(int tasklet, int reps)
{
    double t0 = bench_now_ns();
    for (int r = 0; r < reps; r++) {
        if (tasklet) {
            for (int i = 0; i < UNITS; i++) glt_tasklet_create(body, &g_ran, &g_u[i]);
            for (int i = 0; i < UNITS; i++) {
                glt_tasklet_join(&g_u[i]);
                glt_tasklet_free(&g_u[i]);
            }
        } else {
            for (int i = 0; i < UNITS; i++) glt_ult_create(body, &g_ran, &g_u[i]);
            for (int i = 0; i < UNITS; i++) {
                glt_ult_join(&g_u[i]);
                glt_ult_free(&g_u[i]);
            }
        }
    }
    return (bench_now_ns() - t0) / ((double)reps * UNITS);
}

static void measure(const char *kind, int tasklet, int reps)
{
    weft_xstream xs;
    weft_pool pool;
    int n;
    BENCH_CHECK(weft_xstream_self(&xs) == WEFT_OK);
    BENCH_CHECK(weft_xstream_get_pools(xs, 1, &pool, &n) == WEFT_OK && n >= 1);
    double nat[PAIRS], glt[PAIRS], ratio[PAIRS];
    native_run(pool, tasklet, reps / 4 + 1); /* warm-up: descriptors, stacks, caches */
    glt_run(tasklet, reps / 4 + 1);
    g_ran = 0;
    for (int k = 0; k < PAIRS; k++) {
        nat[k] = native_run(pool, tasklet, reps);
        glt[k] = glt_run(tasklet, reps);
        ratio[k] = glt[k] / nat[k];
    }
    BENCH_CHECK(g_ran == 2L * PAIRS * reps * UNITS);
    qsort(ratio, PAIRS, sizeof *ratio, bench_cmp);
    char exp[64], extra[160];
    snprintf(exp, sizeof exp, "glt_cost_%s", kind);
    snprintf(extra, sizeof extra, "\"ratio\": %.4f, \"ratio_min\": %.4f, \"ratio_max\": %.4f", ratio[PAIRS / 2],
             ratio[0], ratio[PAIRS - 1]);
    bench_report(exp, "weft-native", 1, NULL, nat, PAIRS);
    bench_report(exp, "weft-glt", 1, extra, glt, PAIRS);
}

int main(int argc, char **argv)
{
    int reps = bench_quick(argc, argv) ? 200 : 4000;
    setenv("GLT_NUM_THREADS", "1", 0); /* one stream: nothing else runs */
    setenv("WEFT_BIND", "1", 0);       /* bound, as the suite binds weft (bench_weft_bind.h) */
    glt_init(argc, argv);
    measure("ult", 0, reps);
    measure("tasklet", 1, reps);
    glt_finalize();
    return 0;
}
