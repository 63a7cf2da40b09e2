/* Random work stealing: an imbalanced load (everything in one stream's pool)
 * is shared by the other stream; every unit runs exactly once. */
#include <time.h>

#include "check.h"

#define UNITS 4000

static weft_xstream g_x[2];
static int g_ran[UNITS];
static int g_by[2];

static void busy_us(int us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
}

static void work(void *arg)
{
    long i = (long)(intptr_t)arg;
    weft_xstream me;
    CHECK_OK(weft_xstream_self(&me));
    __atomic_fetch_add(&g_ran[i], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&g_by[me == g_x[1]], 1, __ATOMIC_RELAXED);
    busy_us(5);
}

static void work_yield(void *arg)
{
    work(arg);
    CHECK_OK(weft_yield()); /* a stolen ULT goes back to its own pool */
}

int main(void)
{
    start_weft(1);
    weft_pool p[2], rev[2];
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p[0]));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p[1]));
    rev[0] = p[1];
    rev[1] = p[0];
    weft_sched s[2];
    CHECK_OK(weft_sched_create_randws(2, p, &s[0]));
    CHECK_OK(weft_sched_create_randws(2, rev, &s[1]));
    weft_sched bad;
    CHECK_RC(weft_sched_create_randws(0, p, &bad), WEFT_ERR_INVALID);
    CHECK(bad == NULL);
    CHECK_OK(weft_xstream_create(s[0], &g_x[0]));
    CHECK_OK(weft_xstream_create(s[1], &g_x[1]));

    weft_thread *t = calloc(UNITS, sizeof *t);
    for (long i = 0; i < UNITS; i++) {
        void *a = (void *)(intptr_t)i;
        if (i % 2) CHECK_OK(weft_tasklet_create(p[0], work, a, &t[i]));
        else CHECK_OK(weft_thread_create(p[0], work_yield, a, NULL, &t[i]));
    }
    CHECK_OK(weft_thread_free_many(UNITS, t));
    for (int i = 0; i < UNITS; i++) CHECK(g_ran[i] == 1);
    printf("steal: stream A ran %d units, stream B (thief) ran %d\n", g_by[0], g_by[1]);
    CHECK(g_by[0] + g_by[1] == UNITS);
    CHECK(g_by[1] > 0);

    /* A private pool cannot be a steal target shared by two schedulers. */
    weft_pool priv, pair[2];
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &priv));
    pair[0] = priv;
    pair[1] = p[0];
    weft_sched ps[2];
    weft_xstream px;
    CHECK_OK(weft_sched_create_randws(2, pair, &ps[0]));
    CHECK_OK(weft_sched_create_randws(1, &priv, &ps[1]));
    CHECK_OK(weft_xstream_create(ps[0], &px));
    weft_xstream nope;
    CHECK_RC(weft_xstream_create(ps[1], &nope), WEFT_ERR_POOL_ACCESS);
    CHECK_OK(weft_xstream_free(&px));

    for (int i = 0; i < 2; i++) CHECK_OK(weft_xstream_free(&g_x[i]));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_sched_free(&s[i]));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_sched_free(&ps[i]));
    CHECK_OK(weft_pool_free(&priv));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_pool_free(&p[i]));
    free(t);
    CHECK_OK(weft_finalize());
    printf("steal: ok\n");
    return 0;
}
