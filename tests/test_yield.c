/* Yield order between ULTs of one stream, yield-to, and their errors. */
#include <stdatomic.h>
#include <string.h>

#include "check.h"

#define ROUNDS 50

static char g_log[4 * ROUNDS + 16];
static int g_len;

struct pp { char tag; };

static void ping(void *arg)
{
    struct pp *p = arg;
    for (int i = 0; i < ROUNDS; i++) {
        g_log[g_len++] = p->tag;
        CHECK_OK(weft_yield());
    }
}

static weft_thread g_b;
static void mark(void *arg) { g_log[g_len++] = *(char *)arg; }

static void yielder_to_b(void *arg)
{
    (void)arg;
    g_log[g_len++] = 'A';
    CHECK_OK(weft_yield_to(g_b)); /* B runs now, ahead of C */
    g_log[g_len++] = 'a';
}

/* Yield-to between started ULTs of one stream (its fast path): the
 * yielder goes back into its pool where a yield would put it, whether that
 * pool is the target's own private list or another pool of the stream. */
static weft_pool g_p1, g_p2;
static weft_thread g_wb, g_wc, g_wa;
static _Atomic int g_flag;
static size_t g_size_seen;
static weft_thread_state g_a_state;
static weft_eventual g_a_done;

static void w_b(void *arg)
{
    weft_pool seen = arg;
    g_log[g_len++] = 'b';
    while (!atomic_load(&g_flag)) CHECK_OK(weft_yield());
    g_log[g_len++] = 'B';
    CHECK_OK(weft_pool_size(seen, &g_size_seen));
    CHECK_OK(weft_thread_get_state(g_wa, &g_a_state));
}

static void w_c(void *arg)
{
    (void)arg;
    g_log[g_len++] = 'c';
    CHECK_OK(weft_yield());
    g_log[g_len++] = 'C';
}

static void w_a(void *arg)
{
    (void)arg;
    g_log[g_len++] = 'a';
    atomic_store(&g_flag, 1);
    CHECK_OK(weft_yield_to(g_wb));
    g_log[g_len++] = 'x';
    CHECK_OK(weft_eventual_set(g_a_done, NULL, 0));
}

/* On a stream of its own: B, C, A in its private FIFO pool, or A alone
 * in its second pool (MPMC) when `a_elsewhere`. */
static void yield_to_driver(void *arg)
{
    int a_elsewhere = *(int *)arg;
    atomic_store(&g_flag, 0);
    g_len = 0;
    CHECK_OK(weft_thread_create(g_p1, w_b, a_elsewhere ? g_p2 : g_p1, NULL, &g_wb));
    if (!a_elsewhere) CHECK_OK(weft_thread_create(g_p1, w_c, NULL, NULL, &g_wc));
    else CHECK_OK(weft_yield()); /* B starts before A: the scheduler takes the pools in turn */
    CHECK_OK(weft_thread_create(a_elsewhere ? g_p2 : g_p1, w_a, NULL, NULL, &g_wa));
    /* Blocked, out of the pools (a join would run A out of turn): they
     * run in pool order. */
    CHECK_OK(weft_eventual_wait(g_a_done, NULL));
    CHECK_OK(weft_thread_free(&g_wa));
    CHECK_OK(weft_thread_free(&g_wb));
    if (!a_elsewhere) CHECK_OK(weft_thread_free(&g_wc));
}

