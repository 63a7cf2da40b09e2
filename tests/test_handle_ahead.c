#define _GNU_SOURCE
/* Handle memory faulted ahead (src/core/handle.c): once a program keeps
 * more than a few MiB of objects alive (here tasklets joined and never
 * freed), a helper thread of weft's faults in the memory past the newest
 * descriptor before any creation needs it. It ends at weft_finalize() and
 * starts again in the next runtime; a forked child gets its own; a process
 * with RLIMIT_AS set gets none. Every unit runs once throughout. */
#include <dirent.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "check.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define UNITS 60000 /* 7.5 MiB of descriptors: past the 4 MiB where faulting ahead starts */
#define HUGE ((uintptr_t)2 << 20)

static _Atomic long g_ran;
static weft_thread g_h[4 * UNITS];

static void work(void *arg)
{
    (void)arg;
    atomic_fetch_add_explicit(&g_ran, 1, memory_order_relaxed);
}

/* weft's helper threads of this kind alive in the process (they name
 * themselves "weft-ahead"). */
static int helpers(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* gone meanwhile */
        if (fgets(name, sizeof name, f) && !strcmp(name, "weft-ahead\n")) n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Are all pages of [p, p + len) in memory? */
static int resident(void *p, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned char v[4096];
    size_t n = len / (size_t)page;
    CHECK(n <= sizeof v);
    if (mincore(p, len, v) != 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] & 1)) return 0;
    return 1;
}

/* Wait up to 30 s (the helper runs at idle priority) for `cond`. */
#define WAIT_FOR(cond)                                                     \
    do {                                                                   \
        double t0_ = now_s();                                              \
        while (!(cond) && now_s() - t0_ < 30) usleep(1000);                \
    } while (0)

/* Create and join `n` tasklets into g_h + from, none freed; returns the
 * start of the next huge page past the newest descriptor. */
static char *fill(long from, long n)
{
    weft_pool p = self_pool();
    long before = atomic_load(&g_ran);
    for (long i = from; i < from + n; i++) CHECK_OK(weft_tasklet_create(p, work, NULL, &g_h[i]));
    for (long i = from; i < from + n; i++) CHECK_OK(weft_thread_join(g_h[i]));
    CHECK(atomic_load(&g_ran) == before + n);
    uintptr_t last = (uintptr_t)g_h[from + n - 1];
    return (char *)((last + HUGE) & ~(HUGE - 1));
}

static void free_all(long from, long n)
{
    for (long i = from; i < from + n; i++) CHECK_OK(weft_thread_free(&g_h[i]));
}

/* One runtime with a live helper: its memory ahead is faulted in, until
 * weft_finalize() ends it. */
static void one_runtime(long units)
{
    start_weft(1);
    char *ahead = fill(0, units);
    WAIT_FOR(resident(ahead, 4 << 20) && helpers() == 1);
    CHECK(helpers() == 1);
    CHECK(resident(ahead, 4 << 20)); /* 4 MiB past the newest descriptor, never touched by the program */
    free_all(0, units);
    CHECK_OK(weft_finalize());
    CHECK(helpers() == 0); /* joined */
}

int main(void)
{
    /* The helper needs MADV_POPULATE_WRITE (Linux 5.14), and a system
     * that does what it says (qemu-user accepts the call and ignores it). */
    long page = sysconf(_SC_PAGESIZE);
    void *probe = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(probe != MAP_FAILED);
    int supported = madvise(probe, (size_t)page, MADV_POPULATE_WRITE) == 0 && resident(probe, (size_t)page);
    munmap(probe, (size_t)page);
    if (!supported) {
        printf("skipped: MADV_POPULATE_WRITE does not fault pages in here\n");
        return 77;
    }
    CHECK(helpers() == 0);

    /* A small runtime needs none. */
    start_weft(2);
    fill(0, 1000);
    usleep(100000);
    CHECK(helpers() == 0);
    free_all(0, 1000);
    CHECK_OK(weft_finalize());

    /* The child of a process whose helper runs: its own runtime and helper.
     * (ThreadSanitizer cannot start threads in the child of a threaded
     * process.) */
    start_weft(1);
    char *ahead = fill(0, UNITS);
    WAIT_FOR(resident(ahead, 4 << 20) && helpers() == 1);
    CHECK(helpers() == 1);
    CHECK(resident(ahead, 4 << 20));
#ifndef __SANITIZE_THREAD__
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (helpers() != 0) _exit(4);
        start_weft(1); /* one stream: this thread; the region is past 4 MiB already */
        char *more = fill(UNITS, UNITS); /* past what the parent had */
        WAIT_FOR(resident(more, 4 << 20) && helpers() == 1);
        if (!resident(more, 4 << 20) || helpers() != 1) {
            fprintf(stderr, "child: resident %d, helpers %d\n", resident(more, 4 << 20), helpers());
            _exit(2);
        }
        free_all(UNITS, UNITS); /* the parent's handles are not this runtime's */
        if (weft_finalize() != WEFT_OK || helpers() != 0) _exit(3);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
#endif
    free_all(0, UNITS);
    CHECK_OK(weft_finalize());
    CHECK(helpers() == 0);

    /* Two more runtimes, each needing more than any before: the slabs of
     * the last come back, then new memory, and the helper again. */
    one_runtime(2 * UNITS);
    one_runtime(3 * UNITS);

    /* With RLIMIT_AS set, memory faulted ahead would count against it:
     * no helper. */
    struct rlimit r, old;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    r = old;
    r.rlim_cur = r.rlim_max == RLIM_INFINITY ? (rlim_t)1 << 60 : r.rlim_max;
    CHECK(setrlimit(RLIMIT_AS, &r) == 0);
    start_weft(1);
    fill(0, 4 * UNITS);
    usleep(100000);
    CHECK(helpers() == 0);
    free_all(0, 4 * UNITS);
    CHECK_OK(weft_finalize());
    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    printf("ok\n");
    return 0;
}
