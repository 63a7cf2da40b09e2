/* A pthreads program on weft's ULTs: GLT's pthreads API (glt_pthreads.h,
 * libgltpthread). Written with the system's names; the header maps them.
 *   test_gpthread [N]        every call, with N threads at a time (default 200)
 *   test_gpthread exit-main  pthread_exit from main: the process lives on
 *                            until its last thread ends, then exits 0
 *   test_gpthread fork       fork() from main and from a thread: the child
 *                            has none of the parent's threads and makes
 *                            its own, as do grandchildren */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glt_pthreads.h"
#include "check.h"

#define CHECK0(call) CHECK((call) == 0)

static int N = 200;

/* ---------- create, join, self, equal, mutex ---------- */

static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static long g_count;
static pthread_t *g_self;

static void *counter(void *arg)
{
    intptr_t i = (intptr_t)arg;
    weft_thread u;
    CHECK(weft_self(&u) == WEFT_OK); /* a weft unit, not an OS thread */
    g_self[i] = pthread_self();
    CHECK(pthread_equal(g_self[i], pthread_self()));
    CHECK0(pthread_mutex_lock(&g_m));
    long c = g_count;
    sched_yield(); /* others run meanwhile; the mutex keeps them out */
    g_count = c + 1;
    CHECK0(pthread_mutex_unlock(&g_m));
    return (void *)(i * 2);
}

static void test_create_join(void)
{
    pthread_t *t = malloc(sizeof *t * (size_t)N);
    g_self = calloc((size_t)N, sizeof *g_self);
    for (int i = 0; i < N; i++) CHECK0(pthread_create(&t[i], NULL, counter, (void *)(intptr_t)i));
    for (int i = 0; i < N; i++) {
        void *ret = NULL;
        pthread_t made = t[i];
        CHECK0(pthread_join(t[i], &ret));
        CHECK((intptr_t)ret == 2 * i);
        CHECK(pthread_equal(g_self[i], made));
        CHECK(!pthread_equal(g_self[i], pthread_self()));
    }
    CHECK(g_count == N);
    CHECK(pthread_equal(pthread_self(), pthread_self()));
    CHECK(pthread_join(pthread_self(), NULL) == EDEADLK);
    CHECK(pthread_create(&t[0], NULL, NULL, NULL) == EINVAL);
    free(t);
    free(g_self);
}

/* ---------- mutex kinds ---------- */

static pthread_mutex_t g_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t g_err;

static void *try_other(void *arg)
{
    pthread_mutex_t *m = arg;
    CHECK(pthread_mutex_trylock(m) == EBUSY);
    CHECK(pthread_mutex_unlock(m) == EPERM);
    return NULL;
}

static void test_mutex_kinds(void)
{
    pthread_t t;
    CHECK0(pthread_mutex_lock(&g_rec));
    CHECK0(pthread_mutex_lock(&g_rec));
    CHECK0(pthread_mutex_trylock(&g_rec));
    CHECK0(pthread_create(&t, NULL, try_other, &g_rec));
    CHECK0(pthread_join(t, NULL));
    for (int i = 0; i < 3; i++) CHECK0(pthread_mutex_unlock(&g_rec));
    CHECK(pthread_mutex_unlock(&g_rec) == EPERM);

    pthread_mutexattr_t a;
    CHECK0(pthread_mutexattr_init(&a));
    CHECK0(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE));
    pthread_mutex_t r;
    CHECK0(pthread_mutex_init(&r, &a));
    CHECK0(pthread_mutex_lock(&r));
    CHECK0(pthread_mutex_lock(&r));
    CHECK0(pthread_mutex_unlock(&r));
    CHECK0(pthread_mutex_unlock(&r));
    CHECK0(pthread_mutex_destroy(&r));
    CHECK0(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK));
    CHECK0(pthread_mutex_init(&g_err, &a));
    CHECK0(pthread_mutexattr_destroy(&a));
    CHECK0(pthread_mutex_lock(&g_err));
    CHECK(pthread_mutex_lock(&g_err) == EDEADLK);
    CHECK(pthread_mutex_destroy(&g_err) == EBUSY);
    CHECK0(pthread_create(&t, NULL, try_other, &g_err));
    CHECK0(pthread_join(t, NULL));
    CHECK0(pthread_mutex_unlock(&g_err));
    CHECK0(pthread_mutex_destroy(&g_err));
}

