/* The runtime's start and end under pressure from other threads:
 * - weft_init() on another thread while weft_finalize() runs: the two
 *   serialise (no use of released state), the other thread's init
 *   succeeds only once the first runtime is gone;
 * - plain threads creating units while weft_finalize() runs: every unit
 *   accepted with WEFT_OK runs before finalize returns; the rest are
 *   refused (WEFT_ERR_STATE while it runs, WEFT_ERR_UNINIT after);
 * - units that no scheduler would ever run (in the pool of a freed stream,
 *   in pools never attached, in pools only a cycle of stacked schedulers
 *   would serve, taken out of a pool and never pushed back): finalize runs
 *   them instead of hanging, each once; but not a unit that a live unit
 *   holds and will give back.
 * Racy parts are repeated. A hang shows up as SIGALRM. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static _Atomic long g_ran;
static void count(void *arg) { (void)arg; atomic_fetch_add(&g_ran, 1); }

/* ---- init racing finalize ---- */

static _Atomic int g_second_up;

static void *second_runtime(void *arg)
{
    (void)arg;
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 2;
    int rc;
    while ((rc = weft_init(&cfg)) == WEFT_ERR_INIT) { }
    CHECK_OK(rc);
    atomic_store(&g_second_up, 1);
    weft_thread t;
    weft_xstream xs;
    CHECK_OK(weft_xstream_get(1, &xs));
    CHECK_OK(weft_thread_create_to(xs, count, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_finalize());
    return NULL;
}

static void init_vs_finalize(void)
{
    for (int r = 0; r < 40; r++) {
        start_weft(2);
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(1, &xs));
        for (int i = 0; i < 100; i++) CHECK_OK(weft_tasklet_create_to(xs, count, NULL, NULL));
        atomic_store(&g_second_up, 0);
        pthread_t th;
        pthread_create(&th, NULL, second_runtime, NULL);
        CHECK_OK(weft_finalize());
        pthread_join(th, NULL);
        CHECK(atomic_load(&g_second_up) == 1);
    }
}

/* ---- plain threads creating while finalize runs ---- */

static _Atomic long g_accepted;
static _Atomic int g_creator_ready;

static void *creator(void *arg)
{
    weft_pool pool = arg;
    atomic_store(&g_creator_ready, 1);
    for (;;) {
        int rc = weft_tasklet_create(pool, count, NULL, NULL);
        if (rc == WEFT_OK) atomic_fetch_add(&g_accepted, 1);
        else if (rc == WEFT_ERR_STATE || rc == WEFT_ERR_UNINIT) break;
        else CHECK_OK(rc);
    }
    return NULL;
}

static void create_during_finalize(void)
{
    for (int r = 0; r < 30; r++) {
        start_weft(2);
        weft_xstream xs;
        weft_pool pool;
        int n;
        CHECK_OK(weft_xstream_get(1, &xs));
        CHECK_OK(weft_xstream_get_pools(xs, 1, &pool, &n));
        atomic_store(&g_ran, 0);
        atomic_store(&g_accepted, 0);
        atomic_store(&g_creator_ready, 0);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, creator, pool);
        while (!atomic_load(&g_creator_ready)) { }
        usleep(200);
        CHECK_OK(weft_finalize());
        long ran = atomic_load(&g_ran); /* final: nothing runs after finalize */
        for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
        /* Counted once each creator has stopped (it counts after its call
         * returns). A unit accepted but lost, or accepted after finalize,
         * would make the two differ. */
        long accepted = atomic_load(&g_accepted);
        if (ran != accepted) {
            fprintf(stderr, "round %d: %ld units accepted, %ld ran\n", r, accepted, ran);
            exit(1);
        }
    }
}

/* ---- every adding call of a plain thread, during finalize ---- */

static _Atomic int g_phase; /* 1: finalize runs (told by a ULT), 2: the thread is done */
static weft_thread g_ended;
static weft_pool g_pool;
static int g_rcs[4];

