/* Fault injection: the n-th allocation (malloc, calloc, realloc,
 * aligned_alloc, mmap) or thread creation inside the runtime fails, for n =
 * 1, 2, ... until an operation runs without reaching it. Each operation
 * must then succeed or return its documented error (WEFT_ERR_NOMEM, or
 * WEFT_ERR_SYS where listed), leave the runtime usable, and run every unit
 * it accepted exactly once. Leaks show up under the ASan suite's leak
 * checker, which runs at exit after weft_finalize(). The countdown is a
 * hidden variable of the static library (src/core/sys.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"
#include "weft_pair.h"

extern _Atomic long weft_fault_countdown;

static void tick_pair(void *arg) { (void)arg; }

#define MAX_N 1000

static int g_faults; /* injected faults that an operation reported */

/* Arm the n-th allocation from now to fail. */
static void arm(long n) { atomic_store(&weft_fault_countdown, n); }

/* Disarm; true if the armed allocation was reached. */
static int disarm(void)
{
    long left = atomic_exchange(&weft_fault_countdown, 0);
    return left <= 0;
}

static void expect_nomem(int rc, const char *what, long n)
{
    if (rc != WEFT_ERR_NOMEM && rc != WEFT_ERR_SYS) {
        fprintf(stderr, "%s with allocation %ld failing: %s\n", what, n, weft_strerror(rc));
        exit(1);
    }
    g_faults++;
}

/* ---------- init and streams ---------- */

static void faults_init(int eager)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 3;
    cfg.eager_stacks = eager;
    for (long n = 1; n < MAX_N; n++) {
        arm(n);
        int rc = weft_init(&cfg);
        int hit = disarm();
        if (rc == WEFT_OK) {
            int k;
            CHECK_OK(weft_xstream_count(&k));
            CHECK(k == 3);
            CHECK_OK(weft_finalize());
            if (!hit) return;
            continue; /* the failure was absorbed (a cache, a fallback) */
        }
        expect_nomem(rc, "weft_init", n);
        CHECK(!weft_initialized());
    }
    CHECK(!"weft_init allocates fewer than MAX_N times");
}

static void faults_xstream(void)
{
    start_weft(1);
    for (long n = 1; n < MAX_N; n++) {
        weft_xstream x = NULL;
        arm(n);
        int rc = weft_xstream_create(NULL, &x);
        int hit = disarm();
        int k;
        CHECK_OK(weft_xstream_count(&k));
        if (rc == WEFT_OK) {
            CHECK(k == 2);
            CHECK_OK(weft_xstream_join(x));
            CHECK_OK(weft_xstream_free(&x));
            if (!hit) break;
            continue;
        }
        expect_nomem(rc, "weft_xstream_create", n);
        CHECK(k == 1);
    }
    CHECK_OK(weft_finalize());
}

/* A stream over a private pool that fails to start leaves the pool to no
 * stream: what a plain thread created into it meanwhile (some of it sent
 * to the unborn stream's inbox) and what is created after all run once
 * the next stream takes it, and any thread may pop it in between. */
#define FP_MAX 4000
static weft_pool g_fp;
static weft_thread g_fp_units[FP_MAX];
static _Atomic int g_fp_made, g_fp_stop, g_fp_ran;

static void fp_body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_fp_ran, 1);
}

static void *fp_pusher(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_fp_stop) && g_fp_made < FP_MAX - 10) {
        int rc = weft_tasklet_create(g_fp, fp_body, NULL, &g_fp_units[g_fp_made]);
        if (rc == WEFT_OK) g_fp_made++;
        else CHECK(rc == WEFT_ERR_NOMEM); /* the armed fault may be this call's */
    }
    return NULL;
}

