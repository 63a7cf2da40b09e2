/* Pair mode (weft_pair.h): every call and error, a million tiny tasks with
 * checked results, the owner running tasks when the ring is full and while
 * it waits, sleep and wake under load, an idle pair's CPU time, and pairs
 * owned by a plain thread and by the ULTs of a stream. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include "check.h"
#include "weft_pair.h"

static pid_t tid(void) { return (pid_t)syscall(SYS_gettid); }

static double cpu_seconds(void)
{
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void nop(void *arg) { (void)arg; }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until *flag is set; false after 20 s. */
static bool spin_until(_Atomic int *flag)
{
    double end = now_s() + 20;
    for (long i = 0; !atomic_load(flag); i++)
        if (i % 1024 == 1023) {
            if (now_s() > end) return false;
            sched_yield();
        }
    return true;
}

/* ---------- configuration and creation errors ---------- */

static void test_config(void)
{
    weft_pair_config c;
    weft_pair p = WEFT_PAIR_NULL;
    CHECK_RC(weft_pair_config_init(NULL), WEFT_ERR_INVALID);
    CHECK_OK(weft_pair_config_init(&c));
    CHECK(c.capacity == 128 && c.spin_us >= 0 && c.assistant_cpu == -1);
    CHECK_RC(weft_pair_create(&c, NULL), WEFT_ERR_INVALID);
    weft_pair_config bad = c;
    unsigned caps[] = {0, 1, 3, 100, WEFT_PAIR_MAX_CAPACITY * 2};
    for (unsigned i = 0; i < sizeof caps / sizeof *caps; i++) {
        bad.capacity = caps[i];
        CHECK_RC(weft_pair_create(&bad, &p), WEFT_ERR_INVALID);
    }
    bad = c;
    bad.spin_us = -1;
    CHECK_RC(weft_pair_create(&bad, &p), WEFT_ERR_INVALID);
    bad.spin_us = WEFT_MAX_SPIN_US + 1;
    CHECK_RC(weft_pair_create(&bad, &p), WEFT_ERR_INVALID);
    bad = c;
    bad.assistant_cpu = -3;
    CHECK_RC(weft_pair_create(&bad, &p), WEFT_ERR_INVALID);
    bad.assistant_cpu = CPU_SETSIZE + 5;
    CHECK_RC(weft_pair_create(&bad, &p), WEFT_ERR_INVALID);
    /* A CPU outside the process's mask. */
    cpu_set_t mask;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    for (int cpu = 0; cpu < 1024 && cpu < CPU_SETSIZE; cpu++)
        if (!CPU_ISSET(cpu, &mask)) {
            bad.assistant_cpu = cpu;
            CHECK_RC(weft_pair_create(&bad, &p), WEFT_ERR_INVALID);
            break;
        }
    CHECK(p == WEFT_PAIR_NULL);

    /* The variable. */
    CHECK(setenv("WEFT_PAIR_SPIN_US", "junk", 1) == 0);
    CHECK_RC(weft_pair_config_init(&c), WEFT_ERR_INVALID);
    CHECK_RC(weft_pair_create(NULL, &p), WEFT_ERR_INVALID);
    CHECK(setenv("WEFT_PAIR_SPIN_US", "-4", 1) == 0);
    CHECK_RC(weft_pair_config_init(&c), WEFT_ERR_INVALID);
    CHECK(setenv("WEFT_PAIR_SPIN_US", "17", 1) == 0);
    CHECK_OK(weft_pair_config_init(&c));
    CHECK(c.spin_us == 17);
    CHECK(unsetenv("WEFT_PAIR_SPIN_US") == 0);
}

/* ---------- placement ---------- */

static _Atomic long g_cnt;
static void bump(void *arg)
{
    (void)arg;
    g_cnt++;
}

