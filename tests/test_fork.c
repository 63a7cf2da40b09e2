/* fork() in a program whose runtime runs (issue 18 item 12). Only the
 * forking thread lives on in the child; weft gives the parent's runtime up
 * there and the child starts uninitialised:
 * - busy:   fork from the main ULT while two streams create units for
 *           each other and a ULT on another stream holds a mutex. The
 *           child's weft_finalize() says WEFT_ERR_UNINIT at once, the
 *           signal action, signal stack and CPU mask are the program's
 *           again, sync objects work, and a new runtime starts, runs ULTs
 *           on two streams and ends. The parent's units all run.
 * - ult:    fork from a ULT other than main (and from a tasklet), on the
 *           primary and on another stream: the child is a plain thread on
 *           that unit's stack and may start a runtime of its own.
 * - plain:  fork from a plain thread: it keeps its own CPU mask and the
 *           mutex it holds, and the child may start a runtime.
 * - keys:   keys made before weft_init() and during the runtime stay valid
 *           in the child, with the forking thread's values; new keys,
 *           values in units and destructors work after a new weft_init().
 * - locks:  fork while other threads create and free mutexes, keys,
 *           pools, condition variables and streams (each takes a
 *           process-wide lock for a moment): the child never finds one
 *           held. First with no runtime at all, then with one.
 * Each case forks ROUNDS times. A child that hangs is killed by SIGALRM;
 * the parent reports how each child ended. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define ROUNDS 20
#define CHILD_SECONDS 10

/* Streams of a child's own runtime. qemu-user (7.2) aborts a child of a
 * multithreaded program that starts a thread, weft or not: under it the
 * children make do with the primary stream. */
#ifdef WEFT_TEST_EMULATED
#define CHILD_STREAMS 1
#else
#define CHILD_STREAMS 2
#endif

/* ---------- shared helpers ---------- */

static struct sigaction g_segv_before; /* the program's own, before any weft_init() */
static stack_t g_altstack_before;      /* the main thread's, before any weft_init() */
static cpu_set_t g_mask_before;        /* the main thread's CPUs, before any weft_init() */

static pid_t fork_checked(void) { return fork_child(CHILD_SECONDS); }

/* The parent: the child must have ended with status 0. */
static void wait_child(pid_t pid, const char *what, int round)
{
    char where[128];
    snprintf(where, sizeof where, "%s, round %d", what, round);
    if (!child_ok(pid, where)) exit(1);
}

static _Atomic long g_child_ran;
static void child_leaf(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_child_ran, 1);
}

/* In a child: everything that needs a runtime is refused until weft_init. */
static void child_check_uninit(void)
{
    CHECK(!weft_initialized());
    CHECK_RC(weft_finalize(), WEFT_ERR_UNINIT);
    int n;
    CHECK_RC(weft_xstream_count(&n), WEFT_ERR_UNINIT);
    weft_xstream xs;
    CHECK_RC(weft_xstream_create(NULL, &xs), WEFT_ERR_UNINIT);
    weft_thread self;
    CHECK_RC(weft_self(&self), WEFT_ERR_NOT_WEFT);
    weft_pool p;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_RC(weft_thread_create(p, child_leaf, NULL, NULL, NULL), WEFT_ERR_UNINIT);
    CHECK_OK(weft_pool_free(&p));
}

/* In a child: the process-wide SIGSEGV action is the program's again. */
static void child_check_segv_action(void)
{
    struct sigaction now;
    CHECK(sigaction(SIGSEGV, NULL, &now) == 0);
    CHECK(now.sa_handler == g_segv_before.sa_handler);
    CHECK((now.sa_flags & SA_SIGINFO) == (g_segv_before.sa_flags & SA_SIGINFO));
}

/* In a child forked by the main thread: its signal stack is as before
 * weft_init() (weft's own was switched off). */
static void child_check_altstack(void)
{
    stack_t now;
    CHECK(sigaltstack(NULL, &now) == 0);
    CHECK((now.ss_flags & SS_DISABLE) == (g_altstack_before.ss_flags & SS_DISABLE));
    if (!(now.ss_flags & SS_DISABLE)) CHECK(now.ss_sp == g_altstack_before.ss_sp);
}

/* In a child: the forking thread has CPU mask `want`. */
static void child_check_mask(const cpu_set_t *want)
{
    cpu_set_t now;
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, want));
}

static void child_check_mutex(void)
{
    weft_mutex m;
    CHECK_OK(weft_mutex_create(NULL, &m));
    CHECK_OK(weft_mutex_lock(m));
    CHECK_RC(weft_mutex_trylock(m), WEFT_ERR_BUSY);
    CHECK_OK(weft_mutex_unlock(m));
    CHECK_OK(weft_mutex_free(&m));
}

