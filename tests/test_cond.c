/* Condition variables: producers and consumers (ULTs on every stream and a
 * plain thread) through a bounded buffer; broadcast; timed waits that
 * expire and that are signalled first, in ULTs and plain threads;
 * recursive mutexes keep their depth; misuse answered with errors; a timed
 * wait expires on a stream whose other ULT only yields, and on one whose
 * two other ULTs hand the stream to each other for ever (by yield, by
 * waiting on each other), never passing its scheduler. (Two that only
 * yield_to each other run no one else: that is what they ask for.) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define STREAMS 2
#define CAP 8

static int PER = 50; /* items per producer; fewer under WEFT_STRESS_N (sanitizers) */

static weft_mutex g_m;
static weft_cond g_not_full, g_not_empty;
static long g_buf[CAP];
static int g_head, g_n;
static long g_sum;
static int g_consumed;

static void produce(void *arg)
{
    long base = (long)(intptr_t)arg * 1000000;
    for (int i = 1; i <= PER; i++) {
        CHECK_OK(weft_mutex_lock(g_m));
        while (g_n == CAP) CHECK_OK(weft_cond_wait(g_not_full, g_m));
        g_buf[(g_head + g_n++) % CAP] = base + i;
        CHECK_OK(weft_cond_signal(g_not_empty));
        CHECK_OK(weft_mutex_unlock(g_m));
    }
}

/* Takes items until `total` have been consumed by all consumers. */
static int g_total;
static void consume(void *arg)
{
    (void)arg;
    for (;;) {
        CHECK_OK(weft_mutex_lock(g_m));
        while (g_n == 0 && g_consumed < g_total) CHECK_OK(weft_cond_wait(g_not_empty, g_m));
        if (g_consumed == g_total) {
            CHECK_OK(weft_cond_broadcast(g_not_empty)); /* the others are done too */
            CHECK_OK(weft_mutex_unlock(g_m));
            return;
        }
        g_sum += g_buf[g_head];
        g_head = (g_head + 1) % CAP;
        g_n--;
        g_consumed++;
        CHECK_OK(weft_cond_signal(g_not_full));
        CHECK_OK(weft_mutex_unlock(g_m));
    }
}

static void *thread_consume(void *arg)
{
    consume(arg);
    return NULL;
}

/* Broadcast wakes every waiter. */
static int g_go, g_woke, g_waiting;
static void wait_go(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    g_waiting++;
    while (!g_go) CHECK_OK(weft_cond_wait(g_not_empty, g_m));
    g_woke++;
    CHECK_OK(weft_mutex_unlock(g_m));
}

/* A timed wait nobody signals ends at its deadline, mutex held again. */
static void timed_expire(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    uint64_t t0 = weft_time_ns(), deadline = t0 + 20 * 1000000ull;
    CHECK_RC(weft_cond_timedwait(g_not_full, g_m, deadline), WEFT_ERR_TIMEDOUT);
    CHECK(weft_time_ns() >= deadline);
    CHECK_OK(weft_mutex_unlock(g_m)); /* held again */
    /* A deadline already past: at once, the mutex never let go. */
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK_RC(weft_cond_timedwait(g_not_full, g_m, t0), WEFT_ERR_TIMEDOUT);
    CHECK_OK(weft_mutex_unlock(g_m));
}

/* Two ULTs that hand the stream to each other until g_pair_stop: by
 * weft_yield, or by a turn under a mutex and condition variable (each
 * waits, the switch goes straight to the other). */
enum pair_mode { PAIR_YIELD, PAIR_TURNS };
static enum pair_mode g_pair_mode;
static _Atomic int g_pair_stop;
static weft_thread g_pair[2];
static weft_mutex g_pm;
static weft_cond g_pc;
static int g_turn;

static void pair_member(void *arg)
{
    int me = (int)(intptr_t)arg;
    while (!atomic_load(&g_pair_stop)) {
        switch (g_pair_mode) {
        case PAIR_YIELD: CHECK_OK(weft_yield()); break;
        case PAIR_TURNS:
            CHECK_OK(weft_mutex_lock(g_pm));
            while (g_turn != me && !atomic_load(&g_pair_stop)) CHECK_OK(weft_cond_wait(g_pc, g_pm));
            g_turn = 1 - me;
            CHECK_OK(weft_cond_signal(g_pc));
            CHECK_OK(weft_mutex_unlock(g_pm));
            break;
        }
    }
}

static _Atomic int g_watch_done;
static void *watchdog(void *arg)
{
    const char *what = arg;
    for (int i = 0; i < 1000 && !atomic_load(&g_watch_done); i++) usleep(10000);
    if (!atomic_load(&g_watch_done)) {
        fprintf(stderr, "cond: a timed wait beside a pair (%s) did not expire in 10 s\n", what);
        abort();
    }
    return NULL;
}

/* On one stream: the pair runs, a third ULT's timed wait expires, the main
 * ULT (blocked in the join of the third) then stops the pair. */
