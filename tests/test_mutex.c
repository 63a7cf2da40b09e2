#define _GNU_SOURCE
/* Mutexes: counters under contention from thousands of ULTs on every
 * stream and from plain threads at once; a contended lock parks the ULT
 * while its stream runs others; hand-off in queue order (no waiter
 * starves, high-priority waiters first); recursive mutexes; trylock;
 * misuse answered with errors. */
#include <pthread.h>

#include "check.h"

#define STREAMS 2
#define MAX_ULTS 2000
#define ITERS 50
#define THREADS 2

static int ULTS = MAX_ULTS; /* WEFT_STRESS_N / 20 when set (sanitizer runs use less) */

static weft_mutex g_m;
static long g_count; /* guarded by g_m, deliberately not atomic */

static void add(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        CHECK_OK(weft_mutex_lock(g_m));
        long v = g_count;
        if (i % 7 == 0) CHECK_OK(weft_yield()); /* hold it across a switch: others must park */
        g_count = v + 1;
        CHECK_OK(weft_mutex_unlock(g_m));
    }
}

static void *thread_add(void *arg)
{
    (void)arg;
    for (int i = 0; i < ULTS * ITERS / 20; i++) {
        CHECK_OK(weft_mutex_lock(g_m));
        g_count++;
        CHECK_OK(weft_mutex_unlock(g_m));
    }
    return NULL;
}

/* Parking does not block the stream: while `holder` keeps the mutex and
 * `waiter` waits for it on the same stream, `other` runs. */
static int g_order[8], g_n;
static void note(int what) { g_order[g_n++] = what; }
static void holder(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    note(1);
    CHECK_OK(weft_yield()); /* waiter runs and parks, other runs */
    CHECK_OK(weft_yield());
    note(4);
    CHECK_OK(weft_mutex_unlock(g_m)); /* hands over and switches to waiter */
    note(6);
}
static void waiter(void *arg)
{
    (void)arg;
    note(2);
    CHECK_OK(weft_mutex_lock(g_m));
    note(5);
    CHECK_OK(weft_mutex_unlock(g_m));
}
static void other(void *arg) { (void)arg; note(3); }

/* Queue order: ULTs that park in order get the mutex in that order; a
 * high-priority lock goes before them. */
static int g_got[8], g_ngot;
static void queued(void *arg)
{
    int id = (int)(intptr_t)arg;
    CHECK_OK(id == 9 ? weft_mutex_lock_high(g_m) : weft_mutex_lock_low(g_m));
    g_got[g_ngot++] = id;
    CHECK_OK(weft_mutex_unlock(g_m));
}

static void in_tasklet(void *arg)
{
    weft_mutex m = arg;
    CHECK(weft_mutex_lock(m) == WEFT_ERR_TASKLET_BLOCKS); /* held by main: it would block */
    CHECK(weft_mutex_trylock(m) == WEFT_ERR_BUSY);
}

/* A fair mutex is handed to the waiter on the unlock itself. The waiter
 * keeps it until main has looked (it could otherwise take and release it
 * before main's next call, as under qemu). */
static _Atomic int g_looked;
static void fair_waiter(void *arg)
{
    CHECK_OK(weft_mutex_lock(arg));
    while (!g_looked) CHECK_OK(weft_yield());
    CHECK_OK(weft_mutex_unlock(arg));
}

static void not_owner(void *arg)
{
    CHECK(weft_mutex_unlock(arg) == WEFT_ERR_NOT_OWNER);
}

static void lock_and_end(void *arg)
{
    CHECK_OK(weft_mutex_lock(arg));
}

static int g_unlock_rc;
static void try_unlock(void *arg)
{
    g_unlock_rc = weft_mutex_unlock(arg);
}

static void *thread_lock_and_exit(void *arg)
{
    CHECK_OK(weft_mutex_lock(arg));
    return NULL;
}

static void *thread_try_unlock(void *arg)
{
    g_unlock_rc = weft_mutex_unlock(arg);
    return NULL;
}