/* In a child: a runtime of its own, ULTs and tasklets on each of its
 * streams, all joined, and its end. */
static void child_new_runtime(void)
{
    start_weft(CHILD_STREAMS);
    weft_xstream xs[CHILD_STREAMS];
    for (int i = 0; i < CHILD_STREAMS; i++) CHECK_OK(weft_xstream_get(i, &xs[i]));
    atomic_store(&g_child_ran, 0);
    weft_thread t[16];
    for (int i = 0; i < 16; i++) {
        if (i % 4 == 3) CHECK_OK(weft_tasklet_create_to(xs[i % CHILD_STREAMS], child_leaf, NULL, &t[i]));
        else CHECK_OK(weft_thread_create_to(xs[i % CHILD_STREAMS], child_leaf, NULL, NULL, &t[i]));
    }
    CHECK_OK(weft_thread_free_many(16, t));
    CHECK(atomic_load(&g_child_ran) == 16);
    CHECK_OK(weft_finalize());
    CHECK(!weft_initialized());
}

/* The first pool of stream `rank`. */
static weft_pool stream_pool(int rank)
{
    weft_xstream xs;
    weft_pool p;
    int n;
    CHECK_OK(weft_xstream_get(rank, &xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &p, &n));
    return p;
}

/* ---------- busy: fork from the main ULT ---------- */

static weft_pool g_pool[3];
static _Atomic int g_stop;
static _Atomic long g_made, g_ran;
static weft_mutex g_m;
static _Atomic int g_held, g_release;

static void leaf(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_ran, 1);
}

/* On stream `arg`: units for every stream (its own too), joined and
 * detached, until told to stop. */
static void spawner(void *arg)
{
    int me = (int)(intptr_t)arg;
    while (!atomic_load(&g_stop)) {
        weft_thread t[6];
        for (int k = 0; k < 6; k++) {
            weft_pool p = g_pool[(me + k) % 3];
            if (k % 3 == 2) CHECK_OK(weft_tasklet_create(p, leaf, NULL, &t[k]));
            else CHECK_OK(weft_thread_create(p, leaf, NULL, NULL, &t[k]));
            atomic_fetch_add(&g_made, 1);
        }
        CHECK_OK(weft_thread_create(g_pool[(me + 1) % 3], leaf, NULL, NULL, NULL));
        atomic_fetch_add(&g_made, 1);
        CHECK_OK(weft_thread_free_many(6, t));
    }
}

static void holder(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    atomic_store(&g_held, 1);
    while (!atomic_load(&g_release)) CHECK_OK(weft_yield());
    CHECK_OK(weft_mutex_unlock(g_m));
}

static void contender(void *arg)
{
    (void)arg;
    CHECK_OK(weft_mutex_lock(g_m));
    CHECK_OK(weft_mutex_unlock(g_m));
}

static void test_busy(void)
{
    start_weft(3);
    for (int i = 0; i < 3; i++) g_pool[i] = stream_pool(i);
    CHECK_OK(weft_mutex_create(NULL, &g_m));
    atomic_store(&g_stop, 0);
    weft_thread sp[2];
    CHECK_OK(weft_thread_create(g_pool[1], spawner, (void *)(intptr_t)1, NULL, &sp[0]));
    CHECK_OK(weft_thread_create(g_pool[2], spawner, (void *)(intptr_t)2, NULL, &sp[1]));
    for (int r = 0; r < ROUNDS; r++) {
        atomic_store(&g_held, 0);
        atomic_store(&g_release, 0);
        weft_thread h, c;
        CHECK_OK(weft_thread_create(g_pool[1], holder, NULL, NULL, &h));
        CHECK_OK(weft_thread_create(g_pool[2], contender, NULL, NULL, &c));
        /* The spawners at work, the contender waiting. */
        long made = atomic_load(&g_made);
        while (!atomic_load(&g_held) || atomic_load(&g_made) < made + 200) CHECK_OK(weft_yield());
        pid_t pid = fork_checked();
        if (pid == 0) {
            child_check_uninit();
            child_check_segv_action();
            child_check_altstack();
            child_check_mask(&g_mask_before);
            child_check_mutex();
            child_new_runtime();
            child_check_uninit();
            _exit(0);
        }
        wait_child(pid, "busy", r);
        atomic_store(&g_release, 1);
        CHECK_OK(weft_thread_free(&h));
        CHECK_OK(weft_thread_free(&c));
    }
    atomic_store(&g_stop, 1);
    CHECK_OK(weft_thread_free_many(2, sp));
    CHECK_OK(weft_mutex_free(&g_m));
    CHECK_OK(weft_finalize());
    CHECK(atomic_load(&g_ran) == atomic_load(&g_made));
    printf("fork busy: %d children ok; the parent ran all %ld units\n", ROUNDS, atomic_load(&g_made));
}

