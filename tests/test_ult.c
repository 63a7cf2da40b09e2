/* ULTs: arguments, ids, self, stack size attribute, detached units, exit,
 * nesting, and the errors of bad input. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int g_detached_runs;

static void set_flag(void *arg) { *(int *)arg = 1; }

static void record_self(void *arg)
{
    weft_thread self;
    CHECK_OK(weft_self(&self));
    *(weft_thread *)arg = self;
}

static void use_big_stack(void *arg)
{
    /* 512 KiB of locals: fine on a 1 MiB stack, fatal on the default. */
    volatile char buf[512 * 1024];
    memset((char *)buf, 7, sizeof buf);
    *(int *)arg = buf[sizeof buf - 1];
}

static void detached_body(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&g_detached_runs, 1, __ATOMIC_RELAXED);
}

static void exits_early(void *arg)
{
    *(int *)arg = 1;
    CHECK_RC(weft_thread_exit(), WEFT_OK); /* never returns */
    *(int *)arg = 2;
}

struct nest { int depth; long sum; };

static void nested(void *arg)
{
    struct nest *n = arg;
    if (n->depth == 0) {
        n->sum = 1;
        return;
    }
    weft_pool pool = self_pool();
    struct nest kids[2] = {{n->depth - 1, 0}, {n->depth - 1, 0}};
    weft_thread t[2];
    for (int i = 0; i < 2; i++) CHECK_OK(weft_thread_create(pool, nested, &kids[i], NULL, &t[i]));
    for (int i = 0; i < 2; i++) CHECK_OK(weft_thread_free(&t[i]));
    n->sum = kids[0].sum + kids[1].sum;
}

/* create_here from a ULT that moves between streams: each unit lands in
 * the first pool of the stream the caller runs on at the call (private by
 * default: the unit runs there). */
static weft_xstream g_ran_on;
static void note_stream(void *arg)
{
    CHECK_OK(weft_xstream_self(&g_ran_on));
    *(int *)arg = 1;
}

static void here_mover(void *arg)
{
    (void)arg;
    int nxs;
    CHECK_OK(weft_xstream_count(&nxs));
    for (int i = 0; i < 8; i++) {
        weft_xstream to, now;
        CHECK_OK(weft_xstream_get(i % nxs, &to));
        weft_thread self, u;
        CHECK_OK(weft_self(&self));
        CHECK_OK(weft_thread_migrate_to_xstream(self, to));
        CHECK_OK(weft_xstream_self(&now));
        CHECK(now == to);
        int ran = 0;
        g_ran_on = NULL;
        if (i % 2) CHECK_OK(weft_tasklet_create_here(note_stream, &ran, &u));
        else CHECK_OK(weft_thread_create_here(note_stream, &ran, NULL, &u));
        CHECK_OK(weft_thread_join(u));
        CHECK(ran == 1 && g_ran_on == to);
        CHECK_OK(weft_thread_free(&u));
    }
}

int main(void)
{
    /* A plain thread has no stream of its own. */
    weft_thread none = (weft_thread)(void *)&g_detached_runs;
    CHECK_RC(weft_thread_create_here(set_flag, NULL, NULL, &none), WEFT_ERR_NOT_WEFT);
    CHECK(none == NULL);
    CHECK_OK(weft_init(NULL));
    weft_pool pool = self_pool();

    /* Argument, self, ids. */
    int flag = 0;
    weft_thread t, seen = NULL, t2;
    CHECK_OK(weft_thread_create(pool, set_flag, &flag, NULL, &t));
    CHECK_OK(weft_thread_join(t));
    CHECK(flag == 1);
    weft_thread_state st;
    CHECK_OK(weft_thread_get_state(t, &st));
    CHECK(st == WEFT_STATE_TERMINATED);
    CHECK_OK(weft_thread_free(&t));
    CHECK(t == NULL);
    CHECK_OK(weft_thread_create(pool, record_self, &seen, NULL, &t));
    CHECK_OK(weft_thread_create(pool, record_self, &seen, NULL, &t2));
    uint64_t id1, id2, id_main;
    CHECK_OK(weft_thread_id(t, &id1));
    CHECK_OK(weft_thread_id(t2, &id2));
    CHECK(id1 != id2);
    weft_thread me;
    CHECK_OK(weft_self(&me));
    CHECK_OK(weft_thread_id(me, &id_main));
    CHECK(id_main == 0);
    CHECK_OK(weft_thread_join(t));
    CHECK_OK(weft_thread_join(t2));
    CHECK(seen == t2 || seen == t);
    int is_tasklet = -1;
    CHECK_OK(weft_thread_is_tasklet(t, &is_tasklet));
    CHECK(is_tasklet == 0);
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_thread_free(&t2));

    /* Stack size attribute. */
    weft_thread_attr attr;
    CHECK_OK(weft_thread_attr_init(&attr));
    attr.stack_size = 1024 * 1024;
    int big = 0;
    CHECK_OK(weft_thread_create(pool, use_big_stack, &big, &attr, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(big == 7);
    attr.stack_size = 1; /* absurdly small */
    CHECK_RC(weft_thread_create(pool, set_flag, &flag, &attr, &t), WEFT_ERR_INVALID);
    CHECK(t == NULL);
    attr.stack_size = (size_t)1 << 40; /* absurdly large */
    CHECK_RC(weft_thread_create(pool, set_flag, &flag, &attr, &t), WEFT_ERR_INVALID);
    CHECK_RC(weft_thread_attr_init(NULL), WEFT_ERR_INVALID);

    /* Bad input. */
    CHECK_RC(weft_thread_create(pool, NULL, NULL, NULL, &t), WEFT_ERR_INVALID);
    CHECK_RC(weft_thread_create(NULL, set_flag, &flag, NULL, &t), WEFT_ERR_HANDLE);
    CHECK_RC(weft_thread_create((weft_pool)&flag, set_flag, &flag, NULL, &t), WEFT_ERR_HANDLE);
    CHECK_RC(weft_thread_create_to(NULL, set_flag, &flag, NULL, &t), WEFT_ERR_HANDLE);
    CHECK_RC(weft_thread_id(NULL, &id1), WEFT_ERR_HANDLE);
    CHECK_RC(weft_self(NULL), WEFT_ERR_INVALID);
    CHECK_RC(weft_thread_exit(), WEFT_ERR_NOT_ULT); /* the main ULT may not exit */

    /* Exit ends the ULT where it stands. */
    flag = 0;
    CHECK_OK(weft_thread_create(pool, exits_early, &flag, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(flag == 1);

    /* Detached ULTs and tasklets, spread over all streams, all run by finalize. */
    int nxs;
    CHECK_OK(weft_xstream_count(&nxs));
    for (int i = 0; i < 1000; i++) {
        weft_xstream target;
        CHECK_OK(weft_xstream_get(i % nxs, &target));
        if (i % 2) CHECK_OK(weft_thread_create_to(target, detached_body, NULL, NULL, NULL));
        else CHECK_OK(weft_tasklet_create_to(target, detached_body, NULL, NULL));
    }

    /* create_here follows the caller from stream to stream. */
    CHECK_OK(weft_thread_create(pool, here_mover, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(weft_tasklet_create_here(NULL, NULL, NULL), WEFT_ERR_INVALID);

    /* Nesting: a binary tree of ULTs, each joining its children. */
    struct nest root = {10, 0};
    CHECK_OK(weft_thread_create(pool, nested, &root, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(root.sum == 1024);

    CHECK_OK(weft_finalize());
    CHECK(g_detached_runs == 1000);
    printf("ult: ok\n");
    return 0;
}
