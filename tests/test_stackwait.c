/* ULTs that can get no stack (issue 18 item 10). Each case runs in a forked
 * child with an alarm, so a livelock or a hang fails by name:
 *   waits    more ULTs with 8 MiB stacks than the address-space limit holds
 *            at once, all blocked on one eventual: those without a stack
 *            sleep (the process uses little CPU while they wait) and all run
 *            once the others give their stacks back;
 *   never    a ULT whose 1 GiB stack can never be had while nothing else
 *            holds a stack: the process ends with a message naming the ULT,
 *            the size and the cause (join from main, and finalize);
 *   maps     the kernel's map count nearly spent by the program itself:
 *            thousands of ULTs blocked at once all get (carved) stacks;
 *   yield_to to a ULT that can get no stack: WEFT_ERR_NOMEM, and it runs
 *            once memory is back.
 * Skipped under sanitizers and valgrind (their own mappings and address
 * space) and under qemu-user. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(WEFT_TEST_EMULATED)
#define SKIP_REASON "under a sanitizer or an emulator"
#endif

#ifndef SKIP_REASON

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void limit_as(size_t extra)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%ld", &pages) == 1);
    fclose(f);
    struct rlimit r;
    CHECK(getrlimit(RLIMIT_AS, &r) == 0);
    r.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + extra;
    CHECK(setrlimit(RLIMIT_AS, &r) == 0);
}

/* ---------- waits ---------- */

#define BIG_STACK ((size_t)8 << 20)
#define WAITERS 24

static weft_eventual g_ev;
static _Atomic int g_ran;

static void wait_body(void *arg)
{
    (void)arg;
    void *v;
    /* Touch the stack a little: it is really in use. */
    volatile char buf[4096];
    buf[0] = 1;
    buf[4095] = buf[0];
    CHECK_OK(weft_eventual_wait(g_ev, &v));
    atomic_fetch_add(&g_ran, 1);
}

static void *setter(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 400 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK_OK(weft_eventual_set(g_ev, NULL, 0));
    return NULL;
}

static void child_waits(void)
{
    alarm(60);
    start_weft(2);
    CHECK_OK(weft_eventual_create(0, &g_ev));
    weft_thread_attr attr;
    CHECK_OK(weft_thread_attr_init(&attr));
    attr.stack_size = BIG_STACK;
    weft_thread t[WAITERS];
    weft_pool pool = self_pool();
    /* Room for about half of them at once. */
    limit_as((WAITERS / 2) * (BIG_STACK + (512u << 10)));
    for (int i = 0; i < WAITERS; i++) CHECK_OK(weft_thread_create(pool, wait_body, NULL, &attr, &t[i]));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, setter, NULL) == 0);
    double c0 = cpu_seconds(), w0 = wall_seconds();
    for (int i = 0; i < WAITERS; i++) CHECK_OK(weft_thread_free(&t[i]));
    double c1 = cpu_seconds(), w1 = wall_seconds();
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(atomic_load(&g_ran) == WAITERS);
    CHECK_OK(weft_eventual_free(&g_ev));
    CHECK_OK(weft_finalize());
    /* While the first half waited on the eventual and the rest for a
     * stack, both streams slept: far less CPU than 2 streams x wall time. */
    printf("waits: %d ULTs of %zu MiB, %.0f ms wall, %.0f ms CPU while they waited\n", WAITERS, BIG_STACK >> 20,
           (w1 - w0) * 1e3, (c1 - c0) * 1e3);
    fflush(stdout);
    CHECK(w1 - w0 >= 0.3);
    CHECK(c1 - c0 < 0.5 * (w1 - w0));
    _exit(0);
}

/* ---------- never ---------- */

static void never_body(void *arg)
{
    (void)arg;
    CHECK(!"a ULT whose stack cannot be had ran");
}

static void child_never(int finalize)
{
    alarm(30);
    start_weft(2);
    weft_thread_attr attr;
    CHECK_OK(weft_thread_attr_init(&attr));
    attr.stack_size = (size_t)1 << 30;
    limit_as((size_t)256 << 20);
    weft_thread t;
    CHECK_OK(weft_thread_create(self_pool(), never_body, NULL, &attr, &t));
    if (finalize) weft_finalize();
    else weft_thread_join(t);
    fprintf(stderr, "returned\n");
    _exit(3);
}

/* weft_yield_to a ULT that can get no stack now: WEFT_ERR_NOMEM, the
 * caller goes on, and the ULT runs once memory is back. */
static int g_yielded_ran;
static void yielded_body(void *arg)
{
    (void)arg;
    g_yielded_ran++;
}

