#define _GNU_SOURCE
/* Schedulers: the priority and basic (round-robin) policies, a user-defined
 * scheduler as a stream's main scheduler and as the primary's replacement,
 * and the errors of the scheduler calls. Stacking is in test_stacked_sched.c. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"

/* ---------- order of the built-in policies ---------- */

#define PER_POOL 50
static int g_order[3 * PER_POOL];
static int g_norder;

static void record(void *arg) { g_order[g_norder++] = (int)(intptr_t)arg; }

/* Fill `npools` new private pools with PER_POOL tasklets each (pool i's
 * record i), then start a stream with the scheduler `make` builds over them
 * and wait until all ran. */
static void run_policy(int (*make)(int, const weft_pool *, weft_sched *), int npools)
{
    weft_pool pools[3];
    weft_thread units[3 * PER_POOL];
    for (int i = 0; i < npools; i++) CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &pools[i]));
    /* Unowned private pools: filled from one thread before the stream runs. */
    for (int k = 0; k < PER_POOL; k++)
        for (int i = npools - 1; i >= 0; i--)
            CHECK_OK(weft_tasklet_create(pools[i], record, (void *)(intptr_t)i, &units[k * npools + i]));
    weft_sched s;
    CHECK_OK(make(npools, pools, &s));
    g_norder = 0;
    weft_xstream xs;
    CHECK_OK(weft_xstream_create(s, &xs));
    CHECK_OK(weft_thread_free_many(npools * PER_POOL, units));
    CHECK_OK(weft_xstream_free(&xs));
    CHECK(g_norder == npools * PER_POOL);
    CHECK_OK(weft_sched_free(&s));
    for (int i = 0; i < npools; i++) CHECK_OK(weft_pool_free(&pools[i]));
}

static void test_policies(void)
{
    /* Priority: every unit of pool 0 before any of pool 1, and so on. */
    run_policy(weft_sched_create_prio, 3);
    for (int k = 0; k < 3 * PER_POOL; k++) CHECK(g_order[k] == k / PER_POOL);
    /* Basic: the pools take turns. */
    run_policy(weft_sched_create_basic, 3);
    for (int k = 0; k < 3 * PER_POOL; k++) CHECK(g_order[k] == k % 3);
}

/* ---------- a user-defined scheduler ---------- */

/* Serves its last pool first (the migration pool), counts what it ran from
 * each pool, checks the has_to_stop answer on every round. */
struct usched {
    int inits, frees, stops;
    long ran[4];
    int bad_rc;
};

static int us_init(weft_sched s)
{
    struct usched *d;
    CHECK_OK(weft_sched_get_data(s, (void **)&d));
    d->inits++;
    return WEFT_OK;
}

static void us_free(weft_sched s)
{
    struct usched *d;
    CHECK_OK(weft_sched_get_data(s, (void **)&d));
    d->frees++;
}

static weft_pool us_migration_pool(weft_sched s)
{
    weft_pool p[4];
    int n;
    CHECK_OK(weft_sched_get_pools(s, 4, p, &n));
    return p[n - 1];
}

static void us_run(weft_sched s)
{
    struct usched *d;
    weft_pool pools[4];
    int n;
    CHECK_OK(weft_sched_get_data(s, (void **)&d));
    CHECK_OK(weft_sched_get_pools(s, 4, pools, &n));
    for (unsigned round = 0;; round++) {
        int stop;
        CHECK_OK(weft_sched_has_to_stop(s, &stop));
        if (stop) {
            d->stops++;
            return;
        }
        int found = 0;
        for (int i = n - 1; i >= 0 && !found; i--) {
            weft_thread u;
            CHECK_OK(weft_pool_pop(pools[i], &u));
            if (u) {
                d->ran[i]++;
                CHECK_OK(weft_sched_run_unit(s, u, pools[i]));
                found = 1;
            }
        }
        /* What its context may not do. */
        if (round == 0) {
            weft_thread none = NULL;
            if (weft_yield() != WEFT_OK) d->bad_rc = 1;
            if (weft_thread_create_first(record, NULL, NULL, &none) != WEFT_ERR_SCHED_BLOCKS) d->bad_rc = 2;
        }
        if (round % 16 == 0) CHECK_OK(weft_sched_check_events(s));
        if (!found) sched_yield();
    }
}

