/* Misuse of the public API: every case makes ONE wrong call and must get
 * the documented WEFT_ERR_* code back, never a crash or a hang. Each case
 * runs in a forked child (so a crash or a hang is reported, not fatal, and
 * every case starts from a fresh runtime). `test_misuse NAME` runs one. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "weft.h"

/* ------------------------------------------------------------------ */
/* Framework                                                           */

typedef struct {
    const char *name;
    int want;
    int (*fn)(void);
} misuse_case;

#define MAX_CASES 1024
static misuse_case cases[MAX_CASES];
static int ncases;

static void reg(const char *name, int want, int (*fn)(void))
{
    if (ncases < MAX_CASES) cases[ncases++] = (misuse_case){name, want, fn};
}

/* CASE(name, WEFT_ERR_X) { ... return weft_call(...); } */
#define CASE(name, want)                                                    \
    static int case_##name(void);                                           \
    __attribute__((constructor)) static void reg_##name(void)               \
    {                                                                       \
        reg(#name, want, case_##name);                                      \
    }                                                                       \
    static int case_##name(void)

/* Setup steps must succeed; a failing one ends the child with 200. */
#define SETUP_FAIL 200
#define S(call)                                                                       \
    do {                                                                              \
        int r_ = (call);                                                              \
        if (r_ != WEFT_OK) {                                                          \
            fprintf(stderr, "  setup failed in %s:%d: %s -> %d (%s)\n", __func__,    \
                    __LINE__, #call, r_, weft_strerror(r_));                          \
            _exit(SETUP_FAIL);                                                        \
        }                                                                             \
    } while (0)

static void start(int n)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = n;
    S(weft_init(&cfg));
}

/* First pool of the caller's stream. */
static weft_pool mypool(void)
{
    weft_xstream xs;
    weft_pool p;
    int n;
    S(weft_xstream_self(&xs));
    S(weft_xstream_get_pools(xs, 1, &p, &n));
    return p;
}

static weft_pool newpool(void)
{
    weft_pool p;
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    return p;
}

/* Run fn in a ULT / tasklet / plain pthread and give back its code. */
static int (*g_fn)(void);
static volatile int g_rc;
static void unit_body(void *a)
{
    (void)a;
    g_rc = g_fn();
}
static void *pthread_body(void *a)
{
    (void)a;
    g_rc = g_fn();
    return NULL;
}
static int in_ult(int (*fn)(void))
{
    weft_thread t;
    g_fn = fn;
    g_rc = -1;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    S(weft_thread_join(t));
    return g_rc;
}
static int in_tasklet(int (*fn)(void))
{
    weft_thread t;
    g_fn = fn;
    g_rc = -1;
    S(weft_tasklet_create(mypool(), unit_body, NULL, &t));
    S(weft_thread_join(t));
    return g_rc;
}
static int in_pthread(int (*fn)(void))
{
    pthread_t th;
    g_fn = fn;
    g_rc = -1;
    if (pthread_create(&th, NULL, pthread_body, NULL) != 0) _exit(SETUP_FAIL);
    pthread_join(th, NULL);
    return g_rc;
}

static void nothing(void *a) { (void)a; }

/* A ULT that is ready in a pool nobody serves (it never runs by itself). */
static weft_thread parked_ult(weft_pool *poolp)
{
    weft_pool p = newpool();
    weft_thread t;
    S(weft_thread_create(p, nothing, NULL, NULL, &t));
    if (poolp) *poolp = p;
    return t;
}

/* A unit that has ended (joined when `joined`). */
static weft_thread ended_ult(int joined)
{
    weft_thread t;
    weft_thread_state st;
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    if (joined) {
        S(weft_thread_join(t));
    } else {
        do {
            S(weft_yield());
            S(weft_thread_get_state(t, &st));
        } while (st != WEFT_STATE_TERMINATED);
    }
    return t;
}

/* Yield until unit t is blocked. */
static void wait_blocked(weft_thread t)
{
    weft_thread_state st;
    for (;;) {
        S(weft_thread_get_state(t, &st));
        if (st == WEFT_STATE_BLOCKED) return;
        S(weft_yield());
    }
}

#define MISALIGN(h) ((void *)((char *)(h) + 8))
#define PAST_DEADLINE ((uint64_t)1)

/* ------------------------------------------------------------------ */
/* Runtime: init, finalize, config                                     */

CASE(uninit_thread_create, WEFT_ERR_UNINIT)
{
    weft_thread t;
    return weft_thread_create(WEFT_POOL_NULL, nothing, NULL, NULL, &t);
}
CASE(uninit_xstream_create, WEFT_ERR_UNINIT)
{
    weft_xstream xs;
    return weft_xstream_create(WEFT_SCHED_NULL, &xs);
}
CASE(uninit_xstream_count, WEFT_ERR_UNINIT)
{
    int n;
    return weft_xstream_count(&n);
}
CASE(uninit_xstream_get, WEFT_ERR_UNINIT)
{
    weft_xstream xs;
    return weft_xstream_get(0, &xs);
}
CASE(uninit_pool_add_sched, WEFT_ERR_UNINIT)
{
    weft_pool p, q;
    weft_sched s;
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &q));
    S(weft_sched_create_basic(1, &p, &s));
    return weft_pool_add_sched(q, s);
}
CASE(uninit_finalize, WEFT_ERR_UNINIT) { return weft_finalize(); }
CASE(finalize_twice, WEFT_ERR_UNINIT)
{
    start(1);
    S(weft_finalize());
    return weft_finalize();
}
CASE(init_twice, WEFT_ERR_INIT)
{
    start(1);
    return weft_init(NULL);
}
CASE(init_zero_streams, WEFT_ERR_INVALID)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 0;
    return weft_init(&cfg);
}
CASE(init_bad_stack_size, WEFT_ERR_INVALID)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.stack_size = 1;
    return weft_init(&cfg);
}
CASE(init_bad_pool_kind, WEFT_ERR_INVALID)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.pool_kind = (weft_pool_kind)42;
    return weft_init(&cfg);
}
CASE(init_deque_private, WEFT_ERR_INVALID)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.pool_kind = WEFT_POOL_DEQUE;
    cfg.pool_access = WEFT_POOL_ACCESS_PRIVATE;
    return weft_init(&cfg);
}
CASE(init_bad_wait_policy, WEFT_ERR_INVALID)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.wait_policy = (weft_wait_policy)9;
    return weft_init(&cfg);
}
CASE(init_bad_spin_us, WEFT_ERR_INVALID)
{
    weft_config cfg;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.spin_us = -5;
    return weft_init(&cfg);
}
CASE(config_init_null, WEFT_ERR_INVALID) { return weft_config_init(NULL); }
CASE(config_stack_overflow_env, WEFT_ERR_INVALID)
{
    weft_config cfg;
    setenv("WEFT_STACK_SIZE", "17592186044417M", 1);
    return weft_config_init(&cfg);
}
CASE(config_stack_garbage_env, WEFT_ERR_INVALID)
{
    weft_config cfg;
    setenv("WEFT_STACK_SIZE", "12Q", 1);
    return weft_config_init(&cfg);
}
CASE(config_streams_env, WEFT_ERR_INVALID)
{
    weft_config cfg;
    setenv("WEFT_NUM_XSTREAMS", "many", 1);
    return weft_config_init(&cfg);
}
CASE(config_policy_env, WEFT_ERR_INVALID)
{
    weft_config cfg;
    setenv("WEFT_WAIT_POLICY", "sometimes", 1);
    return weft_config_init(&cfg);
}
CASE(config_spin_env, WEFT_ERR_INVALID)
{
    weft_config cfg;
    setenv("WEFT_SPIN_US", "-3", 1);
    return weft_config_init(&cfg);
}
CASE(config_bind_env, WEFT_ERR_INVALID)
{
    weft_config cfg;
    setenv("WEFT_BIND", "yes please", 1);
    return weft_config_init(&cfg);
}
static int finalize_call(void) { return weft_finalize(); }
CASE(finalize_from_ult, WEFT_ERR_PRIMARY)
{
    start(1);
    return in_ult(finalize_call);
}
CASE(finalize_from_tasklet, WEFT_ERR_PRIMARY)
{
    start(1);
    return in_tasklet(finalize_call);
}
CASE(set_wait_policy_bad, WEFT_ERR_INVALID) { return weft_set_wait_policy((weft_wait_policy)7, 0); }
CASE(set_wait_policy_neg_spin, WEFT_ERR_INVALID)
{
    return weft_set_wait_policy(WEFT_WAIT_HYBRID, -1);
}
CASE(set_wait_policy_big_spin, WEFT_ERR_INVALID)
{
    return weft_set_wait_policy(WEFT_WAIT_HYBRID, WEFT_MAX_SPIN_US + 1);
}

/* ------------------------------------------------------------------ */
/* Execution streams                                                   */