static void child_yield_to(void)
{
    alarm(30);
    start_weft(1);
    struct rlimit old;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    weft_thread_attr attr;
    CHECK_OK(weft_thread_attr_init(&attr));
    attr.stack_size = (size_t)1 << 30;
    limit_as((size_t)256 << 20);
    weft_thread t;
    CHECK_OK(weft_thread_create(self_pool(), yielded_body, NULL, &attr, &t));
    CHECK_RC(weft_yield_to(t), WEFT_ERR_NOMEM);
    CHECK(g_yielded_ran == 0);
    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_yielded_ran == 1);
    CHECK_OK(weft_finalize());
    printf("yield_to: WEFT_ERR_NOMEM without a stack, ran once memory was back\n");
    fflush(stdout);
    _exit(0);
}

static void child_never_join(void) { child_never(0); }
static void child_never_finalize(void) { child_never(1); }

static void check_never(void (*child)(void), const char *name)
{
    char buf[4096];
    double w0 = wall_seconds();
    int st = run_child_stderr(child, buf, sizeof buf);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(strstr(buf, "weft: ULT ") != NULL);
    CHECK(strstr(buf, "needs a stack of 1073741824 bytes") != NULL);
    CHECK(strstr(buf, "Cannot allocate memory") != NULL);
    printf("never (%s): aborted with the cause after %.1f s\n", name, wall_seconds() - w0);
}

/* ---------- maps ---------- */

#define MAPS_ULTS 3000
#define MAPS_LEFT 300 /* map entries left to the process */

static void maps_body(void *arg)
{
    (void)arg;
    volatile char buf[1024];
    buf[0] = 1;
    buf[1023] = buf[0];
    void *v;
    CHECK_OK(weft_eventual_wait(g_ev, &v));
    atomic_fetch_add(&g_ran, 1);
}

static void child_maps(void)
{
    alarm(60);
    start_weft(2);
    CHECK_OK(weft_eventual_create(0, &g_ev));
    weft_thread *t = calloc(MAPS_ULTS, sizeof *t);
    CHECK(t);
    /* Spend the map count: one region whose every other page changes
     * protection is one map entry per page. */
    long pg = sysconf(_SC_PAGESIZE);
    size_t n = 1u << 17;
    char *r = mmap(NULL, n * (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(r != MAP_FAILED);
    size_t split = 0;
    for (size_t i = 1; i < n; i += 2, split++)
        if (mprotect(r + i * (size_t)pg, (size_t)pg, PROT_NONE) != 0) break;
    CHECK(errno == ENOMEM && split > 1000);
    /* Give back MAPS_LEFT entries: unmap single pages from the top end. */
    size_t freed = 0;
    for (size_t i = 2 * split - 1; freed < MAPS_LEFT && i > 2; i -= 2, freed++)
        CHECK(munmap(r + i * (size_t)pg, (size_t)pg) == 0);
    weft_pool pool = self_pool();
    for (int i = 0; i < MAPS_ULTS; i++) CHECK_OK(weft_thread_create(pool, maps_body, NULL, NULL, &t[i]));
    /* All of them at once hold a stack: wait until every one has blocked. */
    for (int i = 0; i < MAPS_ULTS; i++) wait_for_state(t[i], WEFT_STATE_BLOCKED);
    CHECK_OK(weft_eventual_set(g_ev, NULL, 0));
    for (int i = 0; i < MAPS_ULTS; i++) CHECK_OK(weft_thread_free(&t[i]));
    CHECK(atomic_load(&g_ran) == MAPS_ULTS);
    CHECK_OK(weft_eventual_free(&g_ev));
    CHECK_OK(weft_finalize());
    printf("maps: %zu map entries spent by the program, %d ULTs blocked at once all ran\n", split, MAPS_ULTS);
    fflush(stdout);
    _exit(0);
}

static void run_ok(void (*child)(void), const char *name)
{
    char buf[8192];
    int st = run_child_stderr(child, buf, sizeof buf);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        fprintf(stderr, "%s: child failed (status 0x%x)\n", name, st);
        exit(1);
    }
}

#endif

int main(int argc, char **argv)
{
#ifdef SKIP_REASON
    (void)argc;
    (void)argv;
    printf("stackwait: skipped " SKIP_REASON "\n");
    return 77;
#else
    (void)argc;
    (void)argv;
    run_ok(child_waits, "waits");
    check_never(child_never_join, "join");
    check_never(child_never_finalize, "finalize");
    run_ok(child_maps, "maps");
    run_ok(child_yield_to, "yield_to");
    printf("stackwait: ok\n");
    return 0;
#endif
}
