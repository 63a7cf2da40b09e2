/* Units that may not move: the main ULT always runs on the primary stream,
 * and a non-migratable ULT stays on the stream that first ran it, even when
 * their pool is shared by several streams. */
#include "check.h"

static weft_xstream g_prim;

struct rec { weft_xstream first; int moved; };

static void stay(void *arg)
{
    struct rec *r = arg;
    CHECK_OK(weft_xstream_self(&r->first));
    for (int i = 0; i < 2000; i++) {
        weft_xstream now;
        CHECK_OK(weft_yield());
        CHECK_OK(weft_xstream_self(&now));
        if (now != r->first) r->moved = 1;
    }
}

static void busy(void *arg)
{
    for (int i = 0; i < 2000; i++) weft_yield();
    (void)arg;
}

int main(void)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.pool_access = WEFT_POOL_ACCESS_MPMC;
    CHECK_OK(weft_init(&cfg));
    CHECK_OK(weft_xstream_self(&g_prim));
    weft_pool shared;
    int n;
    CHECK_OK(weft_xstream_get_pools(g_prim, 1, &shared, &n));
    /* Two more streams serve the primary's (shared) pool. */
    weft_sched s1, s2;
    weft_xstream x1, x2;
    CHECK_OK(weft_sched_create_basic(1, &shared, &s1));
    CHECK_OK(weft_sched_create_basic(1, &shared, &s2));
    CHECK_OK(weft_xstream_create(s1, &x1));
    CHECK_OK(weft_xstream_create(s2, &x2));

    weft_thread_attr attr;
    CHECK_OK(weft_thread_attr_init(&attr));
    attr.migratable = 0;
    struct rec r[4] = {{0}};
    weft_thread t[8];
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_create(shared, stay, &r[i], &attr, &t[i]));
    for (int i = 4; i < 8; i++) CHECK_OK(weft_thread_create(shared, busy, NULL, NULL, &t[i]));
    for (int i = 0; i < 3000; i++) {
        weft_xstream now;
        CHECK_OK(weft_yield());
        CHECK_OK(weft_xstream_self(&now));
        CHECK(now == g_prim);
    }
    for (int i = 0; i < 8; i++) CHECK_OK(weft_thread_free(&t[i]));
    for (int i = 0; i < 4; i++) CHECK(!r[i].moved);
    CHECK_OK(weft_xstream_free(&x1));
    CHECK_OK(weft_xstream_free(&x2));
    CHECK_OK(weft_sched_free(&s1));
    CHECK_OK(weft_sched_free(&s2));
    CHECK_OK(weft_finalize());
    printf("bound: ok\n");
    return 0;
}