/* ---------- condition variables: a bounded queue ---------- */

#define QCAP 8
static pthread_mutex_t g_qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_not_full = PTHREAD_COND_INITIALIZER, g_not_empty = PTHREAD_COND_INITIALIZER;
static long g_q[QCAP];
static int g_qn, g_qhead;
static long g_consumed_sum;

static void *producer(void *arg)
{
    long base = (long)(intptr_t)arg * 1000;
    for (long k = 1; k <= 50; k++) {
        CHECK0(pthread_mutex_lock(&g_qm));
        while (g_qn == QCAP) CHECK0(pthread_cond_wait(&g_not_full, &g_qm));
        g_q[(g_qhead + g_qn++) % QCAP] = base + k;
        CHECK0(pthread_cond_signal(&g_not_empty));
        CHECK0(pthread_mutex_unlock(&g_qm));
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long n = (long)(intptr_t)arg, sum = 0;
    for (long k = 0; k < n; k++) {
        CHECK0(pthread_mutex_lock(&g_qm));
        while (g_qn == 0) CHECK0(pthread_cond_wait(&g_not_empty, &g_qm));
        sum += g_q[g_qhead];
        g_qhead = (g_qhead + 1) % QCAP;
        g_qn--;
        CHECK0(pthread_cond_broadcast(&g_not_full));
        CHECK0(pthread_mutex_unlock(&g_qm));
    }
    CHECK0(pthread_mutex_lock(&g_qm));
    g_consumed_sum += sum;
    CHECK0(pthread_mutex_unlock(&g_qm));
    return NULL;
}

static pthread_cond_t g_far_c = PTHREAD_COND_INITIALIZER;
static int g_far_flag, g_far_timeouts;

static void *far_waiter(void *arg)
{
    struct timespec dl = {.tv_sec = arg ? (time_t)200000000000LL : (time_t)INT64_MAX, .tv_nsec = 0};
    CHECK0(pthread_mutex_lock(&g_qm));
    while (!g_far_flag) {
        int rc = pthread_cond_timedwait(&g_far_c, &g_qm, &dl);
        if (rc == ETIMEDOUT) g_far_timeouts++;
        else CHECK0(rc);
    }
    CHECK0(pthread_mutex_unlock(&g_qm));
    return NULL;
}

static void test_cond(void)
{
    int np = N / 4 > 1 ? N / 4 : 2, nc = np / 2; /* each consumer takes two producers' worth */
    pthread_t *t = malloc(sizeof *t * (size_t)(np + nc));
    for (int i = 0; i < nc; i++) CHECK0(pthread_create(&t[np + i], NULL, consumer, (void *)(intptr_t)100));
    for (int i = 0; i < np; i++) CHECK0(pthread_create(&t[i], NULL, producer, (void *)(intptr_t)i));
    long want = 0;
    for (int i = 0; i < 2 * nc; i++) want += i * 1000L * 50 + 50 * 51 / 2;
    /* Producers beyond 2*nc have no consumer: drain their items here. */
    long extra = 0, left = 50L * (np - 2 * nc);
    while (left > 0) {
        CHECK0(pthread_mutex_lock(&g_qm));
        while (g_qn == 0) CHECK0(pthread_cond_wait(&g_not_empty, &g_qm));
        extra += g_q[g_qhead];
        g_qhead = (g_qhead + 1) % QCAP;
        g_qn--;
        left--;
        CHECK0(pthread_cond_broadcast(&g_not_full));
        CHECK0(pthread_mutex_unlock(&g_qm));
    }
    for (int i = 0; i < np + nc; i++) CHECK0(pthread_join(t[i], NULL));
    for (int i = 2 * nc; i < np; i++) want += i * 1000L * 50 + 50 * 51 / 2;
    CHECK(g_consumed_sum + extra == want);
    free(t);

    /* Timed waits: one runs out, one is signalled. */
    pthread_cond_t c;
    pthread_condattr_t ca;
    CHECK0(pthread_condattr_init(&ca));
    CHECK0(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC));
    CHECK0(pthread_cond_init(&c, &ca));
    CHECK0(pthread_condattr_destroy(&ca));
    struct timespec t0, t1, dl;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dl = t0;
    dl.tv_nsec += 20 * 1000 * 1000;
    if (dl.tv_nsec >= 1000000000L) dl.tv_sec++, dl.tv_nsec -= 1000000000L;
    CHECK0(pthread_mutex_lock(&g_qm));
    CHECK(pthread_cond_timedwait(&c, &g_qm, &dl) == ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) >= 19 * 1000 * 1000);
    CHECK0(pthread_mutex_unlock(&g_qm));
    CHECK0(pthread_cond_destroy(&c));
    pthread_cond_t rc = PTHREAD_COND_INITIALIZER; /* CLOCK_REALTIME */
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec -= 1; /* in the past: at once */
    CHECK0(pthread_mutex_lock(&g_qm));
    CHECK(pthread_cond_timedwait(&rc, &g_qm, &dl) == ETIMEDOUT);
    dl.tv_nsec = -1;
    CHECK(pthread_cond_timedwait(&rc, &g_qm, &dl) == EINVAL);
    CHECK0(pthread_mutex_unlock(&g_qm));
    CHECK0(pthread_cond_destroy(&rc));

    /* Deadlines too far to count in nanoseconds (the largest time_t, the
     * usual "for ever"; 2e11 s) wait until signalled. */
    for (int far = 0; far < 2; far++) {
        pthread_t w;
        g_far_flag = 0;
        g_far_timeouts = 0;
        CHECK0(pthread_create(&w, NULL, far_waiter, (void *)(intptr_t)far));
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            sched_yield();
            clock_gettime(CLOCK_MONOTONIC, &t1);
        } while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 20 * 1000 * 1000);
        CHECK0(pthread_mutex_lock(&g_qm));
        g_far_flag = 1;
        CHECK0(pthread_cond_signal(&g_far_c));
        CHECK0(pthread_mutex_unlock(&g_qm));
        CHECK0(pthread_join(w, NULL));
        CHECK(g_far_timeouts == 0);
    }
}

