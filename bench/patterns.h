/* The OpenMP-pattern microbenchmarks of [Threading-HPC] §4,
 * one driver for every runtime: the runtime's program (patterns_*.c, .cpp)
 * implements the hooks declared below, each in its own idiom, and this
 * header times them, checks them and prints the JSON point.
 *
 *   prog --exp=NAME --threads=T [--quick] [--runs=R] [runtime's own options]
 *
 * measures one point: a warm-up repetition, then runs of K repetitions
 * each (K chosen so that a run lasts about a millisecond), median, min and
 * max of the runs' mean time per repetition, and the runs' values (bench/run.py
 * merges the rounds it interleaves across runtimes). Experiments:
 *   create, join          the main thread creates one unit per thread, then
 *                         joins them: the two halves of the same repetitions
 *   for_loop              PAT_N-element vector scaled, a chunk per thread
 *   tasks_single          one thread creates a task per element
 *   tasks_parallel        every thread creates the tasks of its chunk
 *   nested_for_1000/_100  two nested parallel loops, n x n elements
 *   create_join_per_stream every thread creates and joins PAT_CJ_UNITS units
 *                         at a time; per unit
 *   yield                 two units per thread yield to each other; per yield
 * Work is a scal: every element multiplied by a factor that alternates
 * between 2 and 0.5, so each repetition's result is exact and checked. */
#ifndef WEFT_BENCH_PATTERNS_H
#define WEFT_BENCH_PATTERNS_H

#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "bench_bind.h"
#include "bench_common.h"

#define PAT_N 1000
#define PAT_CJ_UNITS 256

#ifdef __cplusplus
extern "C" {
#endif

/* A runtime's hooks. name: the runtime's name in the results; extra: more
 * JSON fields (e.g. "\"pool\": \"private\""), or "". arg: takes an option
 * of the runtime's own (returns 1 if taken). init/fini start and stop it
 * with `threads` threads. Each pattern hook does one repetition; NULL
 * where the runtime does not express the pattern (or another program
 * measures it). */
struct pat_runtime {
    const char *(*name)(void);
    const char *(*extra)(void);
    int (*arg)(const char *arg);
    void (*init)(int threads);
    void (*fini)(void);
    void (*create_join)(double *create_ns, double *join_ns); /* unit i < threads runs pat_unit(i) */
    void (*for_loop)(void);                                  /* pat_scale_range over the chunks */
    void (*tasks_single)(void);                              /* a task per element: pat_scale_one(i) */
    void (*tasks_parallel)(void);
    void (*nested_for)(void);                                /* pat_scale_row / _cell, pat_mn x pat_mn */
    double (*create_join_per_stream)(int reps);              /* ns per unit, mean over threads */
    double (*yield)(long yields);                            /* ns per yield */
};
extern const struct pat_runtime pat_rt;

/* Shared state: the thread count, the vector and matrix, the factor. */
extern int pat_threads;
extern double pat_v[PAT_N];
extern double *pat_m;
extern int pat_mn;
extern double pat_a;
extern long pat_hits[64];

static inline void pat_unit(int i) { pat_hits[i]++; }
static inline void pat_scale_one(int i) { pat_v[i] *= pat_a; }
static inline void pat_scale_range(int lo, int hi)
{
    for (int i = lo; i < hi; i++) pat_v[i] *= pat_a;
}
static inline void pat_scale_cell(int i, int j) { pat_m[(long)i * pat_mn + j] *= pat_a; }
static inline void pat_scale_row(int i, int lo, int hi)
{
    for (int j = lo; j < hi; j++) pat_m[(long)i * pat_mn + j] *= pat_a;
}
/* The chunk [lo, hi) of n iterations that part k of `parts` takes. */
static inline int pat_lo(int n, int k, int parts) { return (int)((long)n * k / parts); }
static inline int pat_hi(int n, int k, int parts) { return (int)((long)n * (k + 1) / parts); }
/* for_loop: thread k's chunk of the vector. */
static inline void pat_chunk(int k)
{
    pat_scale_range(pat_lo(PAT_N, k, pat_threads), pat_hi(PAT_N, k, pat_threads));
}
/* Nested loops: an inner unit's argument packs (row, part); pat_inner does
 * that part of that row. */
static inline intptr_t pat_inner_arg(int row, int part) { return ((intptr_t)row << 8) | part; }
static inline void pat_inner(intptr_t x)
{
    int i = (int)(x >> 8), k = (int)(x & 0xff);
    pat_scale_row(i, pat_lo(pat_mn, k, pat_threads), pat_hi(pat_mn, k, pat_threads));
}

#ifdef __cplusplus
}
#endif

#ifdef PATTERNS_MAIN
/* The driver: exactly one source of each program defines PATTERNS_MAIN. */
int pat_threads;
double pat_v[PAT_N];
double *pat_m;
int pat_mn;
double pat_a = 2.0;
long pat_hits[64];
/* Values of every element after `reps` repetitions (factor 2, then 0.5...). */
static int pat_check_vec(const double *v, long n, long reps)
{
    double f = reps % 2 ? 2.0 : 1.0;
    for (long i = 0; i < n; i++)
        if (v[i] != (double)(i % 977 + 1) * f) return 0;
    return 1;
}

static void pat_fill(double *v, long n)
{
    for (long i = 0; i < n; i++) v[i] = (double)(i % 977 + 1);
}

static long pat_done; /* repetitions so far: the factor and the check follow it */

