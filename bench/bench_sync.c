/* Synchronisation and idle streams, weft against pthreads in the same
 * process:
 *   mutex_uncontended   lock+unlock by one ULT / one thread
 *   mutex_contended     ULTs on every stream (4 each) / as many OS threads
 *                       as streams, incrementing a shared counter under the
 *                       lock; time per increment
 *   eventual_pingpong   two ULTs (one stream; two streams) / two threads with
 *                       a mutex and condition variable; time per round trip
 *   barrier             one ULT per stream / one thread each; time per round
 *   wake_latency        a unit pushed to a sleeping stream: from the push to
 *                       its first instruction; 1000 wake-ups, 2 ms apart.
 *                       Peer: a thread asleep on a condition variable. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "bench_bind.h"
#include "bench_common.h"
#include "weft.h"
#include "bench_weft_bind.h"

static int g_runs, g_quick;

static weft_xstream stream(int rank)
{
    weft_xstream xs;
    BENCH_CHECK(weft_xstream_get(rank, &xs) == WEFT_OK);
    return xs;
}

/* Run fn(i) as a ULT on stream i % streams, for i < n, and join them all. */
static void run_ults(int n, int streams, void (*fn)(void *))
{
    weft_thread t[64];
    for (int i = 0; i < n; i++)
        BENCH_CHECK(weft_thread_create_to(stream(i % streams), fn, (void *)(intptr_t)i, NULL, &t[i]) == WEFT_OK);
    BENCH_CHECK(weft_thread_free_many(n, t) == WEFT_OK);
}

/* Run fn(i) on OS thread i, for i < n, and join them. Bound one per CPU
 * when the process has a CPU each, as weft's streams are (the same
 * placement for both sides of a comparison). */
static void run_threads(int n, void *(*fn)(void *))
{
    pthread_t t[64];
    for (int i = 0; i < n; i++) {
        pthread_attr_t attr;
        cpu_set_t one;
        pthread_attr_init(&attr);
        if (bench_worker_mask(i, n, &one)) pthread_attr_setaffinity_np(&attr, sizeof one, &one);
        BENCH_CHECK(pthread_create(&t[i], &attr, fn, (void *)(intptr_t)i) == 0);
        pthread_attr_destroy(&attr);
    }
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
}

/* ---------- mutexes ---------- */

#define UNC_OPS 1000000
static weft_mutex g_wm;
static pthread_mutex_t g_pm = PTHREAD_MUTEX_INITIALIZER;
static double g_ns;

static void weft_uncontended(void *arg)
{
    (void)arg;
    double t0 = bench_now_ns();
    for (int i = 0; i < UNC_OPS; i++) {
        weft_mutex_lock(g_wm);
        weft_mutex_unlock(g_wm);
    }
    g_ns = (bench_now_ns() - t0) / UNC_OPS;
}

static void *pthread_uncontended(void *arg)
{
    (void)arg;
    double t0 = bench_now_ns();
    for (int i = 0; i < UNC_OPS; i++) {
        pthread_mutex_lock(&g_pm);
        pthread_mutex_unlock(&g_pm);
    }
    g_ns = (bench_now_ns() - t0) / UNC_OPS;
    return NULL;
}

#define CONT_OPS 200000 /* increments in all, per run */
static long g_counter;
static int g_workers;

static weft_mutex g_cm; /* the mutex of the contended runs */

static void weft_contended(void *arg)
{
    (void)arg;
    for (int i = 0; i < CONT_OPS / g_workers; i++) {
        weft_mutex_lock(g_cm);
        g_counter++;
        weft_mutex_unlock(g_cm);
    }
}

static void *pthread_contended(void *arg)
{
    (void)arg;
    for (int i = 0; i < CONT_OPS / g_workers; i++) {
        pthread_mutex_lock(&g_pm);
        g_counter++;
        pthread_mutex_unlock(&g_pm);
    }
    return NULL;
}

/* ---------- eventual ping-pong ---------- */

#define PP_ROUNDS 20000
static weft_eventual g_ping, g_pong;

static void pinger(void *arg)
{
    (void)arg;
    for (int r = 0; r < PP_ROUNDS; r++) {
        weft_eventual_set(g_ping, NULL, 0);
        weft_eventual_wait(g_pong, NULL);
        weft_eventual_reset(g_pong);
    }
}

static void ponger(void *arg)
{
    (void)arg;
    for (int r = 0; r < PP_ROUNDS; r++) {
        weft_eventual_wait(g_ping, NULL);
        weft_eventual_reset(g_ping);
        weft_eventual_set(g_pong, NULL, 0);
    }
}