CASE(xstream_create_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_xstream_create(WEFT_SCHED_NULL, NULL);
}
CASE(xstream_create_busy_sched, WEFT_ERR_BUSY)
{
    weft_xstream self, xs;
    weft_sched s;
    start(1);
    S(weft_xstream_self(&self));
    S(weft_xstream_get_main_sched(self, &s));
    return weft_xstream_create(s, &xs);
}
CASE(xstream_create_stale_sched, WEFT_ERR_HANDLE)
{
    weft_xstream xs;
    weft_sched s, keep;
    weft_pool p;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    keep = s;
    S(weft_sched_free(&s));
    return weft_xstream_create(keep, &xs);
}
CASE(xstream_create_mutex_as_sched, WEFT_ERR_HANDLE)
{
    weft_xstream xs;
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_xstream_create((weft_sched)(void *)m, &xs);
}
CASE(xstream_create_private_pool_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    weft_xstream xs1, xs2;
    weft_sched s1, s2;
    weft_pool p;
    start(1);
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    S(weft_sched_create_basic(1, &p, &s1));
    S(weft_sched_create_basic(1, &p, &s2));
    S(weft_xstream_create(s1, &xs1));
    return weft_xstream_create(s2, &xs2);
}
CASE(xstream_join_primary, WEFT_ERR_PRIMARY)
{
    weft_xstream xs;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_join(xs);
}
CASE(xstream_free_primary, WEFT_ERR_PRIMARY)
{
    weft_xstream xs;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_free(&xs);
}
static weft_xstream g_xs;
static int join_primary_call(void) { return weft_xstream_join(g_xs); }
CASE(xstream_join_primary_from_pthread, WEFT_ERR_PRIMARY)
{
    start(1);
    S(weft_xstream_get(0, &g_xs));
    return in_pthread(join_primary_call);
}
CASE(xstream_join_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_xstream_join(WEFT_XSTREAM_NULL);
}
CASE(xstream_free_null_ptr, WEFT_ERR_INVALID)
{
    start(1);
    return weft_xstream_free(NULL);
}
CASE(xstream_join_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(2);
    S(weft_mutex_create(NULL, &m));
    return weft_xstream_join((weft_xstream)(void *)m);
}
CASE(xstream_rank_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    int r;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_xstream_rank((weft_xstream)(void *)m, &r);
}
CASE(xstream_rank_misaligned, WEFT_ERR_HANDLE)
{
    weft_xstream xs;
    int r;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_rank((weft_xstream)MISALIGN(xs), &r);
}
CASE(xstream_rank_null_out, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_rank(xs, NULL);
}
CASE(xstream_rank_stale, WEFT_ERR_HANDLE)
{
    weft_xstream xs, keep;
    int r;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    keep = xs;
    S(weft_xstream_free(&xs));
    return weft_xstream_rank(keep, &r);
}
CASE(xstream_join_stale, WEFT_ERR_HANDLE)
{
    weft_xstream xs, keep;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    keep = xs;
    S(weft_xstream_free(&xs));
    return weft_xstream_join(keep);
}
static int join_own_stream(void)
{
    weft_xstream xs;
    S(weft_xstream_self(&xs));
    return weft_xstream_join(xs);
}
CASE(xstream_join_own_from_ult, WEFT_ERR_CROSS_STREAM)
{
    weft_xstream xs;
    weft_thread t;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    g_fn = join_own_stream;
    g_rc = -1;
    S(weft_thread_create_to(xs, unit_body, NULL, NULL, &t));
    S(weft_thread_join(t));
    return g_rc;
}
static int xstream_self_call(void)
{
    weft_xstream xs;
    return weft_xstream_self(&xs);
}
CASE(xstream_self_pthread, WEFT_ERR_NOT_WEFT)
{
    start(1);
    return in_pthread(xstream_self_call);
}
CASE(xstream_self_null, WEFT_ERR_INVALID)
{
    start(1);
    return weft_xstream_self(NULL);
}
CASE(xstream_get_bad_rank, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    start(1);
    return weft_xstream_get(99, &xs);
}
CASE(xstream_get_neg_rank, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    start(1);
    return weft_xstream_get(-1, &xs);
}
CASE(xstream_get_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_xstream_get(0, NULL);
}
CASE(xstream_count_null, WEFT_ERR_INVALID)
{
    start(1);
    return weft_xstream_count(NULL);
}
CASE(xstream_set_cpubind_bad_cpu, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_set_cpubind(xs, 1 << 20);
}
CASE(xstream_set_cpubind_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_xstream_set_cpubind(WEFT_XSTREAM_NULL, 0);
}
CASE(xstream_get_cpubind_null_out, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_get_cpubind(xs, NULL);
}
CASE(xstream_get_main_sched_null_out, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_get_main_sched(xs, NULL);
}
CASE(xstream_get_main_sched_pool_as_xs, WEFT_ERR_HANDLE)
{
    weft_sched s;
    start(1);
    return weft_xstream_get_main_sched((weft_xstream)(void *)mypool(), &s);
}
CASE(xstream_get_pools_null_n, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    weft_pool p;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_get_pools(xs, 1, &p, NULL);
}
CASE(xstream_set_main_sched_busy, WEFT_ERR_BUSY)
{
    weft_xstream self, xs;
    weft_sched s;
    start(2);
    S(weft_xstream_get(0, &self));
    S(weft_xstream_get(1, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_xstream_set_main_sched(self, s);
}
CASE(xstream_set_main_sched_other_stream, WEFT_ERR_CROSS_STREAM)
{
    weft_xstream xs;
    weft_sched s;
    weft_pool p;
    start(2);
    S(weft_xstream_get(1, &xs));
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    return weft_xstream_set_main_sched(xs, s);
}
CASE(xstream_set_main_sched_stale, WEFT_ERR_HANDLE)
{
    weft_xstream self;
    weft_sched s, keep;
    weft_pool p;
    start(1);
    S(weft_xstream_get(0, &self));
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    keep = s;
    S(weft_sched_free(&s));
    return weft_xstream_set_main_sched(self, keep);
}

/* ------------------------------------------------------------------ */
/* Work units                                                          */

CASE(thread_attr_init_null, WEFT_ERR_INVALID) { return weft_thread_attr_init(NULL); }
CASE(thread_create_null_fn, WEFT_ERR_INVALID)
{
    weft_thread t;
    start(1);
    return weft_thread_create(mypool(), NULL, NULL, NULL, &t);
}
static int create_with_stack(size_t sz)
{
    weft_thread_attr a;
    weft_thread t;
    start(1);
    S(weft_thread_attr_init(&a));
    a.stack_size = sz;
    return weft_thread_create(mypool(), nothing, NULL, &a, &t);
}
CASE(thread_create_stack_1, WEFT_ERR_INVALID) { return create_with_stack(1); }
CASE(thread_create_stack_2g, WEFT_ERR_INVALID) { return create_with_stack((size_t)2 << 30); }
CASE(thread_create_stack_16k_minus_1, WEFT_ERR_INVALID) { return create_with_stack(16 * 1024 - 1); }
CASE(thread_create_stack_huge, WEFT_ERR_INVALID) { return create_with_stack(SIZE_MAX); }
CASE(thread_create_null_pool, WEFT_ERR_HANDLE)
{
    weft_thread t;
    start(1);
    return weft_thread_create(WEFT_POOL_NULL, nothing, NULL, NULL, &t);
}
CASE(thread_create_stale_pool, WEFT_ERR_HANDLE)
{
    weft_thread t;
    weft_pool p, keep;
    start(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_thread_create(keep, nothing, NULL, NULL, &t);
}
CASE(thread_create_mutex_as_pool, WEFT_ERR_HANDLE)
{
    weft_thread t;
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_thread_create((weft_pool)(void *)m, nothing, NULL, NULL, &t);
}
CASE(thread_create_key_as_pool, WEFT_ERR_HANDLE)
{
    weft_thread t;
    weft_key k;
    start(1);
    S(weft_key_create(NULL, &k));
    return weft_thread_create((weft_pool)(void *)k, nothing, NULL, NULL, &t);
}
CASE(thread_create_misaligned_pool, WEFT_ERR_HANDLE)
{
    weft_thread t;
    start(1);
    return weft_thread_create((weft_pool)MISALIGN(mypool()), nothing, NULL, NULL, &t);
}
CASE(thread_create_to_mutex_as_xs, WEFT_ERR_HANDLE)
{
    weft_thread t;
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_thread_create_to((weft_xstream)(void *)m, nothing, NULL, NULL, &t);
}
CASE(thread_create_to_stale_xs, WEFT_ERR_HANDLE)
{
    weft_thread t;
    weft_xstream xs, keep;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    keep = xs;
    S(weft_xstream_free(&xs));
    return weft_thread_create_to(keep, nothing, NULL, NULL, &t);
}
/* A stream created and joined (not freed): its handle is valid, it runs nothing. */
static weft_xstream joined_xs(void)
{
    weft_xstream xs;
    start(1);
    if (weft_xstream_create(WEFT_SCHED_NULL, &xs) != WEFT_OK || weft_xstream_join(xs) != WEFT_OK) abort();
    return xs;
}
CASE(thread_create_to_joined_xs, WEFT_ERR_STATE)
{
    weft_thread t;
    return weft_thread_create_to(joined_xs(), nothing, NULL, NULL, &t);
}
CASE(tasklet_create_to_joined_xs, WEFT_ERR_STATE)
{
    weft_thread t;
    return weft_tasklet_create_to(joined_xs(), nothing, NULL, &t);
}
CASE(tasklet_create_null_fn, WEFT_ERR_INVALID)
{
    weft_thread t;
    start(1);
    return weft_tasklet_create(mypool(), NULL, NULL, &t);
}
CASE(tasklet_create_stale_pool, WEFT_ERR_HANDLE)
{
    weft_thread t;
    weft_pool p, keep;
    start(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_tasklet_create(keep, nothing, NULL, &t);
}
CASE(tasklet_create_to_null_xs, WEFT_ERR_HANDLE)
{
    weft_thread t;
    start(1);
    return weft_tasklet_create_to(WEFT_XSTREAM_NULL, nothing, NULL, &t);
}
static int create_first_call(void)
{
    weft_thread t;
    return weft_thread_create_first(nothing, NULL, NULL, &t);
}
CASE(create_first_pthread, WEFT_ERR_NOT_WEFT)
{
    start(1);
    return in_pthread(create_first_call);
}
CASE(create_first_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    return in_tasklet(create_first_call);
}
CASE(create_first_null_fn, WEFT_ERR_INVALID)
{
    weft_thread t;
    start(1);
    return weft_thread_create_first(NULL, NULL, NULL, &t);
}
CASE(create_first_bad_stack, WEFT_ERR_INVALID)
{
    weft_thread_attr a;
    weft_thread t;
    start(1);
    S(weft_thread_attr_init(&a));
    a.stack_size = 2;
    return weft_thread_create_first(nothing, NULL, &a, &t);
}

/* join / free */
CASE(join_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_thread_join(WEFT_THREAD_NULL);
}
CASE(join_misaligned, WEFT_ERR_HANDLE)
{
    start(1);
    weft_thread t = parked_ult(NULL);
    return weft_thread_join((weft_thread)MISALIGN(t));
}
CASE(join_mutex_as_thread, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_thread_join((weft_thread)(void *)m);
}
CASE(join_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_join(keep);
}
CASE(join_stale_tasklet, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_tasklet_create(mypool(), nothing, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_join(keep);
}
CASE(join_twice, WEFT_ERR_JOINED)
{
    start(1);
    weft_thread t = ended_ult(1);
    return weft_thread_join(t);
}
static int join_self_call(void)
{
    weft_thread me;
    S(weft_self(&me));
    return weft_thread_join(me);
}
CASE(join_self_ult, WEFT_ERR_JOIN_SELF)
{
    start(1);
    return in_ult(join_self_call);
}
CASE(join_self_tasklet, WEFT_ERR_JOIN_SELF)
{
    start(1);
    return in_tasklet(join_self_call);
}
CASE(join_main_from_main, WEFT_ERR_JOIN_SELF)
{
    start(1);
    return join_self_call();
}
CASE(free_main_from_main, WEFT_ERR_JOIN_SELF)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_free(&me);
}
CASE(join_many_main_from_main, WEFT_ERR_JOIN_SELF)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_join_many(1, &me);
}
CASE(free_many_main_from_main, WEFT_ERR_JOIN_SELF)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_free_many(1, &me);
}
static weft_thread g_main;
static int join_main_call(void) { return weft_thread_join(g_main); }
static int free_main_call(void)
{
    weft_thread m = g_main;
    return weft_thread_free(&m);
}
static int join_many_main_call(void) { return weft_thread_join_many(1, &g_main); }
static int free_many_main_call(void)
{
    weft_thread m = g_main;
    return weft_thread_free_many(1, &m);
}
CASE(join_main_from_ult, WEFT_ERR_STATE)
{
    start(1);
    S(weft_self(&g_main));
    return in_ult(join_main_call);
}
CASE(free_main_from_ult, WEFT_ERR_STATE)
{
    start(1);
    S(weft_self(&g_main));
    return in_ult(free_main_call);
}
CASE(join_many_main_from_ult, WEFT_ERR_STATE)
{
    start(1);
    S(weft_self(&g_main));
    return in_ult(join_many_main_call);
}
CASE(free_many_main_from_ult, WEFT_ERR_STATE)
{
    start(1);
    S(weft_self(&g_main));
    return in_ult(free_many_main_call);
}
CASE(join_main_from_pthread, WEFT_ERR_STATE)
{
    start(1);
    S(weft_self(&g_main));
    return in_pthread(join_main_call);
}
static weft_thread g_unit;
static int join_unit_call(void) { return weft_thread_join(g_unit); }
CASE(join_unfinished_from_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    g_unit = parked_ult(NULL);
    return in_tasklet(join_unit_call);
}
CASE(join_many_negative, WEFT_ERR_INVALID)
{
    weft_thread t = WEFT_THREAD_NULL;
    start(1);
    return weft_thread_join_many(-1, &t);
}
CASE(join_many_null_array, WEFT_ERR_INVALID)
{
    start(1);
    return weft_thread_join_many(1, NULL);
}
CASE(free_many_null_array, WEFT_ERR_INVALID)
{
    start(1);
    return weft_thread_free_many(2, NULL);
}
CASE(join_many_one_stale, WEFT_ERR_HANDLE)
{
    weft_thread t[2], keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t[0]));
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t[1]));
    keep = t[0];
    S(weft_thread_free(&t[0]));
    t[0] = keep;
    return weft_thread_join_many(2, t);
}
/* A unit's state that refuses the join refuses the whole call before any
 * unit is joined: the units before it stay joinable (S fails otherwise). */
CASE(join_many_ended_then_main, WEFT_ERR_JOIN_SELF)
{
    weft_thread t[2];
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t[0]));
    S(weft_yield());
    S(weft_self(&t[1]));
    int rc = weft_thread_join_many(2, t);
    S(weft_thread_join(t[0]));
    return rc;
}
CASE(join_many_then_joined, WEFT_ERR_JOINED)
{
    weft_thread t[2];
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t[0]));
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t[1]));
    S(weft_thread_join(t[1]));
    int rc = weft_thread_join_many(2, t);
    S(weft_thread_join(t[0]));
    return rc;
}
static weft_thread g_many[2];
static int join_many_g_call(void) { return weft_thread_join_many(2, g_many); }
CASE(join_many_unfinished_from_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &g_many[0]));
    S(weft_yield());
    g_many[1] = parked_ult(NULL);
    int rc = in_tasklet(join_many_g_call);
    S(weft_thread_join(g_many[0]));
    return rc;
}
CASE(free_many_ended_then_main, WEFT_ERR_JOIN_SELF)
{
    weft_thread t[2];
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t[0]));
    S(weft_yield());
    S(weft_self(&t[1]));
    int rc = weft_thread_free_many(2, t);
    S(weft_thread_join(t[0])); /* not joined by the refused call */
    S(weft_thread_free(&t[0]));
    return rc;
}
CASE(free_null_ptr, WEFT_ERR_INVALID)
{
    start(1);
    return weft_thread_free(NULL);
}
CASE(free_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_free(&keep);
}

