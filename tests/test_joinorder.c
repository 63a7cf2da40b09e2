/* The order a join runs things in, on one stream (unit.c, join_take):
 * a joinee at the head of its pool runs next through the policy and the
 * units behind it follow before the joiner; a ULT joinee further back (within
 * reach) runs at once and its end switches straight back to the joiner;
 * tasklets, deep joinees and user pools keep the pool's order. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static char g_log[64];
static int g_len;

static void note(char c)
{
    CHECK(g_len < (int)sizeof g_log - 1);
    g_log[g_len++] = c;
    g_log[g_len] = 0;
}

static void unit_body(void *arg) { note((char)(intptr_t)arg); }

static void yields_once(void *arg)
{
    note((char)(intptr_t)arg);
    CHECK_OK(weft_yield());
    note((char)((intptr_t)arg - 'a' + 'A'));
}

static void reset(void)
{
    g_len = 0;
    g_log[0] = 0;
}

static void expect(const char *want)
{
    if (strcmp(g_log, want) != 0) {
        fprintf(stderr, "order %s, expected %s\n", g_log, want);
        exit(1);
    }
}

static weft_pool make_pool(weft_pool_kind kind, weft_pool_access access)
{
    weft_pool p;
    CHECK_OK(weft_pool_create(kind, access, &p));
    return p;
}

/* Create the named units in `p` ('a'.. in order), ULTs unless `tasklets`. */
static void spawn(weft_pool p, const char *names, weft_thread *t, bool tasklets)
{
    for (int i = 0; names[i]; i++) {
        void *arg = (void *)(intptr_t)names[i];
        if (tasklets) CHECK_OK(weft_tasklet_create(p, unit_body, arg, &t[i]));
        else CHECK_OK(weft_thread_create(p, unit_body, arg, NULL, &t[i]));
    }
}

struct scenario {
    weft_pool pool;
    void (*run)(weft_pool);
};

/* FIFO: the joinee is at the head; the others follow it before the joiner. */
static void fifo_head(weft_pool p)
{
    weft_thread t[3];
    spawn(p, "abc", t, false);
    CHECK_OK(weft_thread_join(t[0]));
    note('M');
    expect("abcM");
    for (int i = 0; i < 3; i++) CHECK_OK(weft_thread_free(&t[i]));
}

/* LIFO: the oldest waits behind the others; each join runs its joinee at
 * once and comes straight back; the last one is at the head. */
static void lifo_behind(weft_pool p)
{
    weft_thread t[3];
    spawn(p, "abc", t, false);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(weft_thread_join(t[i]));
        note('M');
    }
    expect("aMbMcM");
    CHECK_OK(weft_thread_free_many(3, t));
}

/* A joinee run out of turn that yields: it goes back to its pool like any
 * yielder (b runs meanwhile), and its end still returns to the joiner. */
static void lifo_yielder(weft_pool p)
{
    weft_thread t[2];
    CHECK_OK(weft_thread_create(p, yields_once, (void *)'a', NULL, &t[0]));
    CHECK_OK(weft_thread_create(p, unit_body, (void *)'b', NULL, &t[1]));
    CHECK_OK(weft_thread_join(t[0]));
    note('M');
    expect("abAM");
    CHECK_OK(weft_thread_join(t[1]));
    expect("abAM");
    CHECK_OK(weft_thread_free_many(2, t));
}

/* Join the first of `names` spawned into p: the run order is the pool's. */
static void join_first_in_pool_order(weft_pool p, const char *names, bool tasklets, const char *want)
{
    weft_thread t[16];
    int n = (int)strlen(names);
    spawn(p, names, t, tasklets);
    CHECK_OK(weft_thread_join(t[0]));
    note('M');
    expect(want);
    CHECK_OK(weft_thread_free_many(n, t));
}

/* Tasklets run on the scheduler's stack: pool order. */
static void lifo_tasklets(weft_pool p) { join_first_in_pool_order(p, "abc", true, "cbaM"); }

/* Beyond the reach of the scan: pool order. */
static void lifo_deep(weft_pool p)
{
    join_first_in_pool_order(p, "abcdefghijklmnop", false, "ponmlkjihgfedcbaM");
}

static void driver(void *arg)
{
    struct scenario *s = arg;
    reset();
    s->run(s->pool);
}

int main(void)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    CHECK_OK(weft_init(&cfg));
    weft_xstream xs;
    weft_pool main_pool;
    int n;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &main_pool, &n));

    /* The pools the scenarios use: private and shared, each kind. The
     * scheduler polls main's pool last, so a driver ULT there only runs
     * when the scenario pools are empty. */
    weft_pool fifo_p = make_pool(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE);
    weft_pool lifo_p = make_pool(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_PRIVATE);
    weft_pool fifo_s = make_pool(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC);
    weft_pool lifo_s = make_pool(WEFT_POOL_LIFO, WEFT_POOL_ACCESS_MPMC);
    weft_pool pools[5] = {fifo_p, lifo_p, fifo_s, lifo_s, main_pool};
    weft_sched s;
    CHECK_OK(weft_sched_create_prio(5, pools, &s));
    CHECK_OK(weft_xstream_set_main_sched(xs, s));

    struct scenario cases[] = {
        {fifo_p, fifo_head},     {fifo_s, fifo_head},     {lifo_p, lifo_behind},   {lifo_s, lifo_behind},
        {lifo_p, lifo_yielder},  {lifo_s, lifo_yielder},  {lifo_p, lifo_tasklets}, {lifo_p, lifo_deep},
        {lifo_s, lifo_deep},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* From main, then from a ULT of the lowest pool. */
        reset();
        cases[i].run(cases[i].pool);
        weft_thread d;
        CHECK_OK(weft_thread_create(main_pool, driver, &cases[i], NULL, &d));
        CHECK_OK(weft_thread_free(&d));
    }
    CHECK_OK(weft_finalize());
    /* A user's scheduler and pools outlive the runtime. */
    CHECK_OK(weft_sched_free(&s));
    for (int i = 0; i < 4; i++) CHECK_OK(weft_pool_free(&pools[i]));
    printf("joinorder: ok\n");
    return 0;
}