static void faults_xstream_pool(void)
{
    start_weft(1);
    int failed = 0;
    for (long n = 1; n < 60; n++) {
        weft_sched s;
        weft_xstream x = NULL;
        CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &g_fp));
        CHECK_OK(weft_sched_create_basic(1, &g_fp, &s));
        g_fp_made = g_fp_ran = g_fp_stop = 0;
        pthread_t th;
        CHECK(pthread_create(&th, NULL, fp_pusher, NULL) == 0);
        while (g_fp_made < 20) sched_yield();
        arm(n);
        int rc = weft_xstream_create(s, &x);
        disarm();
        atomic_store(&g_fp_stop, 1);
        CHECK(pthread_join(th, NULL) == 0);
        if (rc != WEFT_OK) {
            expect_nomem(rc, "weft_xstream_create over a private pool", n);
            failed++;
            weft_thread u;
            CHECK_OK(weft_pool_pop(g_fp, &u)); /* no stream owns it */
            CHECK(u != NULL);
            CHECK_OK(weft_pool_push(g_fp, u));
            for (int i = 0; i < 10; i++) CHECK_OK(weft_tasklet_create(g_fp, fp_body, NULL, &g_fp_units[g_fp_made++]));
            CHECK_OK(weft_xstream_create(s, &x));
        }
        for (int i = 0; i < g_fp_made; i++) CHECK_OK(weft_thread_free(&g_fp_units[i]));
        CHECK(g_fp_ran == g_fp_made);
        CHECK_OK(weft_xstream_free(&x));
        CHECK_OK(weft_sched_free(&s));
        CHECK_OK(weft_pool_free(&g_fp));
    }
    CHECK(failed > 0);
    CHECK_OK(weft_finalize());
}

/* ---------- units ---------- */

#define UNITS 600

static _Atomic int g_ran[UNITS];

static void ult_body(void *arg)
{
    /* Yield once, so that many ULTs hold a stack at the same time. */
    weft_yield();
    atomic_fetch_add(&g_ran[(intptr_t)arg], 1);
}

static void tasklet_body(void *arg) { atomic_fetch_add(&g_ran[(intptr_t)arg], 1); }

/* Create UNITS units (ULTs and tasklets, into this stream's pool and a
 * deque) with allocation n failing; every accepted unit runs once. */
static weft_thread t[UNITS];
static int accepted[UNITS];

static int units_round(long n, weft_pool deque)
{
    memset(accepted, 0, sizeof accepted);
    for (int i = 0; i < UNITS; i++) atomic_store(&g_ran[i], 0);
    weft_pool mine = self_pool();
    arm(n);
    for (int i = 0; i < UNITS; i++) {
        weft_pool p = i % 3 == 2 ? deque : mine;
        int rc;
        if (i % 3 == 1) /* into `mine` too, found by the call itself */
            rc = i % 2 ? weft_tasklet_create_here(tasklet_body, (void *)(intptr_t)i, &t[i])
                       : weft_thread_create_here(ult_body, (void *)(intptr_t)i, NULL, &t[i]);
        else
            rc = i % 2 ? weft_tasklet_create(p, tasklet_body, (void *)(intptr_t)i, &t[i])
                       : weft_thread_create(p, ult_body, (void *)(intptr_t)i, NULL, &t[i]);
        if (rc == WEFT_OK) {
            accepted[i] = 1;
        } else {
            expect_nomem(rc, "unit create", n);
            CHECK(t[i] == NULL);
        }
    }
    /* Stacks are taken at first run: the failure may come while they run. */
    for (int i = 0; i < UNITS; i++)
        if (accepted[i]) CHECK_OK(weft_thread_free(&t[i]));
    int hit = disarm();
    for (int i = 0; i < UNITS; i++)
        if (atomic_load(&g_ran[i]) != accepted[i]) {
            fprintf(stderr, "unit %d (accepted %d) ran %d times with allocation %ld failing\n", i, accepted[i],
                    atomic_load(&g_ran[i]), n);
            exit(1);
        }
    return hit;
}

/* A fresh runtime per n, so that descriptors, stacks and deque rings are
 * all allocated anew while units are created and run. */
static void faults_units(int eager)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.eager_stacks = eager;
    long n;
    for (n = 1; n < MAX_N; n++) {
        CHECK_OK(weft_init(&cfg));
        /* A second stream scheduling a deque that main pushes to: its ring
         * grows as units pile up. */
        weft_pool deque;
        CHECK_OK(weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPMC, &deque));
        weft_sched s;
        CHECK_OK(weft_sched_create_basic(1, &deque, &s));
        weft_xstream x;
        CHECK_OK(weft_xstream_create(s, &x));
        int hit = units_round(n, deque);
        CHECK_OK(weft_xstream_join(x));
        CHECK_OK(weft_xstream_free(&x));
        CHECK_OK(weft_sched_free(&s));
        CHECK_OK(weft_pool_free(&deque));
        CHECK_OK(weft_finalize());
        if (!hit) break;
    }
    CHECK(n > 1 && n < MAX_N);
}

