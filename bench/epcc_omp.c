/* OpenMP synchronisation overheads in the manner of the EPCC OpenMP
 * microbenchmarks (J. M. Bull, "Measuring Synchronisation and Scheduling
 * Overheads in OpenMP", EWOMP 1999, and EPCC's syncbench), written here
 * from that description: a construct's overhead is the time of the
 * construct wrapped around a short delay, executed many times in a loop,
 * minus the time of the same delays without the construct, divided by the
 * number of times the construct was executed.
 *
 *   epcc_gomp [--quick] [--runs=R] [--runtime=NAME] [--streams=N (ignored)]
 *
 * The team has OMP_NUM_THREADS threads (bench/run.py sets it, and the
 * binding, per point); n below is that number. For each construct: its
 * reference timed R times (median), then the test's R runs; the
 * repetitions `reps` of a run (of the reference, of the test) are doubled
 * from 8n until the fastest of three runs takes the target time (1 ms,
 * 0.5 ms with --quick; EPCC's default is 1 ms), which warms the team up.
 * Runs stop early once a construct's runs have taken 500 times the target
 * (a runtime that turns much slower after calibration: fewer runs, not
 * minutes). A run's value: run time / executions of the construct -
 * reference time / executions of its body (ns; slightly negative where a
 * construct costs less than the noise). One JSON point per construct:
 * median, min and max of the runs, and the runs' values (bench/run.py
 * merges rounds).
 *
 *   construct     timed, `reps` executions                     reference
 *   parallel      reps x: parallel { delay }                   delay, reps x
 *   for           one parallel region, reps x: for over n      delay, reps x
 *                 iterations (one per thread) of delay
 *   parallel_for  reps x: parallel for over n iterations of    delay, reps x
 *                 delay
 *   barrier       one region, reps x: delay; barrier           delay, reps x
 *   single        one region, reps x: single { delay } (its    delay, reps x
 *                 closing barrier included)
 *   critical      one region, reps/n per thread: critical {    delay, reps x
 *                 delay }
 *   lock          as critical, omp_set_lock / omp_unset_lock   delay, reps x
 *   ordered       parallel for ordered schedule(static,1)      delay, reps x
 *                 over reps iterations: ordered { delay }
 *   atomic        one region, reps/n per thread: atomic        the same update
 *                 update of one shared double (a += b)         not atomic, reps x
 *   reduction     reps x: parallel reduction(+:a)              delay; a += 1,
 *                 { delay; a += 1 }                            reps x
 *
 * The delay is a chain of dependent floating-point additions calibrated to
 * DELAY_NS at start-up (EPCC's default delay is 0.1 us). The gcc program
 * also runs on weft-omp (LD_LIBRARY_PATH, --runtime=weft-omp; bench_omp.h).
 */
#define _GNU_SOURCE
#include <omp.h>

#include "bench_common.h"
#include "bench_omp.h"

#define DELAY_NS 100.0
#define MAX_REPS (1L << 24)

static int g_n;         /* team size */
static int g_len;       /* delay length, iterations */
static omp_lock_t g_lock;
static volatile double g_one = 1.0; /* opaque to the compiler */

static __attribute__((noinline)) void delay(int len)
{
    double a = 0.0;
    for (int i = 0; i < len; i++) a += (double)i;
    __asm__ volatile("" : : "m"(a));
}

/* ---- the tests: each returns how many times the construct ran ---- */

static long t_parallel(long reps)
{
    for (long j = 0; j < reps; j++) {
#pragma omp parallel
        delay(g_len);
    }
    return reps;
}

static long t_for(long reps)
{
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for
        for (int i = 0; i < g_n; i++) delay(g_len);
    }
    return reps;
}

static long t_parallel_for(long reps)
{
    for (long j = 0; j < reps; j++) {
#pragma omp parallel for
        for (int i = 0; i < g_n; i++) delay(g_len);
    }
    return reps;
}

static long t_barrier(long reps)
{
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
        delay(g_len);
#pragma omp barrier
    }
    return reps;
}

static long t_single(long reps)
{
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp single
        delay(g_len);
    }
    return reps;
}

static long per_thread(long reps) { return reps / g_n > 0 ? reps / g_n : 1; }

static long t_critical(long reps)
{
    long each = per_thread(reps);
#pragma omp parallel
    for (long j = 0; j < each; j++) {
#pragma omp critical
        delay(g_len);
    }
    return each * g_n;
}

static long t_lock(long reps)
{
    long each = per_thread(reps);
#pragma omp parallel
    for (long j = 0; j < each; j++) {
        omp_set_lock(&g_lock);
        delay(g_len);
        omp_unset_lock(&g_lock);
    }
    return each * g_n;
}

static long t_ordered(long reps)
{
#pragma omp parallel for ordered schedule(static, 1)
    for (long j = 0; j < reps; j++) {
#pragma omp ordered
        delay(g_len);
    }
    return reps;
}

static long t_atomic(long reps)
{
    long each = per_thread(reps);
    double a = 0.0;
#pragma omp parallel shared(a)
    {
        double b = g_one;
        for (long j = 0; j < each; j++) {
#pragma omp atomic
            a += b;
        }
    }
    BENCH_CHECK(a == (double)(each * g_n));
    return each * g_n;
}

