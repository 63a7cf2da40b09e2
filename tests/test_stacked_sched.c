#define _GNU_SOURCE
/* Stacked schedulers: three levels deep (basic, priority, user-defined) on a
 * secondary stream; a busy stacked scheduler still gives the one below its
 * turns; one stacked on the primary while the main ULT waits; errors. */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <string.h>

#include "check.h"

static weft_xstream g_x;
static _Atomic int g_wrong_stream, g_ran[4], g_bad;

/* A unit of level `lvl`: checks its stream, yields once (a ULT). */
static void unit_at(void *arg)
{
    int lvl = (int)(intptr_t)arg;
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    if (xs != g_x) g_wrong_stream++;
    weft_thread self;
    int tasklet;
    CHECK_OK(weft_self(&self));
    CHECK_OK(weft_thread_is_tasklet(self, &tasklet));
    if (!tasklet) weft_yield();
    g_ran[lvl]++;
}

/* Level 3: a user-defined scheduler, LIFO over its one pool. */
static _Atomic int g_top_runs;

static void top_run(weft_sched s)
{
    g_top_runs++;
    weft_pool p;
    int n;
    CHECK_OK(weft_sched_get_pools(s, 1, &p, &n));
    for (;;) {
        int stop;
        CHECK_OK(weft_sched_has_to_stop(s, &stop));
        if (stop) return;
        weft_thread u;
        CHECK_OK(weft_pool_pop(p, &u));
        if (u) CHECK_OK(weft_sched_run_unit(s, u, p));
        else CHECK_OK(weft_sched_check_events(s)); /* idle: the one below gets a turn */
    }
}

/* A ULT of level 3 tries what must fail while schedulers are stacked. */
static void replace_attempt(void *arg)
{
    weft_sched other = arg;
    if (weft_xstream_set_main_sched(g_x, other) != WEFT_ERR_STATE) g_bad = 1;
    g_ran[3]++;
}

#define N 40

static void test_three_levels(void)
{
    weft_pool p0, pa, pb[2], pc;
    weft_sched main_s, a, b, c, spare;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p0));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &pa));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &pb[0]));
    CHECK_OK(weft_pool_create(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, &pb[1]));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &pc));
    CHECK_OK(weft_sched_create_basic(1, &p0, &main_s));
    CHECK_OK(weft_sched_create_basic(1, &pa, &a));
    CHECK_OK(weft_sched_create_prio(2, pb, &b));
    weft_sched_ops ops = {.run = top_run};
    CHECK_OK(weft_sched_create(&ops, 1, &pc, NULL, &c));
    CHECK_OK(weft_sched_create_basic(1, &pc, &spare));

    /* Work at every level, then the schedulers from the top down; level 0
     * last, once the stream exists (its private pool is then owned). */
    weft_thread units[5 * N + 1];
    int k = 0;
    for (int i = 0; i < N; i++) {
        CHECK_OK(weft_thread_create(pc, unit_at, (void *)3, NULL, &units[k++]));
        CHECK_OK(weft_tasklet_create(pc, unit_at, (void *)3, &units[k++]));
        CHECK_OK(weft_thread_create(pb[1], unit_at, (void *)2, NULL, &units[k++]));
        CHECK_OK(weft_thread_create(pa, unit_at, (void *)1, NULL, &units[k++]));
    }
    CHECK_OK(weft_thread_create(pc, replace_attempt, spare, NULL, &units[k++]));
    CHECK_OK(weft_pool_add_sched(pb[0], c));
    CHECK_OK(weft_pool_add_sched(pa, b));
    CHECK_RC(weft_pool_add_sched(pa, b), WEFT_ERR_BUSY);
    CHECK_RC(weft_sched_free(&b), WEFT_ERR_BUSY);
    CHECK_OK(weft_xstream_create(main_s, &g_x));
    for (int i = 0; i < N; i++) CHECK_OK(weft_thread_create(p0, unit_at, (void *)0, NULL, &units[k++]));
    CHECK_OK(weft_pool_add_sched(p0, a));

    CHECK_OK(weft_thread_free_many(k, units));
    CHECK(g_ran[0] == N && g_ran[1] == N && g_ran[2] == N && g_ran[3] == 2 * N + 1);
    CHECK(g_wrong_stream == 0 && g_bad == 0 && g_top_runs >= 1);
    /* Automatic: each ends once it has nothing left; then it may go. */
    weft_sched all[3] = {c, b, a};
    for (int i = 0; i < 3; i++) {
        int rc;
        while ((rc = weft_sched_free(&all[i])) == WEFT_ERR_BUSY) weft_yield();
        CHECK_OK(rc);
    }
    CHECK_OK(weft_xstream_free(&g_x));
    CHECK_OK(weft_sched_free(&main_s));
    CHECK_OK(weft_sched_free(&spare));
    weft_pool pools[5] = {p0, pa, pb[0], pb[1], pc};
    for (int i = 0; i < 5; i++) CHECK_OK(weft_pool_free(&pools[i]));
}