/* weft_thread_create_here and weft_tasklet_create_here: units pile up in
 * the caller's pool (it never yields) until a descriptor needs memory the
 * armed fault refuses; that call reports NOMEM and leaves no handle, and
 * every unit accepted before it runs once. */
#define HERE_MAX 200000
static weft_thread g_here[HERE_MAX];
static _Atomic long g_here_ran;

static void here_body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_here_ran, 1);
}

static void faults_create_here(void)
{
    start_weft(1);
    for (int tasklet = 0; tasklet < 2; tasklet++) {
        long n = 0;
        int rc = WEFT_OK;
        atomic_store(&g_here_ran, 0);
        arm(1);
        while (n < HERE_MAX) {
            g_here[n] = (weft_thread)&rc; /* must come back NULL on failure */
            rc = tasklet ? weft_tasklet_create_here(here_body, NULL, &g_here[n])
                         : weft_thread_create_here(here_body, NULL, NULL, &g_here[n]);
            if (rc != WEFT_OK) break;
            n++;
        }
        CHECK(disarm());
        CHECK(n > 0 && n < HERE_MAX);
        CHECK(rc == WEFT_ERR_NOMEM);
        CHECK(g_here[n] == NULL);
        g_faults++;
        for (long i = 0; i < n; i++) CHECK_OK(weft_thread_free(&g_here[i]));
        CHECK(atomic_load(&g_here_ran) == n);
    }
    CHECK_OK(weft_finalize());
}

/* ---------- pools, schedulers and synchronisation objects ---------- */

typedef int (*make_fn)(void **out);
typedef int (*free_fn)(void **h);

static int mk_pool(void **o) { return weft_pool_create(WEFT_POOL_DEQUE, WEFT_POOL_ACCESS_MPMC, (weft_pool *)o); }
static int fr_pool(void **h) { return weft_pool_free((weft_pool *)h); }
static weft_pool g_sched_pool;
static int mk_sched(void **o) { return weft_sched_create_basic(1, &g_sched_pool, (weft_sched *)o); }
static int fr_sched(void **h) { return weft_sched_free((weft_sched *)h); }
static int mk_mutex(void **o) { return weft_mutex_create(NULL, (weft_mutex *)o); }
static int fr_mutex(void **h) { return weft_mutex_free((weft_mutex *)h); }
static int mk_cond(void **o) { return weft_cond_create((weft_cond *)o); }
static int fr_cond(void **h) { return weft_cond_free((weft_cond *)h); }
static int mk_rwlock(void **o) { return weft_rwlock_create((weft_rwlock *)o); }
static int fr_rwlock(void **h) { return weft_rwlock_free((weft_rwlock *)h); }
static int mk_barrier(void **o) { return weft_barrier_create(3, (weft_barrier *)o); }
static int fr_barrier(void **h) { return weft_barrier_free((weft_barrier *)h); }
static int mk_eventual(void **o) { return weft_eventual_create(256, (weft_eventual *)o); }
static int fr_eventual(void **h) { return weft_eventual_free((weft_eventual *)h); }
static int mk_future(void **o) { return weft_future_create(4, NULL, (weft_future *)o); }
static int fr_future(void **h) { return weft_future_free((weft_future *)h); }
static int mk_key(void **o) { return weft_key_create(NULL, (weft_key *)o); }
static int fr_key(void **h) { return weft_key_free((weft_key *)h); }

static const struct {
    const char *name;
    make_fn make;
    free_fn free;
} g_objs[] = {
    {"pool", mk_pool, fr_pool},       {"sched", mk_sched, fr_sched},       {"mutex", mk_mutex, fr_mutex},
    {"cond", mk_cond, fr_cond},       {"rwlock", mk_rwlock, fr_rwlock},    {"barrier", mk_barrier, fr_barrier},
    {"eventual", mk_eventual, fr_eventual}, {"future", mk_future, fr_future}, {"key", mk_key, fr_key},
};

/* Each object kind, made with allocation n failing; the graveyard is
 * emptied first by making many objects at once. */