/* ---------- ult: fork from a ULT or tasklet other than main ---------- */

static _Atomic int g_forks_done;

static void forker(void *arg)
{
    int r = (int)(intptr_t)arg;
    pid_t pid = fork_checked();
    if (pid == 0) {
        /* A plain thread now, on the stack of the unit that forked. */
        weft_thread self;
        CHECK_RC(weft_self(&self), WEFT_ERR_NOT_WEFT);
        child_check_uninit();
        child_check_segv_action();
        child_check_mutex();
        child_new_runtime();
        _exit(0); /* never back into the unit's function */
    }
    wait_child(pid, "ult", r);
    atomic_fetch_add(&g_forks_done, 1);
}

static void test_ult(void)
{
    start_weft(2);
    for (int i = 0; i < 2; i++) g_pool[i] = stream_pool(i);
    atomic_store(&g_stop, 0);
    atomic_store(&g_made, 0);
    atomic_store(&g_ran, 0);
    g_pool[2] = g_pool[0];
    weft_thread sp;
    CHECK_OK(weft_thread_create(g_pool[1], spawner, (void *)(intptr_t)1, NULL, &sp));
    atomic_store(&g_forks_done, 0);
    for (int r = 0; r < ROUNDS; r++) {
        weft_thread t;
        weft_pool p = g_pool[r % 2];
        if (r % 4 == 3) CHECK_OK(weft_tasklet_create(p, forker, (void *)(intptr_t)r, &t));
        else CHECK_OK(weft_thread_create(p, forker, (void *)(intptr_t)r, NULL, &t));
        CHECK_OK(weft_thread_free(&t));
    }
    CHECK(atomic_load(&g_forks_done) == ROUNDS);
    atomic_store(&g_stop, 1);
    CHECK_OK(weft_thread_free(&sp));
    CHECK_OK(weft_finalize());
    CHECK(atomic_load(&g_ran) == atomic_load(&g_made));
    printf("fork ult: %d children of ULTs and tasklets on two streams ok\n", ROUNDS);
}

/* ---------- plain: fork from a plain thread while the runtime runs ---------- */

static cpu_set_t g_pinned;

static void *plain_forker(void *arg)
{
    (void)arg;
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof g_pinned, &g_pinned) == 0);
    weft_mutex m;
    CHECK_OK(weft_mutex_create(NULL, &m));
    CHECK_OK(weft_mutex_lock(m));
    for (int r = 0; r < ROUNDS; r++) {
        pid_t pid = fork_checked();
        if (pid == 0) {
            child_check_mask(&g_pinned); /* its own, not the one weft was given */
            CHECK_OK(weft_mutex_unlock(m)); /* a plain thread keeps what it holds */
            CHECK_OK(weft_mutex_free(&m));
            child_check_uninit();
            child_check_segv_action();
            child_new_runtime();
            _exit(0);
        }
        wait_child(pid, "plain", r);
    }
    CHECK_OK(weft_mutex_unlock(m));
    CHECK_OK(weft_mutex_free(&m));
    return NULL;
}

static void test_plain(void)
{
    /* Pinned to the last CPU it may use, so that its mask differs from
     * the one weft was given whenever there are two. */
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &g_mask_before)) last = c;
    CHECK(last >= 0);
    CPU_ZERO(&g_pinned);
    CPU_SET(last, &g_pinned);
    start_weft(2);
    atomic_store(&g_stop, 0);
    atomic_store(&g_made, 0);
    atomic_store(&g_ran, 0);
    g_pool[0] = stream_pool(0);
    g_pool[1] = g_pool[2] = stream_pool(1);
    weft_thread sp;
    CHECK_OK(weft_thread_create(g_pool[1], spawner, (void *)(intptr_t)1, NULL, &sp));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, plain_forker, NULL) == 0);
    while (pthread_tryjoin_np(th, NULL) != 0) CHECK_OK(weft_yield());
    atomic_store(&g_stop, 1);
    CHECK_OK(weft_thread_free(&sp));
    CHECK_OK(weft_finalize());
    CHECK(atomic_load(&g_ran) == atomic_load(&g_made));
    printf("fork plain: %d children of a plain thread ok\n", ROUNDS);
}

