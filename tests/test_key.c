/* Keys: each ULT and tasklet sees its own value; values follow a ULT that
 * migrates to another stream; destructors run at the end of the unit, in
 * it; main and plain threads have per-thread values; a freed key's slot
 * reused by a new key reads NULL; a destructor that sets its key again
 * runs 4 rounds at most; a destructor may grow the table being released;
 * a plain thread's pthread-key destructor that runs after weft's sees no
 * table, not a freed one; misuse. */
#define _GNU_SOURCE
#include <pthread.h>

#include "check.h"

static weft_key g_k, g_k2;
static int g_dtor_calls;
static int g_vals[64];
static int g_tv = 8, g_thread_val;
static weft_thread g_dtor_self[64];

static void dtor(void *v)
{
    int i = __atomic_fetch_add(&g_dtor_calls, 1, __ATOMIC_RELAXED);
    weft_thread self = NULL;
    int rc = weft_self(&self); /* a unit's destructor runs in that unit */
    CHECK(rc == WEFT_OK || rc == WEFT_ERR_NOT_WEFT); /* a plain thread's at its exit */
    if (i < 64) g_dtor_self[i] = self;
    CHECK((v >= (void *)g_vals && v < (void *)(g_vals + 64)) || v == &g_tv ||
          v == &g_thread_val); /* one of the values the test set */
}

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
        CHECK_OK(weft_thread_migrate_to_xstream(self, to)); /* there already: it stays */
        CHECK_OK(weft_yield());
        void *v;
        CHECK_OK(weft_key_get(g_k, &v));
        CHECK(v == &g_vals[i]);
        weft_xstream now;
        CHECK_OK(weft_xstream_self(&now));
        CHECK(now == to);
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

/* ---- A destructor that sets its key again: 4 rounds, as pthreads. ---- */

static weft_key g_again_k;
static int g_again_calls;
static int g_again_val;

/* Sets the key again on every call; gives up after 100 calls by itself so
 * that an unbounded loop fails the check below instead of hanging. */
static void sets_again(void *v)
{
    int n = __atomic_add_fetch(&g_again_calls, 1, __ATOMIC_RELAXED);
    if (n < 100) CHECK_OK(weft_key_set(g_again_k, v));
}

static void again_unit(void *arg)
{
    (void)arg;
    CHECK_OK(weft_key_set(g_again_k, &g_again_val));
}

static void *again_thread(void *arg)
{
    again_unit(arg);
    return NULL;
}

