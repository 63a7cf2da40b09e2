#define _GNU_SOURCE
/* Every pool kind with every access it accepts: order as seen by the owner,
 * many producers at once, who may pop; work stealing over deques; a deque
 * that outgrows its first ring; the combinations that are refused. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"

static const struct {
    weft_pool_kind kind;
    weft_pool_access access;
    const char *order; /* as run on the owner stream */
    int others_pop;    /* streams other than the owner may pop */
} g_kinds[] = {
    {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, "abcd", 0}, {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE, "dcba", 0},
    {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_SPSC, "abcd", 0},    {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_SPSC, "dcba", 0},
    {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPSC, "abcd", 0},    {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_MPSC, "dcba", 0},
    {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_SPMC, "abcd", 1},    {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_SPMC, "dcba", 1},
    {WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, "abcd", 1},    {WEFT_POOL_LIFO, WEFT_POOL_ACCESS_MPMC, "dcba", 1},
    {WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_SPMC, "dcba", 1},   {WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPMC, "dcba", 1},
};
#define NKINDS (int)(sizeof g_kinds / sizeof g_kinds[0])

static char g_seen[8];
static int g_nseen;
static void note(void *arg) { g_seen[g_nseen++] = *(const char *)arg; }

/* On the owner stream: create a..d into its pool and let the pool order
 * them (yield until all ran: a join would run its joinee first). */
static void order_on_owner(void *arg)
{
    weft_pool p = arg;
    static const char names[] = "abcd";
    weft_thread t[4];
    g_nseen = 0;
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_create(p, note, (void *)&names[i], NULL, &t[i]));
    while (g_nseen < 4) CHECK_OK(weft_yield());
    CHECK_OK(weft_thread_free_many(4, t));
    g_seen[g_nseen] = 0;
}

#define PER_PRODUCER 3000
static _Atomic unsigned char g_runs[3 * PER_PRODUCER];

static void mark(void *arg) { g_runs[(intptr_t)arg]++; }

struct producer {
    weft_pool pool;
    int base;
    weft_thread *units;
};

/* Create PER_PRODUCER units (half ULTs, half tasklets) into the pool. */
static void produce(struct producer *pr)
{
    for (int i = 0; i < PER_PRODUCER; i++) {
        intptr_t k = pr->base + i;
        if (i & 1) CHECK_OK(weft_thread_create(pr->pool, mark, (void *)k, NULL, &pr->units[k]));
        else CHECK_OK(weft_tasklet_create(pr->pool, mark, (void *)k, &pr->units[k]));
    }
}

static void produce_ult(void *arg) { produce(arg); }
static void *produce_thread(void *arg)
{
    produce(arg);
    return NULL;
}

static void test_kind(int k, weft_xstream helper)
{
    weft_pool p;
    weft_sched s;
    weft_xstream x;
    CHECK_OK(weft_pool_create(g_kinds[k].kind, g_kinds[k].access, &p));
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    CHECK_OK(weft_xstream_create(s, &x));

    weft_thread t;
    CHECK_OK(weft_thread_create(p, order_on_owner, p, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    if (strcmp(g_seen, g_kinds[k].order) != 0) {
        fprintf(stderr, "kind %d access %d: ran %s, expected %s\n", g_kinds[k].kind, g_kinds[k].access, g_seen,
                g_kinds[k].order);
        exit(1);
    }

    /* Three producers at once: this main ULT, a ULT on another stream, a
     * plain thread. */
    static weft_thread units[3 * PER_PRODUCER];
    memset(g_runs, 0, sizeof g_runs);
    struct producer pr[3] = {{p, 0, units}, {p, PER_PRODUCER, units}, {p, 2 * PER_PRODUCER, units}};
    weft_thread ult;
    pthread_t th;
    CHECK_OK(weft_thread_create_to(helper, produce_ult, &pr[1], NULL, &ult));
    CHECK(pthread_create(&th, NULL, produce_thread, &pr[2]) == 0);
    produce(&pr[0]);
    CHECK_OK(weft_thread_free(&ult));
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(weft_thread_free_many(3 * PER_PRODUCER, units));
    for (int i = 0; i < 3 * PER_PRODUCER; i++) CHECK(g_runs[i] == 1);

    /* Who may pop: the owner always; others only from multi-consumer kinds. */
    weft_thread got;
    CHECK_RC(weft_pool_pop(p, &got), g_kinds[k].others_pop ? WEFT_OK : WEFT_ERR_POOL_ACCESS);
    CHECK_OK(weft_xstream_free(&x));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&p));
}

/* ---------- stealing over deques ---------- */

#define STEAL_N 4000
static _Atomic int g_ran_on[2];
static weft_xstream g_streams[2];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* On the owner's stream, a ULT keeps yielding until the thief has taken
 * something (at most 10 s): the check below then does not depend on how the
 * OS happens to schedule the two streams. */
static void where(void *arg)
{
    (void)arg;
    weft_xstream xs;
    weft_thread self;
    int tasklet;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_self(&self));
    CHECK_OK(weft_thread_is_tasklet(self, &tasklet));
    if (xs == g_streams[1] && !tasklet)
        for (double t0 = now(); !g_ran_on[0] && now() - t0 < 10.0;) weft_yield();
    CHECK_OK(weft_xstream_self(&xs)); /* a yield may have let a thief take it */
    g_ran_on[xs == g_streams[1]]++;
}

/* Runs on stream 1: fills its own deque (the owner's lock-free pushes,
 * growing past the first ring) and joins everything. */
static void fill_and_join(void *arg)
{
    weft_pool p = arg;
    static weft_thread units[STEAL_N];
    for (int i = 0; i < STEAL_N; i++) {
        if (i & 1) CHECK_OK(weft_thread_create(p, where, NULL, NULL, &units[i]));
        else CHECK_OK(weft_tasklet_create(p, where, NULL, &units[i]));
    }
    /* Not a unit of a deque's middle: it runs where it is taken. */
    CHECK_RC(weft_thread_cancel(units[0]), WEFT_ERR_STATE);
    CHECK_OK(weft_thread_free_many(STEAL_N, units));
}

static void test_stealing(void)
{
    weft_pool d[2];
    weft_sched s[2];
    for (int i = 0; i < 2; i++) CHECK_OK(weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_SPMC, &d[i]));
    weft_pool order0[2] = {d[0], d[1]}, order1[2] = {d[1], d[0]};
    CHECK_OK(weft_sched_create_randws(2, order0, &s[0]));
    CHECK_OK(weft_sched_create_randws(2, order1, &s[1]));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_xstream_create(s[i], &g_streams[i]));
    weft_thread t;
    CHECK_OK(weft_thread_create(d[1], fill_and_join, d[1], NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_ran_on[0] + g_ran_on[1] == STEAL_N);
    CHECK(g_ran_on[0] > 0); /* the thief got some */
    for (int i = 0; i < 2; i++) CHECK_OK(weft_xstream_free(&g_streams[i]));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_sched_free(&s[i]));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_pool_free(&d[i]));
}

int main(void)
{
    start_weft(2);
    weft_xstream helper;
    CHECK_OK(weft_xstream_get(1, &helper));
    for (int k = 0; k < NKINDS; k++) test_kind(k, helper);
    test_stealing();

    weft_pool p;
    CHECK_RC(weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_PRIVATE, &p), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPSC, &p), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_create((weft_pool_kind)3, WEFT_POOL_ACCESS_MPMC, &p), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_create(WEFT_POOL_FIFO, (weft_pool_access)5, &p), WEFT_ERR_INVALID);
    CHECK_OK(weft_finalize());
    return 0;
}
