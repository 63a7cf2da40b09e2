/* Barriers: ULTs on every stream and a plain thread meet in a loop (no
 * one runs ahead by a round); waiters that watch and waiters that park
 * (a late arrival); a barrier freed and its memory reused as soon as a
 * round ends, its waiters still on their way out; reinit between rounds;
 * a tasklet only as the last arrival; the stream barrier holds every
 * stream's thread; misuse. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define STREAMS 2
#define N 1000 /* ULTs; plus one plain thread */

static weft_barrier g_b;
static int g_rounds = 100;
static int g_round_of[N + 1];

static void loop(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < g_rounds; r++) {
        __atomic_store_n(&g_round_of[me], r, __ATOMIC_RELAXED);
        CHECK_OK(weft_barrier_wait(g_b));
        /* everyone has reached round r; nobody is past r + 1 */
        for (int i = me % 17; i <= N; i += 61) { /* a sample of the others */
            int ri = __atomic_load_n(&g_round_of[i], __ATOMIC_RELAXED);
            CHECK(ri == r || ri == r + 1);
        }
        CHECK_OK(weft_barrier_wait(g_b));
    }
}

static void *thread_loop(void *arg)
{
    loop(arg);
    return NULL;
}

/* Short-lived barriers: each round the partner on stream 1 (or a plain
 * thread) and main meet once; whichever returns frees or drops it, and the
 * next round's barrier may take the same memory while the other is still
 * leaving its wait. Every few rounds one side is late, so the other parks
 * instead of watching. */
#define SHORT_ROUNDS 2000
static weft_barrier g_short[SHORT_ROUNDS];
static int g_partner_done;

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static void partner(void *arg)
{
    (void)arg;
    for (int r = 0; r < SHORT_ROUNDS; r++) {
        while (!__atomic_load_n(&g_short[r], __ATOMIC_ACQUIRE)) weft_yield();
        if (r % 100 == 1) nap_us(200); /* late: main parks */
        CHECK_OK(weft_barrier_wait(g_short[r]));
    }
    __atomic_store_n(&g_partner_done, 1, __ATOMIC_RELEASE);
}

static void *partner_thread(void *arg)
{
    partner(arg);
    return NULL;
}

static void short_lived(int as_thread)
{
    weft_thread t = NULL;
    pthread_t th;
    memset(g_short, 0, sizeof g_short);
    g_partner_done = 0;
    if (as_thread) CHECK(pthread_create(&th, NULL, partner_thread, NULL) == 0);
    else {
        weft_xstream x1;
        CHECK_OK(weft_xstream_get(1, &x1));
        CHECK_OK(weft_thread_create_to(x1, partner, NULL, NULL, &t));
    }
    for (int r = 0; r < SHORT_ROUNDS; r++) {
        weft_barrier b;
        CHECK_OK(weft_barrier_create(2, &b));
        __atomic_store_n(&g_short[r], b, __ATOMIC_RELEASE);
        if (r % 100 == 51) nap_us(200); /* late: the partner parks */
        CHECK_OK(weft_barrier_wait(b));
        CHECK_OK(weft_barrier_free(&b)); /* the round is over: it is free, whoever is still leaving */
    }
    if (as_thread) CHECK(pthread_join(th, NULL) == 0);
    else CHECK_OK(weft_thread_free(&t));
    CHECK(g_partner_done);
}

static int g_arrived;
static void arrive(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&g_arrived, 1, __ATOMIC_RELAXED);
    CHECK_OK(weft_barrier_wait(g_b));
}
static void tasklet_early(void *arg)
{
    (void)arg;
    CHECK(weft_barrier_wait(g_b) == WEFT_ERR_TASKLET_BLOCKS); /* not counted */
}
static void tasklet_last(void *arg)
{
    (void)arg;
    CHECK_OK(weft_barrier_wait(g_b)); /* releases the others */
}

