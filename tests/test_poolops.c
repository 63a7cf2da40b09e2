/* Batch and waiting pops: weft_pool_pop_many over every built-in pool and
 * over user pools with and without a pop_many op; a user pool's init op
 * (and its failure); weft_pool_pop_wait timing out, being woken by pushes
 * from another stream, from a ULT and from a plain thread, and refusing a
 * tasklet that would wait. */
#include <pthread.h>
#include <time.h>

#include "check.h"

static void nop(void *arg) { (void)arg; }

/* --- a user pool: a FIFO ring of fixed size, with init and pop_many --- */
#define RING 4096
struct ring {
    weft_thread slot[RING];
    unsigned head, tail;
    weft_pool self;
    int batches, fail_init;
};

static int ring_init(void *st, weft_pool pool)
{
    struct ring *r = st;
    if (r->fail_init) return WEFT_ERR_NOMEM;
    r->self = pool;
    return WEFT_OK;
}
static void ring_push(void *st, weft_thread u)
{
    struct ring *r = st;
    r->slot[r->tail++ % RING] = u;
}
static weft_thread ring_pop(void *st)
{
    struct ring *r = st;
    return r->slot[r->head++ % RING];
}
static int ring_pop_many(void *st, weft_thread *out, int max)
{
    struct ring *r = st;
    r->batches++;
    int n = max > 3 ? 3 : max; /* fewer than asked: weft tops up with pop */
    for (int i = 0; i < n; i++) out[i] = ring_pop(st);
    return n;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fill `p` with n ULTs, take them back with pop_many in batches of 7,
 * check each came once and in FIFO order when `fifo`, then run them. */
static void batch_roundtrip(weft_pool p, int n, int fifo)
{
    weft_thread t[200], got[200];
    uint64_t id[200];
    CHECK(n <= 200);
    for (int i = 0; i < n; i++) {
        CHECK_OK(weft_thread_create(p, nop, NULL, NULL, &t[i]));
        CHECK_OK(weft_thread_id(t[i], &id[i]));
    }
    int total = 0, k;
    while (total < n) {
        CHECK_OK(weft_pool_pop_many(p, 7, got + total, &k));
        CHECK(k > 0 && k <= 7);
        total += k;
    }
    CHECK_OK(weft_pool_pop_many(p, 7, got, &k));
    CHECK(k == 0);
    CHECK_OK(weft_pool_pop_many(p, 0, NULL, &k));
    CHECK(k == 0);
    /* pop_many gave the same units back (FIFO: in creation order). */
    int seen[200] = {0};
    for (int i = 0; i < n; i++) {
        uint64_t gid;
        CHECK_OK(weft_thread_id(got[i], &gid));
        int j = 0;
        while (j < n && id[j] != gid) j++;
        CHECK(j < n && !seen[j]);
        seen[j] = 1;
        if (fifo) CHECK(j == i);
    }
    weft_pool home = self_pool();
    for (int i = 0; i < n; i++) CHECK_OK(weft_pool_push(home, got[i]));
    CHECK_OK(weft_thread_free_many(n, t));
}

/* --- pop_wait --- */
struct feeder { weft_pool pool; weft_thread unit; unsigned delay_us; };

static void *feed_from_thread(void *arg)
{
    struct feeder *f = arg;
    struct timespec ts = {0, (long)f->delay_us * 1000};
    nanosleep(&ts, NULL);
    CHECK_OK(weft_thread_create(f->pool, nop, NULL, NULL, &f->unit));
    return NULL;
}

static void feed_from_ult(void *arg)
{
    struct feeder *f = arg;
    uint64_t until = now_ns() + (uint64_t)f->delay_us * 1000;
    while (now_ns() < until) CHECK_OK(weft_yield());
    CHECK_OK(weft_thread_create(f->pool, nop, NULL, NULL, &f->unit));
}

static int g_tasklet_rc = -1, g_tasklet_rc0 = -1;
static void waiting_tasklet(void *arg)
{
    weft_thread u;
    g_tasklet_rc = weft_pool_pop_wait(arg, 1000000, &u);
    g_tasklet_rc0 = weft_pool_pop_wait(arg, 0, &u);
}

/* A waiting ULT on stream 1 yields, so the feeder ULT on the same stream
 * runs and pushes. */
struct waiter { weft_pool pool; weft_thread got; int rc; };
static void waiting_ult(void *arg)
{
    struct waiter *w = arg;
    w->rc = weft_pool_pop_wait(w->pool, UINT64_MAX, &w->got);
}

static void *waiting_thread(void *arg)
{
    struct waiter *w = arg;
    w->rc = weft_pool_pop_wait(w->pool, 5000000000u, &w->got);
    return NULL;
}

int main(void)
{
    start_weft(2);
    weft_pool p;

    /* Every built-in kind and access, from the owner. */
    static const struct { weft_pool_kind k; weft_pool_access a; int fifo; } kinds[] = {
        {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, 1}, {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, 1},
        {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPSC, 1},    {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_SPMC, 0},
        {WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPMC, 0},   {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, 0},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CHECK_OK(weft_pool_create(kinds[i].k, kinds[i].a, &p));
        batch_roundtrip(p, 150, kinds[i].fifo);
        CHECK_OK(weft_pool_free(&p));
    }

    /* User pool: init sees the handle; pop_many gives 3, weft tops up. */
    static struct ring r;
    weft_pool_ops ops = {.push = ring_push, .pop = ring_pop, .init = ring_init, .pop_many = ring_pop_many};
    for (int access = WEFT_POOL_ACCESS_PRIVATE; access <= WEFT_POOL_ACCESS_MPMC; access++) {
        r = (struct ring){0};
        CHECK_OK(weft_pool_create_user(&ops, &r, (weft_pool_access)access, &p));
        CHECK(r.self == p);
        batch_roundtrip(p, 100, 1);
        CHECK(r.batches >= 100 / 7);
        CHECK_OK(weft_pool_free(&p));
    }
    /* Without pop_many: pop, repeatedly. */
    ops.pop_many = NULL;
    r = (struct ring){0};
    CHECK_OK(weft_pool_create_user(&ops, &r, WEFT_POOL_ACCESS_MPMC, &p));
    batch_roundtrip(p, 100, 1);
    CHECK(r.batches == 0);
    CHECK_OK(weft_pool_free(&p));
    /* A failing init fails the creation with its code. */
    r = (struct ring){.fail_init = 1};
    CHECK_RC(weft_pool_create_user(&ops, &r, WEFT_POOL_ACCESS_MPMC, &p), WEFT_ERR_NOMEM);
    CHECK(p == NULL);

    /* Bad arguments. */
    int k;
    weft_thread u, arr[2];
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_RC(weft_pool_pop_many(p, -1, arr, &k), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_pop_many(p, 2, NULL, &k), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_pop_many(p, 2, arr, NULL), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_pop_many(NULL, 2, arr, &k), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pool_pop_wait(p, 0, NULL), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_pop_wait(NULL, 0, &u), WEFT_ERR_HANDLE);

    /* Timeouts: nothing comes. */
    uint64_t t0 = now_ns();
    CHECK_OK(weft_pool_pop_wait(p, 0, &u));
    CHECK(u == NULL);
    CHECK_OK(weft_pool_pop_wait(p, 2000000, &u));
    CHECK(u == NULL);
    CHECK(now_ns() - t0 >= 2000000);

    /* Woken by a plain thread's push (the main ULT waits; a timeout so
     * large that now + timeout overflows means no limit). */
    struct feeder f = {p, NULL, 3000};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, feed_from_thread, &f) == 0);
    CHECK_OK(weft_pool_pop_wait(p, UINT64_MAX - 1, &u));
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(u != NULL && u == f.unit);
    CHECK_OK(weft_pool_push(self_pool(), u));
    CHECK_OK(weft_thread_free(&f.unit));

    /* A plain thread waits; a ULT on stream 1 pushes. */
    weft_xstream x1;
    CHECK_OK(weft_xstream_get(1, &x1));
    struct feeder g = {p, NULL, 2000};
    struct waiter tw = {p, NULL, -1};
    CHECK(pthread_create(&th, NULL, waiting_thread, &tw) == 0);
    weft_thread feeder;
    CHECK_OK(weft_thread_create_to(x1, feed_from_ult, &g, NULL, &feeder));
    CHECK_OK(weft_thread_free(&feeder));
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(tw.rc);
    CHECK(tw.got != NULL && tw.got == g.unit);
    CHECK_OK(weft_pool_push(self_pool(), tw.got));
    CHECK_OK(weft_thread_free(&g.unit));

    /* A ULT on stream 1 waits; a ULT on the same stream pushes later. */
    struct waiter w = {p, NULL, -1};
    struct feeder h = {p, NULL, 1000};
    weft_thread wt, ft;
    CHECK_OK(weft_thread_create_to(x1, waiting_ult, &w, NULL, &wt));
    CHECK_OK(weft_thread_create_to(x1, feed_from_ult, &h, NULL, &ft));
    CHECK_OK(weft_thread_free(&wt));
    CHECK_OK(weft_thread_free(&ft));
    CHECK_OK(w.rc);
    CHECK(w.got == h.unit);
    CHECK_OK(weft_pool_push(self_pool(), w.got));
    CHECK_OK(weft_thread_free(&h.unit));

    /* A private pool of stream 1 is not the main ULT's to wait on. */
    weft_pool x1pool;
    int np;
    CHECK_OK(weft_xstream_get_pools(x1, 1, &x1pool, &np));
    CHECK_RC(weft_pool_pop_wait(x1pool, 0, &u), WEFT_ERR_POOL_ACCESS);

    /* A tasklet may not wait, but may look. */
    weft_thread tk;
    CHECK_OK(weft_tasklet_create(self_pool(), waiting_tasklet, p, &tk));
    CHECK_OK(weft_thread_free(&tk));
    CHECK_RC(g_tasklet_rc, WEFT_ERR_TASKLET_BLOCKS);
    CHECK_OK(g_tasklet_rc0);

    CHECK_OK(weft_pool_free(&p));
    CHECK_OK(weft_finalize());
    printf("poolops: ok\n");
    return 0;
}
