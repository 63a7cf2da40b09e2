/* Join and free: from ULTs on any stream and from plain OS threads, and the
 * errors: double join, self join, NULL and freed handles. */
#include <pthread.h>
#include <unistd.h>

#include "check.h"

static void slow(void *arg)
{
    for (int i = 0; i < 200; i++) weft_yield();
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

static int g_self_rc;
static weft_thread g_joiner_target;
static void join_self(void *arg)
{
    (void)arg;
    weft_thread me;
    CHECK_OK(weft_self(&me));
    g_self_rc = weft_thread_join(me);
}

static void *plain_joiner(void *arg)
{
    int *done = arg;
    /* Not a weft thread: blocks on a futex until the ULT ends. */
    *done = weft_thread_free(&g_joiner_target) == WEFT_OK ? 1 : -1;
    return NULL;
}

static void joins_other(void *arg)
{
    weft_thread *t = arg;
    CHECK_OK(weft_thread_join(*t));
}

int main(void)
{
    start_weft(2);
    weft_xstream xs1;
    CHECK_OK(weft_xstream_get(1, &xs1));

    /* Join across streams, then double join. */
    int flag = 0;
    weft_thread t;
    CHECK_OK(weft_thread_create_to(xs1, slow, &flag, NULL, &t));
    CHECK_OK(weft_thread_join(t));
    CHECK(__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 1);
    CHECK_RC(weft_thread_join(t), WEFT_ERR_JOINED);
    CHECK_OK(weft_thread_free(&t));

    /* Bad handles. */
    CHECK_RC(weft_thread_join(NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_thread_free(NULL), WEFT_ERR_INVALID);
    CHECK_RC(weft_thread_free(&t), WEFT_ERR_HANDLE); /* t is NULL now */
    weft_thread copy;
    CHECK_OK(weft_thread_create_to(xs1, slow, &flag, NULL, &t));
    copy = t;
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(weft_thread_join(copy), WEFT_ERR_HANDLE); /* stale copy */
    CHECK_RC(weft_thread_free(&copy), WEFT_ERR_HANDLE);
    int not_a_unit[64] = {0};
    CHECK_RC(weft_thread_join((weft_thread)not_a_unit), WEFT_ERR_HANDLE);

    /* Self join from a ULT and from main. */
    weft_thread me;
    CHECK_OK(weft_self(&me));
    CHECK_RC(weft_thread_join(me), WEFT_ERR_JOIN_SELF); /* main joining itself */
    CHECK_RC(weft_thread_free(&me), WEFT_ERR_JOIN_SELF);
    CHECK_RC(weft_thread_join_many(1, &me), WEFT_ERR_JOIN_SELF);
    CHECK_RC(weft_thread_free_many(1, &me), WEFT_ERR_JOIN_SELF);
    CHECK(me != NULL);
    CHECK_OK(weft_thread_create_to(xs1, join_self, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(g_self_rc, WEFT_ERR_JOIN_SELF);

    /* A plain OS thread joins and frees a ULT. */
    for (int round = 0; round < 50; round++) {
        flag = 0;
        int done = 0;
        CHECK_OK(weft_thread_create_to(xs1, slow, &flag, NULL, &g_joiner_target));
        pthread_t th;
        pthread_create(&th, NULL, plain_joiner, &done);
        pthread_join(th, NULL);
        CHECK(done == 1);
        CHECK(flag == 1);
    }

    /* A ULT on one stream joins a ULT on the other; the second join fails. */
    weft_thread target, joiner;
    flag = 0;
    CHECK_OK(weft_thread_create_to(xs1, slow, &flag, NULL, &target));
    CHECK_RC(weft_thread_create(NULL, slow, &flag, NULL, &joiner), WEFT_ERR_HANDLE);
    weft_xstream xs0;
    weft_pool p0;
    int n;
    CHECK_OK(weft_xstream_get(0, &xs0));
    CHECK_OK(weft_xstream_get_pools(xs0, 1, &p0, &n));
    CHECK_OK(weft_thread_create(p0, joins_other, &target, NULL, &joiner));
    CHECK_OK(weft_thread_free(&joiner));
    CHECK_RC(weft_thread_join(target), WEFT_ERR_JOINED);
    CHECK_OK(weft_thread_free(&target)); /* free after someone else's join */

    /* free_many: units already joined are accepted; the same unit twice is
     * released once and then refused, never released twice. */
    weft_thread many[3];
    for (int i = 0; i < 3; i++) CHECK_OK(weft_thread_create_to(xs1, slow, &flag, NULL, &many[i]));
    CHECK_OK(weft_thread_join(many[1]));
    CHECK_OK(weft_thread_free_many(3, many));
    CHECK(many[0] == NULL && many[1] == NULL && many[2] == NULL);
    CHECK_OK(weft_thread_create_to(xs1, slow, &flag, NULL, &many[0]));
    many[1] = many[0];
    CHECK_RC(weft_thread_free_many(2, many), WEFT_ERR_HANDLE);
    CHECK(many[0] == NULL);

    CHECK_OK(weft_finalize());
    printf("join: ok\n");
    return 0;
}