/* ---------- barriers ---------- */

#define ROUNDS 3
static pthread_barrier_t g_b;
static int g_phase, g_serial;

static void *barrier_worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        __atomic_add_fetch(&g_phase, 1, __ATOMIC_ACQ_REL);
        int rc = pthread_barrier_wait(&g_b);
        CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD) __atomic_add_fetch(&g_serial, 1, __ATOMIC_ACQ_REL);
        CHECK(__atomic_load_n(&g_phase, __ATOMIC_ACQUIRE) >= (r + 1) * N);
        rc = pthread_barrier_wait(&g_b); /* all have read the phase */
        CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    }
    return NULL;
}

static void test_barrier(void)
{
    pthread_t *t = malloc(sizeof *t * (size_t)N);
    CHECK(pthread_barrier_init(&g_b, NULL, 0) == EINVAL);
    CHECK0(pthread_barrier_init(&g_b, NULL, (unsigned)N));
    for (int i = 0; i < N; i++) CHECK0(pthread_create(&t[i], NULL, barrier_worker, NULL));
    for (int i = 0; i < N; i++) CHECK0(pthread_join(t[i], NULL));
    CHECK(g_phase == ROUNDS * N);
    CHECK(g_serial == ROUNDS);
    CHECK0(pthread_barrier_destroy(&g_b));
    free(t);
}

