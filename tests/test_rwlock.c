/* Read-write locks: readers share, writers exclude (checked by counters
 * kept inside the critical sections) with ULTs on every stream and a plain
 * thread; phase-fair order (a writer is not overtaken by later readers,
 * readers queued behind a writer all get in after it); misuse. */
#define _GNU_SOURCE
#include <pthread.h>

#include "check.h"

#define STREAMS 2

static weft_rwlock g_l;
static int g_readers, g_writers, g_max_readers; /* inside the lock */
static long g_value;
static int ITERS = 30;

static void reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        CHECK_OK(weft_rwlock_rdlock(g_l));
        int r = __atomic_add_fetch(&g_readers, 1, __ATOMIC_RELAXED);
        CHECK(__atomic_load_n(&g_writers, __ATOMIC_RELAXED) == 0);
        int m = __atomic_load_n(&g_max_readers, __ATOMIC_RELAXED);
        if (r > m) __atomic_compare_exchange_n(&g_max_readers, &m, r, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        if (i % 5 == 0) CHECK_OK(weft_yield()); /* hold it across a switch */
        __atomic_sub_fetch(&g_readers, 1, __ATOMIC_RELAXED);
        CHECK_OK(weft_rwlock_unlock(g_l));
    }
}

static void writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS / 3; i++) {
        CHECK_OK(weft_rwlock_wrlock(g_l));
        CHECK(__atomic_add_fetch(&g_writers, 1, __ATOMIC_RELAXED) == 1);
        CHECK(__atomic_load_n(&g_readers, __ATOMIC_RELAXED) == 0);
        long v = g_value;
        if (i % 4 == 0) CHECK_OK(weft_yield());
        g_value = v + 1;
        __atomic_sub_fetch(&g_writers, 1, __ATOMIC_RELAXED);
        CHECK_OK(weft_rwlock_unlock(g_l));
    }
}

static void *thread_writer(void *arg)
{
    writer(arg);
    return NULL;
}

/* Order on one stream: main reads; W waits; R1, R2 (after W) queue behind
 * it; W2 after them. Expect W, then R1 and R2 together, then W2. */
static char g_seq[8];
static int g_nseq;
static void seq_w(void *arg)
{
    CHECK_OK(weft_rwlock_wrlock(g_l));
    g_seq[g_nseq++] = *(char *)arg;
    CHECK_OK(weft_rwlock_unlock(g_l));
}
static void seq_r(void *arg)
{
    CHECK_OK(weft_rwlock_rdlock(g_l));
    g_seq[g_nseq++] = *(char *)arg;
    CHECK_OK(weft_yield()); /* the other reader gets in meanwhile */
    CHECK_OK(weft_rwlock_unlock(g_l));
}

static void in_tasklet(void *arg)
{
    (void)arg;
    CHECK(weft_rwlock_wrlock(g_l) == WEFT_ERR_TASKLET_BLOCKS); /* main reads */
    CHECK_OK(weft_rwlock_rdlock(g_l));                      /* no writer waits: no wait */
    CHECK_OK(weft_rwlock_unlock(g_l));
}

static void write_once(void *arg)
{
    CHECK_OK(weft_rwlock_wrlock(arg));
    CHECK_OK(weft_rwlock_unlock(arg));
}

/* weft.h: a read lock is not taken again while a writer waits (it would
 * wait behind that writer, which waits for the reader). The try form says
 * so with WEFT_ERR_BUSY; once the first read hold goes, the writer runs. */
static void reader_again_while_writer_waits(void)
{
    weft_rwlock l;
    CHECK_OK(weft_rwlock_create(&l));
    CHECK_OK(weft_rwlock_rdlock(l));
    weft_xstream xs1;
    CHECK_OK(weft_xstream_get(1, &xs1));
    weft_thread w;
    CHECK_OK(weft_thread_create_to(xs1, write_once, l, NULL, &w));
    wait_for_state(w, WEFT_STATE_BLOCKED);
    CHECK_RC(weft_rwlock_tryrdlock(l), WEFT_ERR_BUSY);
    CHECK_OK(weft_rwlock_unlock(l));
    CHECK_OK(weft_thread_free(&w));
    CHECK_OK(weft_rwlock_free(&l));
}

int main(void)
{
    const char *env = getenv("WEFT_STRESS_N");
    if (env && atoi(env) / 2000 < ITERS) ITERS = atoi(env) / 2000 > 6 ? atoi(env) / 2000 : 6;
    start_weft(STREAMS);
    CHECK_OK(weft_rwlock_create(&g_l));

    enum { R = 1000, W = 100 };
    static weft_thread t[R + W];
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_writer, NULL) == 0);
    for (int i = 0; i < R + W; i++) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_get(i % STREAMS, &xs));
        CHECK_OK(weft_thread_create_to(xs, i < R ? reader : writer, NULL, NULL, &t[i]));
    }
    CHECK_OK(weft_thread_free_many(R + W, t));
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(g_value == (long)(W + 1) * (ITERS / 3));
    printf("rwlock: up to %d readers at once\n", g_max_readers);
    CHECK(g_max_readers >= 2);

    /* Phase order. */
    weft_pool pool = self_pool();
    static char names[] = "WabX";
    weft_thread q[4];
    CHECK_OK(weft_rwlock_rdlock(g_l));
    CHECK_OK(weft_thread_create(pool, seq_w, &names[0], NULL, &q[0]));
    CHECK_OK(weft_thread_create(pool, seq_r, &names[1], NULL, &q[1]));
    CHECK_OK(weft_thread_create(pool, seq_r, &names[2], NULL, &q[2]));
    CHECK_OK(weft_thread_create(pool, seq_w, &names[3], NULL, &q[3]));
    CHECK_OK(weft_yield()); /* all four queue */
    CHECK(g_nseq == 0);
    CHECK(weft_rwlock_trywrlock(g_l) == WEFT_ERR_BUSY);
    CHECK(weft_rwlock_tryrdlock(g_l) == WEFT_ERR_BUSY); /* a writer waits */
    CHECK_OK(weft_rwlock_unlock(g_l));
    CHECK_OK(weft_thread_free_many(4, q));
    CHECK(g_nseq == 4 && g_seq[0] == 'W' && g_seq[3] == 'X');

    /* Misuse. */
    CHECK(weft_rwlock_unlock(g_l) == WEFT_ERR_NOT_OWNER); /* nobody holds it */
    CHECK_OK(weft_rwlock_wrlock(g_l));
    CHECK(weft_rwlock_rdlock(g_l) == WEFT_ERR_BUSY); /* it would wait for itself */
    CHECK(weft_rwlock_free(&g_l) == WEFT_ERR_BUSY);
    CHECK_OK(weft_rwlock_unlock(g_l));
    CHECK_OK(weft_rwlock_rdlock(g_l));
    weft_thread tk;
    CHECK_OK(weft_tasklet_create(pool, in_tasklet, NULL, &tk));
    CHECK_OK(weft_thread_free(&tk));
    CHECK_OK(weft_rwlock_unlock(g_l));
    weft_rwlock stale = g_l;
    CHECK_OK(weft_rwlock_free(&g_l));
    CHECK(weft_rwlock_free(&stale) == WEFT_ERR_HANDLE);
    CHECK(weft_rwlock_rdlock(stale) == WEFT_ERR_HANDLE);
    CHECK(weft_rwlock_create(NULL) == WEFT_ERR_INVALID);

    reader_again_while_writer_waits();
    CHECK_OK(weft_finalize());
    printf("rwlock: ok\n");
    return 0;
}
