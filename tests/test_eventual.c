/* Eventuals and futures: ping-pong between ULTs on two streams and with a
 * plain thread; many waiters woken by one set; values copied in; test,
 * reset, timed waits; future fan-in from many ULTs with its callback
 * seeing every value before any waiter runs; misuse. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"

#define STREAMS 2

static int ROUNDS = 2000;
static weft_eventual g_ping, g_pong;

static void pinger(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_OK(weft_eventual_set(g_ping, &r, sizeof r));
        void *v;
        CHECK_OK(weft_eventual_wait(g_pong, &v));
        CHECK(*(int *)v == r);
        CHECK_OK(weft_eventual_reset(g_pong));
    }
}

static void ponger(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        void *v;
        CHECK_OK(weft_eventual_wait(g_ping, &v));
        int got = *(int *)v;
        CHECK(got == r);
        CHECK_OK(weft_eventual_reset(g_ping));
        CHECK_OK(weft_eventual_set(g_pong, &got, sizeof got));
    }
}

static void *thread_ponger(void *arg)
{
    ponger(arg);
    return NULL;
}

static weft_eventual g_go;
static int g_woke;
static void wait_go(void *arg)
{
    (void)arg;
    void *v;
    CHECK_OK(weft_eventual_wait(g_go, &v));
    CHECK(strcmp(v, "go") == 0);
    __atomic_add_fetch(&g_woke, 1, __ATOMIC_RELAXED);
}

static void tasklet_wait(void *arg)
{
    weft_eventual e = arg;
    int ready;
    CHECK_OK(weft_eventual_test(e, NULL, &ready));
    if (ready) CHECK_OK(weft_eventual_wait(e, NULL)); /* no wait needed */
    else CHECK(weft_eventual_wait(e, NULL) == WEFT_ERR_TASKLET_BLOCKS);
}

/* Futures. */
#define FAN 1000
static weft_future g_f;
static long g_cb_sum = -1;
static void sum_cb(void **values)
{
    long s = 0;
    for (int i = 0; i < FAN; i++) s += (long)(intptr_t)values[i];
    g_cb_sum = s;
}
static void fan_in(void *arg) { CHECK_OK(weft_future_set(g_f, arg)); }
static void fan_wait(void *arg)
{
    (void)arg;
    CHECK_OK(weft_future_wait(g_f));
    CHECK(g_cb_sum == (long)FAN * (FAN + 1) / 2); /* the callback ran first */
}

static void *thread_fan_wait(void *arg)
{
    fan_wait(arg);
    return NULL;
}

static void timed(void *arg)
{
    (void)arg;
    weft_eventual e;
    CHECK_OK(weft_eventual_create(0, &e));
    uint64_t d = weft_time_ns() + 10 * 1000000ull;
    CHECK_RC(weft_eventual_timedwait(e, NULL, d), WEFT_ERR_TIMEDOUT);
    CHECK(weft_time_ns() >= d);
    CHECK_OK(weft_eventual_set(e, NULL, 0));
    CHECK_OK(weft_eventual_timedwait(e, NULL, d)); /* ready: the deadline does not matter */
    CHECK_OK(weft_eventual_free(&e));
    weft_future f;
    CHECK_OK(weft_future_create(2, NULL, &f));
    CHECK_OK(weft_future_set(f, NULL));
    CHECK_RC(weft_future_timedwait(f, weft_time_ns() + 5 * 1000000ull), WEFT_ERR_TIMEDOUT);
    CHECK_OK(weft_future_free(&f));
}

static void *thread_timed(void *arg)
{
    timed(arg);
    return NULL;
}

static void run_on(int rank, void (*fn)(void *), void *arg, weft_thread *t)
{
    weft_xstream xs;
    CHECK_OK(weft_xstream_get(rank, &xs));
    CHECK_OK(weft_thread_create_to(xs, fn, arg, NULL, t));
}

/* A callback that lasts until the test lets it end. */
static _Atomic int g_cb_state;
static void slow_cb(void **values)
{
    (void)values;
    atomic_store(&g_cb_state, 1);
    while (atomic_load(&g_cb_state) != 2) sched_yield();
}

static void *thread_set_slow(void *arg)
{
    CHECK_OK(weft_future_set((weft_future)arg, NULL));
    return NULL;
}