static void check_yield_to_started(void)
{
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &g_p1));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_p2));
    weft_pool both[2] = {g_p1, g_p2};
    weft_sched s;
    CHECK_OK(weft_sched_create_basic(2, both, &s));
    weft_xstream x;
    CHECK_OK(weft_xstream_create(s, &x));
    for (int a_elsewhere = 0; a_elsewhere < 2; a_elsewhere++) {
        CHECK_OK(weft_eventual_create(0, &g_a_done));
        weft_thread d;
        CHECK_OK(weft_thread_create(g_p1, yield_to_driver, &a_elsewhere, NULL, &d));
        CHECK_OK(weft_thread_free(&d));
        /* A waits in its pool, ready, while B runs; it resumes after B
         * (and, in the shared list, after C, which was ahead of it). */
        CHECK(g_a_state == WEFT_STATE_READY);
        if (!a_elsewhere) {
            CHECK(g_len == 6 && memcmp(g_log, "bcaBCx", 6) == 0);
            CHECK(g_size_seen == 2); /* C, then A */
        } else {
            CHECK(g_len == 4 && memcmp(g_log, "baBx", 4) == 0);
            CHECK(g_size_seen == 1); /* A, back in its MPMC pool */
        }
        CHECK_OK(weft_eventual_free(&g_a_done));
    }
    CHECK_OK(weft_xstream_free(&x));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&g_p1));
    CHECK_OK(weft_pool_free(&g_p2));
}

/* Yield-to the head of the yielder's own private pool (the swap of the
 * fast path): the order afterwards is the one a pop of the target and a
 * push of the yielder give, in FIFO and LIFO pools, with the target alone
 * in the pool or not. Each unit logs its lower-case letter, yields to the
 * unit of index sw_target[i] (or plainly, -1), logs its capital, ends. */
static weft_thread g_sw[3];
static int g_sw_target[3], g_sw_n, g_sw_ended;
static weft_eventual g_sw_done;

static void swapper(void *arg)
{
    int i = (int)(intptr_t)arg;
    g_log[g_len++] = (char)('x' + i);
    if (g_sw_target[i] < 0) CHECK_OK(weft_yield());
    else CHECK_OK(weft_yield_to(g_sw[g_sw_target[i]]));
    g_log[g_len++] = (char)('X' + i);
    if (++g_sw_ended == g_sw_n) CHECK_OK(weft_eventual_set(g_sw_done, NULL, 0));
}

static void swap_driver(void *arg)
{
    weft_pool p = arg;
    for (int i = 0; i < g_sw_n; i++)
        CHECK_OK(weft_thread_create(p, swapper, (void *)(intptr_t)i, NULL, &g_sw[i]));
    CHECK_OK(weft_eventual_wait(g_sw_done, NULL)); /* out of the pool: they run in pool order */
    size_t left = 1;
    CHECK_OK(weft_pool_size(p, &left));
    CHECK(left == 0);
    for (int i = 0; i < g_sw_n; i++) CHECK_OK(weft_thread_free(&g_sw[i]));
}

static void check_yield_to_swap(weft_pool_kind kind, int n, const int *targets, const char *expect)
{
    weft_pool p;
    CHECK_OK(weft_pool_create(kind, WEFT_POOL_ACCESS_PRIVATE, &p));
    weft_sched s;
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    weft_xstream x;
    CHECK_OK(weft_xstream_create(s, &x));
    CHECK_OK(weft_eventual_create(0, &g_sw_done));
    g_len = 0;
    g_sw_n = n;
    g_sw_ended = 0;
    memcpy(g_sw_target, targets, (size_t)n * sizeof *targets);
    weft_thread d;
    CHECK_OK(weft_thread_create(p, swap_driver, p, NULL, &d));
    CHECK_OK(weft_thread_free(&d));
    if (g_len != 2 * n || memcmp(g_log, expect, (size_t)(2 * n)) != 0)
        printf("yield_to swap (%s, %d units): %.*s, expected %s\n", kind == WEFT_POOL_LIFO ? "LIFO" : "FIFO", n,
               g_len, g_log, expect);
    CHECK(g_len == 2 * n && memcmp(g_log, expect, (size_t)(2 * n)) == 0);
    CHECK_OK(weft_eventual_free(&g_sw_done));
    CHECK_OK(weft_xstream_free(&x));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&p));
}