static void pingpong_ult(void *arg) { ((intptr_t)arg % 2 ? ponger : pinger)(NULL); }

static pthread_cond_t g_pc = PTHREAD_COND_INITIALIZER;
static int g_turn;

static void *pingpong_thread(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < PP_ROUNDS; r++) {
        pthread_mutex_lock(&g_pm);
        while (g_turn != me) pthread_cond_wait(&g_pc, &g_pm);
        g_turn = 1 - me;
        pthread_cond_signal(&g_pc);
        pthread_mutex_unlock(&g_pm);
    }
    return NULL;
}

/* ---------- barriers ---------- */

#define BAR_ROUNDS 20000
static weft_barrier g_wb;
static pthread_barrier_t g_pb;

static void barrier_ult(void *arg)
{
    (void)arg;
    for (int r = 0; r < BAR_ROUNDS; r++) weft_barrier_wait(g_wb);
}

static void *barrier_thread(void *arg)
{
    (void)arg;
    for (int r = 0; r < BAR_ROUNDS; r++) pthread_barrier_wait(&g_pb);
    return NULL;
}

/* ---------- wake-up latency ---------- */

static _Atomic double g_pushed_at;
static double g_lat[1000];
static int g_nlat;

static void wake_probe(void *arg)
{
    (void)arg;
    g_lat[g_nlat++] = bench_now_ns() - atomic_load(&g_pushed_at);
}

static void nap_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static pthread_cond_t g_wc = PTHREAD_COND_INITIALIZER;
static int g_wake_gen, g_stop;

static void *sleeper_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_pm);
    for (int seen = 0;;) {
        while (g_wake_gen == seen && !g_stop) pthread_cond_wait(&g_wc, &g_pm);
        if (g_stop) break;
        seen = g_wake_gen;
        g_lat[g_nlat++] = bench_now_ns() - atomic_load(&g_pushed_at);
    }
    pthread_mutex_unlock(&g_pm);
    return NULL;
}

/* ---------- driver ---------- */

#define MEASURE(v, ops, body) BENCH_MEASURE(v, g_runs, ops, body)

