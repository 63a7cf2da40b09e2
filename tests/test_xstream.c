#define _GNU_SOURCE
/* Execution streams at run time: create, rank, count, self, binding,
 * scheduler replacement, join and free, and their errors. */
#include <pthread.h>
#include <sched.h>

#include "check.h"

static void where(void *arg)
{
    weft_xstream *out = arg;
    CHECK_OK(weft_xstream_self(out));
}

static void count(void *arg) { __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED); }

static void on_cpu(void *arg) { *(int *)arg = sched_getcpu(); }

static int g_rc;
static weft_xstream g_target;
static void join_own_stream(void *arg)
{
    (void)arg;
    g_rc = weft_xstream_join(g_target);
}

/* Runs on a stream and swaps that stream's scheduler for one over two new
 * pools; the old default pool is empty, so the swap is allowed. */
static weft_pool g_new[2];
static weft_sched g_new_sched;
static void swap_sched(void *arg)
{
    (void)arg;
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    g_rc = weft_xstream_set_main_sched(xs, g_new_sched);
}

static void *plain_thread(void *arg)
{
    weft_xstream xs;
    *(int *)arg = weft_xstream_self(&xs);
    return NULL;
}

int main(void)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.bind = 0;
    CHECK_OK(weft_init(&cfg));
    int n, rank;
    weft_xstream prim, a, b, seen = NULL;
    CHECK_OK(weft_xstream_self(&prim));
    CHECK_OK(weft_xstream_rank(prim, &rank));
    CHECK(rank == 0);

    /* Create two, check ranks and where their units run. */
    CHECK_OK(weft_xstream_create(NULL, &a));
    CHECK_OK(weft_xstream_create(NULL, &b));
    CHECK_OK(weft_xstream_count(&n));
    CHECK(n == 3);
    CHECK_OK(weft_xstream_rank(b, &rank));
    CHECK(rank == 2);
    weft_xstream got;
    CHECK_OK(weft_xstream_get(1, &got));
    CHECK(got == a);
    CHECK_RC(weft_xstream_get(7, &got), WEFT_ERR_INVALID);
    weft_thread t;
    CHECK_OK(weft_thread_create_to(b, where, &seen, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(seen == b);

    /* Binding. */
    int cpu = 5;
    CHECK_OK(weft_xstream_get_cpubind(a, &cpu));
    CHECK(cpu == -1);
    CHECK_OK(weft_xstream_set_cpubind(a, 0));
    CHECK_OK(weft_xstream_get_cpubind(a, &cpu));
    CHECK(cpu == 0);
    int ran_on = -1;
    CHECK_OK(weft_thread_create_to(a, on_cpu, &ran_on, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(ran_on == 0);
    CHECK_RC(weft_xstream_set_cpubind(a, 1 << 20), WEFT_ERR_INVALID);
    CHECK_RC(weft_xstream_set_cpubind(a, -7), WEFT_ERR_INVALID);
    CHECK_OK(weft_xstream_set_cpubind(a, -1));

    /* Errors of join/free. */
    CHECK_RC(weft_xstream_join(prim), WEFT_ERR_PRIMARY);
    CHECK_RC(weft_xstream_join(NULL), WEFT_ERR_HANDLE);
    g_target = a;
    CHECK_OK(weft_thread_create_to(a, join_own_stream, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(g_rc, WEFT_ERR_CROSS_STREAM);
    int prc = 0;
    pthread_t th;
    pthread_create(&th, NULL, plain_thread, &prc);
    pthread_join(th, NULL);
    CHECK_RC(prc, WEFT_ERR_NOT_WEFT);

    /* Replace a stream's scheduler at run time, from that stream. */
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_new[0]));
    CHECK_OK(weft_pool_create(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_MPMC, &g_new[1]));
    CHECK_OK(weft_sched_create_basic(2, g_new, &g_new_sched));
    CHECK_RC(weft_xstream_set_main_sched(b, g_new_sched), WEFT_ERR_CROSS_STREAM);
    CHECK_OK(weft_thread_create_to(b, swap_sched, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(g_rc);
    int counter = 0;
    for (int i = 0; i < 100; i++) CHECK_OK(weft_tasklet_create(g_new[i % 2], count, &counter, NULL));
    CHECK_OK(weft_thread_create(g_new[1], where, &seen, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(seen == b);
    CHECK_OK(weft_thread_create_to(b, count, &counter, NULL, &t)); /* first pool now g_new[0] */
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(weft_sched_free(&g_new_sched), WEFT_ERR_BUSY);

    /* Join runs everything first; free makes the handle stale. */
    CHECK_OK(weft_xstream_free(&b));
    CHECK(counter == 101);
    CHECK(b == NULL);
    CHECK_OK(weft_xstream_join(a));
    CHECK_OK(weft_xstream_join(a)); /* joining again is harmless */
    weft_xstream stale = a;
    CHECK_OK(weft_xstream_free(&a));
    CHECK_RC(weft_xstream_rank(stale, &rank), WEFT_ERR_HANDLE);
    CHECK_RC(weft_xstream_free(&stale), WEFT_ERR_HANDLE);
    CHECK_OK(weft_xstream_count(&n));
    CHECK(n == 1);
    CHECK_OK(weft_sched_free(&g_new_sched));
    CHECK_OK(weft_pool_free(&g_new[0]));
    CHECK_OK(weft_pool_free(&g_new[1]));

    /* A new stream takes the lowest free rank. */
    CHECK_OK(weft_xstream_create(NULL, &a));
    CHECK_OK(weft_xstream_rank(a, &rank));
    CHECK(rank == 1);
    /* finalize stops the streams left running */
    /* Handles of other kinds, the smallest objects weft hands out: refused
     * by their first word, never read past (ASan checks the reads). */
    weft_mutex mx;
    weft_key key;
    weft_eventual ev;
    CHECK_OK(weft_mutex_create(NULL, &mx));
    CHECK_OK(weft_key_create(NULL, &key));
    CHECK_OK(weft_eventual_create(0, &ev));
    void *others[3] = {mx, key, ev};
    for (int i = 0; i < 3; i++) {
        int r, cpu;
        weft_pool pl;
        weft_sched sc;
        CHECK_RC(weft_xstream_rank((weft_xstream)others[i], &r), WEFT_ERR_HANDLE);
        CHECK_RC(weft_xstream_get_cpubind((weft_xstream)others[i], &cpu), WEFT_ERR_HANDLE);
        CHECK_RC(weft_xstream_join((weft_xstream)others[i]), WEFT_ERR_HANDLE);
        CHECK_RC(weft_xstream_get_main_sched((weft_xstream)others[i], &sc), WEFT_ERR_HANDLE);
        CHECK_RC(weft_thread_join((weft_thread)others[i]), WEFT_ERR_HANDLE);
        CHECK_RC(weft_yield_to((weft_thread)others[i]), WEFT_ERR_HANDLE);
        CHECK_RC(weft_pool_size((weft_pool)others[i], &(size_t){0}), WEFT_ERR_HANDLE);
        CHECK_RC(weft_sched_get_pools((weft_sched)others[i], 1, &pl, &r), WEFT_ERR_HANDLE);
    }
    CHECK_RC(weft_mutex_lock((weft_mutex)key), WEFT_ERR_HANDLE);
    CHECK_OK(weft_mutex_free(&mx));
    CHECK_OK(weft_key_free(&key));
    CHECK_OK(weft_eventual_free(&ev));

    CHECK_OK(weft_finalize());
    printf("xstream: ok\n");
    return 0;
}