/* yield, yield_to, self, exit */
static int yield_call(void) { return weft_yield(); }
CASE(yield_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    return in_tasklet(yield_call);
}
static int yield_to_unit_call(void) { return weft_yield_to(g_unit); }
CASE(yield_to_pthread, WEFT_ERR_NOT_WEFT)
{
    start(1);
    g_unit = parked_ult(NULL);
    return in_pthread(yield_to_unit_call);
}
CASE(yield_to_tasklet_caller, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &g_unit));
    return in_tasklet(yield_to_unit_call);
}
CASE(yield_to_self, WEFT_ERR_INVALID)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_yield_to(me);
}
CASE(yield_to_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_yield_to(WEFT_THREAD_NULL);
}
CASE(yield_to_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_yield_to(keep);
}
CASE(yield_to_ended, WEFT_ERR_STATE)
{
    start(1);
    weft_thread t = ended_ult(0);
    return weft_yield_to(t);
}
CASE(yield_to_waiting_tasklet, WEFT_ERR_STATE)
{
    weft_thread t;
    start(1);
    S(weft_tasklet_create(mypool(), nothing, NULL, &t));
    return weft_yield_to(t);
}
CASE(yield_to_other_stream_pool, WEFT_ERR_CROSS_STREAM)
{
    start(1);
    weft_thread t = parked_ult(NULL);
    return weft_yield_to(t);
}
static int self_call(void)
{
    weft_thread t;
    return weft_self(&t);
}
CASE(self_pthread, WEFT_ERR_NOT_WEFT)
{
    start(1);
    return in_pthread(self_call);
}
CASE(self_before_init, WEFT_ERR_NOT_WEFT) { return self_call(); }
CASE(self_null, WEFT_ERR_INVALID)
{
    start(1);
    return weft_self(NULL);
}
static int exit_call(void) { return weft_thread_exit(); }
CASE(exit_main, WEFT_ERR_NOT_ULT)
{
    start(1);
    return exit_call();
}
CASE(exit_tasklet, WEFT_ERR_NOT_ULT)
{
    start(1);
    return in_tasklet(exit_call);
}
CASE(exit_pthread, WEFT_ERR_NOT_WEFT)
{
    start(1);
    return in_pthread(exit_call);
}

/* thread queries, revive, migrate, cancel */
CASE(thread_id_null_out, WEFT_ERR_INVALID)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_id(me, NULL);
}
CASE(thread_id_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    uint64_t id;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_id(keep, &id);
}
CASE(thread_id_misaligned, WEFT_ERR_HANDLE)
{
    weft_thread me;
    uint64_t id;
    start(1);
    S(weft_self(&me));
    return weft_thread_id((weft_thread)MISALIGN(me), &id);
}
CASE(thread_id_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    uint64_t id;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_thread_id((weft_thread)(void *)m, &id);
}
CASE(thread_id_pool, WEFT_ERR_HANDLE)
{
    uint64_t id;
    start(1);
    return weft_thread_id((weft_thread)(void *)mypool(), &id);
}
CASE(thread_is_tasklet_null_out, WEFT_ERR_INVALID)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_is_tasklet(me, NULL);
}
CASE(thread_is_tasklet_null, WEFT_ERR_HANDLE)
{
    int x;
    start(1);
    return weft_thread_is_tasklet(WEFT_THREAD_NULL, &x);
}
CASE(thread_get_state_null_out, WEFT_ERR_INVALID)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_get_state(me, NULL);
}
CASE(thread_get_state_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    weft_thread_state st;
    start(1);
    S(weft_tasklet_create(mypool(), nothing, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_get_state(keep, &st);
}
CASE(thread_was_cancelled_null_out, WEFT_ERR_INVALID)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_was_cancelled(me, NULL);
}
CASE(thread_get_arg_null_out, WEFT_ERR_INVALID)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_get_arg(me, NULL);
}
CASE(thread_get_arg_null, WEFT_ERR_HANDLE)
{
    void *a;
    start(1);
    return weft_thread_get_arg(WEFT_THREAD_NULL, &a);
}
CASE(thread_pool_data_null_out, WEFT_ERR_INVALID)
{
    start(1);
    weft_thread t = parked_ult(NULL);
    return weft_thread_pool_data(t, NULL);
}
CASE(thread_pool_data_null, WEFT_ERR_HANDLE)
{
    void **d;
    start(1);
    return weft_thread_pool_data(WEFT_THREAD_NULL, &d);
}
CASE(revive_not_ended, WEFT_ERR_STATE)
{
    start(1);
    weft_thread t = parked_ult(NULL);
    return weft_thread_revive(mypool(), nothing, NULL, t);
}
CASE(revive_main, WEFT_ERR_STATE)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_revive(mypool(), nothing, NULL, me);
}
CASE(revive_null_fn, WEFT_ERR_INVALID)
{
    start(1);
    weft_thread t = ended_ult(1);
    return weft_thread_revive(mypool(), NULL, NULL, t);
}
CASE(revive_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_revive(mypool(), nothing, NULL, keep);
}
CASE(revive_stale_pool, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    start(1);
    weft_thread t = ended_ult(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_thread_revive(keep, nothing, NULL, t);
}
CASE(migrate_main, WEFT_ERR_STATE)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_thread_migrate(me, newpool());
}
CASE(migrate_ended, WEFT_ERR_STATE)
{
    start(1);
    weft_thread t = ended_ult(0);
    return weft_thread_migrate(t, newpool());
}
static int migrate_self_call(void)
{
    weft_thread me;
    S(weft_self(&me));
    return weft_thread_migrate(me, newpool());
}
CASE(migrate_tasklet_self, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    return in_tasklet(migrate_self_call);
}
CASE(migrate_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_thread_migrate(WEFT_THREAD_NULL, mypool());
}
CASE(migrate_to_stale_pool, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    start(1);
    weft_thread t = parked_ult(NULL);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_thread_migrate(t, keep);
}
CASE(migrate_to_xstream_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    weft_thread t = parked_ult(NULL);
    S(weft_mutex_create(NULL, &m));
    return weft_thread_migrate_to_xstream(t, (weft_xstream)(void *)m);
}
static volatile int g_spin = 1;
static void spinner(void *a)
{
    (void)a;
    while (g_spin) __asm__ __volatile__("" ::: "memory");
}
/* A ULT waiting in the private pool of a second stream that is kept busy
 * by a spinning ULT ahead of it. */
static weft_thread waiting_in_private_elsewhere(void)
{
    weft_pool p;
    weft_sched s;
    weft_xstream xs;
    weft_thread t;
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    S(weft_sched_create_basic(1, &p, &s));
    S(weft_thread_create(p, spinner, NULL, NULL, NULL));
    S(weft_thread_create(p, nothing, NULL, NULL, &t));
    S(weft_xstream_create(s, &xs));
    return t;
}
CASE(migrate_from_private_pool_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    start(1);
    weft_thread t = waiting_in_private_elsewhere();
    return weft_thread_migrate(t, newpool());
}
CASE(cancel_in_private_pool_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    start(1);
    weft_thread t = waiting_in_private_elsewhere();
    return weft_thread_cancel(t);
}
CASE(cancel_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_thread_cancel(WEFT_THREAD_NULL);
}
static int cancel_self_call(void)
{
    weft_thread me;
    S(weft_self(&me));
    return weft_thread_cancel(me);
}
CASE(cancel_running_ult, WEFT_ERR_STATE)
{
    start(1);
    return in_ult(cancel_self_call);
}
CASE(cancel_running_tasklet, WEFT_ERR_STATE)
{
    start(1);
    return in_tasklet(cancel_self_call);
}
CASE(cancel_main, WEFT_ERR_STATE)
{
    start(1);
    return cancel_self_call();
}
CASE(cancel_ended, WEFT_ERR_STATE)
{
    start(1);
    weft_thread t = ended_ult(0);
    return weft_thread_cancel(t);
}
CASE(cancel_stale, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_thread_cancel(keep);
}
CASE(cancel_in_deque, WEFT_ERR_STATE)
{
    weft_pool p;
    weft_thread t;
    start(1);
    S(weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPMC, &p));
    S(weft_thread_create(p, nothing, NULL, NULL, &t));
    return weft_thread_cancel(t);
}

/* ------------------------------------------------------------------ */
/* Pools                                                               */