int main(void)
{
    const char *env = getenv("WEFT_STRESS_N");
    if (env && atoi(env) / 10 < ROUNDS) ROUNDS = atoi(env) / 10 > 100 ? atoi(env) / 10 : 100;
    start_weft(STREAMS);
    CHECK_OK(weft_eventual_create(sizeof(int), &g_ping));
    CHECK_OK(weft_eventual_create(sizeof(int), &g_pong));

    /* Ping-pong across streams, then with a plain thread. */
    weft_thread t[2];
    run_on(0, pinger, NULL, &t[0]);
    run_on(1, ponger, NULL, &t[1]);
    CHECK_OK(weft_thread_free_many(2, t));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_ponger, NULL) == 0);
    run_on(1, pinger, NULL, &t[0]);
    CHECK_OK(weft_thread_free(&t[0]));
    CHECK(pthread_join(th, NULL) == 0);

    /* One set wakes every waiter; a tasklet waits only when it need not. */
    CHECK_OK(weft_eventual_create(8, &g_go));
    weft_thread w[10];
    for (int i = 0; i < 10; i++) run_on(i % STREAMS, wait_go, NULL, &w[i]);
    weft_thread tk;
    CHECK_OK(weft_tasklet_create(self_pool(), tasklet_wait, g_go, &tk));
    CHECK_OK(weft_thread_free(&tk));
    for (int i = 0; i < 20; i++) CHECK_OK(weft_yield());
    int ready;
    CHECK_OK(weft_eventual_test(g_go, NULL, &ready));
    CHECK(!ready);
    CHECK(weft_eventual_set(g_go, "too long!", 10) == WEFT_ERR_INVALID);
    CHECK_OK(weft_eventual_set(g_go, "go", 3));
    CHECK(weft_eventual_set(g_go, "go", 3) == WEFT_ERR_STATE);
    CHECK_OK(weft_thread_free_many(10, w));
    CHECK(g_woke == 10);
    void *v = NULL;
    CHECK_OK(weft_eventual_test(g_go, &v, &ready));
    CHECK(ready && strcmp(v, "go") == 0);
    CHECK_OK(weft_tasklet_create(self_pool(), tasklet_wait, g_go, &tk));
    CHECK_OK(weft_thread_free(&tk));

    /* Future fan-in: ULTs on both streams set, waiters on both wait. */
    CHECK_OK(weft_future_create(FAN, sum_cb, &g_f));
    static weft_thread fan[FAN + 4];
    for (int i = 0; i < 4; i++) run_on(i % STREAMS, fan_wait, NULL, &fan[FAN + i]);
    for (int i = 0; i < FAN; i++) run_on(i % STREAMS, fan_in, (void *)(intptr_t)(i + 1), &fan[i]);
    CHECK(pthread_create(&th, NULL, thread_fan_wait, NULL) == 0); /* a plain thread waits too */
    CHECK_OK(weft_thread_free_many(FAN + 4, fan));
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(weft_future_test(g_f, &ready));
    CHECK(ready);
    long sum = 0;
    for (int i = 0; i < FAN; i++) {
        CHECK_OK(weft_future_get(g_f, i, &v));
        sum += (long)(intptr_t)v;
    }
    CHECK(sum == (long)FAN * (FAN + 1) / 2);
    CHECK(weft_future_set(g_f, NULL) == WEFT_ERR_STATE);
    CHECK(weft_future_get(g_f, FAN, &v) == WEFT_ERR_INVALID);
    CHECK_OK(weft_future_reset(g_f));
    CHECK(weft_future_get(g_f, 0, &v) == WEFT_ERR_STATE);
    CHECK_OK(weft_future_set(g_f, NULL));
    CHECK(weft_future_reset(g_f) == WEFT_ERR_BUSY); /* set in part */
    /* While the last set runs the callback, the future is in use: reset
     * and free are refused. */
    weft_future fslow;
    CHECK_OK(weft_future_create(1, slow_cb, &fslow));
    g_cb_state = 0;
    CHECK(pthread_create(&th, NULL, thread_set_slow, fslow) == 0);
    while (atomic_load(&g_cb_state) != 1) sched_yield();
    CHECK(weft_future_reset(fslow) == WEFT_ERR_BUSY);
    weft_future fcopy = fslow;
    CHECK(weft_future_free(&fcopy) == WEFT_ERR_BUSY && fcopy == fslow);
    atomic_store(&g_cb_state, 2);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(weft_future_free(&fslow));
    weft_future fstale = g_f;
    CHECK_OK(weft_future_free(&g_f));
    CHECK(weft_future_set(fstale, NULL) == WEFT_ERR_HANDLE);

    /* Timed waits: a ULT on each stream, a plain thread. */
    run_on(0, timed, NULL, &t[0]);
    run_on(1, timed, NULL, &t[1]);
    CHECK(pthread_create(&th, NULL, thread_timed, NULL) == 0);
    CHECK_OK(weft_thread_free_many(2, t));
    CHECK(pthread_join(th, NULL) == 0);

    /* Misuse. */
    weft_eventual stale = g_go;
    CHECK_OK(weft_eventual_free(&g_go));
    CHECK(weft_eventual_wait(stale, NULL) == WEFT_ERR_HANDLE);
    CHECK(weft_eventual_free(&stale) == WEFT_ERR_HANDLE);
    CHECK(weft_eventual_test(g_ping, NULL, NULL) == WEFT_ERR_INVALID);
    weft_future fnone;
    CHECK(weft_future_create(0, NULL, &fnone) == WEFT_ERR_INVALID);
    CHECK(weft_eventual_create(0, NULL) == WEFT_ERR_INVALID);
    CHECK_OK(weft_eventual_free(&g_ping));
    CHECK_OK(weft_eventual_free(&g_pong));

    CHECK_OK(weft_finalize());
    printf("eventual: ok\n");
    return 0;
}
