/* Cancel: only a unit that has not started, only where the caller may
 * reach its pool; joiners of a cancelled unit return normally. */
#include "check.h"

static void must_not_run(void *arg) { *(int *)arg = 1; }

static int g_go;
static void wait_go(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&g_go, __ATOMIC_ACQUIRE)) weft_yield();
}

/* Holds its stream without yielding: what waits behind it stays waiting. */
static void hold_stream(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&g_go, __ATOMIC_ACQUIRE)) { }
}

static void wait_eventual(void *arg)
{
    CHECK_OK(weft_eventual_wait(arg, NULL));
}

int main(void)
{
    start_weft(2);
    weft_pool spare;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &spare));

    /* Not started: cancelled, joined, never run. */
    int ran = 0;
    weft_thread t, tk;
    CHECK_OK(weft_thread_create(spare, must_not_run, &ran, NULL, &t));
    CHECK_OK(weft_tasklet_create(spare, must_not_run, &ran, &tk));
    CHECK_OK(weft_thread_cancel(t));
    CHECK_OK(weft_thread_cancel(tk));
    CHECK_RC(weft_thread_cancel(t), WEFT_ERR_STATE); /* already ended */
    int c = 0;
    CHECK_OK(weft_thread_was_cancelled(t, &c));
    CHECK(c == 1);
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_thread_free(&tk));
    CHECK(ran == 0);
    size_t n;
    CHECK_OK(weft_pool_size(spare, &n));
    CHECK(n == 0);

    /* Started (it yielded back into its pool): refused. */
    weft_xstream me;
    weft_pool mine;
    int np;
    CHECK_OK(weft_xstream_self(&me));
    CHECK_OK(weft_xstream_get_pools(me, 1, &mine, &np));
    CHECK_OK(weft_thread_create(mine, wait_go, NULL, NULL, &t));
    CHECK_OK(weft_yield()); /* t starts and yields back */
    CHECK_RC(weft_thread_cancel(t), WEFT_ERR_STATE);
    __atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(weft_thread_was_cancelled(NULL, &c), WEFT_ERR_HANDLE);

    /* Held by the caller after a pop: not in a pool, refused. */
    CHECK_OK(weft_thread_create(spare, must_not_run, &ran, NULL, &t));
    weft_thread got;
    CHECK_OK(weft_pool_pop(spare, &got));
    CHECK_RC(weft_thread_cancel(got), WEFT_ERR_STATE);
    CHECK_OK(weft_pool_push(spare, got));
    CHECK_OK(weft_thread_cancel(got));
    CHECK_OK(weft_thread_free(&t));

    /* Waiting in another stream's private pool: refused from here. Its
     * stream is held by a tasklet so the unit is still waiting when we
     * try. */
    weft_pool priv;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &priv));
    weft_sched s;
    CHECK_OK(weft_sched_create_basic(1, &priv, &s));
    __atomic_store_n(&g_go, 0, __ATOMIC_RELEASE);
    weft_thread blocker;
    int ran2 = 0;
    CHECK_OK(weft_tasklet_create(priv, hold_stream, NULL, &blocker)); /* filled before attach */
    CHECK_OK(weft_thread_create(priv, must_not_run, &ran2, NULL, &t));
    weft_xstream x;
    CHECK_OK(weft_xstream_create(s, &x));
    CHECK_RC(weft_thread_cancel(t), WEFT_ERR_POOL_ACCESS);
    __atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
    CHECK_OK(weft_thread_free(&t));
    CHECK(ran2 == 1);
    CHECK_OK(weft_thread_free(&blocker));

    /* Blocked, its pool another stream's: not waiting in a pool, so
     * WEFT_ERR_STATE (the pool's owner does not matter). */
    weft_eventual ev;
    CHECK_OK(weft_eventual_create(0, &ev));
    CHECK_OK(weft_thread_create(priv, wait_eventual, ev, NULL, &t));
    wait_for_state(t, WEFT_STATE_BLOCKED);
    CHECK_RC(weft_thread_cancel(t), WEFT_ERR_STATE);
    CHECK_OK(weft_eventual_set(ev, NULL, 0));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_eventual_free(&ev));
    CHECK_OK(weft_xstream_free(&x));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&priv));
    CHECK_OK(weft_pool_free(&spare));

    CHECK_OK(weft_finalize());
    printf("cancel: ok\n");
    return 0;
}