/* ---------- keys ---------- */

static weft_key g_key_pre, g_key_run;
static int g_val_pre, g_val_run, g_val_unit;
static _Atomic int g_dtors;

static void dtor(void *v)
{
    CHECK(v == &g_val_unit);
    atomic_fetch_add(&g_dtors, 1);
}

static void key_unit(void *arg)
{
    weft_key fresh = arg;
    void *v;
    CHECK_OK(weft_key_get(g_key_pre, &v));
    CHECK(v == NULL); /* a new unit starts without values */
    CHECK_OK(weft_key_set(g_key_pre, &g_val_unit));
    CHECK_OK(weft_key_set(g_key_run, &g_val_unit));
    CHECK_OK(weft_key_set(fresh, &g_val_unit));
    CHECK_OK(weft_key_get(g_key_run, &v));
    CHECK(v == &g_val_unit);
}

static void keys_child(void)
{
    child_check_mask(&g_mask_before); /* the primary was bound, with two streams on two cores */
    void *v;
    /* The values of the thread that forked came along. */
    CHECK_OK(weft_key_get(g_key_pre, &v));
    CHECK(v == &g_val_pre);
    CHECK_OK(weft_key_get(g_key_run, &v));
    CHECK(v == &g_val_run);
    weft_key fresh;
    CHECK_OK(weft_key_create(dtor, &fresh));
    start_weft(CHILD_STREAMS);
    weft_xstream xs[CHILD_STREAMS];
    for (int i = 0; i < CHILD_STREAMS; i++) CHECK_OK(weft_xstream_get(i, &xs[i]));
    atomic_store(&g_dtors, 0);
    weft_thread t[8];
    for (int i = 0; i < 8; i++) CHECK_OK(weft_thread_create_to(xs[i % CHILD_STREAMS], key_unit, fresh, NULL, &t[i]));
    CHECK_OK(weft_thread_free_many(8, t));
    CHECK(atomic_load(&g_dtors) == 3 * 8);
    CHECK_OK(weft_key_get(g_key_pre, &v));
    CHECK(v == &g_val_pre); /* the main ULT's own, untouched by the units */
    CHECK_OK(weft_key_free(&fresh));
    CHECK_OK(weft_key_free(&g_key_run));
    CHECK_OK(weft_finalize());
    CHECK_OK(weft_key_get(g_key_pre, &v));
    CHECK(v == &g_val_pre);
}

static void test_keys(void)
{
    CHECK_OK(weft_key_create(dtor, &g_key_pre));
    CHECK_OK(weft_key_set(g_key_pre, &g_val_pre));
    start_weft(2);
    weft_key gone;
    CHECK_OK(weft_key_create(NULL, &gone));
    CHECK_OK(weft_key_create(dtor, &g_key_run));
    CHECK_OK(weft_key_free(&gone)); /* a free slot the child may reuse */
    CHECK_OK(weft_key_set(g_key_run, &g_val_run));
    for (int r = 0; r < ROUNDS; r++) {
        pid_t pid = fork_checked();
        if (pid == 0) {
            keys_child();
            /* Once exit(), not _exit(): under a leak checker, the runtime
             * the child gave up must not count as lost. (Once: LeakSanitizer
             * also warns that the parent's other threads were not stopped.) */
            if (r == 0) exit(0);
            _exit(0);
        }
        wait_child(pid, "keys", r);
    }
    void *v;
    CHECK_OK(weft_key_get(g_key_run, &v));
    CHECK(v == &g_val_run);
    CHECK_OK(weft_key_free(&g_key_run));
    CHECK_OK(weft_finalize());
    CHECK_OK(weft_key_set(g_key_pre, NULL));
    CHECK_OK(weft_key_free(&g_key_pre));
    printf("fork keys: %d children ok\n", ROUNDS);
}

/* ---------- locks: fork while others take weft's process-wide locks ---------- */

/* One round of what takes them: the graveyard's, the keys', the pool
 * registry's. */
static void churn(void)
{
    weft_mutex m;
    weft_cond c;
    weft_key k;
    weft_pool p;
    CHECK_OK(weft_mutex_create(NULL, &m));
    CHECK_OK(weft_key_create(NULL, &k));
    CHECK_OK(weft_cond_create(&c));
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    CHECK_OK(weft_pool_free(&p));
    CHECK_OK(weft_cond_free(&c));
    CHECK_OK(weft_key_free(&k));
    CHECK_OK(weft_mutex_free(&m));
}