/* ---------- keys ---------- */

static pthread_key_t g_key;
static int g_dtor;

static void key_dtor(void *v)
{
    CHECK(*(int *)v >= 0 && *(int *)v < N);
    free(v);
    __atomic_add_fetch(&g_dtor, 1, __ATOMIC_ACQ_REL);
}

static void *key_user(void *arg)
{
    int *v = malloc(sizeof *v);
    *v = (int)(intptr_t)arg;
    CHECK(pthread_getspecific(g_key) == NULL);
    CHECK0(pthread_setspecific(g_key, v));
    sched_yield(); /* may resume on another stream: the value follows */
    CHECK(pthread_getspecific(g_key) == v);
    return NULL;
}

static void test_keys(void)
{
    pthread_t *t = malloc(sizeof *t * (size_t)N);
    CHECK0(pthread_key_create(&g_key, key_dtor));
    static int mine = -1;
    CHECK0(pthread_setspecific(g_key, &mine)); /* main's own value, no destructor run */
    for (int i = 0; i < N; i++) CHECK0(pthread_create(&t[i], NULL, key_user, (void *)(intptr_t)i));
    for (int i = 0; i < N; i++) CHECK0(pthread_join(t[i], NULL));
    CHECK(g_dtor == N);
    CHECK(pthread_getspecific(g_key) == &mine);
    CHECK0(pthread_setspecific(g_key, NULL));
    CHECK0(pthread_key_delete(g_key));
    CHECK(pthread_key_delete(g_key) == EINVAL);
    CHECK(pthread_setspecific(g_key, &mine) == EINVAL);
    CHECK(pthread_getspecific(g_key) == NULL);
    free(t);
}

/* ---------- once ---------- */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_inits, g_seen;

static void once_init(void)
{
    sched_yield(); /* others arrive meanwhile and wait */
    g_inits++;
}