static int pool_create_rc(int kind, int access)
{
    weft_pool p;
    return weft_pool_create((weft_pool_kind)kind, (weft_pool_access)access, &p);
}
CASE(pool_create_bad_kind, WEFT_ERR_INVALID) { return pool_create_rc(7, WEFT_POOL_ACCESS_MPMC); }
CASE(pool_create_neg_kind, WEFT_ERR_INVALID) { return pool_create_rc(-1, WEFT_POOL_ACCESS_MPMC); }
CASE(pool_create_bad_access, WEFT_ERR_INVALID) { return pool_create_rc(WEFT_POOL_FIFO, 9); }
CASE(pool_create_deque_private, WEFT_ERR_INVALID)
{
    return pool_create_rc(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_PRIVATE);
}
CASE(pool_create_deque_spsc, WEFT_ERR_INVALID)
{
    return pool_create_rc(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_SPSC);
}
CASE(pool_create_deque_mpsc, WEFT_ERR_INVALID)
{
    return pool_create_rc(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPSC);
}
CASE(pool_create_null_out, WEFT_ERR_INVALID)
{
    return weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, NULL);
}
static void up_push(void *s, weft_thread u) { (void)s; (void)u; }
static weft_thread up_pop(void *s) { (void)s; return WEFT_THREAD_NULL; }
static int up_init_fail(void *s, weft_pool p) { (void)s; (void)p; return WEFT_ERR_NOMEM; }
CASE(pool_create_user_null_ops, WEFT_ERR_INVALID)
{
    weft_pool p;
    return weft_pool_create_user(NULL, NULL, WEFT_POOL_ACCESS_MPMC, &p);
}
CASE(pool_create_user_no_pop, WEFT_ERR_INVALID)
{
    weft_pool_ops ops = {0};
    weft_pool p;
    ops.push = up_push;
    return weft_pool_create_user(&ops, NULL, WEFT_POOL_ACCESS_MPMC, &p);
}
CASE(pool_create_user_no_push, WEFT_ERR_INVALID)
{
    weft_pool_ops ops = {0};
    weft_pool p;
    ops.pop = up_pop;
    return weft_pool_create_user(&ops, NULL, WEFT_POOL_ACCESS_MPMC, &p);
}
CASE(pool_create_user_bad_access, WEFT_ERR_INVALID)
{
    weft_pool_ops ops = {0};
    weft_pool p;
    ops.push = up_push;
    ops.pop = up_pop;
    return weft_pool_create_user(&ops, NULL, (weft_pool_access)77, &p);
}
CASE(pool_create_user_init_fails, WEFT_ERR_NOMEM)
{
    weft_pool_ops ops = {0};
    weft_pool p;
    ops.push = up_push;
    ops.pop = up_pop;
    ops.init = up_init_fail;
    return weft_pool_create_user(&ops, NULL, WEFT_POOL_ACCESS_MPMC, &p);
}
CASE(pool_free_null_ptr, WEFT_ERR_INVALID) { return weft_pool_free(NULL); }
CASE(pool_free_null, WEFT_ERR_HANDLE)
{
    weft_pool p = WEFT_POOL_NULL;
    start(1);
    return weft_pool_free(&p);
}
CASE(pool_free_stale, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    start(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_pool_free(&keep);
}
CASE(pool_free_stale_no_init, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_pool_free(&keep);
}
CASE(pool_free_running_stream, WEFT_ERR_BUSY)
{
    weft_pool p;
    start(1);
    p = mypool();
    return weft_pool_free(&p);
}
CASE(pool_free_second_stream, WEFT_ERR_BUSY)
{
    weft_xstream xs;
    weft_pool p;
    int n;
    start(2);
    S(weft_xstream_get(1, &xs));
    S(weft_xstream_get_pools(xs, 1, &p, &n));
    return weft_pool_free(&p);
}
CASE(pool_free_nonempty, WEFT_ERR_BUSY)
{
    weft_pool p;
    start(1);
    (void)parked_ult(&p);
    return weft_pool_free(&p);
}
CASE(pool_free_idle_sched, WEFT_ERR_BUSY)
{
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    return weft_pool_free(&p);
}
CASE(pool_free_idle_sched_no_init, WEFT_ERR_BUSY)
{
    weft_pool p;
    weft_sched s;
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    return weft_pool_free(&p);
}
CASE(pool_free_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    weft_pool p = (weft_pool)(void *)m;
    return weft_pool_free(&p);
}
CASE(pool_size_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_pool_size(mypool(), NULL);
}
CASE(pool_size_stale, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    size_t n;
    start(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_pool_size(keep, &n);
}
CASE(pool_size_key, WEFT_ERR_HANDLE)
{
    weft_key k;
    size_t n;
    start(1);
    S(weft_key_create(NULL, &k));
    return weft_pool_size((weft_pool)(void *)k, &n);
}
CASE(pool_size_misaligned, WEFT_ERR_HANDLE)
{
    size_t n;
    start(1);
    return weft_pool_size((weft_pool)MISALIGN(mypool()), &n);
}
CASE(pool_total_size_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_pool_total_size(mypool(), NULL);
}
CASE(pool_total_size_stale, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    size_t n;
    start(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_pool_total_size(keep, &n);
}
CASE(pool_total_size_misaligned, WEFT_ERR_HANDLE)
{
    size_t n;
    start(1);
    return weft_pool_total_size((weft_pool)MISALIGN(mypool()), &n);
}
CASE(pool_is_empty_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_pool_is_empty(mypool(), NULL);
}
CASE(pool_is_empty_null, WEFT_ERR_HANDLE)
{
    int e;
    start(1);
    return weft_pool_is_empty(WEFT_POOL_NULL, &e);
}
CASE(pool_push_running_self, WEFT_ERR_STATE)
{
    weft_thread me;
    start(1);
    S(weft_self(&me));
    return weft_pool_push(newpool(), me);
}
CASE(pool_push_in_pool, WEFT_ERR_STATE)
{
    start(1);
    weft_thread t = parked_ult(NULL);
    return weft_pool_push(newpool(), t);
}
CASE(pool_push_ended, WEFT_ERR_STATE)
{
    start(1);
    weft_thread t = ended_ult(0);
    return weft_pool_push(newpool(), t);
}
CASE(pool_push_twice, WEFT_ERR_STATE)
{
    weft_thread t, u;
    start(1);
    weft_pool p = newpool();
    S(weft_thread_create(p, nothing, NULL, NULL, &t));
    S(weft_pool_pop(p, &u));
    if (u != t) return -1;
    S(weft_pool_push(p, u));
    return weft_pool_push(newpool(), u); /* held no more: in p */
}
CASE(pool_push_stale_unit, WEFT_ERR_HANDLE)
{
    weft_thread t, keep;
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    keep = t;
    S(weft_thread_free(&t));
    return weft_pool_push(newpool(), keep);
}
CASE(pool_push_stale_pool, WEFT_ERR_HANDLE)
{
    weft_pool p, q, keep;
    weft_thread u;
    start(1);
    (void)parked_ult(&p);
    S(weft_pool_pop(p, &u));
    q = newpool();
    keep = q;
    S(weft_pool_free(&q));
    return weft_pool_push(keep, u);
}
CASE(pool_pop_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_pool_pop(newpool(), NULL);
}
CASE(pool_pop_null, WEFT_ERR_HANDLE)
{
    weft_thread t;
    start(1);
    return weft_pool_pop(WEFT_POOL_NULL, &t);
}
CASE(pool_pop_private_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    weft_pool p;
    weft_sched s;
    weft_xstream xs;
    weft_thread t;
    start(1);
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    S(weft_sched_create_basic(1, &p, &s));
    S(weft_xstream_create(s, &xs));
    return weft_pool_pop(p, &t);
}
CASE(pool_pop_many_neg, WEFT_ERR_INVALID)
{
    weft_thread u[2];
    int n;
    start(1);
    return weft_pool_pop_many(newpool(), -1, u, &n);
}
CASE(pool_pop_many_null_array, WEFT_ERR_INVALID)
{
    int n;
    start(1);
    return weft_pool_pop_many(newpool(), 2, NULL, &n);
}
CASE(pool_pop_many_null_n, WEFT_ERR_INVALID)
{
    weft_thread u[2];
    start(1);
    return weft_pool_pop_many(newpool(), 2, u, NULL);
}
static weft_pool g_pool;
static int pop_wait_call(void)
{
    weft_thread t;
    return weft_pool_pop_wait(g_pool, 1000000, &t);
}
CASE(pool_pop_wait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    g_pool = newpool();
    return in_tasklet(pop_wait_call);
}
CASE(pool_pop_wait_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return weft_pool_pop_wait(newpool(), 0, NULL);
}
CASE(pool_add_sched_own_pool, WEFT_ERR_INVALID)
{
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    return weft_pool_add_sched(p, s);
}
CASE(pool_add_sched_busy, WEFT_ERR_BUSY)
{
    weft_xstream xs;
    weft_sched s;
    start(1);
    S(weft_xstream_get(0, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_pool_add_sched(newpool(), s);
}
CASE(pool_add_sched_twice, WEFT_ERR_BUSY)
{
    weft_pool p, q, r;
    weft_sched s;
    start(1);
    p = newpool();
    q = newpool();
    r = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    S(weft_pool_add_sched(q, s));
    return weft_pool_add_sched(r, s);
}
CASE(pool_add_sched_stale, WEFT_ERR_HANDLE)
{
    weft_pool p;
    weft_sched s, keep;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    keep = s;
    S(weft_sched_free(&s));
    return weft_pool_add_sched(newpool(), keep);
}

/* ------------------------------------------------------------------ */
/* Schedulers                                                          */

CASE(sched_create_zero_pools, WEFT_ERR_INVALID)
{
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    return weft_sched_create_basic(0, &p, &s);
}
CASE(sched_create_17_pools, WEFT_ERR_INVALID)
{
    weft_pool p[17];
    weft_sched s;
    start(1);
    for (int i = 0; i < 17; i++) p[i] = newpool();
    return weft_sched_create_basic(17, p, &s);
}
CASE(sched_create_dup_pool, WEFT_ERR_INVALID)
{
    weft_pool p[2];
    weft_sched s;
    start(1);
    p[0] = p[1] = newpool();
    return weft_sched_create_prio(2, p, &s);
}
CASE(sched_create_null_pools, WEFT_ERR_INVALID)
{
    weft_sched s;
    start(1);
    return weft_sched_create_randws(1, NULL, &s);
}
CASE(sched_create_null_out, WEFT_ERR_INVALID)
{
    weft_pool p;
    start(1);
    p = newpool();
    return weft_sched_create_basic(1, &p, NULL);
}
CASE(sched_create_stale_pool, WEFT_ERR_HANDLE)
{
    weft_pool p, keep;
    weft_sched s;
    start(1);
    p = newpool();
    keep = p;
    S(weft_pool_free(&p));
    return weft_sched_create_basic(1, &keep, &s);
}
CASE(sched_create_null_pool, WEFT_ERR_HANDLE)
{
    weft_pool p = WEFT_POOL_NULL;
    weft_sched s;
    start(1);
    return weft_sched_create_basic(1, &p, &s);
}
CASE(sched_create_mutex_as_pool, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    weft_pool p;
    weft_sched s;
    start(1);
    S(weft_mutex_create(NULL, &m));
    p = (weft_pool)(void *)m;
    return weft_sched_create_basic(1, &p, &s);
}
static void us_run(weft_sched s) { (void)s; }
static int us_init_fail(weft_sched s) { (void)s; return WEFT_ERR_SYS; }
CASE(sched_create_user_null_ops, WEFT_ERR_INVALID)
{
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    return weft_sched_create(NULL, 1, &p, NULL, &s);
}
CASE(sched_create_user_no_run, WEFT_ERR_INVALID)
{
    weft_sched_ops ops = {0};
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    return weft_sched_create(&ops, 1, &p, NULL, &s);
}
CASE(sched_create_user_init_fails, WEFT_ERR_SYS)
{
    weft_sched_ops ops = {0};
    weft_pool p;
    weft_sched s;
    start(1);
    ops.run = us_run;
    ops.init = us_init_fail;
    p = newpool();
    return weft_sched_create(&ops, 1, &p, NULL, &s);
}
CASE(sched_free_null_ptr, WEFT_ERR_INVALID) { return weft_sched_free(NULL); }
CASE(sched_free_stale, WEFT_ERR_HANDLE)
{
    weft_pool p;
    weft_sched s, keep;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    keep = s;
    S(weft_sched_free(&s));
    return weft_sched_free(&keep);
}
CASE(sched_free_in_use, WEFT_ERR_BUSY)
{
    weft_xstream xs;
    weft_sched s;
    start(1);
    S(weft_xstream_get(0, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_sched_free(&s);
}
CASE(sched_free_in_use_second_stream, WEFT_ERR_BUSY)
{
    weft_xstream xs;
    weft_sched s;
    start(2);
    S(weft_xstream_get(1, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_sched_free(&s);
}
CASE(sched_free_stacked, WEFT_ERR_BUSY)
{
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    S(weft_pool_add_sched(newpool(), s));
    return weft_sched_free(&s);
}
CASE(sched_free_eventual, WEFT_ERR_HANDLE)
{
    weft_eventual e;
    start(1);
    S(weft_eventual_create(0, &e));
    weft_sched s = (weft_sched)(void *)e;
    return weft_sched_free(&s);
}
CASE(sched_get_data_eventual, WEFT_ERR_HANDLE)
{
    weft_eventual e;
    void *d;
    start(1);
    S(weft_eventual_create(0, &e));
    return weft_sched_get_data((weft_sched)(void *)e, &d);
}
CASE(sched_get_data_null_out, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    weft_sched s;
    start(1);
    S(weft_xstream_get(0, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_sched_get_data(s, NULL);
}
CASE(sched_get_pools_null_n, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    weft_sched s;
    weft_pool p;
    start(1);
    S(weft_xstream_get(0, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_sched_get_pools(s, 1, &p, NULL);
}
CASE(sched_get_pools_misaligned, WEFT_ERR_HANDLE)
{
    weft_xstream xs;
    weft_sched s;
    weft_pool p;
    int n;
    start(1);
    S(weft_xstream_get(0, &xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return weft_sched_get_pools((weft_sched)MISALIGN(s), 1, &p, &n);
}
CASE(sched_set_automatic_stale, WEFT_ERR_HANDLE)
{
    weft_pool p;
    weft_sched s, keep;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    keep = s;
    S(weft_sched_free(&s));
    return weft_sched_set_automatic(keep, 0);
}
CASE(sched_finish_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_sched_finish(WEFT_SCHED_NULL);
}
static weft_sched main_sched(void)
{
    weft_xstream xs;
    weft_sched s;
    S(weft_xstream_self(&xs));
    S(weft_xstream_get_main_sched(xs, &s));
    return s;
}
CASE(sched_has_to_stop_from_ult, WEFT_ERR_CROSS_STREAM)
{
    int stop;
    start(1);
    return weft_sched_has_to_stop(main_sched(), &stop);
}
CASE(sched_check_events_from_ult, WEFT_ERR_CROSS_STREAM)
{
    start(1);
    return weft_sched_check_events(main_sched());
}
CASE(sched_idle_from_ult, WEFT_ERR_CROSS_STREAM)
{
    start(1);
    return weft_sched_idle(main_sched());
}
CASE(sched_idle_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_sched_idle(WEFT_SCHED_NULL);
}
CASE(sched_run_unit_from_ult, WEFT_ERR_CROSS_STREAM)
{
    weft_pool p;
    weft_thread u;
    start(1);
    (void)parked_ult(&p);
    S(weft_pool_pop(p, &u));
    return weft_sched_run_unit(main_sched(), u, p);
}

/* ------------------------------------------------------------------ */
/* Mutexes                                                             */

CASE(mutex_create_null_out, WEFT_ERR_INVALID) { return weft_mutex_create(NULL, NULL); }
CASE(mutex_free_null_ptr, WEFT_ERR_INVALID) { return weft_mutex_free(NULL); }
CASE(mutex_free_null, WEFT_ERR_HANDLE)
{
    weft_mutex m = NULL;
    return weft_mutex_free(&m);
}
CASE(mutex_free_locked, WEFT_ERR_BUSY)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_mutex_free(&m);
}
CASE(mutex_free_locked_no_init, WEFT_ERR_BUSY)
{
    weft_mutex m;
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_mutex_free(&m);
}
CASE(mutex_free_stale, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    start(1);
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_mutex_free(&keep);
}
CASE(mutex_lock_stale, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    start(1);
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_mutex_lock(keep);
}
CASE(mutex_lock_stale_across_init, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    start(1);
    return weft_mutex_lock(keep);
}
CASE(mutex_lock_stale_no_init, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_mutex_lock(keep);
}
CASE(mutex_lock_high_stale, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    start(1);
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_mutex_lock_high(keep);
}
CASE(mutex_lock_low_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_mutex_lock_low(NULL);
}
CASE(mutex_lock_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_mutex_lock(NULL);
}
CASE(mutex_lock_misaligned, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_mutex_lock((weft_mutex)MISALIGN(m));
}
CASE(mutex_lock_cond, WEFT_ERR_HANDLE)
{
    weft_cond c;
    start(1);
    S(weft_cond_create(&c));
    return weft_mutex_lock((weft_mutex)(void *)c);
}
CASE(mutex_lock_pool, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_mutex_lock((weft_mutex)(void *)mypool());
}
CASE(mutex_relock_self, WEFT_ERR_BUSY)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_mutex_lock(m);
}
CASE(mutex_relock_self_pthread_like, WEFT_ERR_BUSY)
{
    weft_mutex m;
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_mutex_lock(m);
}
CASE(mutex_trylock_held_self, WEFT_ERR_BUSY)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_mutex_trylock(m);
}
CASE(mutex_trylock_stale, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    start(1);
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_mutex_trylock(keep);
}
CASE(mutex_unlock_unheld, WEFT_ERR_NOT_OWNER)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_mutex_unlock(m);
}
static weft_mutex g_m;
static int lock_g_m(void) { return weft_mutex_lock(g_m); }
static int unlock_g_m(void) { return weft_mutex_unlock(g_m); }
static int trylock_g_m(void) { return weft_mutex_trylock(g_m); }
CASE(mutex_unlock_held_by_pthread, WEFT_ERR_NOT_OWNER)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(in_pthread(lock_g_m));
    return weft_mutex_unlock(g_m);
}
CASE(mutex_unlock_held_by_ult, WEFT_ERR_NOT_OWNER)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(in_ult(lock_g_m));
    return weft_mutex_unlock(g_m);
}
CASE(mutex_unlock_held_by_main_from_ult, WEFT_ERR_NOT_OWNER)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(weft_mutex_lock(g_m));
    return in_ult(unlock_g_m);
}
CASE(mutex_unlock_held_by_main_from_pthread, WEFT_ERR_NOT_OWNER)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(weft_mutex_lock(g_m));
    return in_pthread(unlock_g_m);
}
CASE(mutex_unlock_stale, WEFT_ERR_HANDLE)
{
    weft_mutex m, keep;
    start(1);
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_mutex_unlock(keep);
}
CASE(mutex_lock_tasklet_held, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(weft_mutex_lock(g_m));
    return in_tasklet(lock_g_m);
}
CASE(mutex_trylock_tasklet_held, WEFT_ERR_BUSY)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(weft_mutex_lock(g_m));
    return in_tasklet(trylock_g_m);
}
CASE(mutex_free_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(weft_mutex_lock(g_m));
    g_fn = lock_g_m;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t); /* locked by main and waited on by t */
    return weft_mutex_free(&g_m);
}

/* ------------------------------------------------------------------ */
/* Condition variables                                                 */

static weft_cond g_c;
CASE(cond_create_null, WEFT_ERR_INVALID) { return weft_cond_create(NULL); }
CASE(cond_free_null_ptr, WEFT_ERR_INVALID) { return weft_cond_free(NULL); }
CASE(cond_free_stale, WEFT_ERR_HANDLE)
{
    weft_cond c, keep;
    start(1);
    S(weft_cond_create(&c));
    keep = c;
    S(weft_cond_free(&c));
    return weft_cond_free(&keep);
}
CASE(cond_signal_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_cond_signal(NULL);
}
CASE(cond_signal_stale, WEFT_ERR_HANDLE)
{
    weft_cond c, keep;
    start(1);
    S(weft_cond_create(&c));
    keep = c;
    S(weft_cond_free(&c));
    return weft_cond_signal(keep);
}
CASE(cond_broadcast_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_cond_broadcast((weft_cond)(void *)m);
}
CASE(cond_wait_unheld_mutex, WEFT_ERR_NOT_OWNER)
{
    weft_cond c;
    weft_mutex m;
    start(1);
    S(weft_cond_create(&c));
    S(weft_mutex_create(NULL, &m));
    return weft_cond_wait(c, m);
}
CASE(cond_wait_stale_mutex, WEFT_ERR_HANDLE)
{
    weft_cond c;
    weft_mutex m, keep;
    start(1);
    S(weft_cond_create(&c));
    S(weft_mutex_create(NULL, &m));
    keep = m;
    S(weft_mutex_free(&m));
    return weft_cond_wait(c, keep);
}
CASE(cond_wait_stale_cond, WEFT_ERR_HANDLE)
{
    weft_cond c, keep;
    weft_mutex m;
    start(1);
    S(weft_cond_create(&c));
    keep = c;
    S(weft_cond_free(&c));
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_cond_wait(keep, m);
}
CASE(cond_timedwait_past, WEFT_ERR_TIMEDOUT)
{
    weft_cond c;
    weft_mutex m;
    start(1);
    S(weft_cond_create(&c));
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_cond_timedwait(c, m, PAST_DEADLINE);
}
CASE(cond_timedwait_past_pthread_like, WEFT_ERR_TIMEDOUT)
{
    weft_cond c;
    weft_mutex m;
    S(weft_cond_create(&c));
    S(weft_mutex_create(NULL, &m));
    S(weft_mutex_lock(m));
    return weft_cond_timedwait(c, m, PAST_DEADLINE);
}
static int cond_wait_g(void)
{
    S(weft_mutex_lock(g_m));
    return weft_cond_wait(g_c, g_m);
}
CASE(cond_wait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_cond_create(&g_c));
    S(weft_mutex_create(NULL, &g_m));
    return in_tasklet(cond_wait_g);
}
CASE(cond_free_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_cond_create(&g_c));
    S(weft_mutex_create(NULL, &g_m));
    g_fn = cond_wait_g;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t);
    return weft_cond_free(&g_c);
}

/* ------------------------------------------------------------------ */
/* Read-write locks                                                    */

static weft_rwlock g_l;
static int wrlock_g_l(void) { return weft_rwlock_wrlock(g_l); }
static int rdlock_g_l(void) { return weft_rwlock_rdlock(g_l); }
CASE(rwlock_create_null, WEFT_ERR_INVALID) { return weft_rwlock_create(NULL); }
CASE(rwlock_free_null_ptr, WEFT_ERR_INVALID) { return weft_rwlock_free(NULL); }
CASE(rwlock_free_stale, WEFT_ERR_HANDLE)
{
    weft_rwlock l, keep;
    start(1);
    S(weft_rwlock_create(&l));
    keep = l;
    S(weft_rwlock_free(&l));
    return weft_rwlock_free(&keep);
}
CASE(rwlock_free_held, WEFT_ERR_BUSY)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    S(weft_rwlock_rdlock(l));
    return weft_rwlock_free(&l);
}
CASE(rwlock_unlock_unheld, WEFT_ERR_NOT_OWNER)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    return weft_rwlock_unlock(l);
}
CASE(rwlock_unlock_unheld_no_init, WEFT_ERR_NOT_OWNER)
{
    weft_rwlock l;
    S(weft_rwlock_create(&l));
    return weft_rwlock_unlock(l);
}
CASE(rwlock_unlock_twice, WEFT_ERR_NOT_OWNER)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    S(weft_rwlock_wrlock(l));
    S(weft_rwlock_unlock(l));
    return weft_rwlock_unlock(l);
}
CASE(rwlock_unlock_other_writer, WEFT_ERR_NOT_OWNER)
{
    start(1);
    S(weft_rwlock_create(&g_l));
    S(in_pthread(wrlock_g_l));
    return weft_rwlock_unlock(g_l);
}
CASE(rwlock_unlock_other_writer_ult, WEFT_ERR_NOT_OWNER)
{
    start(1);
    S(weft_rwlock_create(&g_l));
    S(in_ult(wrlock_g_l));
    return weft_rwlock_unlock(g_l);
}
CASE(rwlock_wrlock_self_writer, WEFT_ERR_BUSY)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    S(weft_rwlock_wrlock(l));
    return weft_rwlock_wrlock(l);
}
CASE(rwlock_rdlock_self_writer, WEFT_ERR_BUSY)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    S(weft_rwlock_wrlock(l));
    return weft_rwlock_rdlock(l);
}
CASE(rwlock_trywrlock_read_held, WEFT_ERR_BUSY)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    S(weft_rwlock_rdlock(l));
    return weft_rwlock_trywrlock(l);
}
CASE(rwlock_tryrdlock_write_held, WEFT_ERR_BUSY)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    S(weft_rwlock_wrlock(l));
    return weft_rwlock_tryrdlock(l);
}
CASE(rwlock_wrlock_tasklet_held, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_rwlock_create(&g_l));
    S(weft_rwlock_rdlock(g_l));
    return in_tasklet(wrlock_g_l);
}
CASE(rwlock_rdlock_tasklet_write_held, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_rwlock_create(&g_l));
    S(in_pthread(wrlock_g_l));
    return in_tasklet(rdlock_g_l);
}
CASE(rwlock_rdlock_stale, WEFT_ERR_HANDLE)
{
    weft_rwlock l, keep;
    start(1);
    S(weft_rwlock_create(&l));
    keep = l;
    S(weft_rwlock_free(&l));
    return weft_rwlock_rdlock(keep);
}
CASE(rwlock_wrlock_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_rwlock_wrlock((weft_rwlock)(void *)m);
}
CASE(rwlock_unlock_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_rwlock_unlock(NULL);
}
CASE(rwlock_free_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_rwlock_create(&g_l));
    S(weft_rwlock_wrlock(g_l));
    g_fn = rdlock_g_l;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t);
    S(weft_rwlock_unlock(g_l));
    return weft_rwlock_free(&g_l);
}