int main(void)
{
    start_weft(2);
    weft_xstream xs, other;
    weft_pool pool, other_pool;
    int n;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &pool, &n));
    CHECK_OK(weft_xstream_get(1, &other));
    CHECK_OK(weft_xstream_get_pools(other, 1, &other_pool, &n));

    /* Ping-pong: two ULTs on one FIFO pool alternate strictly. */
    struct pp a = {'x'}, b = {'y'};
    weft_thread ta, tb;
    CHECK_OK(weft_thread_create(pool, ping, &a, NULL, &ta));
    CHECK_OK(weft_thread_create(pool, ping, &b, NULL, &tb));
    CHECK_OK(weft_thread_join(ta));
    CHECK_OK(weft_thread_join(tb));
    CHECK(g_len == 2 * ROUNDS);
    for (int i = 0; i < 2 * ROUNDS; i++) CHECK(g_log[i] == (i % 2 ? 'y' : 'x'));
    CHECK_OK(weft_thread_free(&ta));
    CHECK_OK(weft_thread_free(&tb));

    /* Yield from the main ULT lets queued units run. */
    g_len = 0;
    char m = 'm';
    weft_thread tm;
    CHECK_OK(weft_thread_create(pool, mark, &m, NULL, &tm));
    CHECK_OK(weft_yield());
    CHECK(g_len == 1 && g_log[0] == 'm');
    CHECK_OK(weft_thread_free(&tm));

    /* Yield-to jumps the queue: A, B, C, a. */
    g_len = 0;
    char cb = 'B', cc = 'C';
    weft_thread t_a, t_c;
    CHECK_OK(weft_thread_create(pool, yielder_to_b, NULL, NULL, &t_a));
    CHECK_OK(weft_thread_create(pool, mark, &cc, NULL, &t_c));
    CHECK_OK(weft_thread_create(pool, mark, &cb, NULL, &g_b));
    CHECK_OK(weft_thread_join(t_a));
    CHECK_OK(weft_thread_join(t_c));
    CHECK_OK(weft_thread_join(g_b));
    CHECK(g_len == 4);
    CHECK(memcmp(g_log, "ABCa", 4) == 0);
    CHECK_OK(weft_thread_free(&t_a));
    CHECK_OK(weft_thread_free(&t_c));
    CHECK_OK(weft_thread_free(&g_b));

    /* Yield-to errors. */
    weft_thread me, done, tk;
    CHECK_OK(weft_self(&me));
    CHECK_RC(weft_yield_to(me), WEFT_ERR_INVALID);
    CHECK_RC(weft_yield_to(NULL), WEFT_ERR_HANDLE);
    CHECK_OK(weft_thread_create(pool, mark, &cc, NULL, &done));
    CHECK_OK(weft_thread_join(done));
    CHECK_RC(weft_yield_to(done), WEFT_ERR_STATE); /* finished: not in a pool */
    CHECK_OK(weft_thread_free(&done));
    CHECK_RC(weft_yield_to(done), WEFT_ERR_HANDLE); /* freed: NULL now */
    CHECK_OK(weft_tasklet_create(pool, mark, &cc, &tk));
    CHECK_RC(weft_yield_to(tk), WEFT_ERR_STATE); /* tasklets have no context */
    CHECK_OK(weft_thread_free(&tk));
    /* A unit waiting on another stream's pool: refused, and not lost. */
    weft_pool spare;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &spare));
    weft_thread far;
    CHECK_OK(weft_thread_create(spare, mark, &cc, NULL, &far));
    CHECK_RC(weft_yield_to(far), WEFT_ERR_CROSS_STREAM);
    check_yield_to_started();
    check_yield_to_swap(WEFT_POOL_FIFO, 3, (const int[]){1, -1, 0}, "xyzXYZ");
    check_yield_to_swap(WEFT_POOL_FIFO, 2, (const int[]){1, 0}, "xyXY");
    check_yield_to_swap(WEFT_POOL_LIFO, 2, (const int[]){1, 0}, "yxYX");
    check_yield_to_swap(WEFT_POOL_LIFO, 3, (const int[]){-1, 2, 1}, "zyZYxX");

    weft_thread popped;
    CHECK_OK(weft_pool_pop(spare, &popped));
    CHECK(popped == far);
    CHECK_OK(weft_pool_push(pool, far)); /* give it to our stream instead */
    CHECK_OK(weft_thread_free(&far));
    CHECK_OK(weft_pool_free(&spare));

    CHECK_OK(weft_finalize());
    printf("yield: ok\n");
    return 0;
}