static void test_dtor_sets_again(void)
{
    CHECK_OK(weft_key_create(sets_again, &g_again_k));
    weft_thread t;

    g_again_calls = 0;
    CHECK_OK(weft_thread_create(self_pool(), again_unit, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t)); /* the ULT ends and is joined */
    CHECK(g_again_calls == 4);

    g_again_calls = 0;
    CHECK_OK(weft_tasklet_create(self_pool(), again_unit, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_again_calls == 4);

    g_again_calls = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, again_thread, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(g_again_calls == 4);

    CHECK_OK(weft_key_free(&g_again_k));
}

/* ---- A destructor that sets keys beyond the table's size: the table
 * being released grows (moves) under the release. ---- */

#define N_GROW 16
static weft_key g_grow_first, g_grow[N_GROW];
static int g_grow_first_calls, g_grow_calls;
static int g_grow_val;

static void grow_dtor(void *v)
{
    CHECK(v == &g_grow_val);
    __atomic_add_fetch(&g_grow_calls, 1, __ATOMIC_RELAXED);
}

/* 17 keys live, so at least one of g_grow has an index past the table of
 * 8 slots that setting g_grow_first alone makes. */
static void grows(void *v)
{
    __atomic_add_fetch(&g_grow_first_calls, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < N_GROW; i++) CHECK_OK(weft_key_set(g_grow[i], v));
    void *got;
    CHECK_OK(weft_key_get(g_grow[N_GROW - 1], &got));
    CHECK(got == v);
}

static void grow_unit(void *arg)
{
    (void)arg;
    CHECK_OK(weft_key_set(g_grow_first, &g_grow_val));
}

static void *grow_thread(void *arg)
{
    grow_unit(arg);
    return NULL;
}

static void test_dtor_grows_table(void)
{
    CHECK_OK(weft_key_create(grows, &g_grow_first));
    for (int i = 0; i < N_GROW; i++) CHECK_OK(weft_key_create(grow_dtor, &g_grow[i]));
    weft_thread t;
    pthread_t th;
    for (int kind = 0; kind < 3; kind++) {
        g_grow_first_calls = g_grow_calls = 0;
        if (kind == 0) CHECK_OK(weft_thread_create(self_pool(), grow_unit, NULL, NULL, &t));
        if (kind == 1) CHECK_OK(weft_tasklet_create(self_pool(), grow_unit, NULL, &t));
        if (kind < 2) CHECK_OK(weft_thread_free(&t));
        if (kind == 2) {
            CHECK(pthread_create(&th, NULL, grow_thread, NULL) == 0);
            CHECK(pthread_join(th, NULL) == 0);
        }
        CHECK(g_grow_first_calls == 1);
        CHECK(g_grow_calls == N_GROW); /* each value set by the destructor, destroyed once */
    }
    for (int i = 0; i < N_GROW; i++) CHECK_OK(weft_key_free(&g_grow[i]));
    CHECK_OK(weft_key_free(&g_grow_first));
}

/* ---- A plain thread's pthread-key destructor that runs after weft's. ----
 * glibc runs the destructors of pthread keys in the order of the keys'
 * creation; the thread below creates its key after its first
 * weft_key_set made weft's, so its destructor runs once weft has released
 * the thread's table. It must then see no table (not the freed one), and a
 * value it sets there is destroyed by weft's destructor in glibc's next
 * round. */

static weft_key g_late_k;
static pthread_key_t g_late_pk;
static int g_late_dtor_calls, g_late_pk_calls;
static int g_late_val, g_late_val2;

static void late_weft_dtor(void *v)
{
    CHECK(v == &g_late_val || v == &g_late_val2);
    __atomic_add_fetch(&g_late_dtor_calls, 1, __ATOMIC_RELAXED);
}

static void late_pthread_dtor(void *v)
{
    CHECK(v == &g_late_val2);
    __atomic_add_fetch(&g_late_pk_calls, 1, __ATOMIC_RELAXED);
    CHECK(g_late_dtor_calls == 1); /* weft's ran first */
    void *got = &got;
    CHECK_OK(weft_key_get(g_late_k, &got));
    CHECK(got == NULL); /* released: no table any more */
    CHECK_OK(weft_key_set(g_late_k, v)); /* a new table, for glibc's next round */
    CHECK_OK(weft_key_get(g_late_k, &got));
    CHECK(got == v);
}

static void *late_thread(void *arg)
{
    (void)arg;
    CHECK_OK(weft_key_set(g_late_k, &g_late_val)); /* creates weft's pthread key if none */
    CHECK(pthread_key_create(&g_late_pk, late_pthread_dtor) == 0); /* so ours comes after */
    CHECK(pthread_setspecific(g_late_pk, &g_late_val2) == 0);
    return NULL;
}

/* Keys need no weft_init: run before it (the process never initialised
 * weft) and after it. */
static void test_late_pthread_dtor(void)
{
    CHECK_OK(weft_key_create(late_weft_dtor, &g_late_k));
    g_late_dtor_calls = g_late_pk_calls = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, late_thread, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(g_late_pk_calls == 1);
    CHECK(g_late_dtor_calls == 2); /* the first value, then the one set late */
    CHECK(pthread_key_delete(g_late_pk) == 0);
    CHECK_OK(weft_key_free(&g_late_k));
}

int main(void)
{
    test_late_pthread_dtor(); /* before weft_init */
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
    static int mine = 7;
    CHECK_OK(weft_key_set(g_k, &mine));
    weft_thread t;
    CHECK_OK(weft_tasklet_create(self_pool(), in_tasklet, &g_tv, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_dtor_calls == 33);
    void *v;
    CHECK_OK(weft_key_get(g_k, &v));
    CHECK(v == &mine);

    /* weft_thread_exit runs the destructors too. */
    CHECK_OK(weft_thread_create(self_pool(), exits, &g_tv, NULL, &t));
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
    CHECK(weft_key_set(copy, &g_tv) == WEFT_ERR_HANDLE);
    CHECK(weft_key_get(g_k2, NULL) == WEFT_ERR_INVALID);
    CHECK(weft_key_create(NULL, NULL) == WEFT_ERR_INVALID);
    CHECK_OK(weft_key_free(&g_k2));

    test_dtor_sets_again();
    test_dtor_grows_table();
    test_late_pthread_dtor(); /* weft initialised, the thread not a stream */

    CHECK_OK(weft_finalize());
    printf("key: ok\n");
    return 0;
}
