/* The core's internal structures on their own, without a running runtime:
 * driven through their internal calls by plain threads standing in for
 * streams (zeroed stream structures), so a broken structure fails here by
 * name instead of as a lost unit somewhere in a scheduler.
 *   deque    Chase-Lev deque: an owner pushes and pops at the bottom while
 *            thieves steal at the top, across ring growth; every unit comes
 *            out exactly once.
 *   inbox    a stream's inbox: producers push concurrently, the owner
 *            drains into its private pool; every unit arrives once, each
 *            producer's in its push order; a closed inbox refuses.
 *   slabs    descriptor slabs: distinct, aligned, readable handles owned by
 *            their stream; recycled on the stream that frees them; freed on
 *            another stream, sent back to their owner in a batch.
 *   timers   a stream's timers fire in deadline order, only when due, and a
 *            disarmed one never fires.
 * Each concurrent case repeats: races show up by repetition. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "mem_cache.h"
#include "pool_ops.h"

static struct weft_xstream_s *fake_stream(void)
{
    struct weft_xstream_s *xs = aligned_alloc(CACHE_LINE, sizeof *xs);
    CHECK(xs != NULL);
    memset(xs, 0, sizeof *xs);
    xs->cpu = -1;
    return xs;
}

/* Units made by hand, ready, in no pool; `arg` carries their index. */
static struct weft_unit_s *fake_units(size_t n)
{
    struct weft_unit_s *u = aligned_alloc(CACHE_LINE, n * sizeof *u);
    CHECK(u != NULL);
    memset(u, 0, n * sizeof *u);
    for (size_t i = 0; i < n; i++) {
        atomic_store(&u[i].state, WEFT_STATE_READY);
        u[i].arg = (void *)(uintptr_t)i;
    }
    return u;
}

/* ---------- deque ---------- */

#define DQ_UNITS 60000
#define DQ_THIEVES 2

static struct weft_pool_s *g_dq;
static struct weft_xstream_s *g_dq_owner;
static struct weft_unit_s *g_dq_units;
static _Atomic int g_dq_seen[DQ_UNITS];
static _Atomic long g_dq_taken;
static _Atomic int g_dq_done;

static void dq_got(struct weft_unit_s *u)
{
    size_t i = (size_t)(uintptr_t)u->arg;
    CHECK(u >= g_dq_units && u < g_dq_units + DQ_UNITS && &g_dq_units[i] == u);
    CHECK(atomic_fetch_add(&g_dq_seen[i], 1) == 0); /* once */
    atomic_fetch_add(&g_dq_taken, 1);
}

static void *dq_thief(void *arg)
{
    struct weft_xstream_s *me = arg;
    while (!atomic_load(&g_dq_done) || atomic_load(&g_dq_taken) < DQ_UNITS) {
        struct weft_unit_s *u = pool_pop_shared(g_dq, me);
        if (u) dq_got(u);
        else if (atomic_load(&g_dq_taken) >= DQ_UNITS) break;
    }
    return NULL;
}

