/* Keys: each ULT and tasklet sees its own value; values follow a ULT that
 * migrates to another stream; destructors run at the end of the unit, in
 * it; main and plain threads have per-thread values; a freed key's slot
 * reused by a new key reads NULL; misuse. */
#define _GNU_SOURCE
#include <pthread.h>

#include "check.h"

static weft_key g_k, g_k2;
static int g_dtor_calls;
static weft_thread g_dtor_self[64];

static void dtor(void *v)
{
    int i = __atomic_fetch_add(&g_dtor_calls, 1, __ATOMIC_RELAXED);
    weft_thread self = NULL;
    int rc = weft_self(&self); /* a unit's destructor runs in that unit */
    CHECK(rc == WEFT_OK || rc == WEFT_ERR_NOT_WEFT); /* a plain thread's at its exit */
    if (i < 64) g_dtor_self[i] = self;
    CHECK(*(int *)v >= 0);
}

static int g_vals[64];
static weft_thread g_units[64];

/* Sets its value, switches and migrates between the streams, reads it back. */
static void own_value(void *arg)
{
    int i = (int)(intptr_t)arg;
    g_vals[i] = i;
    CHECK_OK(weft_key_set(g_k, &g_vals[i]));
    for (int r = 0; r < 6; r++) {
        weft_xstream to;
        CHECK_OK(weft_xstream_get(r % 2, &to));
        weft_thread self;
        CHECK_OK(weft_self(&self));
        int rc = weft_thread_migrate_to_xstream(self, to);
        CHECK(rc == WEFT_OK || rc == WEFT_ERR_STATE); /* already there */
        CHECK_OK(weft_yield());
        void *v;
        CHECK_OK(weft_key_get(g_k, &v));
        CHECK(v == &g_vals[i]);
        weft_xstream now;
        CHECK_OK(weft_xstream_self(&now));
        if (rc == WEFT_OK) CHECK(now == to);
    }
}

static void in_tasklet(void *arg)
{
    void *v;
    CHECK_OK(weft_key_get(g_k, &v));
    CHECK(v == NULL); /* not the creator's */
    CHECK_OK(weft_key_set(g_k, arg));
    CHECK_OK(weft_key_get(g_k, &v));
    CHECK(v == arg);
}

static int g_thread_val;
static void *plain(void *arg)
{
    (void)arg;
    void *v;
    CHECK_OK(weft_key_get(g_k, &v));
    CHECK(v == NULL);
    CHECK_OK(weft_key_set(g_k, &g_thread_val)); /* its destructor runs at thread exit */
    CHECK_OK(weft_key_get(g_k, &v));
    CHECK(v == &g_thread_val);
    return NULL;
}

static void exits(void *arg)
{
    CHECK_OK(weft_key_set(g_k, arg));
    CHECK_OK(weft_thread_exit());
}

int main(void)
{
    start_weft(2);
    CHECK_OK(weft_key_create(dtor, &g_k));

    /* 32 ULTs over both streams, each with its own value. */
    for (int i = 0; i < 32; i++) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(i % 2, &xs));
        CHECK_OK(weft_thread_create_to(xs, own_value, (void *)(intptr_t)i, NULL, &g_units[i]));
    }
    CHECK_OK(weft_thread_join_many(32, g_units));
    CHECK(g_dtor_calls == 32);
    for (int i = 0; i < 32; i++) {
        int found = 0;
        for (int j = 0; j < 32; j++) found += g_dtor_self[j] == g_units[i];
        CHECK(found == 1); /* each destructor ran in its own unit */
    }
    CHECK_OK(weft_thread_free_many(32, g_units));

    /* Main's value is the thread's; a tasklet has its own. */
    static int mine = 7, tv = 8;
    CHECK_OK(weft_key_set(g_k, &mine));
    weft_thread t;
    CHECK_OK(weft_tasklet_create(self_pool(), in_tasklet, &tv, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_dtor_calls == 33);
    void *v;
    CHECK_OK(weft_key_get(g_k, &v));
    CHECK(v == &mine);

    /* weft_thread_exit runs the destructors too. */
    CHECK_OK(weft_thread_create(self_pool(), exits, &tv, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_dtor_calls == 34);

    /* A plain thread: its own value, destructor at its exit. */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, plain, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(g_dtor_calls == 35);

    /* A freed key's slot, reused: the new key reads NULL. */
    CHECK_OK(weft_key_free(&g_k));
    CHECK(g_k == NULL);
    CHECK_OK(weft_key_create(NULL, &g_k2));
    CHECK_OK(weft_key_get(g_k2, &v));
    CHECK(v == NULL);

    /* Misuse. */
    weft_key stale;
    CHECK_OK(weft_key_create(NULL, &stale));
    weft_key copy = stale;
    CHECK_OK(weft_key_free(&stale));
    CHECK(weft_key_free(&copy) == WEFT_ERR_HANDLE);
    CHECK(weft_key_set(copy, &tv) == WEFT_ERR_HANDLE);
    CHECK(weft_key_get(g_k2, NULL) == WEFT_ERR_INVALID);
    CHECK(weft_key_create(NULL, NULL) == WEFT_ERR_INVALID);
    CHECK_OK(weft_key_free(&g_k2));

    CHECK_OK(weft_finalize());
    printf("key: ok\n");
    return 0;
}