/* A stacked scheduler that always has work (a ULT yielding until a flag
 * is set) must still let the scheduler below run the unit that sets it. */
static _Atomic int g_flag;

static void spinner(void *arg)
{
    (void)arg;
    while (!g_flag) weft_yield();
}

static void setter(void *arg)
{
    (void)arg;
    g_flag = 1;
}

static void test_turns(void)
{
    weft_pool ps;
    weft_sched s;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &ps));
    CHECK_OK(weft_sched_create_basic(1, &ps, &s));
    CHECK_OK(weft_sched_set_automatic(s, 0));
    weft_thread t[3];
    CHECK_OK(weft_thread_create(ps, spinner, NULL, NULL, &t[0]));
    CHECK_OK(weft_thread_create(ps, spinner, NULL, NULL, &t[1]));
    weft_xstream x;
    weft_pool main_pool;
    int n;
    CHECK_OK(weft_xstream_create(NULL, &x));
    CHECK_OK(weft_xstream_get_pools(x, 1, &main_pool, &n));
    CHECK_OK(weft_pool_add_sched(main_pool, s));
    CHECK_OK(weft_thread_create(main_pool, setter, NULL, NULL, &t[2]));
    CHECK_OK(weft_thread_free_many(3, t));
    /* Not automatic: it stays (idle) until told to finish. */
    CHECK_RC(weft_sched_free(&s), WEFT_ERR_BUSY);
    CHECK_OK(weft_sched_finish(s));
    int rc;
    while ((rc = weft_sched_free(&s)) == WEFT_ERR_BUSY) weft_yield();
    CHECK_OK(rc);
    CHECK_OK(weft_xstream_free(&x));
    CHECK_OK(weft_pool_free(&ps));
}

/* On the primary: the main ULT stacks a scheduler on its own pool and
 * joins that scheduler's units; the primary runs them through it. */
static void count_primary(void *arg)
{
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    if (xs != (weft_xstream)arg) g_wrong_stream++;
    weft_yield();
    g_ran[0]++;
}

static void test_primary(void)
{
    weft_xstream prim;
    CHECK_OK(weft_xstream_self(&prim));
    weft_pool pd, pe;
    weft_sched d;
    CHECK_OK(weft_pool_create(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, &pd));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &pe));
    weft_pool both[2] = {pd, pe};
    CHECK_OK(weft_sched_create_randws(2, both, &d));
    g_ran[0] = 0;
    weft_thread units[2 * N];
    for (int i = 0; i < N; i++) {
        CHECK_OK(weft_thread_create(pd, count_primary, prim, NULL, &units[2 * i]));
        CHECK_OK(weft_tasklet_create(pe, count_primary, prim, &units[2 * i + 1]));
    }
    CHECK_OK(weft_pool_add_sched(self_pool(), d));
    /* A second scheduler over one of the same private pools is refused. */
    weft_sched other;
    CHECK_OK(weft_sched_create_basic(1, &pd, &other));
    CHECK_RC(weft_pool_add_sched(self_pool(), other), WEFT_ERR_POOL_ACCESS);
    CHECK_OK(weft_thread_free_many(2 * N, units));
    CHECK(g_ran[0] == 2 * N && g_wrong_stream == 0);
    int rc;
    while ((rc = weft_sched_free(&d)) == WEFT_ERR_BUSY) weft_yield();
    CHECK_OK(rc);
    /* Finished, its pools are free again: the other may stack now. */
    CHECK_OK(weft_pool_add_sched(self_pool(), other));
    while ((rc = weft_sched_free(&other)) == WEFT_ERR_BUSY) weft_yield();
    CHECK_OK(rc);
    CHECK_OK(weft_pool_free(&pd));
    CHECK_OK(weft_pool_free(&pe));
}

