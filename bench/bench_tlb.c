/* When do huge-page stacks pay? Live ULTs each touch part of their 64 KiB
 * stack between yields. "many": 4,096 ULTs touching 14 pages each per turn,
 * about 57,000 distinct 4 KiB pages per round, far more than a core's TLB
 * holds, against about 140 pages of 2 MiB. "few": 256 ULTs touching 4
 * pages, which the TLB holds either way. Each runs with
 * weft_config.huge_pages off and on in the same run; the point is the time
 * per visit (one turn of one ULT: its touches and its yield). */
#define _GNU_SOURCE
#include "bench_common.h"
#include "weft.h"
#include "bench_weft_bind.h"

#define MAX_LIVE 4096
#define PAGE 4096
#define MAX_TOUCH 14 /* of a 64 KiB stack: 56 KiB of frame */

static int g_rounds, g_touch;

/* Each turn adds 1 to one byte of each touched page; the sum at the end
 * checks that every ULT ran every turn. */
static void toucher(void *arg)
{
    volatile unsigned char frame[MAX_TOUCH * PAGE];
    for (int p = 0; p < g_touch; p++) frame[p * PAGE] = 0;
    for (int r = 0; r < g_rounds; r++) {
        for (int p = 0; p < g_touch; p++) frame[p * PAGE]++;
        BENCH_CHECK(weft_yield() == WEFT_OK);
    }
    long sum = 0;
    for (int p = 0; p < g_touch; p++) sum += frame[p * PAGE];
    *(long *)arg = sum;
}

static double run_once(weft_pool pool, int live)
{
    static weft_thread t[MAX_LIVE];
    static long sums[MAX_LIVE];
    double t0 = bench_now_ns();
    for (int i = 0; i < live; i++) BENCH_CHECK(weft_thread_create(pool, toucher, &sums[i], NULL, &t[i]) == WEFT_OK);
    BENCH_CHECK(weft_thread_free_many(live, t) == WEFT_OK);
    double ns = (bench_now_ns() - t0) / ((double)live * g_rounds);
    for (int i = 0; i < live; i++) BENCH_CHECK(sums[i] == (long)g_touch * (g_rounds & 0xff));
    return ns;
}

static void measure(const char *name, int live, int touch, int huge, int runs)
{
    weft_config cfg;
    BENCH_CHECK(weft_config_init(&cfg) == WEFT_OK);
    cfg.num_xstreams = 1;
    cfg.pool_access = WEFT_POOL_ACCESS_PRIVATE;
    cfg.stack_size = 64 * 1024;
    cfg.huge_pages = huge;
    bench_weft_bind(&cfg);
    BENCH_CHECK(weft_init(&cfg) == WEFT_OK);
    weft_xstream xs;
    weft_pool pool;
    int n;
    BENCH_CHECK(weft_xstream_self(&xs) == WEFT_OK);
    BENCH_CHECK(weft_xstream_get_pools(xs, 1, &pool, &n) == WEFT_OK);
    double v[64];
    g_touch = touch;
    run_once(pool, live); /* warm-up: stacks mapped and touched */
    for (int r = 0; r < runs; r++) v[r] = run_once(pool, live);
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    char extra[192];
    snprintf(extra, sizeof extra,
             "\"label\": \"weft-ult (%s stacks, %s)\", \"stacks\": \"%s\", \"load\": \"%s\", "
             "\"live\": %d, \"pages\": %d",
             huge ? "huge-page" : "4 KiB-page", name, huge ? "huge" : "small", name, live, touch);
    bench_report("stack_touch", "weft-ult", 1, extra, v, runs);
}

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_rounds = quick ? 20 : 100;
    int runs = quick ? 5 : 15;
    for (int huge = 0; huge <= 1; huge++) {
        measure("few", 256, 4, huge, runs);
        measure("many", MAX_LIVE, MAX_TOUCH, huge, runs);
    }
    return 0;
}