/* ------------------------------------------------------------------ */
/* Barriers                                                            */

static weft_barrier g_b;
static int barrier_wait_g(void) { return weft_barrier_wait(g_b); }
CASE(barrier_create_zero, WEFT_ERR_INVALID)
{
    weft_barrier b;
    return weft_barrier_create(0, &b);
}
CASE(barrier_create_negative, WEFT_ERR_INVALID)
{
    weft_barrier b;
    return weft_barrier_create(-3, &b);
}
CASE(barrier_create_null_out, WEFT_ERR_INVALID) { return weft_barrier_create(2, NULL); }
CASE(barrier_reinit_zero, WEFT_ERR_INVALID)
{
    weft_barrier b;
    start(1);
    S(weft_barrier_create(2, &b));
    return weft_barrier_reinit(b, 0);
}
CASE(barrier_reinit_stale, WEFT_ERR_HANDLE)
{
    weft_barrier b, keep;
    start(1);
    S(weft_barrier_create(2, &b));
    keep = b;
    S(weft_barrier_free(&b));
    return weft_barrier_reinit(keep, 2);
}
CASE(barrier_reinit_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_barrier_create(2, &g_b));
    g_fn = barrier_wait_g;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t);
    return weft_barrier_reinit(g_b, 3);
}
CASE(barrier_free_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_barrier_create(2, &g_b));
    g_fn = barrier_wait_g;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t);
    return weft_barrier_free(&g_b);
}
CASE(barrier_free_null_ptr, WEFT_ERR_INVALID) { return weft_barrier_free(NULL); }
CASE(barrier_free_stale, WEFT_ERR_HANDLE)
{
    weft_barrier b, keep;
    start(1);
    S(weft_barrier_create(2, &b));
    keep = b;
    S(weft_barrier_free(&b));
    return weft_barrier_free(&keep);
}
CASE(barrier_wait_stale, WEFT_ERR_HANDLE)
{
    weft_barrier b, keep;
    start(1);
    S(weft_barrier_create(1, &b));
    keep = b;
    S(weft_barrier_free(&b));
    return weft_barrier_wait(keep);
}
CASE(barrier_wait_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_barrier_wait(NULL);
}
CASE(barrier_wait_rwlock, WEFT_ERR_HANDLE)
{
    weft_rwlock l;
    start(1);
    S(weft_rwlock_create(&l));
    return weft_barrier_wait((weft_barrier)(void *)l);
}
CASE(barrier_wait_tasklet_not_last, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_barrier_create(2, &g_b));
    return in_tasklet(barrier_wait_g);
}
CASE(xbarrier_create_zero, WEFT_ERR_INVALID)
{
    weft_xstream_barrier b;
    return weft_xstream_barrier_create(0, &b);
}
CASE(xbarrier_create_null_out, WEFT_ERR_INVALID) { return weft_xstream_barrier_create(1, NULL); }
CASE(xbarrier_free_null_ptr, WEFT_ERR_INVALID) { return weft_xstream_barrier_free(NULL); }
CASE(xbarrier_free_stale, WEFT_ERR_HANDLE)
{
    weft_xstream_barrier b, keep;
    start(1);
    S(weft_xstream_barrier_create(2, &b));
    keep = b;
    S(weft_xstream_barrier_free(&b));
    return weft_xstream_barrier_free(&keep);
}
CASE(xbarrier_wait_stale, WEFT_ERR_HANDLE)
{
    weft_xstream_barrier b, keep;
    start(1);
    S(weft_xstream_barrier_create(1, &b));
    keep = b;
    S(weft_xstream_barrier_free(&b));
    return weft_xstream_barrier_wait(keep);
}
CASE(xbarrier_wait_barrier, WEFT_ERR_HANDLE)
{
    weft_barrier b;
    start(1);
    S(weft_barrier_create(2, &b));
    return weft_xstream_barrier_wait((weft_xstream_barrier)(void *)b);
}