static void timed_beside_pair(enum pair_mode mode, const char *what)
{
    pthread_t wd;
    atomic_store(&g_watch_done, 0);
    CHECK(pthread_create(&wd, NULL, watchdog, (void *)what) == 0);
    g_pair_mode = mode;
    atomic_store(&g_pair_stop, 0);
    g_turn = 0;
    weft_thread tw;
    CHECK_OK(weft_thread_create(self_pool(), timed_expire, NULL, NULL, &tw));
    for (int i = 0; i < 2; i++)
        CHECK_OK(weft_thread_create(self_pool(), pair_member, (void *)(intptr_t)i, NULL, &g_pair[i]));
    CHECK_OK(weft_thread_free(&tw));
    CHECK_OK(weft_mutex_lock(g_pm));
    atomic_store(&g_pair_stop, 1);
    CHECK_OK(weft_cond_broadcast(g_pc));
    CHECK_OK(weft_mutex_unlock(g_pm));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_thread_free(&g_pair[i]));
    atomic_store(&g_watch_done, 1);
    CHECK(pthread_join(wd, NULL) == 0);
}

static void *thread_timed_expire(void *arg)
{
    timed_expire(arg);
    return NULL;
}

/* A timed wait signalled before its deadline returns OK; its timer must
 * not fire later (the stream could not stop with a timer left armed). */
static int g_flag;
static void timed_signalled(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    uint64_t deadline = weft_time_ns() + 10ull * 1000000000ull;
    while (!g_flag) CHECK_OK(weft_cond_timedwait(g_not_full, g_m, deadline));
    CHECK(weft_time_ns() < deadline);
    CHECK_OK(weft_mutex_unlock(g_m));
}

static void *thread_timed_signalled(void *arg)
{
    timed_signalled(arg);
    return NULL;
}

static void set_flag(void)
{
    CHECK_OK(weft_mutex_lock(g_m));
    g_flag = 1;
    CHECK_OK(weft_cond_broadcast(g_not_full));
    CHECK_OK(weft_mutex_unlock(g_m));
}

/* A recursive mutex is released at its full depth and retaken at it. */
static weft_mutex g_r;
static void recursive_wait(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_r));
    CHECK_OK(weft_mutex_lock(g_r));
    while (!g_flag) CHECK_OK(weft_cond_wait(g_not_full, g_r));
    CHECK_OK(weft_mutex_unlock(g_r));
    CHECK_OK(weft_mutex_unlock(g_r));
    CHECK(weft_mutex_unlock(g_r) == WEFT_ERR_NOT_OWNER);
}
static void recursive_signal(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_r)); /* free: the waiter let go of both levels */
    g_flag = 1;
    CHECK_OK(weft_cond_signal(g_not_full));
    CHECK_OK(weft_mutex_unlock(g_r));
}

static void in_tasklet(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK(weft_cond_wait(g_not_full, g_m) == WEFT_ERR_TASKLET_BLOCKS);
    CHECK_OK(weft_mutex_unlock(g_m));
    CHECK_OK(weft_cond_signal(g_not_full)); /* signalling is fine */
}

static void run_on(int rank, void (*fn)(void *), weft_thread *t)
{
    weft_xstream xs;
    CHECK_OK(weft_xstream_get(rank, &xs));
    CHECK_OK(weft_thread_create_to(xs, fn, NULL, NULL, t));
}