static void *bound_owner(void *arg)
{
    (void)arg;
    cpu_set_t mask, one;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    weft_pair p;
    weft_pair_placement how;
    int ocpu, acpu;
    CHECK(weft_pair_create(NULL, &p) == WEFT_OK);
    CHECK(weft_pair_placement_get(p, &how, &ocpu, &acpu) == WEFT_OK);
    CHECK(weft_pair_placement_get(p, NULL, NULL, NULL) == WEFT_OK);
    CHECK(how <= WEFT_PAIR_SAME_CPU && CPU_ISSET(ocpu, &one));
    if (CPU_COUNT(&mask) > 1) CHECK(how != WEFT_PAIR_SAME_CPU && acpu != ocpu);
    CHECK(acpu >= 0 && CPU_ISSET(acpu, &mask));
    printf("placement: %s, owner CPU %d, assistant CPU %d\n",
           how == WEFT_PAIR_SMT_SIBLING ? "SMT sibling" : how == WEFT_PAIR_SHARED_CACHE ? "shared cache"
           : how == WEFT_PAIR_OTHER_CPU ? "other CPU" : "same CPU",
           ocpu, acpu);
    /* It works there. */
    g_cnt = 0;
    for (int i = 0; i < 1000; i++) CHECK(weft_pair_submit(p, bump, NULL) == WEFT_OK);
    CHECK(weft_pair_wait(p) == WEFT_OK);
    CHECK(g_cnt == 1000);
    CHECK(weft_pair_free(&p) == WEFT_OK);
    return NULL;
}

static void test_placement(void)
{
    weft_pair p;
    weft_pair_placement how;
    int ocpu, acpu;
    cpu_set_t mask;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);

    /* An owner free to move: the assistant is too. */
    CHECK_OK(weft_pair_create(NULL, &p));
    CHECK_OK(weft_pair_placement_get(p, &how, &ocpu, &acpu));
    CHECK(how == (CPU_COUNT(&mask) > 1 ? WEFT_PAIR_UNBOUND : WEFT_PAIR_SAME_CPU));
    CHECK_OK(weft_pair_free(&p));

    /* A bound owner (another thread: the main thread's CPUs stay the
     * process's): the nearest other CPU. */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, bound_owner, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);

    /* A given CPU, and none. */
    weft_pair_config c;
    CHECK_OK(weft_pair_config_init(&c));
    int last = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &mask)) last = cpu;
    c.assistant_cpu = last;
    CHECK_OK(weft_pair_create(&c, &p));
    CHECK_OK(weft_pair_placement_get(p, &how, NULL, &acpu));
    CHECK(how == WEFT_PAIR_GIVEN_CPU && acpu == last);
    CHECK_OK(weft_pair_free(&p));
    c.assistant_cpu = -2;
    CHECK_OK(weft_pair_create(&c, &p));
    CHECK_OK(weft_pair_placement_get(p, &how, NULL, &acpu));
    CHECK(how == WEFT_PAIR_UNBOUND && acpu == -1);
    CHECK_OK(weft_pair_free(&p));
}

/* ---------- handles and owners ---------- */

static weft_pair g_pair;
static _Atomic int g_rc[8];

static void *other_thread(void *arg)
{
    (void)arg;
    g_rc[0] = weft_pair_submit(g_pair, nop, NULL);
    g_rc[1] = weft_pair_wait(g_pair);
    g_rc[2] = weft_pair_wake_hint(g_pair);
    g_rc[3] = weft_pair_sleep_hint(g_pair);
    weft_pair q = g_pair;
    g_rc[4] = weft_pair_free(&q);
    g_rc[5] = weft_pair_placement_get(g_pair, NULL, NULL, NULL);
    return NULL;
}

static _Atomic int g_task_rc[3], g_task_ran;
static _Atomic pid_t g_task_tid;

/* Runs on the assistant: not the owner of the pair that runs it. */
static void misuse_task(void *arg)
{
    weft_pair p = arg;
    g_task_rc[0] = weft_pair_submit(p, nop, NULL);
    g_task_rc[1] = weft_pair_wait(p);
    weft_pair q = p;
    g_task_rc[2] = weft_pair_free(&q);
    g_task_tid = tid();
    g_task_ran = 1;
}

static _Atomic int g_release;

static _Atomic int g_held;

static _Atomic pid_t g_owner_tid;

static void block_task(void *arg)
{
    (void)arg;
    if (tid() == g_owner_tid) { /* run by the owner's submit: the ring was full */
        g_held = -1;
        return;
    }
    g_held = 1;
    CHECK(spin_until(&g_release));
}