/* ------------------------------------------------------------------ */
/* Eventuals and futures                                               */

static weft_eventual g_e;
static weft_future g_f;
static int eventual_wait_g(void) { return weft_eventual_wait(g_e, NULL); }
static int future_wait_g(void) { return weft_future_wait(g_f); }
CASE(eventual_create_null_out, WEFT_ERR_INVALID) { return weft_eventual_create(8, NULL); }
CASE(eventual_free_null_ptr, WEFT_ERR_INVALID) { return weft_eventual_free(NULL); }
CASE(eventual_free_stale, WEFT_ERR_HANDLE)
{
    weft_eventual e, keep;
    start(1);
    S(weft_eventual_create(8, &e));
    keep = e;
    S(weft_eventual_free(&e));
    return weft_eventual_free(&keep);
}
CASE(eventual_free_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_eventual_create(0, &g_e));
    g_fn = eventual_wait_g;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t);
    return weft_eventual_free(&g_e);
}
CASE(eventual_set_twice, WEFT_ERR_STATE)
{
    weft_eventual e;
    start(1);
    S(weft_eventual_create(0, &e));
    S(weft_eventual_set(e, NULL, 0));
    return weft_eventual_set(e, NULL, 0);
}
CASE(eventual_set_twice_no_init, WEFT_ERR_STATE)
{
    weft_eventual e;
    S(weft_eventual_create(0, &e));
    S(weft_eventual_set(e, NULL, 0));
    return weft_eventual_set(e, NULL, 0);
}
CASE(eventual_set_too_large, WEFT_ERR_INVALID)
{
    weft_eventual e;
    char buf[16] = {0};
    start(1);
    S(weft_eventual_create(8, &e));
    return weft_eventual_set(e, buf, 16);
}
CASE(eventual_set_size_max, WEFT_ERR_INVALID)
{
    weft_eventual e;
    char buf[16] = {0};
    start(1);
    S(weft_eventual_create(8, &e));
    return weft_eventual_set(e, buf, SIZE_MAX);
}
CASE(eventual_set_null_value, WEFT_ERR_INVALID)
{
    weft_eventual e;
    start(1);
    S(weft_eventual_create(8, &e));
    return weft_eventual_set(e, NULL, 4);
}
CASE(eventual_set_stale, WEFT_ERR_HANDLE)
{
    weft_eventual e, keep;
    start(1);
    S(weft_eventual_create(0, &e));
    keep = e;
    S(weft_eventual_free(&e));
    return weft_eventual_set(keep, NULL, 0);
}
CASE(eventual_test_null_ready, WEFT_ERR_INVALID)
{
    weft_eventual e;
    start(1);
    S(weft_eventual_create(0, &e));
    return weft_eventual_test(e, NULL, NULL);
}
CASE(eventual_test_future, WEFT_ERR_HANDLE)
{
    weft_future f;
    int r;
    start(1);
    S(weft_future_create(1, NULL, &f));
    return weft_eventual_test((weft_eventual)(void *)f, NULL, &r);
}
CASE(eventual_timedwait_past, WEFT_ERR_TIMEDOUT)
{
    weft_eventual e;
    start(1);
    S(weft_eventual_create(0, &e));
    return weft_eventual_timedwait(e, NULL, PAST_DEADLINE);
}
static int eventual_timedwait_past_g(void) { return weft_eventual_timedwait(g_e, NULL, PAST_DEADLINE); }
CASE(eventual_timedwait_past_pthread, WEFT_ERR_TIMEDOUT)
{
    start(1);
    S(weft_eventual_create(0, &g_e));
    return in_pthread(eventual_timedwait_past_g);
}
CASE(eventual_wait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_eventual_create(0, &g_e));
    return in_tasklet(eventual_wait_g);
}
CASE(eventual_wait_stale, WEFT_ERR_HANDLE)
{
    weft_eventual e, keep;
    start(1);
    S(weft_eventual_create(0, &e));
    keep = e;
    S(weft_eventual_free(&e));
    return weft_eventual_wait(keep, NULL);
}
CASE(eventual_reset_stale, WEFT_ERR_HANDLE)
{
    weft_eventual e, keep;
    start(1);
    S(weft_eventual_create(0, &e));
    keep = e;
    S(weft_eventual_free(&e));
    return weft_eventual_reset(keep);
}
CASE(eventual_reset_misaligned, WEFT_ERR_HANDLE)
{
    weft_eventual e;
    start(1);
    S(weft_eventual_create(0, &e));
    return weft_eventual_reset((weft_eventual)MISALIGN(e));
}
CASE(future_create_zero, WEFT_ERR_INVALID)
{
    weft_future f;
    return weft_future_create(0, NULL, &f);
}
CASE(future_create_negative, WEFT_ERR_INVALID)
{
    weft_future f;
    return weft_future_create(-1, NULL, &f);
}
CASE(future_create_null_out, WEFT_ERR_INVALID) { return weft_future_create(1, NULL, NULL); }
CASE(future_free_null_ptr, WEFT_ERR_INVALID) { return weft_future_free(NULL); }
CASE(future_free_stale, WEFT_ERR_HANDLE)
{
    weft_future f, keep;
    start(1);
    S(weft_future_create(1, NULL, &f));
    keep = f;
    S(weft_future_free(&f));
    return weft_future_free(&keep);
}
CASE(future_free_waited, WEFT_ERR_BUSY)
{
    weft_thread t;
    start(1);
    S(weft_future_create(2, NULL, &g_f));
    g_fn = future_wait_g;
    S(weft_thread_create(mypool(), unit_body, NULL, NULL, &t));
    wait_blocked(t);
    return weft_future_free(&g_f);
}
CASE(future_set_full, WEFT_ERR_STATE)
{
    weft_future f;
    start(1);
    S(weft_future_create(1, NULL, &f));
    S(weft_future_set(f, NULL));
    return weft_future_set(f, NULL);
}
CASE(future_set_stale, WEFT_ERR_HANDLE)
{
    weft_future f, keep;
    start(1);
    S(weft_future_create(1, NULL, &f));
    keep = f;
    S(weft_future_free(&f));
    return weft_future_set(keep, NULL);
}
CASE(future_get_not_ready, WEFT_ERR_STATE)
{
    weft_future f;
    void *v;
    start(1);
    S(weft_future_create(2, NULL, &f));
    S(weft_future_set(f, NULL));
    return weft_future_get(f, 0, &v);
}
CASE(future_get_index_high, WEFT_ERR_INVALID)
{
    weft_future f;
    void *v;
    start(1);
    S(weft_future_create(1, NULL, &f));
    S(weft_future_set(f, NULL));
    return weft_future_get(f, 1, &v);
}
CASE(future_get_index_negative, WEFT_ERR_INVALID)
{
    weft_future f;
    void *v;
    start(1);
    S(weft_future_create(1, NULL, &f));
    S(weft_future_set(f, NULL));
    return weft_future_get(f, -1, &v);
}
CASE(future_get_null_value, WEFT_ERR_INVALID)
{
    weft_future f;
    start(1);
    S(weft_future_create(1, NULL, &f));
    S(weft_future_set(f, NULL));
    return weft_future_get(f, 0, NULL);
}
CASE(future_test_null, WEFT_ERR_INVALID)
{
    weft_future f;
    start(1);
    S(weft_future_create(1, NULL, &f));
    return weft_future_test(f, NULL);
}
CASE(future_test_eventual, WEFT_ERR_HANDLE)
{
    weft_eventual e;
    int r;
    start(1);
    S(weft_eventual_create(0, &e));
    return weft_future_test((weft_future)(void *)e, &r);
}
CASE(future_timedwait_past, WEFT_ERR_TIMEDOUT)
{
    weft_future f;
    start(1);
    S(weft_future_create(1, NULL, &f));
    return weft_future_timedwait(f, PAST_DEADLINE);
}
CASE(future_wait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_future_create(1, NULL, &g_f));
    return in_tasklet(future_wait_g);
}
CASE(future_wait_stale, WEFT_ERR_HANDLE)
{
    weft_future f, keep;
    start(1);
    S(weft_future_create(1, NULL, &f));
    keep = f;
    S(weft_future_free(&f));
    return weft_future_wait(keep);
}
CASE(future_reset_partial, WEFT_ERR_BUSY)
{
    weft_future f;
    start(1);
    S(weft_future_create(2, NULL, &f));
    S(weft_future_set(f, NULL));
    return weft_future_reset(f);
}
CASE(future_reset_null, WEFT_ERR_HANDLE)
{
    start(1);
    return weft_future_reset(NULL);
}

/* ------------------------------------------------------------------ */
/* Keys                                                                */

CASE(key_create_null_out, WEFT_ERR_INVALID) { return weft_key_create(NULL, NULL); }
CASE(key_free_null_ptr, WEFT_ERR_INVALID) { return weft_key_free(NULL); }
CASE(key_free_null, WEFT_ERR_HANDLE)
{
    weft_key k = NULL;
    return weft_key_free(&k);
}
CASE(key_free_stale, WEFT_ERR_HANDLE)
{
    weft_key k, keep;
    start(1);
    S(weft_key_create(NULL, &k));
    keep = k;
    S(weft_key_free(&k));
    return weft_key_free(&keep);
}
CASE(key_free_stale_no_init, WEFT_ERR_HANDLE)
{
    weft_key k, keep;
    S(weft_key_create(NULL, &k));
    keep = k;
    S(weft_key_free(&k));
    return weft_key_free(&keep);
}
CASE(key_set_stale, WEFT_ERR_HANDLE)
{
    weft_key k, keep;
    start(1);
    S(weft_key_create(NULL, &k));
    keep = k;
    S(weft_key_free(&k));
    return weft_key_set(keep, (void *)1);
}
CASE(key_get_stale, WEFT_ERR_HANDLE)
{
    weft_key k, keep;
    void *v;
    start(1);
    S(weft_key_create(NULL, &k));
    keep = k;
    S(weft_key_free(&k));
    return weft_key_get(keep, &v);
}
CASE(key_get_null_value, WEFT_ERR_INVALID)
{
    weft_key k;
    start(1);
    S(weft_key_create(NULL, &k));
    return weft_key_get(k, NULL);
}
CASE(key_set_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_key_set((weft_key)(void *)m, NULL);
}
CASE(key_get_misaligned, WEFT_ERR_HANDLE)
{
    weft_key k;
    void *v;
    start(1);
    S(weft_key_create(NULL, &k));
    return weft_key_get((weft_key)MISALIGN(k), &v);
}

