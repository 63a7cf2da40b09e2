/* Pools: FIFO and LIFO order, private and shared access, push/pop/size,
 * the private-pool access rule, and freeing rules for pools and schedulers. */
#include <pthread.h>

#include "check.h"

static char g_order[16];
static int g_n;
static void mark(void *arg) { g_order[g_n++] = *(char *)arg; }

static void count(void *arg) { __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED); }

static int g_rc;
static weft_pool g_private;
static void pop_foreign(void *arg)
{
    (void)arg;
    weft_thread t;
    size_t n;
    g_rc = weft_pool_pop(g_private, &t) == WEFT_ERR_POOL_ACCESS &&
           weft_pool_size(g_private, &n) == WEFT_ERR_POOL_ACCESS;
}

static void order_test(weft_pool_kind kind, weft_pool_access access, const char *want)
{
    weft_pool p;
    weft_thread t[4];
    static const char tags[] = "abcd";
    CHECK_OK(weft_pool_create(kind, access, &p));
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_create(p, mark, (void *)&tags[i], NULL, &t[i]));
    size_t n;
    int empty;
    CHECK_OK(weft_pool_size(p, &n));
    CHECK(n == 4);
    CHECK_OK(weft_pool_is_empty(p, &empty));
    CHECK(!empty);
    /* Hand the whole pool to a new stream, one unit at a time through pop. */
    weft_sched s;
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    CHECK_RC(weft_pool_free(&p), WEFT_ERR_BUSY); /* listed by a scheduler */
    g_n = 0;
    weft_xstream xs;
    CHECK_OK(weft_xstream_create(s, &xs));
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_free(&t[i]));
    CHECK_OK(weft_xstream_free(&xs));
    CHECK(g_n == 4);
    for (int i = 0; i < 4; i++) CHECK(g_order[i] == want[i]);
    CHECK_OK(weft_pool_is_empty(p, &empty));
    CHECK(empty);
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&p));
    CHECK(p == NULL);
}

int main(void)
{
    start_weft(2);

    order_test(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, "abcd");
    order_test(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, "dcba");
    order_test(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, "abcd");
    order_test(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_MPMC, "dcba");

    /* Bad arguments. */
    weft_pool p;
    CHECK_RC(weft_pool_create((weft_pool_kind)9, WEFT_POOL_ACCESS_MPMC, &p), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_create(WEFT_POOL_FIFO, (weft_pool_access)9, &p), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, NULL), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_free(NULL), WEFT_ERR_INVALID);
    weft_sched s;
    CHECK_RC(weft_sched_create_basic(0, &p, &s), WEFT_ERR_INVALID);
    CHECK_RC(weft_sched_create_basic(17, &p, &s), WEFT_ERR_INVALID);

    /* One MPMC pool shared by two new streams: all units run, none twice. */
    weft_pool shared;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &shared));
    weft_sched s1, s2;
    CHECK_OK(weft_sched_create_basic(1, &shared, &s1));
    CHECK_OK(weft_sched_create_basic(1, &shared, &s2));
    weft_xstream x1, x2;
    CHECK_OK(weft_xstream_create(s1, &x1));
    CHECK_RC(weft_xstream_create(s1, &x2), WEFT_ERR_BUSY); /* s1 is taken */
    CHECK_OK(weft_xstream_create(s2, &x2));
    int counter = 0;
    for (int i = 0; i < 2000; i++) CHECK_OK(weft_tasklet_create(shared, count, &counter, NULL));
    CHECK_OK(weft_xstream_free(&x1));
    CHECK_OK(weft_xstream_free(&x2));
    CHECK(counter == 2000);
    CHECK_OK(weft_sched_free(&s1));
    CHECK_OK(weft_sched_free(&s2));

    /* Push and pop by hand; a unit in a pool cannot be pushed twice. */
    weft_thread t, got;
    g_n = 0;
    char c = 'z';
    CHECK_OK(weft_thread_create(shared, mark, &c, NULL, &t));
    CHECK_RC(weft_pool_push(shared, t), WEFT_ERR_STATE);
    CHECK_RC(weft_pool_free(&shared), WEFT_ERR_BUSY); /* not empty */
    CHECK_OK(weft_pool_pop(shared, &got));
    CHECK(got == t);
    CHECK_OK(weft_pool_pop(shared, &got));
    CHECK(got == NULL);
    weft_xstream me;
    weft_pool mine;
    int n;
    CHECK_OK(weft_xstream_self(&me));
    CHECK_OK(weft_xstream_get_pools(me, 1, &mine, &n));
    CHECK_OK(weft_pool_push(mine, t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_n == 1);
    CHECK_OK(weft_pool_free(&shared));

    /* A private pool belongs to its stream: another stream may not pop it. */
    weft_xstream other;
    CHECK_OK(weft_xstream_get(1, &other));
    CHECK_OK(weft_xstream_get_pools(other, 1, &g_private, &n));
    weft_thread probe;
    g_rc = 0;
    CHECK_OK(weft_thread_create(mine, pop_foreign, NULL, NULL, &probe));
    CHECK_OK(weft_thread_free(&probe));
    CHECK(g_rc == 1);
    weft_thread popped;
    CHECK_RC(weft_pool_pop(g_private, &popped), WEFT_ERR_POOL_ACCESS);
    /* ...but creating into it from here is allowed (it goes through the inbox). */
    counter = 0;
    for (int i = 0; i < 100; i++) CHECK_OK(weft_thread_create(g_private, count, &counter, NULL, NULL));
    CHECK_RC(weft_pool_free(&g_private), WEFT_ERR_BUSY); /* runtime-owned */
    CHECK_RC(weft_sched_free(&s1), WEFT_ERR_HANDLE);    /* freed: NULL */

    /* A pool listed by a scheduler that no stream runs yet is not freed:
     * the stream created later would schedule a dead pool. */
    weft_pool listed;
    weft_sched later;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &listed));
    CHECK_OK(weft_sched_create_basic(1, &listed, &later));
    CHECK_RC(weft_pool_free(&listed), WEFT_ERR_BUSY);
    CHECK_OK(weft_sched_free(&later));
    CHECK_OK(weft_pool_free(&listed));

    CHECK_OK(weft_finalize());
    CHECK(counter == 100);
    printf("pool: ok\n");
    return 0;
}