static long t_reduction(long reps)
{
    long a = 0;
    for (long j = 0; j < reps; j++) {
#pragma omp parallel reduction(+ : a)
        {
            delay(g_len);
            a += 1;
        }
    }
    BENCH_CHECK(a == reps * g_n);
    return reps;
}

/* ---- the references: the bodies without the construct, on one thread ---- */

static long r_delay(long reps)
{
    for (long j = 0; j < reps; j++) delay(g_len);
    return reps;
}

static long r_atomic(long reps)
{
    double a = 0.0, b = g_one;
    for (long j = 0; j < reps; j++) a += b;
    BENCH_CHECK(a == (double)reps);
    return reps;
}

static long r_reduction(long reps)
{
    long a = 0;
    for (long j = 0; j < reps; j++) {
        delay(g_len);
        a += 1;
        __asm__ volatile("" : "+r"(a));
    }
    BENCH_CHECK(a == reps);
    return reps;
}

static const struct construct {
    const char *name;
    long (*test)(long reps);
    long (*ref)(long reps);
} constructs[] = {
    {"parallel", t_parallel, r_delay}, {"for", t_for, r_delay},          {"parallel_for", t_parallel_for, r_delay},
    {"barrier", t_barrier, r_delay},   {"single", t_single, r_delay},    {"critical", t_critical, r_delay},
    {"lock", t_lock, r_delay},         {"ordered", t_ordered, r_delay},  {"atomic", t_atomic, r_atomic},
    {"reduction", t_reduction, r_reduction},
};

static double g_target_ns, g_budget_ns;

/* ns per execution of f(reps); *execs: the executions. */
static double timed(long (*f)(long), long reps, long *execs)
{
    double t0 = bench_now_ns();
    long n = f(reps);
    double dt = bench_now_ns() - t0;
    if (execs) *execs = n;
    return dt / (double)n;
}

/* The repetitions that make one run of f last the target time: doubled
 * until the fastest of three runs takes that long, so that one slow run (a
 * wake-up, the machine's noise) does not leave a run of a few executions.
 * Also the warm-up. At least 8 per thread, so that where a run is one
 * parallel region the region's start and end, which EPCC amortises over
 * the run, do not make up most of an execution's time. */
static long calibrate(long (*f)(long))
{
    long reps = 8L * g_n, n;
    for (;;) {
        double fastest = 1e300;
        for (int i = 0; i < 3; i++) {
            double t = timed(f, reps, &n) * (double)n;
            if (t < fastest) fastest = t;
        }
        if (fastest >= g_target_ns || reps >= MAX_REPS) return reps;
        reps *= 2;
    }
}

/* The delay length of DELAY_NS, from the fastest of 50 delays of 20,000
 * iterations after 2 ms of warm-up (the core up to speed). */
static int g_len_calibrated(void)
{
    const int len = 20000;
    double best = 1e30, until = bench_now_ns() + 2e6;
    while (bench_now_ns() < until) delay(len);
    for (int k = 0; k < 50; k++) {
        double t0 = bench_now_ns();
        delay(len);
        double t = bench_now_ns() - t0;
        if (t < best) best = t;
    }
    int n = (int)(DELAY_NS / (best / len) + 0.5);
    return n < 1 ? 1 : n;
}

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv), runs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--runs=", 7)) runs = atoi(argv[i] + 7);
        else if (strcmp(argv[i], "--quick") && strncmp(argv[i], "--streams=", 10) && !bench_omp_arg(argv[i])) {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (runs < 1 || runs > 64) runs = quick ? 5 : 7;
    g_target_ns = quick ? 0.5e6 : 1e6;
    g_budget_ns = 500 * g_target_ns;
    omp_set_dynamic(0);
    g_n = omp_get_max_threads();
    int team = 0;
#pragma omp parallel
#pragma omp single
    team = omp_get_num_threads();
    BENCH_CHECK(team == g_n);
    omp_init_lock(&g_lock);
    g_len = g_len_calibrated();

    for (size_t c = 0; c < sizeof constructs / sizeof *constructs; c++) {
        const struct construct *k = &constructs[c];
        double ref[64], v[64];
        long rreps = calibrate(k->ref);
        for (int r = 0; r < runs; r++) ref[r] = timed(k->ref, rreps, NULL);
        qsort(ref, (size_t)runs, sizeof *ref, bench_cmp);
        double refns = runs % 2 ? ref[runs / 2] : (ref[runs / 2 - 1] + ref[runs / 2]) / 2;
        long reps = calibrate(k->test), execs = 0; /* calibrating warms the team up */
        int done = 0;
        for (double spent = 0; done < runs && spent < g_budget_ns; done++) {
            double per = timed(k->test, reps, &execs);
            v[done] = per - refns;
            spent += per * (double)execs;
        }
        char exp[64], extra[4600];
        snprintf(exp, sizeof exp, "epcc_%s", k->name);
        snprintf(extra, sizeof extra, "\"executions\": %ld, \"reference_ns\": %.2f, \"delay_iterations\": %d, %s",
                 execs, refns, g_len, bench_omp_lib_field());
        bench_point(exp, bench_omp_runtime, g_n, "ns", extra, v, done, 1);
    }
    omp_destroy_lock(&g_lock);
    return 0;
}
