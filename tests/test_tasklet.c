/* Tasklets: run to completion on the scheduler's stack; every attempt to
 * block is refused with WEFT_ERR_TASKLET_BLOCKS and nothing is lost. */
#include "check.h"

struct probe {
    weft_thread other;  /* a ULT that has not finished */
    weft_thread done;   /* a unit that has finished */
    int yield_rc, join_rc, join_done_rc, exit_rc, self_ok, create_rc, xs_join_rc;
    weft_xstream some_stream;
    int child_ran;
};

static void child(void *arg) { ((struct probe *)arg)->child_ran = 1; }

static void spin_until(void *arg) { while (!__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE)) weft_yield(); }

static void nop(void *arg) { (void)arg; }

static void tasklet_body(void *arg)
{
    struct probe *p = arg;
    p->yield_rc = weft_yield();
    p->join_rc = weft_thread_join(p->other);
    p->join_done_rc = weft_thread_join(p->done);
    p->exit_rc = weft_thread_exit();
    p->xs_join_rc = weft_xstream_join(p->some_stream);
    weft_thread self;
    int is_t = 0;
    p->self_ok = weft_self(&self) == WEFT_OK && weft_thread_is_tasklet(self, &is_t) == WEFT_OK && is_t;
    weft_xstream xs;
    weft_pool pool;
    int n;
    weft_xstream_self(&xs);
    weft_xstream_get_pools(xs, 1, &pool, &n);
    p->create_rc = weft_tasklet_create(pool, child, p, NULL); /* detached: fine */
}

int main(void)
{
    CHECK_OK(weft_init(NULL));
    weft_pool pool = self_pool();

    int release = 0;
    struct probe p = {0};
    CHECK_OK(weft_thread_create(pool, spin_until, &release, NULL, &p.other));
    CHECK_OK(weft_tasklet_create(pool, nop, NULL, &p.done));
    CHECK_OK(weft_thread_join(p.done));
    CHECK_OK(weft_xstream_create(NULL, &p.some_stream));
    weft_thread t;
    CHECK_OK(weft_tasklet_create(pool, tasklet_body, &p, &t));
    CHECK_OK(weft_thread_join(t));
    CHECK_RC(p.yield_rc, WEFT_ERR_TASKLET_BLOCKS);
    CHECK_RC(p.join_rc, WEFT_ERR_TASKLET_BLOCKS);
    CHECK_RC(p.join_done_rc, WEFT_ERR_JOINED); /* main joined it already */
    CHECK_RC(p.exit_rc, WEFT_ERR_NOT_ULT);
    CHECK_RC(p.xs_join_rc, WEFT_ERR_TASKLET_BLOCKS);
    CHECK_RC(p.create_rc, WEFT_OK);
    CHECK(p.self_ok);
    /* The refused join did not claim the ULT: main can still join it. */
    __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
    CHECK_OK(weft_thread_free(&p.other));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_thread_free(&p.done));
    CHECK_OK(weft_xstream_free(&p.some_stream));

    /* A tasklet joining a finished unit it owns is fine. */
    CHECK_OK(weft_finalize());
    CHECK(p.child_ran == 1);
    printf("tasklet: ok\n");
    return 0;
}
