/* Two threads free (or join) the same unit handle at the same moment:
 * exactly one of them gets WEFT_OK, the other WEFT_ERR_JOINED or
 * WEFT_ERR_HANDLE, and the descriptor is released once (the units created
 * afterwards are all distinct and run). A pool freed while a scheduler is
 * created over it: exactly one succeeds. Two streams started at once over
 * one private pool: exactly one succeeds. Repeated: the window is small. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

#define ROUNDS 1500

static weft_thread g_target;
static _Atomic int g_round, g_done;
static int g_rc[2];
static int g_mode; /* 0: both free, 1: one joins, one frees */

static void nothing(void *arg) { (void)arg; }

/* Runs long enough that both racers find it unfinished and wait for it. */
static void linger(void *arg)
{
    (void)arg;
    uint64_t end = weft_time_ns() + 20000;
    while (weft_time_ns() < end) { }
}

static void *racer(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 1; r <= ROUNDS; r++) {
        /* Spin (both racers leave at once), yielding now and then so the
         * main thread gets the core to start the next round. */
        for (unsigned i = 1; atomic_load(&g_round) != r; i++)
            if (i % 4096 == 0) sched_yield();
        weft_thread copy = g_target;
        g_rc[me] = (g_mode == 1 && me == 0) ? weft_thread_join(copy) : weft_thread_free(&copy);
        atomic_fetch_add(&g_done, 1);
    }
    return NULL;
}

static void rounds(int mode, int finished_first)
{
    g_mode = mode;
    atomic_store(&g_round, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i);
    weft_xstream xs1;
    CHECK_OK(weft_xstream_get(1, &xs1));
    int both = 0;
    for (int r = 1; r <= ROUNDS; r++) {
        CHECK_OK(weft_thread_create_to(xs1, finished_first ? nothing : linger, NULL, NULL, &g_target));
        if (finished_first) wait_for_state(g_target, WEFT_STATE_TERMINATED);
        atomic_store(&g_done, 0);
        atomic_store(&g_round, r);
        while (atomic_load(&g_done) != 2) sched_yield();
        int ok = (g_rc[0] == WEFT_OK) + (g_rc[1] == WEFT_OK);
        if (mode == 0) {
            /* Both free: one wins, the other is told why. */
            CHECK(ok == 1);
            for (int i = 0; i < 2; i++)
                CHECK(g_rc[i] == WEFT_OK || g_rc[i] == WEFT_ERR_JOINED || g_rc[i] == WEFT_ERR_HANDLE);
        } else {
            /* A join and a free: the free releases it exactly once (it
             * returns WEFT_OK once the join is over, or JOINED while the
             * join holds it, then we free it). */
            CHECK(g_rc[1] == WEFT_OK || g_rc[1] == WEFT_ERR_JOINED || g_rc[1] == WEFT_ERR_HANDLE);
            if (g_rc[1] != WEFT_OK) CHECK_OK(weft_thread_free(&g_target));
        }
        both += ok == 2;
        /* A released-twice descriptor would be handed to two new units. */
        weft_thread a, b;
        CHECK_OK(weft_thread_create_to(xs1, nothing, NULL, NULL, &a));
        CHECK_OK(weft_thread_create_to(xs1, nothing, NULL, NULL, &b));
        CHECK(a != b);
        CHECK_OK(weft_thread_free(&a));
        CHECK_OK(weft_thread_free(&b));
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK(both == 0 || mode == 1);
}

/* One thread creates a scheduler over g_pool while the other frees it. */
static weft_pool g_pool;
static weft_sched g_sched;

static void *pool_racer(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 1; r <= ROUNDS; r++) {
        for (unsigned i = 1; atomic_load(&g_round) != r; i++)
            if (i % 4096 == 0) sched_yield();
        weft_pool copy = g_pool;
        g_rc[me] = me == 0 ? weft_sched_create_basic(1, &copy, &g_sched) : weft_pool_free(&copy);
        atomic_fetch_add(&g_done, 1);
    }
    return NULL;
}

static void pool_rounds(void)
{
    atomic_store(&g_round, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, pool_racer, (void *)(intptr_t)i);
    for (int r = 1; r <= ROUNDS; r++) {
        CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_pool));
        g_sched = NULL;
        atomic_store(&g_done, 0);
        atomic_store(&g_round, r);
        while (atomic_load(&g_done) != 2) sched_yield();
        /* A scheduler over a freed pool would be the bug; so would both
         * failing (the free saw it listed while the creation saw it marked
         * dead for a moment). */
        CHECK((g_rc[0] == WEFT_OK) + (g_rc[1] == WEFT_OK) == 1);
        CHECK(g_rc[0] == WEFT_OK || g_rc[0] == WEFT_ERR_HANDLE);
        CHECK(g_rc[1] == WEFT_OK || g_rc[1] == WEFT_ERR_BUSY);
        if (g_rc[0] == WEFT_OK) CHECK_OK(weft_sched_free(&g_sched));
        if (g_rc[1] != WEFT_OK) CHECK_OK(weft_pool_free(&g_pool));
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
}

/* Two threads start a stream each, over two schedulers that list the same
 * private pool: a private pool serves one scheduler, so exactly one start
 * succeeds and the other is told WEFT_ERR_POOL_ACCESS. */
#define ATTACH_ROUNDS 400
static weft_sched g_two[2];
static weft_xstream g_xs[2];

static void *attach_racer(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 1; r <= ATTACH_ROUNDS; r++) {
        for (unsigned i = 1; atomic_load(&g_round) != r; i++)
            if (i % 4096 == 0) sched_yield();
        g_rc[me] = weft_xstream_create(g_two[me], &g_xs[me]);
        atomic_fetch_add(&g_done, 1);
    }
    return NULL;
}

static void attach_rounds(void)
{
    weft_pool priv;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &priv));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_sched_create_basic(1, &priv, &g_two[i]));
    atomic_store(&g_round, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, attach_racer, (void *)(intptr_t)i);
    for (int r = 1; r <= ATTACH_ROUNDS; r++) {
        atomic_store(&g_done, 0);
        atomic_store(&g_round, r);
        while (atomic_load(&g_done) != 2) sched_yield();
        CHECK((g_rc[0] == WEFT_OK) + (g_rc[1] == WEFT_OK) == 1);
        for (int i = 0; i < 2; i++) {
            if (g_rc[i] == WEFT_OK) CHECK_OK(weft_xstream_free(&g_xs[i]));
            else CHECK(g_rc[i] == WEFT_ERR_POOL_ACCESS);
        }
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) CHECK_OK(weft_sched_free(&g_two[i]));
    CHECK_OK(weft_pool_free(&priv));
}

int main(void)
{
    start_weft(2);
    rounds(0, 1); /* an ended unit: the free's fast path */
    rounds(0, 0); /* maybe still running: the join inside free */
    rounds(1, 0); /* join racing free */
    pool_rounds();
    attach_rounds();
    CHECK_OK(weft_finalize());
    printf("free_race: ok\n");
    return 0;
}