static void faults_objects(void)
{
    start_weft(1);
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &g_sched_pool));
    for (size_t k = 0; k < sizeof g_objs / sizeof g_objs[0]; k++) {
        for (long n = 1; n < MAX_N; n++) {
            void *h = NULL;
            arm(n);
            int rc = g_objs[k].make(&h);
            int hit = disarm();
            if (rc == WEFT_OK) {
                CHECK_OK(g_objs[k].free(&h));
                if (!hit) break;
                continue;
            }
            expect_nomem(rc, g_objs[k].name, n);
            CHECK(h == NULL);
        }
    }
    CHECK_OK(weft_pool_free(&g_sched_pool));
    CHECK_OK(weft_finalize());
}

/* A key value set by a ULT grows its table: with the growth failing,
 * weft_key_set reports WEFT_ERR_NOMEM and the key still works. */
static weft_key g_keys[64];

static void key_setter(void *arg)
{
    (void)arg;
    for (long n = 1; n < MAX_N; n++) {
        arm(n);
        int rc = WEFT_OK;
        int i;
        for (i = 0; i < 64 && rc == WEFT_OK; i++) rc = weft_key_set(g_keys[i], (void *)(intptr_t)(i + 1));
        int hit = disarm();
        if (rc != WEFT_OK) {
            expect_nomem(rc, "weft_key_set", n);
            i--;
        }
        for (int j = 0; j < i; j++) {
            void *v;
            CHECK_OK(weft_key_get(g_keys[j], &v));
            CHECK(v == (void *)(intptr_t)(j + 1));
        }
        if (!hit) return;
    }
}

static void faults_keys(void)
{
    start_weft(1);
    for (int i = 0; i < 64; i++) CHECK_OK(weft_key_create(NULL, &g_keys[i]));
    /* A fresh ULT per attempt: its key table starts empty. */
    for (int round = 0; round < 3; round++) {
        weft_thread t;
        CHECK_OK(weft_thread_create(self_pool(), key_setter, NULL, NULL, &t));
        CHECK_OK(weft_thread_free(&t));
    }
    for (int i = 0; i < 64; i++) CHECK_OK(weft_key_free(&g_keys[i]));
    CHECK_OK(weft_finalize());
}

static void faults_init_lazy(void) { faults_init(0); }
static void faults_init_eager(void) { faults_init(1); }
static void faults_units_lazy(void) { faults_units(0); }
static void faults_units_eager(void) { faults_units(1); }

/* ---------- pair mode: its memory (NOMEM), its thread (SYS) ---------- */

static void faults_pair(void)
{
    int nomem = 0, sys = 0;
    weft_pair p = WEFT_PAIR_NULL;
    CHECK_OK(weft_pair_create(NULL, &p)); /* handle memory reserved, one pair retired: */
    CHECK_OK(weft_pair_free(&p));         /* every round takes the same calls */
    for (long n = 1; n < MAX_N; n++) {
        p = WEFT_PAIR_NULL;
        arm(n);
        int rc = weft_pair_create(NULL, &p);
        int hit = disarm();
        if (rc == WEFT_OK) {
            CHECK_OK(weft_pair_submit(p, tick_pair, NULL));
            CHECK_OK(weft_pair_free(&p));
            if (!hit) {
                CHECK(nomem > 0 && sys > 0); /* both kinds of failure were reached */
                return;
            }
            continue;
        }
        CHECK(p == WEFT_PAIR_NULL);
        if (rc == WEFT_ERR_NOMEM) nomem++;
        else if (rc == WEFT_ERR_SYS) sys++;
        else CHECK(!"weft_pair_create: neither NOMEM nor SYS");
        g_faults++;
    }
    CHECK(!"weft_pair_create allocates fewer than MAX_N times");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } phases[] = {{"init", faults_init_lazy}, {"init_eager", faults_init_eager}, {"xstream", faults_xstream},
                  {"xstream_pool", faults_xstream_pool},
                  {"units", faults_units_lazy}, {"units_eager", faults_units_eager}, {"create_here", faults_create_here},
                  {"objects", faults_objects},
                  {"keys", faults_keys}, {"pair", faults_pair}};
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], phases[i].name)) continue;
        int before = g_faults;
        phases[i].fn();
        printf("faults: %s: %d failures injected and reported\n", phases[i].name, g_faults - before);
        fflush(stdout);
    }
    CHECK(g_faults > 0);
    printf("faults: %d injected allocation failures reported as WEFT_ERR_NOMEM/SYS, every accepted unit ran "
           "once\n",
           g_faults);
    return 0;
}
