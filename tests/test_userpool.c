/* A user-defined pool: earliest deadline first, intrusive (linked through
 * weft_thread_pool_data), so its push cannot fail. Units run in deadline
 * order; cancel goes through the pool's remove; an MPMC user pool fed while
 * it is being served loses nothing. A release-time pool (the same list, with
 * is_empty / size / pop_wait) holds units back until their time comes. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

struct job { long deadline; int *order; int *n; };
struct edf { weft_thread head; int freed; };

static long deadline_of(weft_thread u) /* struct job and struct timed start with it */
{
    void *arg;
    CHECK_OK(weft_thread_get_arg(u, &arg));
    return *(long *)arg;
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

/* A pool whose pop makes and frees a pool of its own: finalize empties
 * a pool nobody serves without holding a lock such calls take. */
static int fussy_pops;
static weft_thread fussy_pop(void *state)
{
    weft_pool tmp;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &tmp));
    CHECK_OK(weft_pool_free(&tmp));
    fussy_pops++;
    return edf_pop(state);
}

static void run_job(void *arg)
{
    struct job *j = arg;
    j->order[(*j->n)++] = (int)j->deadline;
}

/* Release-time pool: `deadline` is a release time in CLOCK_MONOTONIC ns.
 * Only units whose time has come are ready. */
struct release { struct edf list; int waits; };

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int rel_is_empty(void *state)
{
    struct edf *e = state;
    return !e->head || deadline_of(e->head) > now_ns();
}

static size_t rel_size(void *state)
{
    struct edf *e = state;
    size_t n = 0;
    long now = now_ns();
    for (weft_thread u = e->head; u && deadline_of(u) <= now; u = *next_of(u)) n++;
    return n;
}

static weft_thread rel_pop(void *state)
{
    return rel_is_empty(state) ? NULL : edf_pop(state);
}

static int rel_pop_many(void *state, weft_thread *units, int max)
{
    CHECK(!rel_is_empty(state)); /* weft asks only when something is ready */
    int n = 0;
    while (n < max && (units[n] = rel_pop(state))) n++;
    return n;
}

static weft_thread rel_pop_wait(void *state, uint64_t timeout_ns)
{
    struct release *r = state;
    r->waits++;
    long until = deadline_of(r->list.head), limit = now_ns() + (long)timeout_ns;
    if (timeout_ns < (uint64_t)1e15 && limit < until) until = limit;
    struct timespec ts = {until / 1000000000L, until % 1000000000L};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) {}
    return rel_pop(state);
}

struct timed { long release, ran_at; int *n; }; /* release first: deadline_of reads it */

static void run_timed(void *arg)
{
    struct timed *t = arg;
    t->ran_at = now_ns();
    (*t->n)++;
}

static void count(void *arg) { __atomic_fetch_add((int *)((struct job *)arg)->n, 1, __ATOMIC_RELAXED); }

struct pw_args { weft_pool p; weft_thread got[2]; long at; };

static void *waiter(void *arg)
{
    struct pw_args *a = arg;
    CHECK_OK(weft_pool_pop_wait(a->p, UINT64_MAX, &a->got[0]));
    a->at = now_ns();
    CHECK_OK(weft_pool_pop_wait(a->p, 5000000, &a->got[1]));
    return NULL;
}

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

    /* Release-time pool: weft asks it what is ready. */
    const weft_pool_ops rel_ops = {.push = edf_push, .pop = rel_pop, .remove = edf_remove, .pop_many = rel_pop_many,
                                   .is_empty = rel_is_empty, .size = rel_size, .pop_wait = rel_pop_wait};
    struct release r = {0};
    CHECK_OK(weft_pool_create_user(&rel_ops, &r, WEFT_POOL_ACCESS_PRIVATE, &p));
    int ran = 0;
    long base = now_ns();
    struct timed tm[3] = {{base + 40000000L, 0, &ran}, {base, 0, &ran}, {base + 15000000L, 0, &ran}};
    weft_thread tt[3];
    for (int i = 0; i < 3; i++) CHECK_OK(weft_thread_create(p, run_timed, &tm[i], NULL, &tt[i]));
    CHECK_OK(weft_pool_size(p, &sz));
    CHECK(sz <= 2 && sz >= 1); /* the one due now (and the 15 ms one on a slow machine) */
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    CHECK_OK(weft_xstream_create(s, &xs));
    CHECK_OK(weft_thread_free_many(3, tt));
    CHECK(ran == 3);
    for (int i = 0; i < 3; i++) CHECK(tm[i].ran_at >= tm[i].release);
    CHECK(tm[1].ran_at <= tm[2].ran_at && tm[2].ran_at <= tm[0].ran_at);
    CHECK_OK(weft_xstream_free(&xs));
    CHECK_OK(weft_sched_free(&s));

    /* Its pop_wait, from a plain thread (the pool has no owner stream yet):
     * sleeps until the release, or returns NULL at the timeout. */
    base = now_ns();
    ran = 0;
    tm[0] = (struct timed){base + 20000000L, 0, &ran};
    tm[1] = (struct timed){base + 3600000000000L, 0, &ran}; /* an hour away */
    for (int i = 0; i < 2; i++) CHECK_OK(weft_thread_create(p, run_timed, &tm[i], NULL, &tt[i]));
    int empty, got;
    CHECK_OK(weft_pool_is_empty(p, &empty));
    CHECK(empty == 1);
    weft_thread none[2];
    CHECK_OK(weft_pool_pop_many(p, 2, none, &got));
    CHECK(got == 0);
    struct pw_args pw = {p, {0, 0}, 0};
    int waits_before = r.waits;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, waiter, &pw) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(pw.got[0] == tt[0] && pw.at >= tm[0].release);
    CHECK(pw.got[1] == WEFT_THREAD_NULL);
    /* The second call waits in the pool's pop_wait (its unit is an hour
     * away); the first too, unless the thread started after the release
     * (valgrind on a loaded machine takes longer than 20 ms). */
    CHECK(r.waits - waits_before >= 1 && r.waits - waits_before <= 2);
    CHECK_OK(weft_pool_push(self_pool(), pw.got[0]));
    CHECK_OK(weft_thread_free(&tt[0]));
    CHECK(ran == 1);
    CHECK_OK(weft_thread_cancel(tt[1]));
    CHECK_OK(weft_thread_free(&tt[1]));
    CHECK(ran == 1);
    CHECK_OK(weft_pool_free(&p));

    /* Units left in a user pool nobody serves run at finalize, although its
     * pop makes and frees pools. */
    const weft_pool_ops fussy = {.push = edf_push, .pop = fussy_pop, .remove = edf_remove};
    struct edf e3 = {0};
    CHECK_OK(weft_pool_create_user(&fussy, &e3, WEFT_POOL_ACCESS_MPMC, &p));
    n = 0;
    for (int i = 0; i < 3; i++) {
        jobs[i] = (struct job){3 - i, order, &n};
        CHECK_OK(weft_thread_create(p, run_job, &jobs[i], NULL, NULL));
    }
    CHECK_OK(weft_finalize());
    CHECK(n == 3 && fussy_pops == 3);
    CHECK(order[0] == 1 && order[1] == 2 && order[2] == 3);
    printf("userpool: ok\n");
    return 0;
}