/* ------------------------------------------------------------------ */
/* Second pass: scheduler contexts, pool access, more contexts         */

/* A stacked user scheduler whose run function makes the misuse call once
 * (g_sched_call), then returns when told to stop. */
static int (*g_sched_call)(void);
static volatile int g_sched_rc = -1, g_sched_done;
static void probe_run(weft_sched s)
{
    int stop = 0;
    g_sched_rc = g_sched_call();
    g_sched_done = 1;
    while (!stop) {
        if (weft_sched_has_to_stop(s, &stop) != WEFT_OK) break;
        if (!stop) weft_sched_idle(s);
    }
}
static int in_sched(int (*fn)(void))
{
    weft_sched_ops ops = {0};
    weft_pool p = newpool();
    weft_sched s;
    ops.run = probe_run;
    g_sched_call = fn;
    g_sched_rc = -1;
    g_sched_done = 0;
    S(weft_sched_create(&ops, 1, &p, NULL, &s));
    S(weft_pool_add_sched(mypool(), s));
    while (!g_sched_done) S(weft_yield());
    return g_sched_rc;
}
CASE(sched_ctx_join, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    g_unit = parked_ult(NULL);
    return in_sched(join_unit_call);
}
/* A scheduler that joined or freed another stream would stop its own
 * while it waited (the stream it joins may wait for a unit of its pools). */
static int xstream_join_g_xs(void) { return weft_xstream_join(g_xs); }
static int xstream_free_g_xs(void) { return weft_xstream_free(&g_xs); }
/* Calls fn in context `in` with a new stream in g_xs. */
static int with_new_stream(int (*in)(int (*)(void)), int (*fn)(void))
{
    start(1);
    S(weft_xstream_create(NULL, &g_xs));
    return in(fn);
}
CASE(sched_ctx_xstream_join, WEFT_ERR_SCHED_BLOCKS) { return with_new_stream(in_sched, xstream_join_g_xs); }
CASE(sched_ctx_xstream_free, WEFT_ERR_SCHED_BLOCKS) { return with_new_stream(in_sched, xstream_free_g_xs); }
CASE(xstream_join_from_tasklet, WEFT_ERR_TASKLET_BLOCKS) { return with_new_stream(in_tasklet, xstream_join_g_xs); }
CASE(xstream_free_from_tasklet, WEFT_ERR_TASKLET_BLOCKS) { return with_new_stream(in_tasklet, xstream_free_g_xs); }
CASE(sched_ctx_mutex_lock_held, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_mutex_create(NULL, &g_m));
    S(weft_mutex_lock(g_m));
    return in_sched(lock_g_m);
}
CASE(sched_ctx_barrier_wait, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_barrier_create(2, &g_b));
    return in_sched(barrier_wait_g);
}
CASE(sched_ctx_eventual_wait, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_eventual_create(0, &g_e));
    return in_sched(eventual_wait_g);
}
CASE(sched_ctx_future_wait, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_future_create(1, NULL, &g_f));
    return in_sched(future_wait_g);
}
CASE(sched_ctx_rwlock_wrlock_held, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_rwlock_create(&g_l));
    S(weft_rwlock_rdlock(g_l));
    return in_sched(wrlock_g_l);
}
static int cond_wait_locked_g(void)
{
    S(weft_mutex_lock(g_m));
    return weft_cond_wait(g_c, g_m);
}
CASE(sched_ctx_cond_wait, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_cond_create(&g_c));
    S(weft_mutex_create(NULL, &g_m));
    return in_sched(cond_wait_locked_g);
}
CASE(sched_ctx_create_first, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    return in_sched(create_first_call);
}
CASE(sched_ctx_yield_to, WEFT_ERR_SCHED_BLOCKS)
{
    start(1);
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &g_unit));
    return in_sched(yield_to_unit_call);
}
static weft_sched g_new_sched;
static int set_main_sched_self_call(void)
{
    weft_xstream xs;
    S(weft_xstream_self(&xs));
    return weft_xstream_set_main_sched(xs, g_new_sched);
}
CASE(sched_ctx_set_main_sched, WEFT_ERR_SCHED_BLOCKS)
{
    weft_pool p;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &g_new_sched));
    return in_sched(set_main_sched_self_call);
}
CASE(set_main_sched_while_stacked, WEFT_ERR_STATE)
{
    weft_pool q, p2;
    weft_sched st;
    weft_thread t;
    start(1);
    p2 = newpool();
    S(weft_sched_create_basic(1, &p2, &g_new_sched));
    q = newpool();
    S(weft_sched_create_basic(1, &q, &st));
    g_fn = set_main_sched_self_call;
    g_rc = -1;
    S(weft_thread_create(q, unit_body, NULL, NULL, &t));
    S(weft_pool_add_sched(mypool(), st));
    S(weft_thread_join(t));
    return g_rc;
}
CASE(set_main_sched_private_pool_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    weft_pool p;
    weft_sched s1, s2;
    weft_xstream xs, self;
    start(1);
    S(weft_xstream_get(0, &self));
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    S(weft_sched_create_basic(1, &p, &s1));
    S(weft_sched_create_basic(1, &p, &s2));
    S(weft_xstream_create(s1, &xs));
    return weft_xstream_set_main_sched(self, s2);
}
CASE(add_sched_private_pool_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    weft_pool p;
    weft_sched s1, s2;
    weft_xstream xs;
    start(1);
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    S(weft_sched_create_basic(1, &p, &s1));
    S(weft_sched_create_basic(1, &p, &s2));
    S(weft_xstream_create(s1, &xs));
    return weft_pool_add_sched(newpool(), s2);
}
static weft_pool private_pool_elsewhere(void)
{
    weft_pool p;
    weft_sched s;
    weft_xstream xs;
    S(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p));
    S(weft_sched_create_basic(1, &p, &s));
    S(weft_xstream_create(s, &xs));
    return p;
}
CASE(pool_size_private_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    size_t n;
    start(1);
    return weft_pool_size(private_pool_elsewhere(), &n);
}
CASE(pool_total_size_private_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    size_t n;
    start(1);
    return weft_pool_total_size(private_pool_elsewhere(), &n);
}
CASE(pool_is_empty_private_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    int e;
    start(1);
    return weft_pool_is_empty(private_pool_elsewhere(), &e);
}
CASE(pool_pop_many_private_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    weft_thread u[2];
    int n;
    start(1);
    return weft_pool_pop_many(private_pool_elsewhere(), 2, u, &n);
}
CASE(pool_pop_wait_private_elsewhere, WEFT_ERR_POOL_ACCESS)
{
    weft_thread u;
    start(1);
    return weft_pool_pop_wait(private_pool_elsewhere(), 1000, &u);
}
CASE(pool_push_mutex_as_pool, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    weft_pool p;
    weft_thread u;
    start(1);
    (void)parked_ult(&p);
    S(weft_pool_pop(p, &u));
    S(weft_mutex_create(NULL, &m));
    return weft_pool_push((weft_pool)(void *)m, u);
}
CASE(sched_set_automatic_bad, WEFT_ERR_INVALID)
{
    weft_pool p;
    weft_sched s;
    start(1);
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    return weft_sched_set_automatic(s, 7);
}
CASE(sched_get_pools_null_array, WEFT_ERR_INVALID)
{
    int n;
    start(1);
    return weft_sched_get_pools(main_sched(), 1, NULL, &n);
}
CASE(xstream_get_pools_null_array, WEFT_ERR_INVALID)
{
    weft_xstream xs;
    int n;
    start(1);
    S(weft_xstream_get(0, &xs));
    return weft_xstream_get_pools(xs, 1, NULL, &n);
}
CASE(xstream_get_pools_stale, WEFT_ERR_HANDLE)
{
    weft_xstream xs, keep;
    weft_pool p;
    int n;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    keep = xs;
    S(weft_xstream_free(&xs));
    return weft_xstream_get_pools(keep, 1, &p, &n);
}
CASE(xstream_free_stale, WEFT_ERR_HANDLE)
{
    weft_xstream xs, keep;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    keep = xs;
    S(weft_xstream_free(&xs));
    return weft_xstream_free(&keep);
}
CASE(xstream_set_cpubind_stale, WEFT_ERR_HANDLE)
{
    weft_xstream xs, keep;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    keep = xs;
    S(weft_xstream_free(&xs));
    return weft_xstream_set_cpubind(keep, -1);
}
CASE(xstream_get_cpubind_mutex, WEFT_ERR_HANDLE)
{
    weft_mutex m;
    int c;
    start(1);
    S(weft_mutex_create(NULL, &m));
    return weft_xstream_get_cpubind((weft_xstream)(void *)m, &c);
}
static int free_own_stream(void)
{
    weft_xstream xs;
    S(weft_xstream_self(&xs));
    return weft_xstream_free(&xs);
}
CASE(xstream_free_own_from_ult, WEFT_ERR_CROSS_STREAM)
{
    weft_xstream xs;
    weft_thread t;
    start(1);
    S(weft_xstream_create(WEFT_SCHED_NULL, &xs));
    g_fn = free_own_stream;
    g_rc = -1;
    S(weft_thread_create_to(xs, unit_body, NULL, NULL, &t));
    S(weft_thread_join(t));
    return g_rc;
}
CASE(thread_create_to_null_xs, WEFT_ERR_HANDLE)
{
    weft_thread t;
    start(1);
    return weft_thread_create_to(WEFT_XSTREAM_NULL, nothing, NULL, NULL, &t);
}
CASE(uninit_tasklet_create, WEFT_ERR_UNINIT)
{
    weft_thread t;
    return weft_tasklet_create(WEFT_POOL_NULL, nothing, NULL, &t);
}
CASE(uninit_thread_create_to, WEFT_ERR_UNINIT)
{
    weft_thread t;
    return weft_thread_create_to(WEFT_XSTREAM_NULL, nothing, NULL, NULL, &t);
}
CASE(uninit_create_first, WEFT_ERR_NOT_WEFT) { return create_first_call(); }
CASE(uninit_xstream_self, WEFT_ERR_NOT_WEFT) { return xstream_self_call(); }
CASE(uninit_thread_exit, WEFT_ERR_NOT_WEFT) { return weft_thread_exit(); }
CASE(finalize_from_pthread, WEFT_ERR_PRIMARY)
{
    start(1);
    return in_pthread(finalize_call);
}
static int init_call(void) { return weft_init(NULL); }
CASE(init_from_ult, WEFT_ERR_INIT)
{
    start(1);
    return in_ult(init_call);
}
CASE(init_from_pthread, WEFT_ERR_INIT)
{
    start(1);
    return in_pthread(init_call);
}
static volatile int g_stop_yield;
static void yielder(void *a)
{
    (void)a;
    while (!g_stop_yield) weft_yield();
}
CASE(migrate_unmigratable_after_run, WEFT_ERR_STATE)
{
    weft_thread_attr a;
    weft_thread t;
    weft_thread_state st;
    start(1);
    S(weft_thread_attr_init(&a));
    a.migratable = 0;
    S(weft_thread_create(mypool(), yielder, NULL, &a, &t));
    do { /* until it has run once and is back, ready, in the pool */
        S(weft_yield());
        S(weft_thread_get_state(t, &st));
    } while (st != WEFT_STATE_READY);
    return weft_thread_migrate(t, newpool());
}
static int migrate_self_unmigratable(void)
{
    weft_thread me;
    S(weft_self(&me));
    return weft_thread_migrate(me, newpool());
}
CASE(migrate_self_unmigratable, WEFT_ERR_STATE)
{
    weft_thread_attr a;
    weft_thread t;
    start(1);
    S(weft_thread_attr_init(&a));
    a.migratable = 0;
    g_fn = migrate_self_unmigratable;
    g_rc = -1;
    S(weft_thread_create(mypool(), unit_body, NULL, &a, &t));
    S(weft_thread_join(t));
    return g_rc;
}
CASE(yield_to_in_deque, WEFT_ERR_STATE)
{
    weft_config cfg;
    weft_thread t;
    S(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.pool_kind = WEFT_POOL_DEQUE;
    cfg.pool_access = WEFT_POOL_ACCESS_MPMC;
    S(weft_init(&cfg));
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    return weft_yield_to(t);
}
CASE(mutex_recursive_unlock_extra, WEFT_ERR_NOT_OWNER)
{
    weft_mutex_attr a = {1, 0};
    weft_mutex m;
    start(1);
    S(weft_mutex_create(&a, &m));
    S(weft_mutex_lock(m));
    S(weft_mutex_lock(m));
    S(weft_mutex_unlock(m));
    S(weft_mutex_unlock(m));
    return weft_mutex_unlock(m);
}
CASE(mutex_recursive_trylock_other, WEFT_ERR_BUSY)
{
    weft_mutex_attr a = {1, 0};
    start(1);
    S(weft_mutex_create(&a, &g_m));
    S(in_pthread(lock_g_m));
    return weft_mutex_trylock(g_m);
}
CASE(mutex_recursive_unlock_other, WEFT_ERR_NOT_OWNER)
{
    weft_mutex_attr a = {1, 1};
    start(1);
    S(weft_mutex_create(&a, &g_m));
    S(in_ult(lock_g_m));
    return weft_mutex_unlock(g_m);
}
CASE(cond_wait_mutex_held_by_other, WEFT_ERR_NOT_OWNER)
{
    weft_cond c;
    start(1);
    S(weft_cond_create(&c));
    S(weft_mutex_create(NULL, &g_m));
    S(in_pthread(lock_g_m));
    return weft_cond_wait(c, g_m);
}
static int cond_timedwait_g(void)
{
    S(weft_mutex_lock(g_m));
    return weft_cond_timedwait(g_c, g_m, weft_time_ns() + 1000000000ull);
}
CASE(cond_timedwait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_cond_create(&g_c));
    S(weft_mutex_create(NULL, &g_m));
    return in_tasklet(cond_timedwait_g);
}
static int eventual_timedwait_future_g(void)
{
    return weft_eventual_timedwait(g_e, NULL, weft_time_ns() + 1000000000ull);
}
CASE(eventual_timedwait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_eventual_create(0, &g_e));
    return in_tasklet(eventual_timedwait_future_g);
}
static int future_timedwait_g(void) { return weft_future_timedwait(g_f, weft_time_ns() + 1000000000ull); }
CASE(future_timedwait_tasklet, WEFT_ERR_TASKLET_BLOCKS)
{
    start(1);
    S(weft_future_create(1, NULL, &g_f));
    return in_tasklet(future_timedwait_g);
}
CASE(future_timedwait_past_pthread_like, WEFT_ERR_TIMEDOUT)
{
    weft_future f;
    S(weft_future_create(1, NULL, &f));
    return weft_future_timedwait(f, PAST_DEADLINE);
}
CASE(barrier_reinit_negative, WEFT_ERR_INVALID)
{
    weft_barrier b;
    start(1);
    S(weft_barrier_create(2, &b));
    return weft_barrier_reinit(b, -1);
}
static weft_xstream_barrier g_xb;
static void *xbarrier_waiter(void *a)
{
    (void)a;
    weft_xstream_barrier_wait(g_xb);
    return NULL;
}
CASE(xbarrier_free_waited, WEFT_ERR_BUSY)
{
    pthread_t th;
    start(1);
    S(weft_xstream_barrier_create(2, &g_xb));
    if (pthread_create(&th, NULL, xbarrier_waiter, NULL) != 0) _exit(SETUP_FAIL);
    usleep(100000); /* let it arrive and wait */
    return weft_xstream_barrier_free(&g_xb);
}
static weft_key g_k;
static int key_set_g(void) { return weft_key_set(g_k, (void *)1); }
CASE(key_set_stale_pthread, WEFT_ERR_HANDLE)
{
    weft_key k;
    S(weft_key_create(NULL, &k));
    g_k = k;
    S(weft_key_free(&k));
    return in_pthread(key_set_g);
}
CASE(key_set_stale_tasklet, WEFT_ERR_HANDLE)
{
    weft_key k;
    start(1);
    S(weft_key_create(NULL, &k));
    g_k = k;
    S(weft_key_free(&k));
    return in_tasklet(key_set_g);
}