int main(int argc, char **argv)
{
    g_quick = bench_quick(argc, argv);
    g_runs = g_quick ? 5 : 15;
    int maxs = bench_streams(argc, argv);
    bench_cpus_init();

    weft_config cfg;
    BENCH_CHECK(weft_config_init(&cfg) == WEFT_OK);
    cfg.num_xstreams = maxs;
    bench_weft_bind(&cfg);
    BENCH_CHECK(weft_init(&cfg) == WEFT_OK);
    BENCH_CHECK(weft_mutex_create(NULL, &g_wm) == WEFT_OK);
    double v[64];

    /* Uncontended. */
    for (int r = -1; r < g_runs; r++) {
        run_ults(1, 1, weft_uncontended);
        if (r >= 0) v[r] = g_ns;
    }
    bench_report("mutex_uncontended", "weft-ult", 1, NULL, v, g_runs);
    for (int r = -1; r < g_runs; r++) {
        run_threads(1, pthread_uncontended);
        if (r >= 0) v[r] = g_ns;
    }
    bench_report("mutex_uncontended", "pthreads", 1, NULL, v, g_runs);

    /* Contended, 1..maxs streams / threads; then a fair mutex on all. */
    g_cm = g_wm;
    for (int s = 1; s <= maxs; s *= 2) {
        g_workers = 4 * s;
        MEASURE(v, CONT_OPS, (g_counter = 0, run_ults(g_workers, s, weft_contended)));
        BENCH_CHECK(g_counter == (long)(CONT_OPS / g_workers) * g_workers);
        bench_report("mutex_contended", "weft-ult", s, "\"label\": \"weft-ult (4 ULTs per stream)\"", v, g_runs);
        g_workers = s;
        MEASURE(v, CONT_OPS, (g_counter = 0, run_threads(g_workers, pthread_contended)));
        BENCH_CHECK(g_counter == (long)(CONT_OPS / g_workers) * g_workers);
        bench_report("mutex_contended", "pthreads", s, NULL, v, g_runs);
    }
    weft_mutex_attr fair = {.fair = 1};
    BENCH_CHECK(weft_mutex_create(&fair, &g_cm) == WEFT_OK);
    g_workers = 4 * maxs;
    MEASURE(v, CONT_OPS, (g_counter = 0, run_ults(g_workers, maxs, weft_contended)));
    BENCH_CHECK(g_counter == (long)(CONT_OPS / g_workers) * g_workers);
    bench_report("mutex_contended", "weft-ult", maxs, "\"label\": \"weft-ult (fair mutex, 4 ULTs per stream)\"", v,
                 g_runs);
    BENCH_CHECK(weft_mutex_free(&g_cm) == WEFT_OK);

    /* Eventual ping-pong: one stream, then two. */
    BENCH_CHECK(weft_eventual_create(0, &g_ping) == WEFT_OK);
    BENCH_CHECK(weft_eventual_create(0, &g_pong) == WEFT_OK);
    for (int s = 1; s <= 2; s++) {
        MEASURE(v, PP_ROUNDS, run_ults(2, s, pingpong_ult));
        bench_report("eventual_pingpong", "weft-ult", s, NULL, v, g_runs);
    }
    MEASURE(v, PP_ROUNDS, (g_turn = 0, run_threads(2, pingpong_thread)));
    bench_report("eventual_pingpong", "pthreads", 2, "\"label\": \"pthreads (mutex + cond)\"", v, g_runs);

    /* Barriers across streams. */
    for (int s = 2; s <= maxs; s *= 2) {
        BENCH_CHECK(weft_barrier_create(s, &g_wb) == WEFT_OK);
        MEASURE(v, BAR_ROUNDS, run_ults(s, s, barrier_ult));
        bench_report("barrier", "weft-ult", s, "\"label\": \"weft-ult (one per stream)\"", v, g_runs);
        BENCH_CHECK(weft_barrier_free(&g_wb) == WEFT_OK);
        BENCH_CHECK(pthread_barrier_init(&g_pb, NULL, (unsigned)s) == 0);
        MEASURE(v, BAR_ROUNDS, run_threads(s, barrier_thread));
        bench_report("barrier", "pthreads", s, NULL, v, g_runs);
        pthread_barrier_destroy(&g_pb);
    }

    /* Wake-up latency of a sleeping stream (hybrid policy: it sleeps after
     * its spin budget; 2 ms apart is well past it). */
    int n = g_quick ? 200 : 1000;
    weft_xstream x1 = stream(1);
    g_nlat = 0;
    for (int i = 0; i < n; i++) {
        nap_ms(2);
        weft_thread t;
        atomic_store(&g_pushed_at, bench_now_ns());
        BENCH_CHECK(weft_thread_create_to(x1, wake_probe, NULL, NULL, &t) == WEFT_OK);
        BENCH_CHECK(weft_thread_free(&t) == WEFT_OK);
    }
    BENCH_CHECK(g_nlat == n);
    bench_report("wake_latency", "weft-ult", 2, "\"label\": \"weft (hybrid: stream asleep)\"", g_lat, n);
    /* The peer: a thread asleep on a condition variable, pinned to the
     * CPU stream 1 is bound to (a cross-CPU wake-up, as for the stream),
     * then unpinned (the kernel may put it beside the waker). */
    int cpu = -1;
    BENCH_CHECK(weft_xstream_get_cpubind(x1, &cpu) == WEFT_OK);
    for (int pinned = cpu >= 0 ? 1 : 0; pinned >= 0; pinned--) {
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (pinned) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        }
        g_nlat = 0;
        g_stop = 0;
        g_wake_gen = 0;
        BENCH_CHECK(pthread_create(&th, &attr, sleeper_thread, NULL) == 0);
        pthread_attr_destroy(&attr);
        for (int i = 0; i < n; i++) {
            nap_ms(2);
            pthread_mutex_lock(&g_pm);
            atomic_store(&g_pushed_at, bench_now_ns());
            g_wake_gen++;
            pthread_cond_signal(&g_wc);
            pthread_mutex_unlock(&g_pm);
            for (;;) { /* until it has noted this one */
                pthread_mutex_lock(&g_pm);
                int done = g_nlat == i + 1;
                pthread_mutex_unlock(&g_pm);
                if (done) break;
                sched_yield();
            }
        }
        pthread_mutex_lock(&g_pm);
        g_stop = 1;
        pthread_cond_signal(&g_wc);
        pthread_mutex_unlock(&g_pm);
        pthread_join(th, NULL);
        bench_report("wake_latency", "pthreads", 2,
                     pinned ? "\"label\": \"pthreads (cond wait, on stream 1's CPU)\""
                            : "\"label\": \"pthreads (cond wait, unpinned)\"",
                     g_lat, n);
    }

    BENCH_CHECK(weft_eventual_free(&g_ping) == WEFT_OK);
    BENCH_CHECK(weft_eventual_free(&g_pong) == WEFT_OK);
    BENCH_CHECK(weft_mutex_free(&g_wm) == WEFT_OK);
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    return 0;
}