static const weft_sched_ops us_ops = {
    .init = us_init, .run = us_run, .free = us_free, .get_migration_pool = us_migration_pool};

static _Atomic long g_done, g_ticks;

static void tick(void *arg)
{
    (void)arg;
    g_ticks++;
}

static void leaf(void *arg)
{
    (void)arg;
    weft_yield();
    g_done++;
}

/* A ULT that creates children in its own pool, yields, and joins them. */
static void parent(void *arg)
{
    (void)arg;
    weft_thread kids[8];
    weft_pool p = self_pool();
    for (int i = 0; i < 8; i++) CHECK_OK(weft_thread_create(p, leaf, NULL, NULL, &kids[i]));
    weft_yield();
    CHECK_OK(weft_thread_free_many(8, kids));
    g_done++;
}

/* On a stream whose main scheduler is user-defined, the _here calls put
 * the unit in the pool its migration callback names. */
static weft_pool g_here_pool;
static void nothing(void *arg) { (void)arg; }
static void here_maker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        size_t before, after;
        weft_thread u;
        CHECK_OK(weft_pool_size(g_here_pool, &before));
        if (i) CHECK_OK(weft_thread_create_here(nothing, NULL, NULL, &u));
        else CHECK_OK(weft_tasklet_create_here(nothing, NULL, &u));
        CHECK_OK(weft_pool_size(g_here_pool, &after));
        CHECK(after == before + 1);
        CHECK_OK(weft_thread_free(&u));
    }
}

static void test_user_stream(void)
{
    struct usched d;
    memset(&d, 0, sizeof d);
    weft_pool pools[2];
    for (int i = 0; i < 2; i++) CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &pools[i]));
    weft_sched s;
    CHECK_OK(weft_sched_create(&us_ops, 2, pools, &d, &s));
    CHECK(d.inits == 1);
    weft_xstream xs;
    CHECK_OK(weft_xstream_create(s, &xs));
    weft_pool mine[2];
    int n;
    CHECK_OK(weft_xstream_get_pools(xs, 2, mine, &n));
    CHECK(n == 2 && mine[0] == pools[0] && mine[1] == pools[1]);

    /* create_to goes to the migration pool; the first pool gets some too. */
    g_done = 0;
    weft_thread units[200];
    for (int i = 0; i < 100; i++) CHECK_OK(weft_thread_create_to(xs, parent, NULL, NULL, &units[i]));
    for (int i = 100; i < 200; i++) CHECK_OK(weft_tasklet_create(pools[0], tick, NULL, &units[i]));
    CHECK_OK(weft_thread_free_many(200, units));
    g_here_pool = pools[1];
    CHECK_OK(weft_thread_create(pools[0], here_maker, NULL, NULL, &units[0]));
    CHECK_OK(weft_thread_free(&units[0]));
    CHECK_OK(weft_xstream_free(&xs));
    CHECK(g_done == 100 * 9 && g_ticks == 100);
    /* Parents (create_to: the migration pool) run at least once each from
     * pools[1]; tasklets and the children (self_pool: pools[0]) from pools[0]. */
    CHECK(d.ran[1] >= 100 && d.ran[0] >= 100 + 100 * 8);
    CHECK(d.stops == 1 && d.bad_rc == 0);
    CHECK_RC(weft_sched_run_unit(s, units[0], pools[0]), WEFT_ERR_CROSS_STREAM);
    CHECK_OK(weft_sched_free(&s));
    CHECK(d.frees == 1);
    for (int i = 0; i < 2; i++) CHECK_OK(weft_pool_free(&pools[i]));
}

static weft_sched g_back; /* the primary's scheduler until weft_finalize() */

/* The primary's scheduler replaced by a user-defined one and back, from
 * the main ULT, with work that blocks and yields in between. */