/* Third pass */
CASE(set_main_sched_old_pool_has_work, WEFT_ERR_BUSY)
{
    weft_xstream self;
    weft_pool p;
    weft_sched s;
    weft_thread t;
    start(1);
    S(weft_xstream_get(0, &self));
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    p = newpool();
    S(weft_sched_create_basic(1, &p, &s));
    return weft_xstream_set_main_sched(self, s);
}
static weft_sched g_probe;
static int run_unit_in_pool_call(void) { return weft_sched_run_unit(g_probe, g_unit, g_pool); }
static int has_to_stop_null_call(void) { return weft_sched_has_to_stop(g_probe, NULL); }
static int probe_init(weft_sched s)
{
    g_probe = s;
    return WEFT_OK;
}
static int in_probe_sched(int (*fn)(void))
{
    weft_sched_ops ops = {0};
    weft_pool p = newpool();
    weft_sched s;
    ops.run = probe_run;
    ops.init = probe_init;
    g_sched_call = fn;
    g_sched_rc = -1;
    g_sched_done = 0;
    S(weft_sched_create(&ops, 1, &p, NULL, &s));
    S(weft_pool_add_sched(mypool(), s));
    while (!g_sched_done) S(weft_yield());
    return g_sched_rc;
}
CASE(sched_run_unit_still_in_pool, WEFT_ERR_STATE)
{
    start(1);
    g_unit = parked_ult(&g_pool);
    return in_probe_sched(run_unit_in_pool_call);
}
CASE(sched_run_unit_ended, WEFT_ERR_STATE)
{
    start(1);
    g_unit = ended_ult(0);
    g_pool = newpool();
    return in_probe_sched(run_unit_in_pool_call);
}
CASE(sched_has_to_stop_null_out, WEFT_ERR_INVALID)
{
    start(1);
    return in_probe_sched(has_to_stop_null_call);
}
CASE(key_create_4097, WEFT_ERR_NOMEM)
{
    weft_key k;
    int rc = WEFT_OK;
    for (int i = 0; i < 4097 && rc == WEFT_OK; i++) rc = weft_key_create(NULL, &k);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Pointers weft never handed out (issue 18 item 19): refused, never read */

/* 64-byte aligned, so that only the range check can refuse them: a low
 * address, a non-canonical one, a kernel one, the program's own heap and
 * stack (filled with every magic word, so the word alone would pass), and
 * code. */
static void *wild(int k)
{
    static const uint32_t magics[] = {0x57554e54u, 0x57504f4cu, 0x57534348u, 0x57585354u};
    switch (k) {
    case 0: return (void *)(uintptr_t)0x10000;
    case 1: return (void *)(uintptr_t)0x8000000000000040ull;
    case 2: return (void *)(uintptr_t)0xffffffffffffffc0ull;
    case 3: {
        uint32_t *h = aligned_alloc(64, 4096);
        if (!h) _exit(SETUP_FAIL);
        for (int i = 0; i < 1024; i++) h[i] = magics[i % 4];
        return h;
    }
    case 4: {
        static uint32_t __attribute__((aligned(64))) on_data[1024];
        for (int i = 0; i < 1024; i++) on_data[i] = magics[(i / 16) % 4];
        return on_data + 16 * (k % 4);
    }
    default: return (void *)((uintptr_t)&printf & ~(uintptr_t)63);
    }
}

#define WILD_CASES(call_name, expr)                                                       \
    static int wild_##call_name(void *w)                                                  \
    {                                                                                     \
        start(1);                                                                         \
        return (expr);                                                                    \
    }                                                                                     \
    CASE(wild_low_##call_name, WEFT_ERR_HANDLE) { return wild_##call_name(wild(0)); }        \
    CASE(wild_noncanonical_##call_name, WEFT_ERR_HANDLE) { return wild_##call_name(wild(1)); } \
    CASE(wild_kernel_##call_name, WEFT_ERR_HANDLE) { return wild_##call_name(wild(2)); }     \
    CASE(wild_heap_##call_name, WEFT_ERR_HANDLE) { return wild_##call_name(wild(3)); }       \
    CASE(wild_data_##call_name, WEFT_ERR_HANDLE) { return wild_##call_name(wild(4)); }       \
    CASE(wild_code_##call_name, WEFT_ERR_HANDLE) { return wild_##call_name(wild(5)); }

static weft_thread_state g_st;
static int g_n;
static void *g_v;
WILD_CASES(thread_join, weft_thread_join((weft_thread)w))
WILD_CASES(thread_free, weft_thread_free((weft_thread *)&w))
WILD_CASES(thread_get_state, weft_thread_get_state((weft_thread)w, &g_st))
WILD_CASES(thread_cancel, weft_thread_cancel((weft_thread)w))
WILD_CASES(yield_to, weft_yield_to((weft_thread)w))
WILD_CASES(thread_migrate, weft_thread_migrate((weft_thread)w, mypool()))
WILD_CASES(thread_create, weft_thread_create((weft_pool)w, nothing, NULL, NULL, NULL))
WILD_CASES(xstream_join, weft_xstream_join((weft_xstream)w))
WILD_CASES(xstream_free, weft_xstream_free((weft_xstream *)&w))
WILD_CASES(xstream_get_pools, weft_xstream_get_pools((weft_xstream)w, 1, NULL, &g_n))
WILD_CASES(pool_size, weft_pool_size((weft_pool)w, (size_t *)&g_v))
WILD_CASES(pool_free, weft_pool_free((weft_pool *)&w))
WILD_CASES(sched_free, weft_sched_free((weft_sched *)&w))
WILD_CASES(mutex_lock, weft_mutex_lock((weft_mutex)w))
WILD_CASES(mutex_unlock, weft_mutex_unlock((weft_mutex)w))
WILD_CASES(cond_signal, weft_cond_signal((weft_cond)w))
WILD_CASES(rwlock_rdlock, weft_rwlock_rdlock((weft_rwlock)w))
WILD_CASES(barrier_wait, weft_barrier_wait((weft_barrier)w))
WILD_CASES(eventual_set, weft_eventual_set((weft_eventual)w, NULL, 0))
WILD_CASES(future_set, weft_future_set((weft_future)w, NULL))
WILD_CASES(key_set, weft_key_set((weft_key)w, NULL))
WILD_CASES(key_get, weft_key_get((weft_key)w, &g_v))

/* Unit and stream handles kept past weft_finalize(): their memory stays
 * (handle memory is never unmapped), marked dead. */
CASE(unit_after_finalize, WEFT_ERR_HANDLE)
{
    start(2);
    weft_thread t;
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    S(weft_thread_join(t));
    S(weft_finalize());
    return weft_thread_free(&t);
}

CASE(unit_state_after_finalize, WEFT_ERR_HANDLE)
{
    start(1);
    weft_thread t;
    S(weft_thread_create(mypool(), nothing, NULL, NULL, &t));
    S(weft_finalize());
    return weft_thread_get_state(t, &g_st);
}

CASE(xstream_after_finalize, WEFT_ERR_HANDLE)
{
    start(2);
    weft_xstream x;
    S(weft_xstream_get(1, &x));
    S(weft_finalize());
    return weft_xstream_get_pools(x, 1, NULL, &g_n);
}

/* ------------------------------------------------------------------ */

const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) { return "exitcode=201"; }

static int run_case(const misuse_case *c)
{
    pid_t pid = fork_child(10);
    if (pid == 0) {
        int rc = c->fn();
        _exit(rc & 0xff);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid) {
        perror("waitpid");
        return 0;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        printf("FAIL %-40s %s (want %d %s)\n", c->name,
               sig == SIGALRM ? "hang (timeout)" : strsignal(sig), c->want,
               weft_strerror(c->want));
        return 0;
    }
    int got = WEXITSTATUS(status);
    if (got != c->want) {
        printf("FAIL %-40s got %d (%s), want %d (%s)\n", c->name, got,
               got == SETUP_FAIL ? "setup failed" : weft_strerror(got), c->want,
               weft_strerror(c->want));
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int n = 0, ok = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < ncases; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
        n++;
        ok += run_case(&cases[i]);
    }
    if (argc > 1 && n == 0) {
        fprintf(stderr, "no case named %s\n", argv[1]);
        return 2;
    }
    printf("misuse: %d cases, %d returned their documented code\n", n, ok);
    return ok < n ? 1 : 0;
}
