// Peer: the Boost.Context switch (fcontext), the floor for a user-level
// context switch. Two contexts pass control back and forth; the time per
// jump is reported as a yield_to point. Then weft's yield-to and that
// switch in pairs, back to back in one process on one CPU: their ratio is
// a target of the core runtime, and two programs run a minute apart on a
// shared VM differ by more than the margin that target leaves.
#include <boost/context/detail/fcontext.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "bench_common.h"
#include "weft.h"
}

namespace ctx = boost::context::detail;

static long g_switches;

static void partner(ctx::transfer_t t)
{
    for (;;) t = ctx::jump_fcontext(t.fctx, nullptr);
}

static double run_once()
{
    std::vector<char> stack(64 * 1024);
    ctx::fcontext_t other = ctx::make_fcontext(stack.data() + stack.size(), stack.size(), partner);
    double t0 = bench_now_ns();
    for (long i = 0; i < g_switches; i++) other = ctx::jump_fcontext(other, nullptr).fctx;
    return (bench_now_ns() - t0) / (2.0 * (double)g_switches); // two jumps per round trip
}

// weft: two ULTs on the primary stream yield to each other.
static weft_thread g_pair[2];

static void weft_partner(void *arg)
{
    weft_thread other = g_pair[1 - (int)(intptr_t)arg];
    for (long i = 0; i < g_switches / 2; i++) BENCH_CHECK(weft_yield_to(other) == WEFT_OK);
}

static double weft_run_once()
{
    weft_xstream xs;
    weft_pool pool;
    int n;
    BENCH_CHECK(weft_xstream_self(&xs) == WEFT_OK);
    BENCH_CHECK(weft_xstream_get_pools(xs, 1, &pool, &n) == WEFT_OK);
    double t0 = bench_now_ns();
    for (int k = 0; k < 2; k++)
        BENCH_CHECK(weft_thread_create(pool, weft_partner, (void *)(intptr_t)k, nullptr, &g_pair[k]) == WEFT_OK);
    for (int k = 0; k < 2; k++) BENCH_CHECK(weft_thread_free(&g_pair[k]) == WEFT_OK);
    return (bench_now_ns() - t0) / (double)g_switches;
}

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_switches = quick ? 200000 : 2000000;
    int runs = quick ? 5 : 15;
    double v[64], w[64], ratio[64];
    run_once();
    for (int r = 0; r < runs; r++) v[r] = run_once();
    bench_report("yield_to", "boost-context", 1, "", v, runs);

    weft_config cfg;
    BENCH_CHECK(weft_config_init(&cfg) == WEFT_OK);
    cfg.num_xstreams = 1;
    BENCH_CHECK(weft_init(&cfg) == WEFT_OK);
    weft_run_once(); // warm-up: stacks and descriptors cached
    int pairs = quick ? 9 : 21; // short runs: more of them
    for (int r = 0; r < pairs; r++) {
        w[r] = weft_run_once();
        v[r] = run_once();
        ratio[r] = w[r] / v[r];
    }
    BENCH_CHECK(weft_finalize() == WEFT_OK);
    qsort(v, (size_t)pairs, sizeof *v, bench_cmp); // the Boost side's median; w is sorted by bench_report
    qsort(ratio, (size_t)pairs, sizeof *ratio, bench_cmp);
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"pool\": \"private\", \"boost_ns\": %.3f, \"ratio\": %.3f, \"ratio_min\": %.3f, \"ratio_max\": %.3f", v[pairs / 2],
             ratio[pairs / 2], ratio[0], ratio[pairs - 1]);
    bench_report("yield_to_pair", "weft-ult", 1, extra, w, pairs);
    return 0;
}