static void test_user_primary(void)
{
    struct usched d;
    memset(&d, 0, sizeof d);
    weft_xstream prim;
    CHECK_OK(weft_xstream_self(&prim));
    weft_pool pools[2];
    pools[0] = self_pool();
    CHECK_OK(weft_pool_create(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, &pools[1]));
    weft_sched s;
    CHECK_OK(weft_sched_create(&us_ops, 2, pools, &d, &s));
    weft_sched orig = NULL, now = NULL;
    CHECK_OK(weft_xstream_get_main_sched(prim, &orig));
    CHECK(orig != NULL);
    CHECK_RC(weft_xstream_get_main_sched(prim, NULL), WEFT_ERR_INVALID);
    CHECK_RC(weft_xstream_get_main_sched(NULL, &now), WEFT_ERR_HANDLE);
    CHECK_OK(weft_xstream_set_main_sched(prim, s));
    CHECK_OK(weft_xstream_get_main_sched(prim, &now));
    CHECK(now == s);
    g_done = 0;
    weft_thread units[50];
    for (int i = 0; i < 50; i++) CHECK_OK(weft_thread_create(pools[1], parent, NULL, NULL, &units[i]));
    CHECK_OK(weft_yield());
    CHECK_OK(weft_thread_free_many(50, units));
    CHECK(g_done == 50 * 9);
    CHECK(d.ran[1] > 0 && d.ran[0] > 0); /* the main ULT went through pools[0] */
    /* In use: neither freed nor made another stream's or stacked. */
    CHECK_RC(weft_sched_free(&s), WEFT_ERR_BUSY);
    CHECK_RC(weft_pool_add_sched(pools[1], s), WEFT_ERR_BUSY);

    CHECK_OK(weft_sched_create_basic(1, &pools[0], &g_back));
    CHECK_OK(weft_xstream_set_main_sched(prim, g_back));
    CHECK_OK(weft_xstream_get_main_sched(prim, &now));
    CHECK(now == g_back);
    /* The user scheduler's loop has returned: it can go at once. */
    CHECK(d.stops == 1);
    CHECK_OK(weft_sched_free(&s));
    CHECK(d.frees == 1 && d.bad_rc == 0);
    CHECK_OK(weft_pool_free(&pools[1]));
}

static int fail_init(weft_sched s)
{
    (void)s;
    return WEFT_ERR_NOMEM;
}

/* Its own scheduler cannot be freed, started or stacked from init. */
static int g_init_rcs[3];
static int meddling_init(weft_sched s)
{
    weft_sched copy = s;
    weft_xstream x;
    weft_pool p;
    int n;
    g_init_rcs[0] = weft_sched_free(&copy);
    g_init_rcs[1] = weft_xstream_create(s, &x);
    CHECK_OK(weft_sched_get_pools(s, 1, &p, &n));
    weft_pool other;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &other));
    g_init_rcs[2] = weft_pool_add_sched(other, s);
    CHECK_OK(weft_pool_free(&other));
    return WEFT_OK;
}

static void try_join(void *arg)
{
    (void)arg;
}

