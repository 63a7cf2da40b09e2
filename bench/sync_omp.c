/* bench_sync's experiments in OpenMP, for those it expresses: one source,
 * built by gcc (libgomp, "gomp") and by clang (libomp, "llvm-omp").
 *   mutex_uncontended  omp_set_lock + omp_unset_lock by one thread
 *   mutex_contended    a team of s threads incrementing a shared counter
 *                      under an omp_lock_t; time per increment
 *   barrier            `#pragma omp barrier` in a team of s; time per round
 * OpenMP has no blocking condition or eventual (eventual_pingpong) and no
 * way to hand work to one sleeping thread (wake_latency). The team binding
 * and wait policy come from the environment (bench/run.py sets them). The
 * gcc program also runs on weft-omp (--runtime=weft-omp, bench_omp.h). */
#define _GNU_SOURCE
#include <omp.h>

#include "bench_common.h"
#include "bench_omp.h"

#define UNC_OPS 1000000
#define CONT_OPS 200000 /* increments in all, per run (as bench_sync.c) */
#define BAR_ROUNDS 20000

static omp_lock_t g_lock;
static long g_counter;

static void uncontended(void)
{
    for (int i = 0; i < UNC_OPS; i++) {
        omp_set_lock(&g_lock);
        omp_unset_lock(&g_lock);
    }
}

static void contended(int s)
{
    g_counter = 0;
#pragma omp parallel num_threads(s)
    for (int i = 0; i < CONT_OPS / s; i++) {
        omp_set_lock(&g_lock);
        g_counter++;
        omp_unset_lock(&g_lock);
    }
    BENCH_CHECK(g_counter == (long)(CONT_OPS / s) * s);
}

static void barrier(int s)
{
    int team = 0;
#pragma omp parallel num_threads(s)
    {
#pragma omp single
        team = omp_get_num_threads();
        for (int r = 0; r < BAR_ROUNDS; r++) {
#pragma omp barrier
        }
    }
    BENCH_CHECK(team == s);
}

int main(int argc, char **argv)
{
    int runs = bench_quick(argc, argv) ? 5 : 15, maxs = bench_streams(argc, argv);
    double v[64];
    for (int i = 1; i < argc; i++) bench_omp_arg(argv[i]);
    char lock[4400]; /* the label, and the library */
    snprintf(lock, sizeof lock, "\"label\": \"%s (omp_lock_t)\", %s", bench_omp_runtime, bench_omp_lib_field());
    omp_set_dynamic(0);
    omp_init_lock(&g_lock);
    BENCH_MEASURE(v, runs, UNC_OPS, uncontended());
    bench_report("mutex_uncontended", bench_omp_runtime, 1, lock, v, runs);
    for (int s = 1; s <= maxs; s *= 2) {
        BENCH_MEASURE(v, runs, CONT_OPS, contended(s));
        bench_report("mutex_contended", bench_omp_runtime, s, lock, v, runs);
    }
    for (int s = 2; s <= maxs; s *= 2) {
        BENCH_MEASURE(v, runs, BAR_ROUNDS, barrier(s));
        bench_report("barrier", bench_omp_runtime, s, bench_omp_lib_field(), v, runs);
    }
    omp_destroy_lock(&g_lock);
    return 0;
}