static void *once_user(void *arg)
{
    (void)arg;
    CHECK0(pthread_once(&g_once, once_init));
    CHECK(g_inits == 1);
    __atomic_add_fetch(&g_seen, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

static void test_once(void)
{
    pthread_t *t = malloc(sizeof *t * (size_t)N);
    for (int i = 0; i < N; i++) CHECK0(pthread_create(&t[i], NULL, once_user, NULL));
    for (int i = 0; i < N; i++) CHECK0(pthread_join(t[i], NULL));
    CHECK(g_inits == 1 && g_seen == N);
    free(t);
}

/* ---------- detach, exit, cancel ---------- */

static int g_detached_done, g_hold;

static void *held(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&g_hold, __ATOMIC_ACQUIRE)) sched_yield();
    __atomic_add_fetch(&g_detached_done, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

static void *detached(void *arg)
{
    (void)arg;
    sched_yield();
    __atomic_add_fetch(&g_detached_done, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

static void deep_exit(int depth);
static void (*volatile g_deeper)(int) = deep_exit;

/* pthread_exit from a few frames down, in a 512 KiB frame: the stack size
 * asked for is there. */
static void deep_exit(int depth)
{
    volatile char big[512 * 1024];
    big[0] = (char)depth;
    if (depth == 0) pthread_exit((void *)77);
    g_deeper(depth - 1 + big[0] - depth);
}

static void *exiter(void *arg)
{
    (void)arg;
    deep_exit(1);
    return NULL;
}

static int g_spin_started;

static void *spinner(void *arg)
{
    int disable = (int)(intptr_t)arg, old = -1;
    if (disable) CHECK0(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old));
    if (disable) CHECK(old == PTHREAD_CANCEL_ENABLE);
    __atomic_store_n(&g_spin_started, 1, __ATOMIC_RELEASE);
    for (int i = 0;; i++) {
        pthread_testcancel();
        sched_yield();
        if (disable && i == 1000) {
            CHECK0(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old));
            CHECK(old == PTHREAD_CANCEL_DISABLE);
        }
        CHECK(i < 10 * 1000 * 1000);
    }
    return NULL;
}

static void *returns5(void *arg)
{
    (void)arg;
    return (void *)5;
}

static void test_detach_exit_cancel(void)
{
    pthread_attr_t a;
    pthread_t t[64];
    int nd = N < 32 ? N : 32;
    CHECK0(pthread_attr_init(&a));
    CHECK0(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED));
    for (int i = 0; i < nd; i++) CHECK0(pthread_create(&t[i], &a, detached, NULL));
    pthread_t h1, h2; /* alive until g_hold: their handles stay valid */
    CHECK0(pthread_create(&h1, &a, held, NULL));
    CHECK(pthread_join(h1, NULL) == EINVAL);
    CHECK(pthread_detach(h1) == EINVAL);
    CHECK0(pthread_attr_destroy(&a));
    for (int i = 0; i < nd; i++) CHECK0(pthread_create(&t[i], NULL, detached, NULL));
    for (int i = 0; i < nd; i++) CHECK0(pthread_detach(t[i]));
    CHECK0(pthread_create(&h2, NULL, held, NULL));
    CHECK0(pthread_detach(h2));
    CHECK(pthread_detach(h2) == EINVAL);
    CHECK(pthread_join(h2, NULL) == EINVAL);
    __atomic_store_n(&g_hold, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&g_detached_done, __ATOMIC_ACQUIRE) < 2 * nd + 2) sched_yield();

    /* A stack size set explicitly: a deep enough frame fits. */
    CHECK0(pthread_attr_init(&a));
    CHECK0(pthread_attr_setstacksize(&a, 2 << 20));
    void *ret = NULL;
    CHECK0(pthread_create(&t[0], &a, exiter, NULL));
    CHECK0(pthread_attr_destroy(&a));
    CHECK0(pthread_join(t[0], &ret));
    CHECK((intptr_t)ret == 77);

    /* Deferred cancellation at pthread_testcancel; disabled, then enabled. */
    for (int disable = 0; disable < 2; disable++) {
        __atomic_store_n(&g_spin_started, 0, __ATOMIC_RELEASE);
        CHECK0(pthread_create(&t[0], NULL, spinner, (void *)(intptr_t)disable));
        while (!__atomic_load_n(&g_spin_started, __ATOMIC_ACQUIRE)) sched_yield();
        CHECK0(pthread_cancel(t[0]));
        CHECK0(pthread_join(t[0], &ret));
        CHECK(ret == PTHREAD_CANCELED);
    }
    /* Cancelled at once: at its start, or it had already returned. */
    CHECK0(pthread_create(&t[0], NULL, returns5, NULL));
    CHECK0(pthread_cancel(t[0]));
    CHECK0(pthread_join(t[0], &ret));
    CHECK(ret == PTHREAD_CANCELED || ret == (void *)5);
    CHECK(pthread_cancel(pthread_self()) == ESRCH); /* main is not pthread_create's */
    /* A handle whose thread was joined is known, and gone: ESRCH, never
     * the system's pthreads called with it. */
    CHECK0(pthread_create(&t[0], NULL, returns5, NULL));
    CHECK0(pthread_join(t[0], NULL));
    CHECK(pthread_join(t[0], NULL) == ESRCH);
    CHECK(pthread_cancel(t[0]) == ESRCH);
    CHECK(pthread_detach(t[0]) == ESRCH);
    int old;
    CHECK(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old) == ENOTSUP);
    CHECK0(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old));
    CHECK(old == PTHREAD_CANCEL_DEFERRED);
    CHECK(pthread_setcancelstate(42, &old) == EINVAL);
    CHECK0(sched_yield());
    CHECK0(pthread_yield());
}

/* ---------- pthread_exit from main ---------- */

static void *last_one(void *arg)
{
    for (int i = 0; i < 1000; i++) sched_yield();
    if (arg) printf("gpthread: last thread done\n");
    return NULL;
}

/* ---------- fork ---------- */

static volatile int g_spin_stop;

