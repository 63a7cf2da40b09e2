/* Shared by the C benchmark programs: timing, repeated runs, and one JSON
 * line per measured point on stdout (bench/run.py collects them). */
#ifndef WEFT_BENCH_COMMON_H
#define WEFT_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `v` and prints the point as JSON: median, min and max of the runs
 * in `unit`, `extra` JSON fields if any, and with `values` the runs
 * themselves (bench/run.py merges the rounds of one point). */
static inline void bench_point(const char *experiment, const char *runtime, int threads, const char *unit,
                               const char *extra, double *v, int runs, int values)
{
    qsort(v, (size_t)runs, sizeof *v, bench_cmp);
    double med = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
    printf("{\"experiment\": \"%s\", \"runtime\": \"%s\", \"threads\": %d, \"unit\": \"%s\", "
           "\"median\": %.4f, \"min\": %.4f, \"max\": %.4f, \"runs\": %d%s%s",
           experiment, runtime, threads, unit, med, v[0], v[runs - 1], runs, extra && *extra ? ", " : "",
           extra ? extra : "");
    if (values) {
        printf(", \"values\": [");
        for (int r = 0; r < runs; r++) printf("%s%.4f", r ? ", " : "", v[r]);
        printf("]");
    }
    printf("}\n");
    fflush(stdout);
}

/* A point in ns, without its runs' values. */
static inline void bench_report(const char *experiment, const char *runtime, int threads, const char *extra,
                                double *v, int runs)
{
    bench_point(experiment, runtime, threads, "ns", extra, v, runs, 0);
}

/* --quick: fewer repetitions, same experiments. */
static inline int bench_quick(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick")) return 1;
    return 0;
}

/* --streams=N: the streams or threads a program goes up to (default 2,
 * clamped to 2..32). */
static inline int bench_streams(int argc, char **argv)
{
    int n = 2;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--streams=", 10)) n = atoi(argv[i] + 10);
    return n < 2 ? 2 : n > 32 ? 32 : n;
}

/* Times `body` `runs` times after a warm-up: v[r] is ns per `ops`. */
#define BENCH_MEASURE(v, runs, ops, body)                  \
    do {                                                   \
        for (int r_ = -1; r_ < (runs); r_++) {             \
            double t0_ = bench_now_ns();                   \
            body;                                          \
            double dt_ = (bench_now_ns() - t0_) / (ops);   \
            if (r_ >= 0) (v)[r_] = dt_;                    \
        }                                                  \
    } while (0)

#define BENCH_CHECK(cond)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#endif
