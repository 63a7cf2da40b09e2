/* Migration: a ULT moves itself between streams, a waiting unit is moved
 * by another, joins stay correct while units move, and the units that may
 * not move are refused. */
#include "check.h"

#define HOPS 200
#define MOVERS 32

static weft_xstream g_xs[2];

struct mover { int hops_ok; long sum; };

/* Hop back and forth between the two streams; check where it lands. */
static void hopper(void *arg)
{
    struct mover *m = arg;
    weft_thread self;
    CHECK_OK(weft_self(&self));
    for (int i = 0; i < HOPS; i++) {
        weft_xstream to = g_xs[i % 2], now;
        CHECK_OK(weft_thread_migrate_to_xstream(self, to));
        CHECK_OK(weft_xstream_self(&now));
        if (now == to) m->hops_ok++;
        m->sum += i;
    }
}

static void where(void *arg) { CHECK_OK(weft_xstream_self((weft_xstream *)arg)); }

static int g_rc;
static void tasklet_moves_itself(void *arg)
{
    (void)arg;
    weft_thread self;
    CHECK_OK(weft_self(&self));
    g_rc = weft_thread_migrate_to_xstream(self, g_xs[1]);
}

static void stay_put(void *arg)
{
    int *moved = arg;
    weft_thread self;
    weft_xstream before, after;
    CHECK_OK(weft_self(&self));
    CHECK_OK(weft_xstream_self(&before));
    *moved = weft_thread_migrate_to_xstream(self, before == g_xs[0] ? g_xs[1] : g_xs[0]);
    CHECK_OK(weft_xstream_self(&after));
    CHECK(after == before);
}

static void hold_stream(void *arg)
{
    while (!__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE)) {
    }
}

int main(void)
{
    start_weft(2);
    CHECK_OK(weft_xstream_get(0, &g_xs[0]));
    CHECK_OK(weft_xstream_get(1, &g_xs[1]));
    weft_pool p0 = self_pool(), p1;
    int n;
    CHECK_OK(weft_xstream_get_pools(g_xs[1], 1, &p1, &n));

    /* Self-migration under load, joined by main while the units move. */
    struct mover m[MOVERS] = {{0}};
    weft_thread t[MOVERS];
    for (int i = 0; i < MOVERS; i++) CHECK_OK(weft_thread_create_to(g_xs[i % 2], hopper, &m[i], NULL, &t[i]));
    CHECK_OK(weft_thread_free_many(MOVERS, t));
    for (int i = 0; i < MOVERS; i++) {
        CHECK(m[i].hops_ok == HOPS);
        CHECK(m[i].sum == (long)HOPS * (HOPS - 1) / 2);
        CHECK(t[i] == NULL);
    }

    /* A unit waiting in our pool is moved to stream 1 before it runs. */
    weft_xstream seen = NULL;
    weft_thread w, tk;
    CHECK_OK(weft_thread_create(p0, where, &seen, NULL, &w));
    CHECK_OK(weft_thread_migrate(w, p1));
    CHECK_OK(weft_thread_free(&w));
    CHECK(seen == g_xs[1]);
    seen = NULL;
    CHECK_OK(weft_tasklet_create(p0, where, &seen, &tk)); /* a tasklet not yet run */
    CHECK_OK(weft_thread_migrate_to_xstream(tk, g_xs[1]));
    CHECK_OK(weft_thread_free(&tk));
    CHECK(seen == g_xs[1]);

    /* Refusals. */
    weft_thread me;
    CHECK_OK(weft_self(&me));
    CHECK_RC(weft_thread_migrate(me, p1), WEFT_ERR_STATE); /* the main ULT stays */
    CHECK_RC(weft_thread_migrate(NULL, p1), WEFT_ERR_HANDLE);
    CHECK_OK(weft_thread_create(p0, where, &seen, NULL, &w));
    CHECK_RC(weft_thread_migrate(w, NULL), WEFT_ERR_HANDLE);
    CHECK_OK(weft_thread_join(w));
    CHECK_RC(weft_thread_migrate(w, p1), WEFT_ERR_STATE); /* ended */
    CHECK_OK(weft_thread_free(&w));
    CHECK_OK(weft_tasklet_create(p0, tasklet_moves_itself, NULL, &tk));
    CHECK_OK(weft_thread_free(&tk));
    CHECK_RC(g_rc, WEFT_ERR_TASKLET_BLOCKS);
    weft_thread_attr attr;
    CHECK_OK(weft_thread_attr_init(&attr));
    attr.migratable = 0;
    int moved = -1;
    CHECK_OK(weft_thread_create(p0, stay_put, &moved, &attr, &w));
    CHECK_OK(weft_thread_free(&w));
    CHECK_RC(moved, WEFT_ERR_STATE);
    /* Waiting in stream 1's private pool: not ours to take. Stream 1 is held
     * (without yielding) so the unit is still waiting when we try. */
    int go = 0;
    weft_thread blocker, far;
    CHECK_OK(weft_thread_create(p1, hold_stream, &go, NULL, &blocker));
    CHECK_OK(weft_thread_create(p1, where, &seen, NULL, &far));
    CHECK_RC(weft_thread_migrate(far, p0), WEFT_ERR_POOL_ACCESS);
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    CHECK_OK(weft_thread_free(&far));
    CHECK_OK(weft_thread_free(&blocker));

    CHECK_OK(weft_finalize());
    printf("migrate: ok\n");
    return 0;
}
