// bench_sync's experiments in oneTBB, for those it expresses:
//   mutex_uncontended  tbb::mutex lock + unlock by one thread
//   mutex_contended    an arena of s threads, each incrementing a shared
//                      counter under the tbb::mutex; time per increment
// TBB has no barrier, no condition or eventual and no way to hand work to
// one sleeping thread, so barrier, eventual_pingpong and wake_latency are
// not expressed. The arena's threads are bound one per CPU when they fit,
// as in patterns_tbb.cpp.
#include "bench_bind.h"
#include "bench_common.h"

#include <memory>
#include <tbb/global_control.h>
#include <oneapi/tbb/mutex.h> // no tbb/ alias for it in oneTBB 2021
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "tbb_pin.h"

#define UNC_OPS 1000000
#define CONT_OPS 200000 // increments in all, per run (as bench_sync.c)

static tbb::mutex g_mutex;
static long g_counter;

static void uncontended()
{
    for (int i = 0; i < UNC_OPS; i++) {
        g_mutex.lock();
        g_mutex.unlock();
    }
}

static void contended(tbb::task_arena &arena, int s)
{
    g_counter = 0;
    arena.execute([s] {
        tbb::parallel_for(
            0, s,
            [s](int) {
                for (int i = 0; i < CONT_OPS / s; i++) {
                    tbb::mutex::scoped_lock hold(g_mutex);
                    g_counter++;
                }
            },
            tbb::static_partitioner());
    });
    BENCH_CHECK(g_counter == (long)(CONT_OPS / s) * s);
}

int main(int argc, char **argv)
{
    int runs = bench_quick(argc, argv) ? 5 : 15, maxs = bench_streams(argc, argv);
    double v[64];
    bench_cpus_init();
    BENCH_MEASURE(v, runs, UNC_OPS, uncontended());
    bench_report("mutex_uncontended", "tbb", 1, "\"label\": \"tbb (tbb::mutex)\"", v, runs);
    for (int s = 1; s <= maxs; s *= 2) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, s);
        tbb::task_arena arena(s);
        arena.initialize();
        pin_to_slot pin(arena, s);
        BENCH_MEASURE(v, runs, CONT_OPS, contended(arena, s));
        bench_report("mutex_contended", "tbb", s, "\"label\": \"tbb (tbb::mutex)\"", v, runs);
    }
    return 0;
}
