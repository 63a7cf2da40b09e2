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

/* Sorts `v` and prints the point as JSON: median, min, max of the runs. */
static inline void bench_report(const char *experiment, const char *runtime, int threads, const char *extra,
                                double *v, int runs)
{
    qsort(v, (size_t)runs, sizeof *v, bench_cmp);
    double med = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
    printf("{\"experiment\": \"%s\", \"runtime\": \"%s\", \"threads\": %d, \"unit\": \"ns\", "
           "\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, \"runs\": %d%s%s}\n",
           experiment, runtime, threads, med, v[0], v[runs - 1], runs, extra && *extra ? ", " : "",
           extra ? extra : "");
    fflush(stdout);
}

/* --quick: fewer repetitions, same experiments. */
static inline int bench_quick(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick")) return 1;
    return 0;
}

#define BENCH_CHECK(cond)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#endif
