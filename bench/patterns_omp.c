/* The patterns (bench/patterns.h) in OpenMP, as its users write them. One
 * source, two programs: built by gcc (libgomp, runtime "gomp") and by clang
 * (LLVM's libomp, runtime "llvm-omp"). Threads = the team size. The
 * environment (wait policy, nesting, binding) is set by bench/run.py, as
 * an OpenMP user would set it for each pattern. The gcc program also runs
 * on weft-omp (LD_LIBRARY_PATH, --runtime=weft-omp; bench/bench_omp.h). */
#define _GNU_SOURCE
#define PATTERNS_MAIN
#include "patterns.h"

#include <omp.h>

#include "bench_omp.h"

static const char *name(void) { return bench_omp_runtime; }

static void init(int threads)
{
    omp_set_num_threads(threads);
    omp_set_dynamic(0);
}

static void fini(void) {}

/* One implicit task per thread: creation is the fork (until the master
 * starts its own), joining is the end of the region (from the master's end
 * to the master back after the closing barrier). */
static void create_join(double *create_ns, double *join_ns)
{
    double t0 = bench_now_ns(), t1 = 0, t2 = 0;
#pragma omp parallel num_threads(pat_threads)
    {
        int me = omp_get_thread_num();
        if (me == 0) t1 = bench_now_ns();
        pat_unit(me);
        if (me == 0) t2 = bench_now_ns();
    }
    double t3 = bench_now_ns();
    BENCH_CHECK(t1 > 0 && t2 > 0);
    *create_ns = t1 - t0;
    *join_ns = t3 - t2;
}

static void for_loop(void)
{
#pragma omp parallel for schedule(static) num_threads(pat_threads)
    for (int i = 0; i < PAT_N; i++) pat_scale_one(i);
}

static void tasks_single(void)
{
#pragma omp parallel num_threads(pat_threads)
#pragma omp single
    for (int i = 0; i < PAT_N; i++) {
#pragma omp task firstprivate(i)
        pat_scale_one(i);
    }
}

static void tasks_parallel(void)
{
#pragma omp parallel num_threads(pat_threads)
    {
        int k = omp_get_thread_num(), n = omp_get_num_threads();
        for (int i = pat_lo(PAT_N, k, n); i < pat_hi(PAT_N, k, n); i++) {
#pragma omp task firstprivate(i)
            pat_scale_one(i);
        }
    }
}

static void nested_for(void)
{
    int n = pat_mn;
#pragma omp parallel for schedule(static) num_threads(pat_threads)
    for (int i = 0; i < n; i++) {
#pragma omp parallel for schedule(static) num_threads(pat_threads)
        for (int j = 0; j < n; j++) pat_scale_cell(i, j);
    }
}

/* Every thread of the team creates PAT_CJ_UNITS tasks and waits for them,
 * `reps` times; its time per task, mean over the threads. */
static double create_join_per_stream(int reps)
{
    double sum = 0;
    long ran = 0;
#pragma omp parallel num_threads(pat_threads) reduction(+ : sum, ran)
    {
        long mine = 0;
#pragma omp barrier
        double t0 = bench_now_ns();
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < PAT_CJ_UNITS; i++) {
#pragma omp task shared(mine)
                {
#pragma omp atomic
                    mine++;
                }
            }
#pragma omp taskwait
        }
        sum += (bench_now_ns() - t0) / ((double)reps * PAT_CJ_UNITS);
        ran += mine;
    }
    BENCH_CHECK(ran == (long)reps * PAT_CJ_UNITS * pat_threads);
    return sum / pat_threads;
}

const struct pat_runtime pat_rt = {name, bench_omp_lib_field, bench_omp_arg, init, fini, create_join, for_loop,
                                   tasks_single, tasks_parallel, nested_for, create_join_per_stream,
                                   /* yield: OpenMP has no yield between tasks (taskyield may only run
                                      another task on top of the caller, or nothing) */
                                   NULL};