static void *spin(void *arg)
{
    while (!g_spin_stop) sched_yield();
    return arg;
}

static void *fork_from_thread(void *arg);

/* In a child: `parents` (a thread of the parent) is not there; a static
 * mutex works; threads of its own run as ULTs (weft starts again at the
 * first pthread_create); with `again` (forked from main), a grandchild
 * forked from one of them does the same, and exit() then stops weft (the
 * library's destructor). */
static void in_child(pthread_t parents, int again)
{
#ifdef WEFT_TEST_EMULATED
    /* qemu-user aborts a child of a multithreaded program that starts a
     * thread: the child's weft runs on the primary stream alone. */
    setenv("GLT_NUM_THREADS", "1", 1);
#endif
    CHECK(!weft_initialized());
    CHECK(pthread_join(parents, NULL) == ESRCH);
    CHECK(pthread_detach(parents) == ESRCH);
    CHECK(pthread_cancel(parents) == ESRCH);
    CHECK0(pthread_mutex_lock(&g_m));
    CHECK0(pthread_mutex_unlock(&g_m));
    g_count = 0;
    test_create_join();
    CHECK(weft_initialized());
    if (again) {
        pthread_t f;
        void *ret = &ret;
        CHECK0(pthread_create(&f, NULL, fork_from_thread, NULL));
        CHECK0(pthread_join(f, &ret));
        CHECK(ret == NULL);
    }
    fflush(stdout);
    if (again) exit(0);
    /* Forked from a ULT, perhaps on another OS thread than main: LSan's
     * view of the threads is then wrong in the child (values kept in the
     * thread-local storage of the parent's main thread, and of this one,
     * read as leaks), so this child leaves without its exit check. */
    _exit(0);
}

static void *fork_from_thread(void *arg)
{
    (void)arg;
    pthread_t self = pthread_self();
    pid_t p = fork_child(30);
    if (p == 0) in_child(self, 0);
    CHECK(child_ok(p, "fork from a thread"));
    return NULL;
}

static void test_fork(void)
{
    N = 20;
    pthread_t s[4], f;
    for (intptr_t i = 0; i < 4; i++) CHECK0(pthread_create(&s[i], NULL, spin, (void *)i));
    pid_t p = fork_child(60); /* from main */
    if (p == 0) in_child(s[0], 1);
    CHECK(child_ok(p, "fork from main"));
    void *ret = &ret;
    CHECK0(pthread_create(&f, NULL, fork_from_thread, NULL)); /* from a thread */
    CHECK0(pthread_join(f, &ret));
    CHECK(ret == NULL);
    g_spin_stop = 1;
    for (intptr_t i = 0; i < 4; i++) {
        CHECK0(pthread_join(s[i], &ret));
        CHECK(ret == (void *)i);
    }
    g_count = 0;
    test_create_join(); /* the parent goes on */
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "fork")) {
        test_fork();
        printf("gpthread: fork ok\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "exit-main")) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++) CHECK0(pthread_create(&t[i], NULL, last_one, (void *)(intptr_t)(i == 3)));
        for (int i = 0; i < 3; i++) CHECK0(pthread_detach(t[i]));
        CHECK0(pthread_detach(t[3]));
        pthread_exit(NULL);
    }
    if (argc > 1) N = atoi(argv[1]);
    CHECK(N >= 2);
    const char *env = getenv("GLT_NUM_THREADS");
    if (env) CHECK(glt_get_num_threads() == atoi(env));
    CHECK(glt_get_team() != NULL && glt_get_team()->num_pools == 1); /* one shared pool, as GLT does */
    test_create_join();
    test_mutex_kinds();
    test_cond();
    test_barrier();
    test_keys();
    test_once();
    test_detach_exit_cancel();
    printf("gpthread: ok (%d threads at a time on %d streams)\n", N, glt_get_num_threads());
    fflush(stdout);
    pthread_exit(NULL); /* waits for the detached ones to end, then exit(0) stops weft */
}
