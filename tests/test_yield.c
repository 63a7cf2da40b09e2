/* Yield order between ULTs of one stream, yield-to, and their errors. */
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
