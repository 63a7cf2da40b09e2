/* weft_xstream_settle(): an unbound stream that the OS put on another
 * stream's CPU goes back to its own; a bound one never moves; its errors.
 *
 * The OS's doubling-up is played by the test: the primary starts on CPU c0
 * and stays pinned there, and stream 1 is pinned onto c0 for a moment and
 * then given its whole mask back (it stays on c0 until something moves
 * it). Stream 1's own CPU is another core's. The OS is free to move stream
 * 1 before settle does (its balancer pulls a thread to an idle CPU, and on
 * a loaded machine it may put it back on c0 at once), so one doubling may
 * prove nothing; the test doubles stream 1 up again until settle has moved
 * it off c0 once, and fails if that never happens within 40 s. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

static int c0;
static cpu_set_t all;
static atomic_int done;

static void *plain(void *arg)
{
    (void)arg;
    CHECK_RC(weft_xstream_settle(NULL), WEFT_ERR_NOT_WEFT);
    return NULL;
}

/* On stream 1: onto c0, the whole mask back, then settle until it moves,
 * the OS moves it, or 1 s passes. outcome: 1 settle moved it (cpu_after is
 * where it was right after), 2 the OS moved it first, 0 neither. */
static int outcome, cpu_after;

static void doubled(void *arg)
{
    (void)arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(c0, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    uint64_t until = weft_time_ns() + 1000000000ull;
    outcome = 0;
    while (weft_time_ns() < until) {
        int moved = -1;
        CHECK_OK(weft_xstream_settle(&moved));
        CHECK(moved == 0 || moved == 1);
        if (moved) {
            cpu_after = sched_getcpu();
            outcome = 1;
            break;
        }
        if (sched_getcpu() != c0) {
            outcome = 2;
            break;
        }
        sched_yield();
    }
    atomic_store(&done, 1);
}

/* On a stream bound to c0: settling never moves it. */
static void bound(void *arg)
{
    (void)arg;
    uint64_t until = weft_time_ns() + 50000000ull;
    while (weft_time_ns() < until) {
        int moved = 1;
        CHECK_OK(weft_xstream_settle(&moved));
        CHECK(moved == 0);
        sched_yield();
    }
    atomic_store(&done, 1);
}

/* The primary, pinned to c0, says where it is until `fn` on stream 1 is done. */
static void run_beside(weft_xstream x1, void (*fn)(void *))
{
    weft_thread t;
    atomic_store(&done, 0);
    CHECK_OK(weft_thread_create_to(x1, fn, NULL, NULL, &t));
    while (!atomic_load(&done)) {
        CHECK_OK(weft_xstream_settle(NULL));
        sched_yield();
    }
    CHECK_OK(weft_thread_free(&t));
}

int main(void)
{
    CHECK_RC(weft_xstream_settle(NULL), WEFT_ERR_UNINIT);
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    if (CPU_COUNT(&all) < 2) {
        printf("settle: skipped (one CPU)\n");
        return 77;
    }
    /* Start on c0 with the whole mask, so that c0 is the primary's own CPU.
     * The OS may move the primary while weft starts: then again. */
    cpu_set_t one;
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 2;
    cfg.bind = 0;
    for (int attempt = 0;; attempt++) {
        c0 = sched_getcpu();
        CHECK(c0 >= 0 && CPU_ISSET(c0, &all));
        CPU_ZERO(&one);
        CPU_SET(c0, &one);
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
        CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
        CHECK_OK(weft_init(&cfg));
        if (sched_getcpu() == c0) break;
        CHECK_OK(weft_finalize());
        if (attempt == 20) {
            printf("settle: skipped (the OS moved the primary during every start)\n");
            return 77;
        }
    }
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0); /* the primary stays on c0 */
    pthread_t pt;
    CHECK(pthread_create(&pt, NULL, plain, NULL) == 0);
    CHECK(pthread_join(pt, NULL) == 0);
    int moved = 1;
    CHECK_OK(weft_xstream_settle(&moved)); /* at home: nothing to do */
    CHECK(moved == 0);

    weft_xstream x1;
    CHECK_OK(weft_xstream_get(1, &x1));
    int settled = 0, by_os = 0, neither = 0;
    uint64_t give_up = weft_time_ns() + 40000000000ull;
    while (!settled && weft_time_ns() < give_up) {
        run_beside(x1, doubled);
        if (outcome == 1 && cpu_after != c0) settled = 1;
        else if (outcome == 2) by_os++;
        else neither++;
    }
    if (!settled) printf("settle: never moved off c0 (the OS moved it %d times, %d doublings ended otherwise)\n", by_os, neither);
    CHECK(settled);

    /* Bound to c0, beside the primary: it stays. */
    CHECK_OK(weft_xstream_set_cpubind(x1, c0));
    run_beside(x1, bound);

    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    CHECK_OK(weft_finalize());
    CHECK_RC(weft_xstream_settle(NULL), WEFT_ERR_UNINIT);
    printf("settle: ok\n");
    return 0;
}