/* One repetition of `exp`; returns its time (ns) and checks it. */
static double pat_rep(const char *exp)
{
    pat_a = pat_done % 2 ? 0.5 : 2.0;
    double t0 = bench_now_ns(), dt;
    if (!strcmp(exp, "create") || !strcmp(exp, "join")) {
        memset(pat_hits, 0, sizeof pat_hits);
        double c, j;
        pat_rt.create_join(&c, &j);
        for (int i = 0; i < pat_threads; i++) BENCH_CHECK(pat_hits[i] == 1);
        dt = !strcmp(exp, "create") ? c : j;
        pat_done++;
        return dt;
    }
    if (!strcmp(exp, "for_loop")) pat_rt.for_loop();
    else if (!strcmp(exp, "tasks_single")) pat_rt.tasks_single();
    else if (!strcmp(exp, "tasks_parallel")) pat_rt.tasks_parallel();
    else pat_rt.nested_for();
    dt = bench_now_ns() - t0;
    pat_done++;
    if (!strncmp(exp, "nested_for_", 11)) BENCH_CHECK(pat_check_vec(pat_m, (long)pat_mn * pat_mn, pat_done));
    else BENCH_CHECK(pat_check_vec(pat_v, PAT_N, pat_done));
    return dt;
}

/* The hook of `exp`, NULL if the runtime has none; exits on an unknown name. */
static const void *pat_hook(const char *exp)
{
    if (!strcmp(exp, "create") || !strcmp(exp, "join")) return (const void *)pat_rt.create_join;
    if (!strcmp(exp, "for_loop")) return (const void *)pat_rt.for_loop;
    if (!strcmp(exp, "tasks_single")) return (const void *)pat_rt.tasks_single;
    if (!strcmp(exp, "tasks_parallel")) return (const void *)pat_rt.tasks_parallel;
    if (!strcmp(exp, "nested_for_1000") || !strcmp(exp, "nested_for_100")) return (const void *)pat_rt.nested_for;
    if (!strcmp(exp, "create_join_per_stream")) return (const void *)pat_rt.create_join_per_stream;
    if (!strcmp(exp, "yield")) return (const void *)pat_rt.yield;
    fprintf(stderr, "unknown experiment %s\n", exp);
    exit(2);
}

static const char *pat_unit_of(const char *exp)
{
    return !strcmp(exp, "create") || !strcmp(exp, "join") || !strcmp(exp, "create_join_per_stream") ||
                   !strcmp(exp, "yield")
               ? "ns"
               : "us";
}

int main(int argc, char **argv)
{
    const char *exp = NULL;
    int quick = 0, runs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--exp=", 6)) exp = argv[i] + 6;
        else if (!strncmp(argv[i], "--threads=", 10)) pat_threads = atoi(argv[i] + 10);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strncmp(argv[i], "--runs=", 7)) runs = atoi(argv[i] + 7);
        else if (!pat_rt.arg || !pat_rt.arg(argv[i])) {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (!exp || pat_threads < 1 || pat_threads > 64) {
        fprintf(stderr, "usage: %s --exp=NAME --threads=1..64 [--quick]\n", argv[0]);
        return 2;
    }
    if (!pat_hook(exp)) {
        printf("{\"experiment\": \"%s\", \"runtime\": \"%s\", \"threads\": %d, \"absent\": true}\n", exp,
               pat_rt.name(), pat_threads);
        return 0;
    }
    if (runs < 1 || runs > 64) runs = quick ? 5 : 15;
    double v[64];
    const char *unit = pat_unit_of(exp);
    double scale = !strcmp(unit, "us") ? 1e-3 : 1.0;
    pat_fill(pat_v, PAT_N);
    if (!strncmp(exp, "nested_for_", 11)) {
        pat_mn = atoi(exp + 11);
        BENCH_CHECK(pat_mn > 0);
        pat_m = (double *)malloc(sizeof(double) * (size_t)pat_mn * (size_t)pat_mn);
        BENCH_CHECK(pat_m);
        pat_fill(pat_m, (long)pat_mn * pat_mn);
    }
    bench_cpus_init();
    pat_rt.init(pat_threads);
    if (!strcmp(exp, "create_join_per_stream") || !strcmp(exp, "yield")) {
        /* Their hooks repeat internally; a run is one call. */
        int cj = !strcmp(exp, "create_join_per_stream");
        int reps = quick ? 100 : 1000;
        long yields = quick ? 20000 : 200000;
#ifdef PAT_OS_THREADS /* a unit is an OS thread: microseconds each */
        reps /= 50;
        yields /= 10;
#endif
        cj ? pat_rt.create_join_per_stream(reps) : pat_rt.yield(yields); /* warm-up */
        for (int r = 0; r < runs; r++) v[r] = cj ? pat_rt.create_join_per_stream(reps) : pat_rt.yield(yields);
    } else {
        /* Warm-up for a few milliseconds, then K repetitions per run so
         * that a run takes ~1 ms, K from the fastest warm-up repetition:
         * one slow repetition (a wake-up of a sleeping thread, which takes
         * up to milliseconds on a shared VM) must not make K = 1, where
         * every repetition would find the other threads asleep again. */
        double fastest = pat_rep(exp), until = bench_now_ns() + (quick ? 2e6 : 5e6);
        for (int i = 0; i < 3 || bench_now_ns() < until; i++) {
            double t = pat_rep(exp);
            if (i == 0 || t < fastest) fastest = t; /* the very first one warmed up only */
        }
        long k = (long)(1e6 / (fastest < 50 ? 50 : fastest));
        if (k < 1) k = 1;
        if (k > 2000) k = 2000;
        for (int r = 0; r < runs; r++) {
            double sum = 0;
            for (long i = 0; i < k; i++) sum += pat_rep(exp);
            v[r] = sum / (double)k * scale;
        }
    }
    pat_rt.fini();
    bench_point(exp, pat_rt.name(), pat_threads, unit, pat_rt.extra ? pat_rt.extra() : "", v, runs, 1);
    free(pat_m);
    return 0;
}
#endif /* PATTERNS_MAIN */
#endif