/* A mutex left locked by a ULT that ended is not released by the unit
 * that reuses its descriptor, nor one left by an exited thread by a new
 * thread (which may reuse its thread-local storage). */
weft_mutex g_left_locked[2]; /* locked by the dead for good: never freed (global: kept reachable) */

static void owner_survives_reuse(void)
{
    weft_mutex m;
    CHECK_OK(weft_mutex_create(NULL, &m));
    g_left_locked[0] = m;
    weft_pool pool = self_pool();
    weft_thread a, b;
    CHECK_OK(weft_thread_create(pool, lock_and_end, m, NULL, &a));
    weft_thread old = a;
    CHECK_OK(weft_thread_free(&a));
    CHECK_OK(weft_thread_create(pool, try_unlock, m, NULL, &b));
    CHECK(b == old); /* the descriptor was reused: the case in question */
    CHECK_OK(weft_thread_free(&b));
    CHECK_RC(g_unlock_rc, WEFT_ERR_NOT_OWNER);
    CHECK_RC(weft_mutex_trylock(m), WEFT_ERR_BUSY); /* still held by the dead ULT */

    weft_mutex m2;
    CHECK_OK(weft_mutex_create(NULL, &m2));
    g_left_locked[1] = m2;
    for (int i = 0; i < 20; i++) {
        pthread_t th;
        if (i == 0) {
            CHECK(pthread_create(&th, NULL, thread_lock_and_exit, m2) == 0);
        } else {
            g_unlock_rc = -1;
            CHECK(pthread_create(&th, NULL, thread_try_unlock, m2) == 0);
        }
        pthread_join(th, NULL);
        if (i > 0) CHECK_RC(g_unlock_rc, WEFT_ERR_NOT_OWNER);
    }
}

