/* The primitives from the main ULT while it is the only unit on the only
 * stream, then after a second stream exists; objects made before
 * weft_init() and used by a plain thread before and after; a mutex that a
 * waiter on another stream gets although a unit on the holder's stream
 * takes and releases it without pause (no waiter starves; it gets through
 * by competing or, after 1 ms, by the strict hand-off). */
#define _GNU_SOURCE
#include <pthread.h>

#include "check.h"

static weft_mutex g_m;
static weft_cond g_c;
static weft_eventual g_e;
static weft_barrier g_b;
static int g_state;

static void setter(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m)); /* main holds it: this ULT parks */
    g_state = 1;
    CHECK_OK(weft_cond_signal(g_c));
    CHECK_OK(weft_mutex_unlock(g_m));
    int v = 42;
    CHECK_OK(weft_eventual_set(g_e, &v, sizeof v));
    CHECK_OK(weft_barrier_wait(g_b));
}

/* Everything main can wait on, set by one ULT that shares its stream. */
static void main_waits(weft_pool pool)
{
    g_state = 0;
    CHECK_OK(weft_eventual_reset(g_e));
    weft_thread t;
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK_OK(weft_thread_create(pool, setter, NULL, NULL, &t));
    while (!g_state) CHECK_OK(weft_cond_wait(g_c, g_m)); /* setter runs while main waits */
    CHECK_OK(weft_mutex_unlock(g_m));
    void *v;
    CHECK_OK(weft_eventual_wait(g_e, &v));
    CHECK(*(int *)v == 42);
    CHECK_OK(weft_barrier_wait(g_b));
    CHECK_OK(weft_thread_free(&t));
}

/* Fairness: `hog` on the mutex's stream locks and unlocks in a loop until
 * `waiter` (another stream) has had the mutex. */
static volatile int g_got;
static long g_hog_rounds;
static void hog(void *arg)
{
    (void)arg;
    uint64_t give_up = weft_time_ns() + 10ull * 1000000000ull;
    while (!__atomic_load_n(&g_got, __ATOMIC_ACQUIRE)) {
        /* Free for an instant only: a waiter that merely competes when
         * woken would nearly always find it taken again. */
        CHECK_OK(weft_mutex_lock(g_m));
        for (volatile int i = 0; i < 200; i++) {
        }
        if (++g_hog_rounds % 64 == 0) CHECK(weft_time_ns() < give_up); /* the waiter starved */
        CHECK_OK(weft_mutex_unlock(g_m));
    }
}
static void waiter(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    __atomic_store_n(&g_got, 1, __ATOMIC_RELEASE);
    CHECK_OK(weft_mutex_unlock(g_m));
}
static void *thread_waiter(void *arg)
{
    waiter(arg);
    return NULL;
}

static void wait_e(void *arg)
{
    (void)arg;
    CHECK_OK(weft_eventual_wait(g_e, NULL));
}

static void *before_init(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK_OK(weft_mutex_unlock(g_m));
    int v = 7;
    CHECK_OK(weft_eventual_set(g_e, &v, sizeof v));
    return NULL;
}

int main(void)
{
    /* Made and used before the runtime exists: plain threads only. */
    CHECK_OK(weft_mutex_create(NULL, &g_m));
    CHECK_OK(weft_cond_create(&g_c));
    CHECK_OK(weft_eventual_create(sizeof(int), &g_e));
    CHECK_OK(weft_barrier_create(2, &g_b));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, before_init, NULL) == 0);
    void *v;
    CHECK_OK(weft_eventual_wait(g_e, &v)); /* main is a plain thread here */
    CHECK(*(int *)v == 7);
    CHECK(pthread_join(th, NULL) == 0);

    /* One stream: main is its only unit until it creates one. */
    start_weft(1);
    weft_pool pool = self_pool();
    main_waits(pool);

    /* A second stream now exists: the same from main, and across streams. */
    weft_xstream x1;
    CHECK_OK(weft_xstream_create(NULL, &x1));
    weft_pool p1;
    int n;
    CHECK_OK(weft_xstream_get_pools(x1, 1, &p1, &n));
    main_waits(pool);
    main_waits(p1);

    /* No waiter starves: a ULT, then a plain thread, against a hog. */
    weft_thread h, w;
    g_got = 0;
    CHECK_OK(weft_thread_create(pool, hog, NULL, NULL, &h));
    CHECK_OK(weft_thread_create(p1, waiter, NULL, NULL, &w));
    CHECK_OK(weft_thread_free(&w));
    CHECK_OK(weft_thread_free(&h));
    g_got = 0;
    CHECK_OK(weft_thread_create(p1, hog, NULL, NULL, &h));
    CHECK(pthread_create(&th, NULL, thread_waiter, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(weft_thread_free(&h));
    printf("syncmain: the hog took the mutex %ld times meanwhile\n", g_hog_rounds);

    /* Destroying what is waited on is refused. */
    CHECK_OK(weft_eventual_reset(g_e));
    weft_thread t;
    CHECK_OK(weft_thread_create(pool, wait_e, NULL, NULL, &t));
    CHECK_OK(weft_yield()); /* it parks on g_e */
    CHECK(weft_eventual_free(&g_e) == WEFT_ERR_BUSY);
    CHECK_OK(weft_eventual_set(g_e, NULL, 0));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_eventual_free(&g_e));
    CHECK_OK(weft_barrier_free(&g_b));
    CHECK_OK(weft_cond_free(&g_c));
    CHECK_OK(weft_mutex_free(&g_m));
    CHECK_OK(weft_xstream_free(&x1));
    CHECK_OK(weft_finalize());
    printf("syncmain: ok\n");
    return 0;
}
