/* A user-defined pool: earliest deadline first, intrusive (linked through
 * weft_thread_pool_data), so its push cannot fail. Units run in deadline
 * order; cancel goes through the pool's remove; an MPMC user pool fed while
 * it is being served loses nothing. */
#include <stdlib.h>

#include "check.h"

struct job { long deadline; int *order; int *n; };
struct edf { weft_thread head; int freed; };

static long deadline_of(weft_thread u)
{
    void *arg;
    CHECK_OK(weft_thread_get_arg(u, &arg));
    return ((struct job *)arg)->deadline;
}

static weft_thread *next_of(weft_thread u)
{
    void **d;
    CHECK_OK(weft_thread_pool_data(u, &d));
    return (weft_thread *)&d[0];
}

static void edf_push(void *state, weft_thread u)
{
    struct edf *e = state;
    weft_thread *at = &e->head;
    while (*at && deadline_of(*at) <= deadline_of(u)) at = next_of(*at);
    *next_of(u) = *at;
    *at = u;
}

static weft_thread edf_pop(void *state)
{
    struct edf *e = state;
    weft_thread u = e->head;
    e->head = *next_of(u);
    return u;
}

static void edf_remove(void *state, weft_thread u)
{
    struct edf *e = state;
    weft_thread *at = &e->head;
    while (*at != u) at = next_of(*at);
    *at = *next_of(u);
}

static void edf_free(void *state) { ((struct edf *)state)->freed = 1; }

static void run_job(void *arg)
{
    struct job *j = arg;
    j->order[(*j->n)++] = (int)j->deadline;
}

static void count(void *arg) { __atomic_fetch_add((int *)((struct job *)arg)->n, 1, __ATOMIC_RELAXED); }

int main(void)
{
    start_weft(1);
    const weft_pool_ops ops = {.push = edf_push, .pop = edf_pop, .remove = edf_remove, .free = edf_free};
    weft_pool p;
    weft_pool_ops bad = ops;
    bad.pop = NULL;
    CHECK_RC(weft_pool_create_user(&bad, NULL, WEFT_POOL_ACCESS_PRIVATE, &p), WEFT_ERR_INVALID);
    CHECK_RC(weft_pool_create_user(NULL, NULL, WEFT_POOL_ACCESS_PRIVATE, &p), WEFT_ERR_INVALID);

    /* Private EDF pool, filled before its stream starts: deadline order. */
    struct edf e = {0};
    CHECK_OK(weft_pool_create_user(&ops, &e, WEFT_POOL_ACCESS_PRIVATE, &p));
    int order[64], n = 0;
    struct job jobs[64];
    weft_thread t[64];
    srand(7);
    for (int i = 0; i < 64; i++) {
        jobs[i] = (struct job){rand() % 1000, order, &n};
        if (i % 3) CHECK_OK(weft_thread_create(p, run_job, &jobs[i], NULL, &t[i]));
        else CHECK_OK(weft_tasklet_create(p, run_job, &jobs[i], &t[i]));
    }
    size_t sz;
    CHECK_OK(weft_pool_size(p, &sz));
    CHECK(sz == 64);
    CHECK_OK(weft_thread_cancel(t[10])); /* through edf_remove */
    CHECK_OK(weft_pool_size(p, &sz));
    CHECK(sz == 63);
    weft_sched s;
    weft_xstream xs;
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    CHECK_OK(weft_xstream_create(s, &xs));
    CHECK_OK(weft_thread_free_many(64, t));
    CHECK(n == 63);
    for (int i = 1; i < n; i++) CHECK(order[i - 1] <= order[i]);
    CHECK_OK(weft_xstream_free(&xs));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&p));
    CHECK(e.freed == 1);

    /* MPMC EDF pool served by a stream while the main ULT feeds it. */
    struct edf e2 = {0};
    CHECK_OK(weft_pool_create_user(&ops, &e2, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    CHECK_OK(weft_xstream_create(s, &xs));
    int done = 0;
    struct job *many = calloc(5000, sizeof *many);
    weft_thread *mt = calloc(5000, sizeof *mt);
    for (int i = 0; i < 5000; i++) {
        many[i] = (struct job){i % 97, NULL, &done};
        CHECK_OK(weft_thread_create(p, count, &many[i], NULL, &mt[i]));
    }
    CHECK_OK(weft_thread_free_many(5000, mt));
    CHECK(done == 5000);
    CHECK_OK(weft_xstream_free(&xs));
    CHECK_OK(weft_sched_free(&s));
    CHECK_OK(weft_pool_free(&p));
    free(many);
    free(mt);
    CHECK_OK(weft_finalize());
    printf("userpool: ok\n");
    return 0;
}