static void *late_adder(void *arg)
{
    (void)arg;
    while (atomic_load(&g_phase) != 1) sched_yield();
    weft_xstream xs;
    g_rcs[0] = weft_xstream_create(NULL, &xs);
    g_rcs[1] = weft_thread_revive(g_pool, count, NULL, g_ended);
    g_rcs[2] = weft_thread_create(g_pool, count, NULL, NULL, NULL);
    g_rcs[3] = weft_tasklet_create(g_pool, count, NULL, NULL);
    atomic_store(&g_phase, 2);
    return NULL;
}

/* One stream: this ULT runs only once main yields inside weft_finalize(),
 * i.e. after it closed the runtime to plain threads. */
static void finalize_witness(void *arg)
{
    (void)arg;
    atomic_store(&g_phase, 1);
    while (atomic_load(&g_phase) != 2) weft_yield();
}

static void adders_refused_during_finalize(void)
{
    start_weft(1);
    g_pool = self_pool();
    CHECK_OK(weft_thread_create(g_pool, count, NULL, NULL, &g_ended));
    CHECK_OK(weft_thread_join(g_ended));
    atomic_store(&g_phase, 0);
    pthread_t th;
    pthread_create(&th, NULL, late_adder, NULL);
    CHECK_OK(weft_thread_create(g_pool, finalize_witness, NULL, NULL, NULL));
    CHECK_OK(weft_finalize());
    pthread_join(th, NULL);
    for (int i = 0; i < 4; i++) CHECK_RC(g_rcs[i], WEFT_ERR_STATE);
    weft_xstream xs;
    CHECK_RC(weft_xstream_create(NULL, &xs), WEFT_ERR_UNINIT); /* and after it */
    CHECK_RC(weft_tasklet_create(g_pool, count, NULL, NULL), WEFT_ERR_UNINIT);
}

/* ---- units no scheduler serves ---- */

static void orphans(void)
{
    start_weft(2);
    atomic_store(&g_ran, 0);
    /* The pool of a stream that was freed. */
    weft_xstream xs;
    weft_pool dead_pool;
    int n;
    CHECK_OK(weft_xstream_create(NULL, &xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &dead_pool, &n));
    CHECK_OK(weft_xstream_free(&xs));
    CHECK_OK(weft_thread_create(dead_pool, count, NULL, NULL, NULL));
    CHECK_OK(weft_tasklet_create(dead_pool, count, NULL, NULL));
    /* Pools no scheduler ever lists, of each access. */
    weft_pool lonely[4];
    weft_pool_access acc[4] = {WEFT_POOL_ACCESS_PRIVATE, WEFT_POOL_ACCESS_MPMC, WEFT_POOL_ACCESS_MPSC,
                               WEFT_POOL_ACCESS_SPMC};
    for (int i = 0; i < 4; i++) {
        CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, acc[i], &lonely[i]));
        CHECK_OK(weft_thread_create(lonely[i], count, NULL, NULL, NULL));
        CHECK_OK(weft_tasklet_create(lonely[i], count, NULL, NULL));
    }
    CHECK_OK(weft_finalize());
    CHECK(atomic_load(&g_ran) == 10);
    for (int i = 0; i < 4; i++) CHECK_OK(weft_pool_free(&lonely[i]));
}

/* Two schedulers each stacked on the other's pool, neither on a pool a
 * stream serves, and a third stacked on a pool only the cycle serves:
 * their pools are served by schedulers that never start. */
