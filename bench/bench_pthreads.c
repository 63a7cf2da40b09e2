/* Peer: OS threads. Create+join of 256 threads repeated, by one creator per
 * "stream" (1 or 2 creators at once), timed per thread. */
#include <pthread.h>
#include <stdatomic.h>

#include "bench_common.h"

#define UNITS 256

static int g_reps, g_runs, g_creators;
static atomic_int g_arrived;

struct __attribute__((aligned(64))) creator { long executed; double ns; };

static void *unit_body(void *arg)
{
    atomic_fetch_add((atomic_long *)arg, 1);
    return NULL;
}

static void *creator_main(void *arg)
{
    struct creator *c = arg;
    atomic_long executed = 0;
    pthread_t t[UNITS];
    atomic_fetch_add(&g_arrived, 1);
    while (atomic_load(&g_arrived) < g_creators) sched_yield();
    double t0 = bench_now_ns();
    for (int r = 0; r < g_reps; r++) {
        for (int i = 0; i < UNITS; i++) BENCH_CHECK(pthread_create(&t[i], NULL, unit_body, &executed) == 0);
        for (int i = 0; i < UNITS; i++) BENCH_CHECK(pthread_join(t[i], NULL) == 0);
    }
    c->ns = (bench_now_ns() - t0) / ((double)g_reps * UNITS);
    c->executed = atomic_load(&executed);
    return NULL;
}

static double run_once(int creators)
{
    pthread_t th[64];
    struct creator c[64];
    atomic_store(&g_arrived, 0);
    g_creators = creators;
    for (int i = 0; i < creators; i++) BENCH_CHECK(pthread_create(&th[i], NULL, creator_main, &c[i]) == 0);
    double sum = 0;
    for (int i = 0; i < creators; i++) {
        pthread_join(th[i], NULL);
        BENCH_CHECK(c[i].executed == (long)g_reps * UNITS);
        sum += c[i].ns;
    }
    return sum / creators;
}

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_reps = quick ? 4 : 20; /* an OS thread costs ~10 us: fewer repetitions */
    g_runs = quick ? 5 : 11;
    int maxs = 2;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--streams=", 10)) maxs = atoi(argv[i] + 10);
    for (int s = 1; s <= maxs; s *= 2) {
        double v[64];
        run_once(s);
        for (int r = 0; r < g_runs; r++) v[r] = run_once(s);
        bench_report("create_join", "pthreads", s, "", v, g_runs);
    }
    return 0;
}