/* A stream asked to end while a scheduler stacked on it is paused, its
 * unit waiting in a pool another stream serves too: the stream ends only
 * after that scheduler has finished, and the stacked scheduler's units run
 * on its stream alone (it is bound there). Repeated: the other stream may
 * hold the paused scheduler's unit at the moment the first one looks. */
#define OUTLIVE_ROUNDS 60
static weft_xstream g_sx;
static _Atomic int g_elsewhere, g_ps_ran;
static weft_sched g_fin;

static void on_sx(void *arg)
{
    (void)arg;
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    if (xs != g_sx) g_elsewhere++;
    g_ps_ran++;
}

static void *finish_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 3 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK_OK(weft_sched_finish(g_fin));
    return NULL;
}

static void test_stream_outlives_stacked(void)
{
    weft_pool px, q, ps;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &px));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &q));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &ps));
    g_elsewhere = 0;
    for (int r = 0; r < OUTLIVE_ROUNDS; r++) {
        weft_pool xp[2] = {px, q};
        weft_sched sx, sy, s;
        CHECK_OK(weft_sched_create_basic(2, xp, &sx));
        CHECK_OK(weft_sched_create_basic(1, &q, &sy));
        CHECK_OK(weft_sched_create_basic(1, &ps, &s));
        CHECK_OK(weft_sched_set_automatic(s, 0));
        CHECK_OK(weft_xstream_create(sx, &g_sx));
        /* Only sx serves q yet: s starts there, and stays. */
        CHECK_OK(weft_pool_add_sched(q, s));
        weft_thread u;
        CHECK_OK(weft_tasklet_create(ps, on_sx, NULL, &u));
        CHECK_OK(weft_thread_free(&u));
        weft_xstream y;
        CHECK_OK(weft_xstream_create(sy, &y));
        weft_thread units[32];
        g_ps_ran = 0;
        for (int i = 0; i < 32; i++) CHECK_OK(weft_tasklet_create(ps, on_sx, NULL, &units[i]));
        /* The free waits for s, which finishes a few ms later. */
        g_fin = s;
        pthread_t th;
        CHECK(pthread_create(&th, NULL, finish_later, NULL) == 0);
        CHECK_OK(weft_xstream_free(&g_sx));
        CHECK(pthread_join(th, NULL) == 0);
        CHECK(g_ps_ran == 32);
        CHECK_OK(weft_thread_free_many(32, units));
        int rc;
        while ((rc = weft_sched_free(&s)) == WEFT_ERR_BUSY) sched_yield();
        CHECK_OK(rc);
        CHECK_OK(weft_xstream_free(&y));
        CHECK_OK(weft_sched_free(&sx));
        CHECK_OK(weft_sched_free(&sy));
    }
    CHECK(g_elsewhere == 0);
    CHECK_OK(weft_pool_free(&px));
    CHECK_OK(weft_pool_free(&q));
    CHECK_OK(weft_pool_free(&ps));
}

int main(void)
{
    start_weft(1);
    test_three_levels();
    test_turns();
    test_primary();
    test_stream_outlives_stacked();
    CHECK_OK(weft_finalize());
    return 0;
}
