// The patterns (bench/patterns.h) with oneTBB, as its users write them:
// task_group for units and tasks, parallel_for with a static partitioner
// where the iterations are divided among the threads. Threads = the
// arena's concurrency (the main thread is one of them). An observer binds
// each thread that enters the arena to its slot's CPU (bench_bind.h), the
// way TBB users pin threads.
#define PATTERNS_MAIN
#include "patterns.h"

#include <atomic>
#include <memory>
#include <vector>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "tbb_pin.h"

static pinned_arena g_arena;

static const char *name() { return "tbb"; }

static void init(int threads) { g_arena.start(threads); }

static void fini() { g_arena.stop(); }

static void create_join(double *create_ns, double *join_ns)
{
    g_arena->execute([&] {
        tbb::task_group g;
        double t0 = bench_now_ns();
        for (int i = 0; i < pat_threads; i++) g.run([i] { pat_unit(i); });
        double t1 = bench_now_ns();
        g.wait();
        *join_ns = bench_now_ns() - t1;
        *create_ns = t1 - t0;
    });
}

// A chunk per thread: pat_threads parts, one part each.
template <class F> static void static_chunks(int n, F body)
{
    tbb::parallel_for(
        tbb::blocked_range<int>(0, pat_threads, 1),
        [&](const tbb::blocked_range<int> &r) {
            for (int k = r.begin(); k < r.end(); k++) body(pat_lo(n, k, pat_threads), pat_hi(n, k, pat_threads));
        },
        tbb::static_partitioner());
}

static void for_loop()
{
    g_arena->execute([] { static_chunks(PAT_N, [](int lo, int hi) { pat_scale_range(lo, hi); }); });
}

static void tasks_single()
{
    g_arena->execute([] {
        tbb::task_group g;
        for (int i = 0; i < PAT_N; i++) g.run([i] { pat_scale_one(i); });
        g.wait();
    });
}

static void tasks_parallel()
{
    g_arena->execute([] {
        static_chunks(PAT_N, [](int lo, int hi) {
            tbb::task_group g;
            for (int i = lo; i < hi; i++) g.run([i] { pat_scale_one(i); });
            g.wait();
        });
    });
}

static void nested_for()
{
    g_arena->execute([] {
        static_chunks(pat_mn, [](int lo, int hi) {
            for (int i = lo; i < hi; i++) static_chunks(pat_mn, [i](int l, int h) { pat_scale_row(i, l, h); });
        });
    });
}

// Every thread creates PAT_CJ_UNITS tasks and waits for them, `reps` times.
static double create_join_per_stream(int reps)
{
    std::atomic<long> ran{0};
    double sum = 0;
    g_arena->execute([&] {
        std::vector<double> each(pat_threads);
        static_chunks(pat_threads, [&](int lo, int hi) {
            for (int k = lo; k < hi; k++) {
                tbb::task_group g;
                double t0 = bench_now_ns();
                for (int r = 0; r < reps; r++) {
                    for (int i = 0; i < PAT_CJ_UNITS; i++) g.run([&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
                    g.wait();
                }
                each[k] = (bench_now_ns() - t0) / ((double)reps * PAT_CJ_UNITS);
            }
        });
        for (double e : each) sum += e;
    });
    BENCH_CHECK(ran.load() == (long)reps * PAT_CJ_UNITS * pat_threads);
    return sum / pat_threads;
}

const struct pat_runtime pat_rt = {name, nullptr, nullptr, init, fini, create_join, for_loop, tasks_single,
                                   tasks_parallel, nested_for, create_join_per_stream,
                                   // yield: TBB tasks cannot yield to each other
                                   nullptr};