int main(void)
{
    const char *env = getenv("WEFT_STRESS_N");
    if (env && atoi(env) / 1000 < PER) PER = atoi(env) / 1000 > 10 ? atoi(env) / 1000 : 10;
    start_weft(STREAMS);
    CHECK_OK(weft_mutex_create(NULL, &g_m));
    CHECK_OK(weft_cond_create(&g_not_full));
    CHECK_OK(weft_cond_create(&g_not_empty));

    /* Producers and consumers: 1024 + 1024 ULTs over the streams, 1 thread. */
    enum { P = 1024, C = 1024 };
    g_total = P * PER;
    static weft_thread t[P + C];
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_consume, NULL) == 0);
    for (int i = 0; i < P; i++) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(i % STREAMS, &xs));
        CHECK_OK(weft_thread_create_to(xs, produce, (void *)(intptr_t)i, NULL, &t[i]));
        CHECK_OK(weft_thread_create_to(xs, consume, NULL, NULL, &t[P + i]));
    }
    CHECK_OK(weft_thread_free_many(P + C, t));
    CHECK(pthread_join(th, NULL) == 0);
    long want = 0;
    for (long i = 0; i < P; i++) want += i * 1000000L * PER + (long)PER * (PER + 1) / 2;
    CHECK(g_consumed == g_total && g_sum == want && g_n == 0);

    /* Broadcast, with main among the waiters' stream mates. */
    weft_thread w[6];
    for (int i = 0; i < 6; i++) run_on(i % STREAMS, wait_go, &w[i]);
    for (int waiting = 0; waiting < 6;) { /* until all six wait */
        CHECK_OK(weft_yield());
        CHECK_OK(weft_mutex_lock(g_m));
        waiting = g_waiting;
        CHECK_OK(weft_mutex_unlock(g_m));
    }
    CHECK(weft_cond_free(&g_not_empty) == WEFT_ERR_BUSY); /* waited on */
    CHECK_OK(weft_mutex_lock(g_m));
    g_go = 1;
    CHECK_OK(weft_mutex_unlock(g_m));
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK_OK(weft_cond_broadcast(g_not_empty));
    CHECK_OK(weft_mutex_unlock(g_m));
    CHECK_OK(weft_thread_free_many(6, w));
    CHECK(g_woke == 6);

    /* Timed waits that expire: a ULT on each stream, a plain thread, main. */
    weft_thread te[2];
    run_on(0, timed_expire, &te[0]);
    run_on(1, timed_expire, &te[1]);
    CHECK(pthread_create(&th, NULL, thread_timed_expire, NULL) == 0);
    timed_expire(NULL);
    CHECK_OK(weft_thread_free_many(2, te));
    CHECK(pthread_join(th, NULL) == 0);

    /* Timed waits signalled in time. */
    g_flag = 0;
    run_on(0, timed_signalled, &te[0]);
    run_on(1, timed_signalled, &te[1]);
    CHECK(pthread_create(&th, NULL, thread_timed_signalled, NULL) == 0);
    for (int i = 0; i < 10; i++) CHECK_OK(weft_yield());
    set_flag();
    CHECK_OK(weft_thread_free_many(2, te));
    CHECK(pthread_join(th, NULL) == 0);

    /* Recursive mutex. */
    weft_mutex_attr rattr = {.recursive = 1};
    CHECK_OK(weft_mutex_create(&rattr, &g_r));
    g_flag = 0;
    weft_thread r[2];
    run_on(1, recursive_wait, &r[0]);
    run_on(1, recursive_signal, &r[1]);
    CHECK_OK(weft_thread_free_many(2, r));
    CHECK_OK(weft_mutex_free(&g_r));

    /* Misuse. */
    CHECK(weft_cond_wait(g_not_full, g_m) == WEFT_ERR_NOT_OWNER);
    CHECK(weft_cond_timedwait(g_not_full, g_m, 0) == WEFT_ERR_NOT_OWNER);
    weft_thread tk;
    CHECK_OK(weft_tasklet_create(self_pool(), in_tasklet, NULL, &tk));
    CHECK_OK(weft_thread_free(&tk));
    weft_cond stale = g_not_full;
    CHECK_OK(weft_cond_free(&g_not_full));
    CHECK(g_not_full == NULL);
    CHECK(weft_cond_free(&stale) == WEFT_ERR_HANDLE);
    CHECK(weft_cond_signal(stale) == WEFT_ERR_HANDLE);
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK(weft_cond_wait(stale, g_m) == WEFT_ERR_HANDLE);
    CHECK_OK(weft_mutex_unlock(g_m));
    CHECK(weft_cond_signal(NULL) == WEFT_ERR_HANDLE);
    CHECK(weft_cond_free(NULL) == WEFT_ERR_INVALID);
    CHECK(weft_cond_create(NULL) == WEFT_ERR_INVALID);
    CHECK_OK(weft_cond_free(&g_not_empty));
    CHECK_OK(weft_mutex_free(&g_m));

    CHECK_OK(weft_finalize());

    /* One stream whose main ULT yields in a loop never goes idle: the
     * timed wait of a ULT beside it still expires, and finalize, which
     * yields the same way, ends with such a wait under way. */
    start_weft(1);
    CHECK_OK(weft_mutex_create(NULL, &g_m));
    CHECK_OK(weft_cond_create(&g_not_full));
    weft_thread tw;
    CHECK_OK(weft_thread_create(self_pool(), timed_expire, NULL, NULL, &tw));
    weft_thread_state st = WEFT_STATE_READY;
    for (uint64_t end = weft_time_ns() + 5000 * 1000000ull; weft_time_ns() < end && st != WEFT_STATE_TERMINATED;) {
        CHECK_OK(weft_yield());
        CHECK_OK(weft_thread_get_state(tw, &st));
    }
    CHECK(st == WEFT_STATE_TERMINATED);
    CHECK_OK(weft_thread_free(&tw));
    CHECK_OK(weft_mutex_create(NULL, &g_pm));
    CHECK_OK(weft_cond_create(&g_pc));
    timed_beside_pair(PAIR_YIELD, "yield");
    timed_beside_pair(PAIR_TURNS, "turns");
    CHECK_OK(weft_cond_free(&g_pc));
    CHECK_OK(weft_mutex_free(&g_pm));
    CHECK_OK(weft_thread_create(self_pool(), timed_expire, NULL, NULL, NULL));
    CHECK_OK(weft_yield()); /* it waits now */
    CHECK_OK(weft_finalize());
    CHECK_OK(weft_cond_free(&g_not_full));
    CHECK_OK(weft_mutex_free(&g_m));
    printf("cond: ok\n");
    return 0;
}