static _Atomic long g_churns;  /* rounds of churn() done by the workers */
static _Atomic int g_churners; /* workers past their first round */

static void churned(long *mine)
{
    if ((*mine)++ == 0) atomic_fetch_add(&g_churners, 1);
    atomic_fetch_add(&g_churns, 1);
}

static void *churn_thread(void *arg)
{
    (void)arg;
    long mine = 0;
    while (!atomic_load(&g_stop)) {
        churn();
        churned(&mine);
    }
    return NULL;
}

static void churn_ult(void *arg)
{
    (void)arg;
    long mine = 0;
    while (!atomic_load(&g_stop)) {
        churn();
        churned(&mine);
        CHECK_OK(weft_yield());
    }
}

/* The global lock too: streams made and freed by a unit. */
static void stream_churn_ult(void *arg)
{
    (void)arg;
    long mine = 0;
    while (!atomic_load(&g_stop)) {
        weft_xstream xs;
        CHECK_OK(weft_xstream_create(NULL, &xs));
        CHECK_OK(weft_xstream_free(&xs));
        churned(&mine);
        CHECK_OK(weft_yield());
    }
}

/* Fork only once all `n` workers are past their start. Starting (and
 * ending) a thread allocates, and while the C library's malloc is safe
 * across fork(), AddressSanitizer's (GCC 12's libasan) is not: a child
 * forked while another thread is inside it can hang in it, not in weft.
 * For the same reason an ASan build leaves out the unit that starts and
 * ends streams all the time. */
#if defined(__SANITIZE_ADDRESS__)
#define STREAM_CHURN 0
#else
#define STREAM_CHURN 1
#endif

static void warm_up(int n)
{
    while (atomic_load(&g_churners) < n)
        if (weft_yield() != WEFT_OK) sched_yield();
    long from = atomic_load(&g_churns);
    while (atomic_load(&g_churns) < from + 1000)
        if (weft_yield() != WEFT_OK) sched_yield();
}

static void locks_child(void)
{
    for (int i = 0; i < 10; i++) churn();
    child_check_uninit();
    child_new_runtime();
}

static void test_locks(void)
{
    /* No runtime yet: the handlers must be there all the same. */
    atomic_store(&g_stop, 0);
    atomic_store(&g_churners, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, churn_thread, NULL) == 0);
    warm_up(2);
    for (int r = 0; r < ROUNDS; r++) {
        pid_t pid = fork_checked();
        if (pid == 0) {
            locks_child();
            _exit(0);
        }
        wait_child(pid, "locks, no runtime", r);
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);

    /* A runtime: units on two streams and a plain thread at it. */
    start_weft(3);
    atomic_store(&g_stop, 0);
    atomic_store(&g_churners, 0);
    weft_thread t[3];
    int nt = 2 + STREAM_CHURN;
    CHECK_OK(weft_thread_create(stream_pool(1), churn_ult, NULL, NULL, &t[0]));
    CHECK_OK(weft_thread_create(stream_pool(2), churn_ult, NULL, NULL, &t[1]));
    if (STREAM_CHURN) CHECK_OK(weft_thread_create(stream_pool(2), stream_churn_ult, NULL, NULL, &t[2]));
    CHECK(pthread_create(&th[0], NULL, churn_thread, NULL) == 0);
    warm_up(nt + 1);
    for (int r = 0; r < ROUNDS; r++) {
        pid_t pid = fork_checked();
        if (pid == 0) {
            locks_child();
            _exit(0);
        }
        wait_child(pid, "locks, runtime", r);
        CHECK_OK(weft_yield());
    }
    atomic_store(&g_stop, 1);
    pthread_join(th[0], NULL);
    CHECK_OK(weft_thread_free_many(nt, t));
    CHECK_OK(weft_finalize());
    printf("fork locks: %d children without and %d with a runtime ok\n", ROUNDS, ROUNDS);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CHECK(sigaction(SIGSEGV, NULL, &g_segv_before) == 0);
    CHECK(sigaltstack(NULL, &g_altstack_before) == 0);
    CHECK(sched_getaffinity(0, sizeof g_mask_before, &g_mask_before) == 0);
    const char *only = argc > 1 ? argv[1] : NULL;
    /* locks first: its first half must run before any weft_init(). */
    if (!only || !strcmp(only, "locks")) test_locks();
    if (!only || !strcmp(only, "busy")) test_busy();
    if (!only || !strcmp(only, "ult")) test_ult();
    if (!only || !strcmp(only, "keys")) test_keys();
    if (!only || !strcmp(only, "plain")) test_plain();
    printf("fork: ok\n");
    return 0;
}