static void stacked_cycle(void)
{
    start_weft(2);
    atomic_store(&g_ran, 0);
    weft_pool p, q, r;
    weft_sched s1, s2, s3;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &q));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &r));
    CHECK_OK(weft_sched_create_basic(1, &p, &s1));
    CHECK_OK(weft_sched_create_basic(1, &q, &s2));
    CHECK_OK(weft_sched_create_basic(1, &r, &s3));
    weft_pool all[3] = {p, q, r};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(weft_thread_create(all[i], count, NULL, NULL, NULL));
        CHECK_OK(weft_tasklet_create(all[i], count, NULL, NULL));
    }
    CHECK_OK(weft_pool_add_sched(q, s1));
    CHECK_OK(weft_pool_add_sched(p, s2));
    CHECK_OK(weft_pool_add_sched(q, s3));
    CHECK_OK(weft_finalize());
    CHECK(atomic_load(&g_ran) == 6);
    CHECK_OK(weft_sched_free(&s1));
    CHECK_OK(weft_sched_free(&s2));
    CHECK_OK(weft_sched_free(&s3));
    for (int i = 0; i < 3; i++) CHECK_OK(weft_pool_free(&all[i]));

    /* A stacked scheduler whose unit the main ULT took out of the pool it
     * was stacked on and keeps: no running scheduler will start it, so
     * finalize runs its pool's units on the primary, then (all that is
     * left) the held unit itself. */
    start_weft(2);
    atomic_store(&g_ran, 0);
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &q));
    CHECK_OK(weft_sched_create_basic(1, &p, &s1));
    CHECK_OK(weft_pool_add_sched(q, s1));
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_create(p, count, NULL, NULL, NULL));
    weft_thread held;
    CHECK_OK(weft_pool_pop(q, &held));
    CHECK(held != WEFT_THREAD_NULL);
    CHECK_OK(weft_finalize());
    CHECK(atomic_load(&g_ran) == 4);
    CHECK_OK(weft_sched_free(&s1));
    CHECK_OK(weft_pool_free(&p));
    CHECK_OK(weft_pool_free(&q));
}

/* Units taken out with weft_pool_pop() and its kin and never given back:
 * finalize runs them, once, when nothing else is left. A unit held by a
 * unit that is still alive is left to it, however long it keeps it. */
static _Atomic int g_holder_rc = -1;
static weft_pool g_hold_pool;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void holder(void *arg)
{
    (void)arg;
    weft_thread u;
    CHECK_OK(weft_pool_pop(g_hold_pool, &u));
    CHECK(u != WEFT_THREAD_NULL);
    atomic_store(&g_holder_rc, -2); /* holding: finalize may begin */
    /* Hold it for 300 ms (finalize's wait for held units is 100 ms),
     * yielding: the stream is not stuck. */
    for (uint64_t end = now_ns() + 300000000u; now_ns() < end;) CHECK_OK(weft_yield());
    CHECK(atomic_load(&g_ran) == 0);
    atomic_store(&g_holder_rc, weft_pool_push(g_hold_pool, u));
}

static void held_units(void)
{
    start_weft(2);
    atomic_store(&g_ran, 0);
    weft_pool lonely;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &lonely));
    for (int i = 0; i < 3; i++) CHECK_OK(weft_thread_create(lonely, count, NULL, NULL, NULL));
    for (int i = 0; i < 3; i++) CHECK_OK(weft_tasklet_create(lonely, count, NULL, NULL));
    weft_thread one, many[3];
    int n;
    CHECK_OK(weft_pool_pop(lonely, &one));
    CHECK(one != WEFT_THREAD_NULL);
    CHECK_OK(weft_pool_pop_many(lonely, 3, many, &n));
    CHECK(n == 3);
    CHECK_OK(weft_pool_pop_wait(lonely, 0, &one));
    CHECK(one != WEFT_THREAD_NULL);
    CHECK_OK(weft_finalize()); /* the last one is still in the pool: an orphan */
    CHECK(atomic_load(&g_ran) == 6);
    CHECK_OK(weft_pool_free(&lonely));

    /* A holder on another stream, alive while finalize waits. */
    start_weft(2);
    atomic_store(&g_ran, 0);
    atomic_store(&g_holder_rc, -1);
    weft_xstream xs;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_hold_pool));
    CHECK_OK(weft_thread_create(g_hold_pool, count, NULL, NULL, NULL));
    CHECK_OK(weft_xstream_get(1, &xs));
    CHECK_OK(weft_thread_create_to(xs, holder, NULL, NULL, NULL));
    while (atomic_load(&g_holder_rc) == -1) CHECK_OK(weft_yield());
    CHECK_OK(weft_finalize());
    CHECK_OK(atomic_load(&g_holder_rc));
    CHECK(atomic_load(&g_ran) == 1);
    CHECK_OK(weft_pool_free(&g_hold_pool));
}

int main(void)
{
    alarm(240);
    orphans();
    stacked_cycle();
    held_units();
    adders_refused_during_finalize();
    create_during_finalize();
    init_vs_finalize();
    printf("lifecycle: ok\n");
    return 0;
}