static void test_errors(void)
{
    weft_pool p, q;
    weft_sched s;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &q));
    weft_sched_ops bad = {0};
    CHECK_RC(weft_sched_create(&bad, 1, &p, NULL, &s), WEFT_ERR_INVALID);
    CHECK(s == NULL);
    CHECK_RC(weft_sched_create(NULL, 1, &p, NULL, &s), WEFT_ERR_INVALID);
    bad.run = us_run;
    CHECK_RC(weft_sched_create(&bad, 0, &p, NULL, &s), WEFT_ERR_INVALID);
    bad.init = fail_init;
    CHECK_RC(weft_sched_create(&bad, 1, &p, NULL, &s), WEFT_ERR_NOMEM);
    bad.init = meddling_init;
    CHECK_OK(weft_sched_create(&bad, 1, &p, NULL, &s));
    for (int i = 0; i < 3; i++) CHECK(g_init_rcs[i] == WEFT_ERR_BUSY);
    CHECK_OK(weft_sched_free(&s));
    CHECK_RC(weft_sched_create_prio(1, NULL, &s), WEFT_ERR_INVALID);
    weft_pool twice[2] = {p, p};
    CHECK_RC(weft_sched_create_prio(2, twice, &s), WEFT_ERR_INVALID);

    CHECK_OK(weft_sched_create_prio(1, &p, &s));
    void *data = &data;
    CHECK_OK(weft_sched_get_data(s, &data));
    CHECK(data == NULL);
    int stop;
    /* Only the scheduler's own context may call these. */
    CHECK_RC(weft_sched_has_to_stop(s, &stop), WEFT_ERR_CROSS_STREAM);
    CHECK_RC(weft_sched_check_events(s), WEFT_ERR_CROSS_STREAM);
    weft_thread t;
    CHECK_OK(weft_thread_create(q, try_join, NULL, NULL, &t));
    CHECK_RC(weft_sched_run_unit(s, t, q), WEFT_ERR_CROSS_STREAM);
    CHECK_RC(weft_sched_set_automatic(s, 2), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_add_sched(p, s), WEFT_ERR_INVALID); /* onto its own pool */
    CHECK_RC(weft_pool_add_sched(NULL, s), WEFT_ERR_HANDLE);
    weft_sched dead = s;
    CHECK_OK(weft_sched_free(&s));
    CHECK_RC(weft_sched_free(&dead), WEFT_ERR_HANDLE);
    CHECK_RC(weft_sched_finish(dead), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pool_add_sched(q, dead), WEFT_ERR_HANDLE);
    CHECK_OK(weft_thread_migrate(t, self_pool()));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_pool_free(&p));
    CHECK_OK(weft_pool_free(&q));
}

/* A stream may drop a shared pool that holds a blocked unit when another
 * stream's scheduler serves that pool too: the unit runs there once woken.
 * A pool only the old scheduler serves keeps the replacement refused. */
static weft_eventual g_shared_ev;
static weft_pool g_shared_p;
static weft_xstream g_x1;

static void shared_waiter(void *arg)
{
    CHECK_OK(weft_eventual_wait(g_shared_ev, NULL));
    CHECK_OK(weft_xstream_self((weft_xstream *)arg));
}

static int g_drop_rc;

static void install_on_x1(void *arg) { CHECK_OK(weft_xstream_set_main_sched(g_x1, *(weft_sched *)arg)); }

static void try_drop(void *arg) { g_drop_rc = weft_xstream_set_main_sched(g_x1, *(weft_sched *)arg); }

