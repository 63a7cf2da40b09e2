/* Stack options: huge-page stacks (carved from 2 MiB chunks, backed by huge
 * pages where the kernel gives them, overflow caught by a canary) and eager
 * stacks (taken at creation). Every ULT runs once and sees a stack it can
 * use; an overflow of a huge-page stack aborts with the ULT named. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NUNITS 3000

static int g_runs[NUNITS];

static void body(void *arg)
{
    long i = (long)(intptr_t)arg;
    volatile char use[16 * 1024]; /* a quarter of the stack, written through */
    for (size_t k = 0; k < sizeof use; k += 512) use[k] = (char)i;
    if (i % 7 == 0) CHECK_OK(weft_yield());
    CHECK(use[512] == (char)i);
    g_runs[i]++;
}

/* Size of the huge pages backing address `a`, from /proc/self/smaps: 2048
 * (kB) for a THP or hugetlbfs page, 0 for small pages, -1 when unknown. */
static long huge_kb_at(uintptr_t a)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[256];
    int inside = 0;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (inside) break;
            inside = a >= lo && a < hi;
            continue;
        }
        long v;
        if (!inside) continue;
        if (sscanf(line, "KernelPageSize: %ld kB", &v) == 1 && v >= 2048) kb = v;
        if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1) kb = kb > 0 ? kb : (v > 0 ? 2048 : 0);
    }
    fclose(f);
    return kb;
}

static long g_seen_kb = -2;

static void look_at_own_stack(void *arg)
{
    (void)arg;
    volatile char here = 1;
    g_seen_kb = huge_kb_at((uintptr_t)&here);
}

static int thp_possible(void)
{
#ifdef WEFT_TEST_EMULATED
    return 0; /* qemu-user answers madvise without asking the kernel */
#endif
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    char buf[128] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    (void)n;
    return strstr(buf, "[never]") == NULL;
}

/* NUNITS ULTs over two streams' pools, each run exactly once. */
static void run_all(void)
{
    weft_xstream xs[2];
    weft_pool pools[2];
    int n;
    memset(g_runs, 0, sizeof g_runs);
    static weft_thread t[NUNITS];
    CHECK_OK(weft_xstream_self(&xs[0]));
    CHECK_OK(weft_xstream_get_pools(xs[0], 1, &pools[0], &n));
    CHECK_OK(weft_xstream_get(1, &xs[1]));
    CHECK_OK(weft_xstream_get_pools(xs[1], 1, &pools[1], &n));
    for (int round = 0; round < 2; round++) {
        for (long i = 0; i < NUNITS; i++)
            CHECK_OK(weft_thread_create(pools[i % 2], body, (void *)(intptr_t)i, NULL, &t[i]));
        CHECK_OK(weft_thread_join_many(NUNITS, t));
        /* Revive half of them: with eager stacks they get one at once. */
        if (round == 0)
            for (long i = 0; i < NUNITS; i += 2) {
                CHECK_OK(weft_thread_revive(pools[1], body, (void *)(intptr_t)i, t[i]));
                CHECK_OK(weft_thread_join(t[i]));
            }
        CHECK_OK(weft_thread_free_many(NUNITS, t));
    }
    for (long i = 0; i < NUNITS; i++) CHECK(g_runs[i] == (i % 2 == 0 ? 3 : 2));
}

static void start(int huge, int eager)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 2;
    cfg.stack_size = 64 * 1024;
    cfg.huge_pages = huge;
    cfg.eager_stacks = eager;
    CHECK_OK(weft_init(&cfg));
}

static void test_huge(void)
{
    start(1, 0);
    run_all();
    /* A ULT's stack sits in huge pages when the kernel offers them. */
    weft_thread t;
    CHECK_OK(weft_thread_create(self_pool(), look_at_own_stack, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    if (thp_possible() && g_seen_kb >= 0) {
        fprintf(stderr, "huge-page stack: smaps says %ld kB pages\n", g_seen_kb);
        CHECK(g_seen_kb >= 2048);
    }
    /* A stack size other than the default is an ordinary guarded stack. */
    weft_thread_attr a;
    CHECK_OK(weft_thread_attr_init(&a));
    a.stack_size = 128 * 1024;
    CHECK_OK(weft_thread_create(self_pool(), body, (void *)(intptr_t)0, &a, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_OK(weft_finalize());
    /* The chunks went with finalize; a second runtime starts clean. */
    start(1, 1);
    run_all();
    CHECK_OK(weft_finalize());
}

static void test_eager(void)
{
    start(0, 1);
    run_all();
    /* Cancel a ULT that never ran: its early stack goes back. */
    weft_thread t;
    weft_pool p;
    CHECK_OK(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_MPMC, &p));
    for (int i = 0; i < 100; i++) {
        CHECK_OK(weft_thread_create(p, body, (void *)(intptr_t)0, NULL, &t));
        CHECK_OK(weft_thread_cancel(t));
        CHECK_OK(weft_thread_free(&t));
    }
    /* Migrate a not-yet-run ULT with its stack to the other stream. */
    weft_xstream x1;
    CHECK_OK(weft_xstream_get(1, &x1));
    g_runs[1] = 0;
    CHECK_OK(weft_thread_create(p, body, (void *)(intptr_t)1, NULL, &t));
    CHECK_OK(weft_thread_migrate_to_xstream(t, x1));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_runs[1] == 1);
    CHECK_OK(weft_pool_free(&p));
    CHECK_OK(weft_finalize());
}

/* --- overflow of a huge-page stack --- */

static uintptr_t g_first;

/* Not instrumented: AddressSanitizer's redzones are never written, and
 * one may fall exactly on the canary. */
static __attribute__((noinline, no_sanitize_address)) int dig(int depth)
{
    volatile char pad[256];
    for (size_t k = 0; k < sizeof pad; k++) pad[k] = (char)depth;
    /* Stop a little past the 64 KiB stack: inside the spare page below it,
     * where the canary is, but short of the next stack. */
    if (g_first - (uintptr_t)&pad[0] > 64 * 1024 + 1024) return pad[0];
    return dig(depth + 1) + pad[1];
}

static void overflow(void *arg)
{
    (void)arg;
    volatile char top;
    g_first = (uintptr_t)&top;
    dig(0);
}

static void overflow_child(void)
{
    weft_config cfg;
    weft_config_init(&cfg);
    cfg.num_xstreams = 1;
    cfg.stack_size = 64 * 1024;
    cfg.huge_pages = 1;
    weft_init(&cfg);
    weft_thread t;
    weft_thread_create(self_pool(), overflow, NULL, NULL, &t);
    weft_thread_join(t); /* not reached: the end of the ULT finds the canary gone */
}

static void test_overflow(void)
{
    char buf[4096];
    int status = run_child_stderr(overflow_child, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(buf, "weft: stack overflow in ULT ") != NULL); /* ids are never reused: any number */
    CHECK(strstr(buf, " (stack of 65536 bytes carved from a shared huge-page chunk") != NULL);
}

int main(void)
{
    test_huge();
    test_eager();
    test_overflow();
    printf("stackopts: ok\n");
    return 0;
}