static void test_deque(void)
{
    for (int round = 0; round < 20; round++) {
        weft_pool p;
        CHECK_OK(weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_SPMC, &p));
        g_dq = p;
        CHECK(g_dq->impl == IMPL_DEQUE);
        g_dq_owner = fake_stream();
        pool_own(g_dq, g_dq_owner);
        g_dq_units = fake_units(DQ_UNITS);
        for (int i = 0; i < DQ_UNITS; i++) atomic_store(&g_dq_seen[i], 0);
        atomic_store(&g_dq_taken, 0);
        atomic_store(&g_dq_done, 0);
        struct weft_xstream_s *thief[DQ_THIEVES];
        pthread_t th[DQ_THIEVES];
        for (int t = 0; t < DQ_THIEVES; t++) {
            thief[t] = fake_stream();
            CHECK(pthread_create(&th[t], NULL, dq_thief, thief[t]) == 0);
        }
        /* The owner pushes in bursts (the ring grows from its first size)
         * and takes some back itself. */
        for (int i = 0; i < DQ_UNITS; i++) {
            pool_push_shared(g_dq, &g_dq_units[i], g_dq_owner);
            if (i % 7 == 0) {
                struct weft_unit_s *u = pool_pop_shared(g_dq, g_dq_owner);
                if (u) dq_got(u);
            }
        }
        atomic_store(&g_dq_done, 1);
        while (atomic_load(&g_dq_taken) < DQ_UNITS) {
            struct weft_unit_s *u = pool_pop_shared(g_dq, g_dq_owner);
            if (u) dq_got(u);
        }
        for (int t = 0; t < DQ_THIEVES; t++) CHECK(pthread_join(th[t], NULL) == 0);
        CHECK(atomic_load(&g_dq_taken) == DQ_UNITS);
        CHECK(pool_pop_shared(g_dq, g_dq_owner) == NULL);
        CHECK(pool_count(g_dq) == 0);
        pool_own(g_dq, NULL);
        CHECK_OK(weft_pool_free(&p));
        for (int t = 0; t < DQ_THIEVES; t++) free(thief[t]);
        free(g_dq_owner);
        free(g_dq_units);
    }
    printf("internal: deque ok\n");
}

/* ---------- inbox ---------- */

#define IB_PRODUCERS 3
#define IB_PER 40000

static struct weft_xstream_s *g_ib_xs;
static struct weft_unit_s *g_ib_units;

static void *ib_producer(void *arg)
{
    size_t k = (size_t)(uintptr_t)arg;
    for (size_t i = 0; i < IB_PER; i++) CHECK(inbox_push(g_ib_xs, &g_ib_units[k * IB_PER + i]));
    return NULL;
}

static void test_inbox(void)
{
    for (int round = 0; round < 10; round++) {
        weft_pool p;
        CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
        g_ib_xs = fake_stream();
        pool_own(p, g_ib_xs);
        WEFT_TLS(weft_tls_xs) = g_ib_xs; /* this thread stands in for the owner stream */
        size_t n = IB_PRODUCERS * IB_PER;
        g_ib_units = fake_units(n);
        for (size_t i = 0; i < n; i++) g_ib_units[i].pool = p;
        pthread_t th[IB_PRODUCERS];
        for (int k = 0; k < IB_PRODUCERS; k++)
            CHECK(pthread_create(&th[k], NULL, ib_producer, (void *)(uintptr_t)k) == 0);
        size_t got = 0, next[IB_PRODUCERS] = {0};
        while (got < n) {
            inbox_drain(g_ib_xs);
            struct weft_unit_s *u;
            while ((u = pool_pop_unit(p, g_ib_xs)) != NULL) {
                size_t i = (size_t)(uintptr_t)u->arg, k = i / IB_PER;
                CHECK(k < IB_PRODUCERS && i % IB_PER == next[k]); /* once, and in its producer's order */
                next[k]++;
                got++;
            }
        }
        for (int k = 0; k < IB_PRODUCERS; k++) CHECK(pthread_join(th[k], NULL) == 0);
        CHECK(atomic_load(&g_ib_xs->inbox) == NULL);
        /* A stream that ended closes its inbox: pushes are refused. */
        atomic_store(&g_ib_xs->inbox, INBOX_CLOSED);
        CHECK(!inbox_push(g_ib_xs, &g_ib_units[0]));
        pool_own(p, NULL);
        WEFT_TLS(weft_tls_xs) = NULL;
        CHECK_OK(weft_pool_free(&p));
        free(g_ib_units);
        free(g_ib_xs);
    }
    printf("internal: inbox ok\n");
}

/* ---------- slabs ---------- */

#define SL_UNITS 3000

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return (x > y) - (x < y);
}