/* One ULT per stream meets at the stream barrier. */
static weft_xstream_barrier g_xb;
static int g_phase[STREAMS];
static void stream_meet(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < 100; r++) {
        __atomic_store_n(&g_phase[me], r, __ATOMIC_RELAXED);
        CHECK_OK(weft_xstream_barrier_wait(g_xb));
        CHECK(__atomic_load_n(&g_phase[1 - me], __ATOMIC_RELAXED) >= r);
        CHECK_OK(weft_xstream_barrier_wait(g_xb));
    }
}

int main(void)
{
    const char *env = getenv("WEFT_STRESS_N");
    if (env && atoi(env) / 1000 < g_rounds) g_rounds = atoi(env) / 1000 > 10 ? atoi(env) / 1000 : 10;
    start_weft(STREAMS);
    CHECK_OK(weft_barrier_create(N + 1, &g_b));
    static weft_thread t[N];
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_loop, (void *)(intptr_t)N) == 0);
    for (int i = 0; i < N; i++) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(i % STREAMS, &xs));
        CHECK_OK(weft_thread_create_to(xs, loop, (void *)(intptr_t)i, NULL, &t[i]));
    }
    CHECK_OK(weft_thread_free_many(N, t));
    CHECK(pthread_join(th, NULL) == 0);

    /* Reinit: 3 ULTs and a tasklet that comes last. */
    CHECK_OK(weft_barrier_reinit(g_b, 4));
    weft_pool pool = self_pool();
    weft_thread a[3], tk;
    for (int i = 0; i < 2; i++) CHECK_OK(weft_thread_create(pool, arrive, NULL, NULL, &a[i]));
    CHECK_OK(weft_yield()); /* two wait */
    CHECK(g_arrived == 2);
    CHECK(weft_barrier_reinit(g_b, 2) == WEFT_ERR_BUSY);
    CHECK(weft_barrier_free(&g_b) == WEFT_ERR_BUSY);
    CHECK_OK(weft_tasklet_create(pool, tasklet_early, NULL, &tk)); /* would be third of four */
    CHECK_OK(weft_thread_free(&tk));
    CHECK_OK(weft_thread_create(pool, arrive, NULL, NULL, &a[2])); /* the real third */
    CHECK_OK(weft_yield());
    CHECK(g_arrived == 3);
    CHECK_OK(weft_tasklet_create(pool, tasklet_last, NULL, &tk)); /* the fourth: releases them */
    CHECK_OK(weft_thread_free(&tk));
    CHECK_OK(weft_thread_free_many(3, a));

    short_lived(0);
    short_lived(1);

    /* Misuse. */
    CHECK(weft_barrier_reinit(g_b, 0) == WEFT_ERR_INVALID);
    weft_barrier none;
    CHECK(weft_barrier_create(0, &none) == WEFT_ERR_INVALID);
    CHECK(none == NULL);
    weft_barrier stale = g_b;
    CHECK_OK(weft_barrier_free(&g_b));
    CHECK(weft_barrier_wait(stale) == WEFT_ERR_HANDLE);
    CHECK(weft_barrier_free(&stale) == WEFT_ERR_HANDLE);

    /* Streams. */
    CHECK_OK(weft_xstream_barrier_create(STREAMS, &g_xb));
    weft_thread s[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(i, &xs));
        CHECK_OK(weft_thread_create_to(xs, stream_meet, (void *)(intptr_t)i, NULL, &s[i]));
    }
    CHECK_OK(weft_thread_free_many(STREAMS, s));
    weft_xstream_barrier xstale = g_xb;
    CHECK_OK(weft_xstream_barrier_free(&g_xb));
    CHECK(weft_xstream_barrier_wait(xstale) == WEFT_ERR_HANDLE);
    weft_xstream_barrier xnone;
    CHECK(weft_xstream_barrier_create(0, &xnone) == WEFT_ERR_INVALID);

    CHECK_OK(weft_finalize());
    printf("barrier: ok\n");
    return 0;
}
