/* Single-consumer pools (private, SPSC, MPSC, a private user pool) while
 * no stream owns them: plain threads that create into and pop from one at
 * the same time lose no unit and run none twice; the pool changes hands
 * without a loss when a stream takes it meanwhile. A private pool whose
 * stacked scheduler has ended belongs to no stream any more: any thread
 * may pop it, and the next scheduler to take it runs its units. Repeated:
 * the races are short. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

#define PRODUCERS 3
#define PER_PRODUCER 3000
#define TOTAL (PRODUCERS * PER_PRODUCER)
#define ROUNDS 6

static weft_pool g_pool;
static weft_thread g_units[TOTAL];
static _Atomic int g_ran[TOTAL];
static _Atomic int g_go, g_producing;
static weft_thread g_popped[2][TOTAL];
static int g_npopped[2];

static void body(void *arg) { g_ran[(intptr_t)arg]++; }

static void *producer(void *arg)
{
    int k = (int)(intptr_t)arg;
    while (!g_go) sched_yield();
    for (int i = k * PER_PRODUCER; i < (k + 1) * PER_PRODUCER; i++) {
        if (i % 2) CHECK_OK(weft_tasklet_create(g_pool, body, (void *)(intptr_t)i, &g_units[i]));
        else CHECK_OK(weft_thread_create(g_pool, body, (void *)(intptr_t)i, NULL, &g_units[i]));
    }
    g_producing--;
    return NULL;
}

/* Pops while the producers run, until they are done; keeps what it got. */
static void *popper(void *arg)
{
    int k = (int)(intptr_t)arg;
    g_npopped[k] = 0;
    while (!g_go) sched_yield();
    for (;;) {
        int done = g_producing == 0;
        weft_thread u;
        int rc = weft_pool_pop(g_pool, &u);
        if (rc == WEFT_ERR_POOL_ACCESS) break; /* a stream took the pool meanwhile */
        CHECK_OK(rc);
        if (u) g_popped[k][g_npopped[k]++] = u;
        else if (done) break;
    }
    return NULL;
}

/* A user pool: a FIFO of its own, no synchronisation (weft serialises). */
struct upool {
    weft_thread q[TOTAL];
    size_t head, tail;
};
static struct upool g_upool;
static void up_push(void *st, weft_thread u)
{
    struct upool *q = st;
    q->q[q->tail++ % TOTAL] = u;
}
static weft_thread up_pop(void *st)
{
    struct upool *q = st;
    return q->head == q->tail ? NULL : q->q[q->head++ % TOTAL];
}

/* `take_early`: a stream takes the pool while the threads still work. */
static void round_trip(weft_pool_kind kind, weft_pool_access access, bool user, bool take_early)
{
    if (user) {
        weft_pool_ops ops = {.push = up_push, .pop = up_pop};
        g_upool.head = g_upool.tail = 0;
        CHECK_OK(weft_pool_create_user(&ops, &g_upool, access, &g_pool));
    } else {
        CHECK_OK(weft_pool_create(kind, access, &g_pool));
    }
    for (int i = 0; i < TOTAL; i++) g_ran[i] = 0;
    g_go = 0;
    g_producing = PRODUCERS;
    pthread_t th[PRODUCERS + 2];
    for (int k = 0; k < PRODUCERS; k++) CHECK(pthread_create(&th[k], NULL, producer, (void *)(intptr_t)k) == 0);
    for (int k = 0; k < 2; k++) CHECK(pthread_create(&th[PRODUCERS + k], NULL, popper, (void *)(intptr_t)k) == 0);
    weft_sched s;
    weft_xstream x = NULL;
    CHECK_OK(weft_sched_create_basic(1, &g_pool, &s));
    g_go = 1;
    if (take_early) CHECK_OK(weft_xstream_create(s, &x));
    for (int k = 0; k < PRODUCERS + 2; k++) CHECK(pthread_join(th[k], NULL) == 0);
    /* What the poppers hold goes back; then a stream runs the pool. */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < g_npopped[k]; i++) CHECK_OK(weft_pool_push(g_pool, g_popped[k][i]));
    if (!take_early) CHECK_OK(weft_xstream_create(s, &x));
    for (int i = 0; i < TOTAL; i++) CHECK_OK(weft_thread_free(&g_units[i]));
    for (int i = 0; i < TOTAL; i++) CHECK(g_ran[i] == 1);
    CHECK_OK(weft_xstream_free(&x));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&g_pool));
}

/* ---- a stacked scheduler's private pool after it ends ---- */

static _Atomic int g_stacked_ran;
static void stacked_body(void *arg)
{
    (void)arg;
    g_stacked_ran++;
}

static void test_stacked_disowns(void)
{
    weft_xstream x1, me;
    weft_pool p, base, mine;
    weft_sched s, s2;
    int n;
    CHECK_OK(weft_xstream_get(1, &x1));
    CHECK_OK(weft_xstream_get_pools(x1, 1, &base, &n));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    g_stacked_ran = 0;
    for (int i = 0; i < 50; i++) CHECK_OK(weft_thread_create(p, stacked_body, NULL, NULL, NULL));
    CHECK_OK(weft_pool_add_sched(base, s)); /* stream 1 runs it, then it ends: automatic */
    int rc;
    while ((rc = weft_sched_free(&s)) == WEFT_ERR_BUSY) weft_yield();
    CHECK_OK(rc);
    CHECK(g_stacked_ran == 50);
    /* No stream owns p now: this one may pop it (there is nothing). */
    weft_thread u;
    CHECK_OK(weft_pool_pop(p, &u));
    CHECK(u == NULL);
    /* Units created into it wait; a scheduler stacked here runs them. */
    for (int i = 0; i < 50; i++) CHECK_OK(weft_thread_create(p, stacked_body, NULL, NULL, NULL));
    CHECK_OK(weft_sched_create_basic(1, &p, &s2));
    CHECK_OK(weft_xstream_self(&me));
    CHECK_OK(weft_xstream_get_pools(me, 1, &mine, &n));
    CHECK_OK(weft_pool_add_sched(mine, s2));
    while ((rc = weft_sched_free(&s2)) == WEFT_ERR_BUSY) weft_yield();
    CHECK_OK(rc);
    CHECK(g_stacked_ran == 100);
    CHECK_OK(weft_pool_free(&p));
}

int main(void)
{
    start_weft(2);
    for (int r = 0; r < ROUNDS; r++) {
        bool early = r % 2;
        round_trip(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, false, early);
        round_trip(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, false, early);
        round_trip(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_SPSC, false, early);
        round_trip(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_MPSC, false, early);
        round_trip(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, true, early);
        test_stacked_disowns();
    }
    CHECK_OK(weft_finalize());
    printf("pool_unowned: ok\n");
    return 0;
}