static void test_slabs(void)
{
    struct weft_xstream_s *a = fake_stream(), *b = fake_stream();
    static struct weft_unit_s *u[SL_UNITS], *sorted[SL_UNITS];
    for (int i = 0; i < SL_UNITS; i++) {
        u[i] = mem_unit_alloc(a);
        CHECK(u[i] != NULL);
        CHECK(((uintptr_t)u[i] & (CACHE_LINE - 1)) == 0);
        CHECK(handle_ok(u[i])); /* a handle check accepts it without reading it */
        CHECK((atomic_load(&slab_of(u[i])->owner) & ~SLAB_EXPORTED) == (uintptr_t)a);
        atomic_store(&u[i]->magic, MAGIC_UNIT);
    }
    memcpy(sorted, u, sizeof u);
    qsort(sorted, SL_UNITS, sizeof *sorted, cmp_ptr);
    for (int i = 1; i < SL_UNITS; i++) CHECK((char *)sorted[i] >= (char *)sorted[i - 1] + sizeof **sorted); /* distinct */

    /* Freed on their own stream: the next allocations take them back. */
    for (int i = 0; i < 100; i++) mem_unit_release(a, u[i]);
    CHECK(atomic_load(&u[0]->magic) == MAGIC_DEAD);
    for (int i = 99; i >= 0; i--) CHECK(mem_unit_alloc(a) == u[i]);

    /* Freed on another stream: batched, then sent back to their owner,
     * whose slow path takes them once its cache is empty. */
    CHECK(atomic_load(&a->returned) == NULL);
    for (int i = 0; i < 64; i++) mem_unit_release(b, u[i]);
    CHECK(atomic_load(&a->returned) != NULL); /* a full batch went home */
    CHECK(b->unit_cache.n == 0);               /* none kept by the stream that freed them */
    while (cache_pop(&a->unit_cache)) {
    }
    struct weft_unit_s *back = mem_unit_alloc(a);
    int from_batch = 0;
    for (int i = 0; i < 64; i++) from_batch += back == u[i];
    CHECK(from_batch == 1);
    CHECK(atomic_load(&a->returned) == NULL);
    free(a);
    free(b);
    printf("internal: slabs ok\n");
}

/* ---------- timers ---------- */

static int g_fired[8], g_fire_n;

static void fire(struct weft_timer *t)
{
    g_fired[g_fire_n++] = (int)(t->deadline % 1000);
}

static void test_timers(void)
{
    struct weft_xstream_s *xs = fake_stream();
    struct weft_timer t[6];
    uint64_t now = clock_ns(), far = now + 3600ull * 1000000000ull;
    /* Deadlines in the past, out of order, plus two far ahead; their
     * order is in their last three digits. */
    uint64_t base = (now - 1000000000ull) / 1000 * 1000;
    uint64_t due[4] = {base + 3, base + 1, base + 4, base + 2};
    for (int i = 0; i < 4; i++) {
        t[i] = (struct weft_timer){.deadline = due[i], .fire = fire};
        timer_arm(xs, &t[i]);
    }
    t[4] = (struct weft_timer){.deadline = far / 1000 * 1000 + 5, .fire = fire};
    t[5] = (struct weft_timer){.deadline = far / 1000 * 1000 + 6, .fire = fire};
    timer_arm(xs, &t[5]);
    timer_arm(xs, &t[4]);
    timer_disarm(&t[2]); /* base + 4: never fires */
    CHECK(atomic_load(&xs->n_timers) == 5);
    uint64_t next = timers_expire(xs);
    CHECK(g_fire_n == 3);
    CHECK(g_fired[0] == 1 && g_fired[1] == 2 && g_fired[2] == 3);
    CHECK(next == t[4].deadline);          /* the earliest not yet due */
    CHECK(atomic_load(&xs->n_timers) == 2);
    CHECK(!t[0].armed && !t[2].armed && t[4].armed);
    timer_disarm(&t[4]);
    CHECK(timers_expire(xs) == t[5].deadline);
    timer_disarm(&t[5]);
    timer_disarm(&t[5]); /* twice: no effect */
    CHECK(timers_expire(xs) == UINT64_MAX && atomic_load(&xs->n_timers) == 0 && g_fire_n == 3);
    free(xs);
    printf("internal: timers ok\n");
}

int main(void)
{
    test_deque();
    test_inbox();
    test_slabs();
    test_timers();
    printf("internal: ok\n");
    return 0;
}
