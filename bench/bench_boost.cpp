// Peer: the Boost.Context switch (fcontext), the floor for a user-level
// context switch. Two contexts pass control back and forth; the time per
// jump is reported as a yield_to point.
#include <boost/context/detail/fcontext.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "bench_common.h"
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

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_switches = quick ? 200000 : 2000000;
    int runs = quick ? 5 : 15;
    double v[64];
    run_once();
    for (int r = 0; r < runs; r++) v[r] = run_once();
    bench_report("yield_to", "boost-context", 1, "", v, runs);
    return 0;
}