static void test_shared_left(void)
{
    start_weft(2);
    weft_xstream x0, ran_on = NULL;
    weft_pool own[2];
    int n;
    CHECK_OK(weft_xstream_get(0, &x0));
    CHECK_OK(weft_xstream_get(1, &g_x1));
    CHECK_OK(weft_xstream_get_pools(x0, 1, &own[0], &n));
    CHECK_OK(weft_xstream_get_pools(g_x1, 1, &own[1], &n));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_shared_p));
    CHECK_OK(weft_eventual_create(0, &g_shared_ev));
    weft_sched s0, s1[2];
    weft_pool p0[2] = {own[0], g_shared_p}, p1[2] = {own[1], g_shared_p};
    CHECK_OK(weft_sched_create_basic(2, p0, &s0));
    CHECK_OK(weft_sched_create_basic(2, p1, &s1[0]));
    CHECK_OK(weft_sched_create_basic(1, &own[1], &s1[1]));
    weft_thread t, w;
    CHECK_OK(weft_thread_create_to(g_x1, install_on_x1, &s1[0], NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    /* A waiter homed in the shared pool blocks. */
    CHECK_OK(weft_thread_create(g_shared_p, shared_waiter, &ran_on, NULL, &w));
    for (int state = WEFT_STATE_READY; state != WEFT_STATE_BLOCKED;) {
        CHECK_OK(weft_yield());
        CHECK_OK(weft_thread_get_state(w, (weft_thread_state *)&state));
    }
    /* Only stream 1 serves the shared pool: it may not leave it. */
    CHECK_OK(weft_thread_create_to(g_x1, try_drop, &s1[1], NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_drop_rc == WEFT_ERR_BUSY);
    /* Stream 0 serves it too: now it may. */
    CHECK_OK(weft_xstream_set_main_sched(x0, s0));
    CHECK_OK(weft_thread_create_to(g_x1, try_drop, &s1[1], NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_drop_rc == WEFT_OK);
    CHECK_OK(weft_eventual_set(g_shared_ev, NULL, 0));
    CHECK_OK(weft_thread_free(&w));
    CHECK(ran_on == x0); /* the only stream that serves its pool now */
    CHECK_OK(weft_finalize());
    CHECK_OK(weft_eventual_free(&g_shared_ev));
    CHECK_OK(weft_sched_free(&s0));
    CHECK_OK(weft_sched_free(&s1[0]));
    CHECK_OK(weft_sched_free(&s1[1]));
    CHECK_OK(weft_pool_free(&g_shared_p));
    printf("sched: shared pool left with a blocked unit ok\n");
}

/* ---------- a user scheduler that goes on after being told to stop ---------- */

/* weft_sched_has_to_stop said stop: the stream has closed its inbox, and
 * units created into its pools from now on wait there for the next
 * scheduler. A run function that does not return at once may still call
 * the scheduler calls and pop and run units; it must neither crash nor
 * race the threads that push into its pools meanwhile. */
#define LINGER_MAKERS 2
#define LINGER_PER 4000
static _Atomic long g_linger_ran;
static _Atomic int g_linger_stopped;
static int g_linger_bad;

static void linger_tick(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_linger_ran, 1);
}

static void linger_run(weft_sched s)
{
    weft_pool pool;
    int n, stop = 0;
    CHECK_OK(weft_sched_get_pools(s, 1, &pool, &n));
    for (;;) {
        CHECK_OK(weft_sched_has_to_stop(s, &stop));
        if (stop) break;
        weft_thread u;
        CHECK_OK(weft_pool_pop(pool, &u));
        if (u) CHECK_OK(weft_sched_run_unit(s, u, pool));
        else CHECK_OK(weft_sched_idle(s));
    }
    atomic_store(&g_linger_stopped, 1);
    /* Told to stop: keep going a while, as a careless scheduler would. */
    for (int round = 0; round < 3000; round++) {
        int again = 0;
        if (weft_sched_has_to_stop(s, &again) != WEFT_OK || !again) g_linger_bad = 1;
        if (weft_sched_check_events(s) != WEFT_OK) g_linger_bad = 2;
        weft_thread u = NULL;
        if (weft_pool_pop(pool, &u) != WEFT_OK) g_linger_bad = 3;
        if (u && weft_sched_run_unit(s, u, pool) != WEFT_OK) g_linger_bad = 4;
        if (round % 500 == 0 && weft_sched_idle(s) != WEFT_OK) g_linger_bad = 5;
    }
}

static const weft_sched_ops linger_ops = {.run = linger_run};

static weft_pool g_linger_pool;
static weft_thread g_linger_units[LINGER_MAKERS][LINGER_PER];

static void *linger_maker(void *arg)
{
    weft_thread *mine = g_linger_units[(intptr_t)arg];
    for (int i = 0; i < LINGER_PER; i++) {
        CHECK_OK(weft_tasklet_create(g_linger_pool, linger_tick, NULL, &mine[i]));
        if (i == LINGER_PER / 4)
            while (!atomic_load(&g_linger_stopped)) sched_yield(); /* the rest after the stop */
    }
    return NULL;
}

static void test_user_linger(void)
{
    for (int rep = 0; rep < 4; rep++) {
        atomic_store(&g_linger_ran, 0);
        atomic_store(&g_linger_stopped, 0);
        g_linger_bad = 0;
        CHECK_OK(weft_pool_create(rep & 1 ? WEFT_POOL_LIFO : WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE,
                                  &g_linger_pool));
        weft_sched s;
        CHECK_OK(weft_sched_create(&linger_ops, 1, &g_linger_pool, NULL, &s));
        weft_xstream xs;
        CHECK_OK(weft_xstream_create(s, &xs));
        pthread_t t[LINGER_MAKERS];
        for (intptr_t i = 0; i < LINGER_MAKERS; i++) CHECK(pthread_create(&t[i], NULL, linger_maker, (void *)i) == 0);
        /* Ask the stream to end while the makers push: it stops once its
         * pool is empty for a moment. */
        while (atomic_load(&g_linger_ran) < LINGER_PER / 8) sched_yield();
        CHECK_OK(weft_xstream_free(&xs));
        for (int i = 0; i < LINGER_MAKERS; i++) CHECK(pthread_join(t[i], NULL) == 0);
        CHECK(g_linger_bad == 0);
        /* What it left, a built-in scheduler on a new stream runs. */
        weft_sched basic;
        CHECK_OK(weft_sched_create_basic(1, &g_linger_pool, &basic));
        CHECK_OK(weft_xstream_create(basic, &xs));
        for (int i = 0; i < LINGER_MAKERS; i++) CHECK_OK(weft_thread_free_many(LINGER_PER, g_linger_units[i]));
        CHECK(atomic_load(&g_linger_ran) == LINGER_MAKERS * LINGER_PER);
        CHECK_OK(weft_xstream_free(&xs));
        CHECK_OK(weft_sched_free(&basic));
        CHECK_OK(weft_sched_free(&s));
        CHECK_OK(weft_pool_free(&g_linger_pool));
    }
    printf("sched: a user scheduler that goes on after the stop ok\n");
}

/* ---------- a pool that a running unit would go back into ---------- */

/* weft_sched_run_unit makes `pool` the unit's pool, a pool no scheduler
 * lists here: freeing it while the unit runs is refused (its next yield
 * would go into it), and allowed once the unit has ended. */
static weft_pool g_foreign;
static _Atomic int g_fg_state; /* 1: the unit runs; 2: it may end */

static void foreign_run(weft_sched s)
{
    weft_pool pool;
    int n, stop;
    CHECK_OK(weft_sched_get_pools(s, 1, &pool, &n));
    for (;;) {
        CHECK_OK(weft_sched_has_to_stop(s, &stop));
        if (stop) return;
        weft_thread u;
        CHECK_OK(weft_pool_pop(pool, &u));
        if (u) CHECK_OK(weft_sched_run_unit(s, u, g_foreign));
        else CHECK_OK(weft_sched_idle(s));
    }
}

static void foreign_unit(void *arg)
{
    (void)arg;
    atomic_store(&g_fg_state, 1);
    while (atomic_load(&g_fg_state) != 2) { }
}

static void test_pool_of_running(void)
{
    static const weft_sched_ops ops = {.run = foreign_run};
    weft_pool p;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_foreign));
    weft_sched s;
    CHECK_OK(weft_sched_create(&ops, 1, &p, NULL, &s));
    weft_xstream xs;
    CHECK_OK(weft_xstream_create(s, &xs));
    weft_thread u;
    atomic_store(&g_fg_state, 0);
    CHECK_OK(weft_thread_create(p, foreign_unit, NULL, NULL, &u));
    while (atomic_load(&g_fg_state) != 1) weft_yield();
    weft_pool copy = g_foreign;
    CHECK_RC(weft_pool_free(&copy), WEFT_ERR_BUSY);
    CHECK(copy == g_foreign);
    atomic_store(&g_fg_state, 2);
    CHECK_OK(weft_thread_free(&u));
    CHECK_OK(weft_pool_free(&g_foreign));
    CHECK_OK(weft_xstream_free(&xs));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&p));
    printf("sched: the pool of a running unit is not freed ok\n");
}

int main(void)
{
    start_weft(1);
    test_policies();
    test_user_stream();
    test_user_primary();
    test_errors();
    test_user_linger();
    test_pool_of_running();
    CHECK_OK(weft_finalize());
    CHECK_OK(weft_sched_free(&g_back)); /* a user's scheduler outlives the runtime */
    test_shared_left();
    return 0;
}