/* Keep the assistant in block_task until g_release is set. The ring may
 * still be full of entries the owner took while the assistant slept (it has
 * to pass them): then try again. */
static void hold_assistant(weft_pair p)
{
    g_release = 0;
    g_owner_tid = tid();
    for (;;) {
        g_held = 0;
        CHECK(weft_pair_submit(p, block_task, NULL) == WEFT_OK);
        if (g_held == -1) {
            sleep_ms(1);
            continue;
        }
        CHECK(spin_until(&g_held)); /* only the assistant can run it: nobody waits */
        if (g_held == 1) return;
    }
}

static void free_inside_task(void *arg)
{
    weft_pair p = arg;
    weft_pair q = p;
    g_task_rc[0] = weft_pair_free(&q);
    g_task_tid = tid();
    g_release = 1; /* let the assistant go */
}

static weft_pair g_leaked;

static void *make_pair_thread(void *arg)
{
    (void)arg;
    CHECK(weft_pair_create(NULL, &g_pair) == WEFT_OK);
    return NULL;
}

static void test_misuse(void)
{
    weft_pair p;
    int x;
    CHECK_RC(weft_pair_submit(WEFT_PAIR_NULL, nop, NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_submit((weft_pair)&x, nop, NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_submit((weft_pair)(uintptr_t)8, nop, NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_wait(WEFT_PAIR_NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_wake_hint(WEFT_PAIR_NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_sleep_hint(WEFT_PAIR_NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_placement_get(WEFT_PAIR_NULL, NULL, NULL, NULL), WEFT_ERR_HANDLE);
    weft_pair none = WEFT_PAIR_NULL;
    CHECK_RC(weft_pair_free(&none), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_free(NULL), WEFT_ERR_INVALID);

    CHECK_OK(weft_pair_create(NULL, &p));
    CHECK_RC(weft_pair_submit(p, NULL, NULL), WEFT_ERR_INVALID);

    /* Another thread is not the owner. */
    g_pair = p;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    for (int i = 0; i < 5; i++) CHECK(g_rc[i] == WEFT_ERR_NOT_OWNER);
    CHECK(g_rc[5] == WEFT_OK);

    /* Nor is a task on the assistant. */
    CHECK_OK(weft_pair_submit(p, misuse_task, p));
    CHECK(spin_until(&g_task_ran));
    CHECK_OK(weft_pair_wait(p));
    for (int i = 0; i < 3; i++) CHECK(g_task_rc[i] == WEFT_ERR_NOT_OWNER);
    CHECK(g_task_tid != tid());

    /* Freeing from inside a task of the pair: the assistant is held by
     * block_task, so the owner's wait runs free_inside_task. */
    g_task_tid = 0;
    hold_assistant(p);
    CHECK_OK(weft_pair_submit(p, free_inside_task, p));
    CHECK_OK(weft_pair_wait(p));
    CHECK(g_task_tid == tid() && g_task_rc[0] == WEFT_ERR_BUSY);

    /* Freeing from inside a task a full ring made the owner run. */
    {
        weft_pair_config c2;
        CHECK_OK(weft_pair_config_init(&c2));
        c2.capacity = 2;
        weft_pair q;
        CHECK_OK(weft_pair_create(&c2, &q));
        g_task_tid = 0;
        hold_assistant(q);
        CHECK_OK(weft_pair_submit(q, nop, NULL));
        CHECK_OK(weft_pair_submit(q, nop, NULL)); /* 1 running + 2 queued: full */
        CHECK_OK(weft_pair_submit(q, free_inside_task, q));
        CHECK(g_task_tid == tid() && g_task_rc[0] == WEFT_ERR_BUSY);
        CHECK_OK(weft_pair_wait(q));
        CHECK_OK(weft_pair_free(&q));
    }

    /* A thread made after the owner ended (it may get the owner's
     * thread-local memory) is not the owner. */
    CHECK(pthread_create(&t, NULL, make_pair_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    for (int i = 0; i < 5; i++) CHECK(g_rc[i] == WEFT_ERR_NOT_OWNER);
    g_leaked = g_pair; /* its owner is gone: nobody may free it */

    /* Use after free. */
    weft_pair stale = p;
    CHECK_OK(weft_pair_free(&p));
    CHECK(p == WEFT_PAIR_NULL);
    CHECK_RC(weft_pair_submit(stale, nop, NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_wait(stale), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_wake_hint(stale), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_sleep_hint(stale), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_placement_get(stale, NULL, NULL, NULL), WEFT_ERR_HANDLE);
    CHECK_RC(weft_pair_free(&stale), WEFT_ERR_HANDLE);
}

/* ---------- a million tiny tasks ---------- */

#define MANY 1000000
struct cell {
    long in, out;
};

static void square(void *arg)
{
    struct cell *c = arg;
    c->out = c->in * c->in + 1;
}

static void test_million(void)
{
    weft_pair p;
    CHECK_OK(weft_pair_create(NULL, &p));
    struct cell *cells = calloc(MANY, sizeof *cells);
    CHECK(cells);
    for (long i = 0; i < MANY; i++) cells[i].in = i % 100003;
    /* In batches of various sizes, some larger than the ring. */
    long i = 0;
    for (int b = 0; i < MANY; b++) {
        long n = 1 + (b * 37) % 300;
        for (long k = 0; k < n && i < MANY; k++, i++) CHECK_OK(weft_pair_submit(p, square, &cells[i]));
        CHECK_OK(weft_pair_wait(p));
        /* Everything submitted so far is done. */
        CHECK(cells[i - 1].out == cells[i - 1].in * cells[i - 1].in + 1);
    }
    for (long k = 0; k < MANY; k++) CHECK(cells[k].out == cells[k].in * cells[k].in + 1);
    free(cells);
    CHECK_OK(weft_pair_free(&p));
}

/* ---------- the owner runs tasks: full ring, and in wait ---------- */

#define RUNNERS 64
static _Atomic pid_t g_ran_on[RUNNERS];

static void where(void *arg) { g_ran_on[(intptr_t)arg] = tid(); }

static void release_task(void *arg)
{
    g_ran_on[(intptr_t)arg] = tid();
    g_release = 1;
}

static void test_owner_runs(void)
{
    weft_pair_config c;
    CHECK_OK(weft_pair_config_init(&c));
    c.capacity = 4;
    weft_pair p;
    CHECK_OK(weft_pair_create(&c, &p));
    pid_t me = tid();

    /* Full: the assistant holds one entry in block_task, three more fill
     * the ring, the next runs on the owner inside submit. */
    memset(g_ran_on, 0, sizeof g_ran_on);
    hold_assistant(p);
    for (intptr_t i = 0; i < 3; i++) CHECK_OK(weft_pair_submit(p, where, (void *)i));
    CHECK_OK(weft_pair_submit(p, where, (void *)(intptr_t)3));
    CHECK(g_ran_on[3] == me); /* ran at once, on the caller */
    g_release = 1;
    CHECK_OK(weft_pair_wait(p));
    for (int i = 0; i < 4; i++) CHECK(g_ran_on[i] != 0);
    CHECK_OK(weft_pair_free(&p));

    /* Wait: the assistant is held until the newest task runs; only the
     * owner, taking the newest first, can get there. */
    c.capacity = 128;
    CHECK_OK(weft_pair_create(&c, &p));
    memset(g_ran_on, 0, sizeof g_ran_on);
    hold_assistant(p);
    for (intptr_t i = 0; i < 10; i++) CHECK_OK(weft_pair_submit(p, where, (void *)i));
    CHECK_OK(weft_pair_submit(p, release_task, (void *)(intptr_t)10));
    CHECK_OK(weft_pair_wait(p));
    CHECK(g_release == 1 && g_ran_on[10] == me);
    for (int i = 0; i < 10; i++) CHECK(g_ran_on[i] != 0);
    CHECK_OK(weft_pair_free(&p));
}

/* ---------- tasks that submit and wait ---------- */

static weft_pair g_nest;
static _Atomic long g_leaves;

static void leaf(void *arg)
{
    (void)arg;
    g_leaves++;
}

/* On the owner (it is run in wait): submits more, waits for them. */
static void inner(void *arg)
{
    (void)arg;
    CHECK(weft_pair_submit(g_nest, leaf, NULL) == WEFT_OK);
    CHECK(weft_pair_submit(g_nest, leaf, NULL) == WEFT_OK);
    CHECK(weft_pair_wait(g_nest) == WEFT_OK); /* does not wait for itself */
    g_leaves += 100;
}

static void test_nested(void)
{
    CHECK_OK(weft_pair_create(NULL, &g_nest));
    for (int round = 0; round < 200; round++) {
        g_leaves = 0;
        hold_assistant(g_nest);
        CHECK_OK(weft_pair_submit(g_nest, release_task, (void *)(intptr_t)0));
        CHECK_OK(weft_pair_submit(g_nest, inner, NULL)); /* newest: the owner takes it first */
        CHECK_OK(weft_pair_wait(g_nest));
        CHECK(g_leaves == 102);
    }
    CHECK_OK(weft_pair_free(&g_nest));
}

/* ---------- sleep and wake ---------- */

static _Atomic long g_count;
static void count(void *arg)
{
    (void)arg;
    g_count++;
}

static _Atomic int g_flag;
static void set_flag(void *arg)
{
    (void)arg;
    g_task_tid = tid();
    g_flag = 1;
}

static void test_sleep_wake(void)
{
    weft_pair_config c;
    CHECK_OK(weft_pair_config_init(&c));
    c.spin_us = 0; /* asleep whenever the ring is empty */
    weft_pair p;
    CHECK_OK(weft_pair_create(&c, &p));
    pid_t me = tid();
    /* A submit wakes it: the task runs on the assistant although the owner
     * never waits. */
    for (int i = 0; i < 300; i++) {
        g_flag = 0;
        g_task_tid = 0;
        if (i % 3 == 0) sleep_ms(1); /* surely asleep */
        CHECK_OK(weft_pair_submit(p, set_flag, NULL));
        CHECK(spin_until(&g_flag));
        CHECK(g_task_tid != me);
    }
    CHECK_OK(weft_pair_wait(p));
    CHECK_OK(weft_pair_free(&p));

    /* Hints at random under load. */
    CHECK_OK(weft_pair_config_init(&c));
    c.spin_us = 50;
    CHECK_OK(weft_pair_create(&c, &p));
    g_count = 0;
    unsigned seed = 12345;
    long want = 0;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 16;
        if (r % 7 == 0) CHECK_OK(weft_pair_sleep_hint(p));
        if (r % 5 == 0) CHECK_OK(weft_pair_wake_hint(p));
        for (unsigned k = 0; k < r % 9; k++, want++) CHECK_OK(weft_pair_submit(p, count, NULL));
        if (r % 3 == 0) CHECK_OK(weft_pair_wait(p));
        if (r % 1000 == 0) sleep_ms(1);
    }
    CHECK_OK(weft_pair_wait(p));
    CHECK(g_count == want);
    CHECK_OK(weft_pair_free(&p));
}

/* ---------- an idle pair costs no CPU ---------- */

static void test_idle(void)
{
    weft_pair_config c;
    CHECK_OK(weft_pair_config_init(&c));
    c.spin_us = 2000;
    weft_pair p;
    CHECK_OK(weft_pair_create(&c, &p));
    for (int i = 0; i < 1000; i++) CHECK_OK(weft_pair_submit(p, nop, NULL));
    CHECK_OK(weft_pair_wait(p));
    /* After its budget (2 ms) the assistant sleeps. */
    sleep_ms(50);
    double t0 = cpu_seconds();
    sleep_ms(400);
    double idle = cpu_seconds() - t0;
    /* A sleep hint sends it to sleep at once. */
    CHECK_OK(weft_pair_wake_hint(p));
    CHECK_OK(weft_pair_sleep_hint(p));
    double t1 = cpu_seconds();
    sleep_ms(400);
    double hinted = cpu_seconds() - t1;
    /* Still works. */
    g_count = 0;
    for (int i = 0; i < 100; i++) CHECK_OK(weft_pair_submit(p, count, NULL));
    CHECK_OK(weft_pair_wait(p));
    CHECK(g_count == 100);
    CHECK_OK(weft_pair_free(&p));
    printf("idle pair: %.3f s of CPU in 0.4 s after its budget, %.3f s after a sleep hint\n", idle, hinted);
    CHECK(idle < 0.04 && hinted < 0.04);
}

/* ---------- owned by a stream ---------- */

static weft_pair g_spair;
static _Atomic long g_sum;

static void add(void *arg) { g_sum += (long)(intptr_t)arg; }

static void submitter(void *arg)
{
    long base = (long)(intptr_t)arg;
    for (long i = 1; i <= 1000; i++) {
        CHECK(weft_pair_submit(g_spair, add, (void *)(intptr_t)(base + i)) == WEFT_OK);
        if (i % 100 == 0) CHECK(weft_pair_wait(g_spair) == WEFT_OK);
        if (i % 50 == 0) weft_yield();
    }
}

static void stranger(void *arg)
{
    (void)arg;
    g_rc[0] = weft_pair_submit(g_spair, nop, NULL);
    g_rc[1] = weft_pair_wait(g_spair);
}

static void tasklet_waits(void *arg)
{
    (void)arg;
    g_rc[2] = weft_pair_wait(g_spair);
    weft_pair q = g_spair;
    g_rc[3] = weft_pair_free(&q);
    g_rc[4] = weft_pair_submit(g_spair, add, (void *)(intptr_t)1000000); /* a tasklet may submit */
}

/* A ULT on the owning stream moves to stream 1: no longer the owner. */
static void mover(void *arg)
{
    weft_xstream to = arg;
    g_rc[5] = weft_pair_submit(g_spair, add, (void *)(intptr_t)2000000);
    weft_thread self;
    CHECK(weft_self(&self) == WEFT_OK);
    CHECK(weft_thread_migrate_to_xstream(self, to) == WEFT_OK);
    g_rc[6] = weft_pair_submit(g_spair, nop, NULL);
    g_rc[7] = weft_pair_wait(g_spair);
}

/* A task the owner's wait runs moves the waiting ULT to stream 1. */
static weft_xstream g_to;
static void moving_task(void *arg)
{
    (void)arg;
    weft_thread self;
    CHECK(weft_self(&self) == WEFT_OK);
    CHECK(weft_thread_migrate_to_xstream(self, g_to) == WEFT_OK);
}

static _Atomic int g_moved_rc;
static void moved_waiter(void *arg)
{
    (void)arg;
    hold_assistant(g_spair);
    /* The wait takes the newest first: moving_task, then returns. */
    CHECK(weft_pair_submit(g_spair, release_task, (void *)(intptr_t)0) == WEFT_OK);
    CHECK(weft_pair_submit(g_spair, moving_task, NULL) == WEFT_OK);
    g_moved_rc = weft_pair_wait(g_spair);
}

/* Two ULTs of the stream, each running tasks that yield and wait nested:
 * a wait takes no task while the other ULT is inside one, so neither
 * waits for the other. */
static _Atomic long g_nested_done, g_nested_here, g_leaves_done;
static void yield_leaf(void *arg)
{
    (void)arg;
    weft_yield(); /* on the assistant: WEFT_ERR_NOT_WEFT, nothing */
    g_leaves_done++;
}
static void yield_nested(void *arg)
{
    (void)arg;
    weft_thread self;
    if (weft_self(&self) == WEFT_OK) { /* on the owning stream (else the assistant ran it) */
        weft_yield();
        CHECK(weft_pair_submit(g_spair, yield_leaf, NULL) == WEFT_OK);
        weft_yield();
        CHECK(weft_pair_wait(g_spair) == WEFT_OK);
        g_nested_here++;
    }
    g_nested_done++;
}
static void nest_waiter(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        CHECK(weft_pair_submit(g_spair, yield_nested, NULL) == WEFT_OK);
        CHECK(weft_pair_submit(g_spair, yield_nested, NULL) == WEFT_OK);
        CHECK(weft_pair_wait(g_spair) == WEFT_OK);
    }
}

static _Atomic int g_inside;
static void yielding_task(void *arg)
{
    (void)arg;
    g_inside = 1;
    for (int i = 0; i < 5; i++) weft_yield();
    g_inside = 2;
}
static void inside_ult(void *arg)
{
    (void)arg;
    CHECK(weft_pair_submit(g_spair, yielding_task, NULL) == WEFT_OK);
    CHECK(weft_pair_wait(g_spair) == WEFT_OK);
}

/* A ULT that ends (weft_thread_exit) inside a task the owner's side runs,
 * nested in another: both count as finished, and the pair goes on. */
static _Atomic int g_exit_rc = -1, g_after_exit;
static void exit_task(void *arg)
{
    (void)arg;
    g_release = 1;
    g_exit_rc = weft_thread_exit(); /* does not return */
}
static void outer_exit_task(void *arg)
{
    (void)arg;
    weft_thread self;
    if (weft_self(&self) != WEFT_OK) return; /* the assistant took it */
    CHECK(weft_pair_submit(g_spair, exit_task, NULL) == WEFT_OK);
    CHECK(weft_pair_wait(g_spair) == WEFT_OK); /* takes exit_task after the stall */
    g_after_exit = 1;                          /* never reached */
}
static void exit_ult(void *arg)
{
    (void)arg;
    hold_assistant(g_spair);
    CHECK(weft_pair_submit(g_spair, outer_exit_task, NULL) == WEFT_OK);
    CHECK(weft_pair_wait(g_spair) == WEFT_OK);
    g_after_exit = 1;
}

/* ---------- from a scheduler's own context ---------- */

static _Atomic int g_sched_rc[2] = {-1, -1};
static weft_pair g_sched_pair;

static void sched_run(weft_sched s)
{
    weft_pool pools[1];
    int n;
    CHECK(weft_sched_get_pools(s, 1, pools, &n) == WEFT_OK);
    for (int round = 0;; round++) {
        int stop;
        CHECK(weft_sched_has_to_stop(s, &stop) == WEFT_OK);
        if (stop) return;
        if (round == 0) {
            CHECK(weft_pair_create(NULL, &g_sched_pair) == WEFT_OK);
            g_sched_rc[0] = weft_pair_wait(g_sched_pair);
            weft_pair q = g_sched_pair;
            g_sched_rc[1] = weft_pair_free(&q);
        }
        weft_thread u;
        CHECK(weft_pool_pop(pools[0], &u) == WEFT_OK);
        if (u) CHECK(weft_sched_run_unit(s, u, pools[0]) == WEFT_OK);
        else sched_yield();
    }
}

static void free_sched_pair(void *arg)
{
    (void)arg;
    CHECK(weft_pair_free(&g_sched_pair) == WEFT_OK);
}

static void test_streams(void)
{
    start_weft(2);
    weft_xstream xs1;
    CHECK_OK(weft_xstream_get(1, &xs1));
    CHECK_OK(weft_pair_create(NULL, &g_spair)); /* owned by stream 0 */

    /* Three ULTs of stream 0 share it. */
    weft_xstream xs0;
    CHECK_OK(weft_xstream_get(0, &xs0));
    g_sum = 0;
    weft_thread u[3];
    for (int i = 0; i < 3; i++)
        CHECK_OK(weft_thread_create_to(xs0, submitter, (void *)(intptr_t)(i * 10000), NULL, &u[i]));
    CHECK_OK(weft_thread_free_many(3, u));
    CHECK_OK(weft_pair_wait(g_spair));
    CHECK(g_sum == 3 * 500500L + 1000L * (0 + 10000 + 20000));

    /* Another stream's ULT is not the owner; a tasklet may not wait. */
    weft_thread s;
    CHECK_OK(weft_thread_create_to(xs1, stranger, NULL, NULL, &s));
    CHECK_OK(weft_thread_free(&s));
    CHECK(g_rc[0] == WEFT_ERR_NOT_OWNER && g_rc[1] == WEFT_ERR_NOT_OWNER);
    CHECK_OK(weft_tasklet_create_to(xs0, tasklet_waits, NULL, &s));
    CHECK_OK(weft_thread_free(&s));
    CHECK(g_rc[2] == WEFT_ERR_TASKLET_BLOCKS && g_rc[3] == WEFT_ERR_TASKLET_BLOCKS && g_rc[4] == WEFT_OK);

    /* A ULT that moves away. */
    CHECK_OK(weft_thread_create_to(xs0, mover, xs1, NULL, &s));
    CHECK_OK(weft_thread_free(&s));
    CHECK(g_rc[5] == WEFT_OK && g_rc[6] == WEFT_ERR_NOT_OWNER && g_rc[7] == WEFT_ERR_NOT_OWNER);
    CHECK_OK(weft_pair_wait(g_spair));

    /* A waiting ULT that a task moves away: an error, and the pair goes on. */
    g_to = xs1;
    for (int round = 0; round < 20; round++) {
        g_moved_rc = -1;
        CHECK_OK(weft_thread_create_to(xs0, moved_waiter, NULL, NULL, &s));
        CHECK_OK(weft_thread_free(&s));
        CHECK(g_moved_rc == WEFT_ERR_NOT_OWNER);
        CHECK_OK(weft_pair_wait(g_spair));
    }
    /* Yields and nested waits in two ULTs at once. */
    g_nested_done = g_nested_here = g_leaves_done = 0;
    weft_thread w[2];
    for (int i = 0; i < 2; i++) CHECK_OK(weft_thread_create_to(xs0, nest_waiter, NULL, NULL, &w[i]));
    CHECK_OK(weft_thread_free_many(2, w));
    CHECK_OK(weft_pair_wait(g_spair));
    CHECK(g_nested_done == 2 * 200 * 2 && g_leaves_done == g_nested_here);

    /* A ULT ends inside a task (nested in another) the owner's side runs. */
    g_after_exit = 0;
    CHECK_OK(weft_thread_create_to(xs0, exit_ult, NULL, NULL, &s));
    CHECK_OK(weft_thread_free(&s));
    CHECK(g_after_exit == 0 && g_exit_rc == -1);
    CHECK_OK(weft_pair_wait(g_spair)); /* returns: both tasks count as finished */
    g_count = 0;
    for (int i = 0; i < 100; i++) CHECK_OK(weft_pair_submit(g_spair, count, NULL));
    CHECK_OK(weft_pair_wait(g_spair));
    CHECK(g_count == 100);

    /* Free while another ULT of the stream is inside a task: free waits
     * for it (the caller itself is in none). */
    hold_assistant(g_spair);
    g_inside = 0;
    CHECK_OK(weft_thread_create_to(xs0, inside_ult, NULL, NULL, &s));
    for (int i = 0; i < 100000 && g_inside != 1; i++) weft_yield();
    if (g_inside == 1) g_release = 1;
    g_release = 1;
    CHECK_OK(weft_pair_free(&g_spair));
    CHECK(g_inside == 2);
    CHECK_OK(weft_thread_free(&s));

    /* A scheduler's own context may not wait or free. */
    weft_pool pool;
    weft_sched sched;
    static const weft_sched_ops ops = {.run = sched_run};
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &pool));
    CHECK_OK(weft_sched_create(&ops, 1, &pool, NULL, &sched));
    weft_xstream xs2;
    CHECK_OK(weft_xstream_create(sched, &xs2));
    CHECK_OK(weft_thread_create(pool, free_sched_pair, NULL, NULL, &s));
    CHECK_OK(weft_thread_free(&s));
    CHECK(g_sched_rc[0] == WEFT_ERR_SCHED_BLOCKS && g_sched_rc[1] == WEFT_ERR_SCHED_BLOCKS);
    CHECK_OK(weft_xstream_free(&xs2));
    CHECK_OK(weft_sched_free(&sched));
    CHECK_OK(weft_pool_free(&pool));
    CHECK_OK(weft_finalize());
}

int main(void)
{
    test_config();
    fprintf(stderr, "test_config ok\n");
    test_placement();
    fprintf(stderr, "test_placement ok\n");
    test_misuse();
    fprintf(stderr, "test_misuse ok\n");
    test_million();
    fprintf(stderr, "test_million ok\n");
    test_owner_runs();
    fprintf(stderr, "test_owner_runs ok\n");
    test_nested();
    fprintf(stderr, "test_nested ok\n");
    test_sleep_wake();
    fprintf(stderr, "test_sleep_wake ok\n");
    test_idle();
    fprintf(stderr, "test_idle ok\n");
    test_streams();
    fprintf(stderr, "test_streams ok\n");
    printf("pair: ok\n");
    return 0;
}