int main(void)
{
    const char *env = getenv("WEFT_STRESS_N");
    if (env && atoi(env) / 20 < MAX_ULTS) ULTS = atoi(env) / 20 > 100 ? atoi(env) / 20 : 100;
    start_weft(STREAMS);
    CHECK_OK(weft_mutex_create(NULL, &g_m));

    /* Contention: ULTs on every stream, plain threads beside them. */
    static weft_thread t[MAX_ULTS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, thread_add, NULL) == 0);
    for (int i = 0; i < ULTS; i++) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(i % STREAMS, &xs));
        CHECK_OK(weft_thread_create_to(xs, add, NULL, NULL, &t[i]));
    }
    CHECK_OK(weft_thread_free_many(ULTS, t));
    for (int i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
    CHECK(g_count == (long)ULTS * ITERS + (long)THREADS * (ULTS * ITERS / 20));

    /* Parking on one stream, and the hand-off switch. */
    weft_pool pool = self_pool();
    weft_thread a, b, c;
    CHECK_OK(weft_thread_create(pool, holder, NULL, NULL, &a));
    CHECK_OK(weft_thread_create(pool, waiter, NULL, NULL, &b));
    CHECK_OK(weft_thread_create(pool, other, NULL, NULL, &c));
    CHECK_OK(weft_thread_free(&a));
    CHECK_OK(weft_thread_free(&b));
    CHECK_OK(weft_thread_free(&c));
    CHECK(g_n == 6);
    for (int i = 0; i < 6; i++) CHECK(g_order[i] == i + 1);

    /* Queue order with a high-priority waiter. */
    CHECK_OK(weft_mutex_lock(g_m)); /* main holds it */
    weft_thread q[5];
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_create(pool, queued, (void *)(intptr_t)i, NULL, &q[i]));
    CHECK_OK(weft_thread_create(pool, queued, (void *)(intptr_t)9, NULL, &q[4]));
    CHECK_OK(weft_yield()); /* all five park */
    CHECK_OK(weft_mutex_unlock(g_m));
    CHECK_OK(weft_thread_free_many(5, q));
    int expect[5] = {9, 0, 1, 2, 3};
    for (int i = 0; i < 5; i++) CHECK(g_got[i] == expect[i]);

    /* Recursive mutexes count; plain ones refuse to deadlock. */
    weft_mutex r;
    weft_mutex_attr attr = {.recursive = 1};
    CHECK_OK(weft_mutex_create(&attr, &r));
    CHECK_OK(weft_mutex_lock(r));
    CHECK_OK(weft_mutex_lock(r));
    CHECK_OK(weft_mutex_trylock(r));
    CHECK_OK(weft_mutex_unlock(r));
    CHECK_OK(weft_mutex_unlock(r));
    CHECK(weft_mutex_free(&r) == WEFT_ERR_BUSY); /* still held once */
    CHECK_OK(weft_mutex_unlock(r));
    CHECK(weft_mutex_unlock(r) == WEFT_ERR_NOT_OWNER);
    CHECK_OK(weft_mutex_free(&r));
    CHECK(r == NULL);

    /* Fair: handed to a waiter on another stream, never free in between. */
    weft_mutex f;
    weft_mutex_attr fattr = {.fair = 1};
    CHECK_OK(weft_mutex_create(&fattr, &f));
    for (int round = 0; round < 20; round++) {
        CHECK_OK(weft_mutex_lock(f));
        g_looked = 0;
        weft_xstream x1;
        CHECK_OK(weft_xstream_get(1, &x1));
        weft_thread fw;
        CHECK_OK(weft_thread_create_to(x1, fair_waiter, f, NULL, &fw));
        wait_for_state(fw, WEFT_STATE_BLOCKED); /* queued on f */
        CHECK_OK(weft_mutex_unlock(f));
        CHECK(weft_mutex_trylock(f) == WEFT_ERR_BUSY); /* it is the waiter's already */
        g_looked = 1;
        CHECK_OK(weft_thread_free(&fw));
    }
    CHECK_OK(weft_mutex_free(&f));

    /* Misuse. */
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK(weft_mutex_lock(g_m) == WEFT_ERR_BUSY); /* not recursive */
    weft_thread tk;
    CHECK_OK(weft_tasklet_create(pool, in_tasklet, g_m, &tk));
    CHECK_OK(weft_thread_free(&tk));
    weft_thread no;
    CHECK_OK(weft_thread_create(pool, not_owner, g_m, NULL, &no));
    CHECK_OK(weft_thread_free(&no));
    CHECK(weft_mutex_free(&g_m) == WEFT_ERR_BUSY);
    CHECK_OK(weft_mutex_unlock(g_m));
    weft_mutex stale = g_m;
    CHECK_OK(weft_mutex_free(&g_m));
    CHECK(weft_mutex_free(&stale) == WEFT_ERR_HANDLE); /* double free */
    CHECK(weft_mutex_lock(stale) == WEFT_ERR_HANDLE);
    CHECK(weft_mutex_lock(NULL) == WEFT_ERR_HANDLE);
    CHECK(weft_mutex_free(NULL) == WEFT_ERR_INVALID);
    CHECK(weft_mutex_create(NULL, NULL) == WEFT_ERR_INVALID);

    owner_survives_reuse();
    CHECK_OK(weft_finalize());

    /* Locks the main ULT of one runtime left held stay held for the main
     * ULT of the next (its unit id is 0 in both). */
    start_weft(1);
    weft_mutex kept;
    weft_rwlock wkept;
    CHECK_OK(weft_mutex_create(NULL, &kept));
    CHECK_OK(weft_rwlock_create(&wkept));
    CHECK_OK(weft_mutex_lock(kept));
    CHECK_OK(weft_rwlock_wrlock(wkept));
    CHECK_OK(weft_finalize());
    start_weft(1);
    CHECK_RC(weft_mutex_unlock(kept), WEFT_ERR_NOT_OWNER);
    CHECK_RC(weft_mutex_trylock(kept), WEFT_ERR_BUSY);
    CHECK_RC(weft_rwlock_unlock(wkept), WEFT_ERR_NOT_OWNER);
    CHECK_RC(weft_rwlock_trywrlock(wkept), WEFT_ERR_BUSY);
    CHECK_OK(weft_finalize());
    printf("mutex: ok\n");
    return 0;
}
