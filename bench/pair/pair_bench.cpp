// [Relic]'s experiment: fine-grained kernels (pair_kernels.h), two
// instances per iteration, run serially and by two threads of a runtime,
// plus the latency of handing one empty task to the other thread.
//
// One source, built once per runtime family (bench/CMakeLists.txt):
//   PAIR_RT_WEFT  --runtime=weft-pair (pair mode) or weft-ult (a ULT
//                 created on stream 1 and joined: the general-purpose path)
//   PAIR_RT_OMP   `task` + `taskwait` in a team of 2 (gomp, weft-omp with
//                 its libgomp first, llvm-omp when built by clang)
//   PAIR_RT_TBB   `task_group` run + wait in an arena of 2
// Every runtime measures its own serial baseline in the same process, the
// two loops alternating run by run, so a speedup is a ratio of
// neighbouring measurements. Points: smt_<kernel> (speedup over serial,
// unit "x"), smt_start and smt_roundtrip (ns).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pair_kernels.h"

#include "../bench_common.h"
#include "../bench_bind.h"

#if defined(PAIR_RT_WEFT)
#include "weft.h"
#include "weft_pair.h"
#elif defined(PAIR_RT_OMP)
#include <omp.h>
#include "../bench_omp.h"
#elif defined(PAIR_RT_TBB)
#include <tbb/task_group.h>
#include "../tbb_pin.h"
#else
#error "define PAIR_RT_WEFT, PAIR_RT_OMP or PAIR_RT_TBB"
#endif

static const char *g_label = "?";
static char g_extra[4800]; // JSON fields every point carries

// ---------------------------------------------------------------------
// The runtimes: `both(fn, a, b)` runs fn(a) on the other thread and fn(b)
// here, and returns when both are done; `in_context(body)` runs body where
// tasks may be made (a team's single thread, an arena).

typedef void (*task_fn)(void *);

#if defined(PAIR_RT_WEFT)
static bool g_ult;
static weft_pair g_pair;
static weft_xstream g_xs1;

static void rt_start()
{
    if (g_ult) {
        weft_config c;
        BENCH_CHECK(weft_config_init(&c) == WEFT_OK);
        c.num_xstreams = 2;
        c.bind = CPU_COUNT(&bench_cpus) >= 2 ? 1 : 0;
        BENCH_CHECK(weft_init(&c) == WEFT_OK);
        BENCH_CHECK(weft_xstream_get(1, &g_xs1) == WEFT_OK);
    } else {
        bench_bind_worker(0, 2); // a bound owner: the assistant goes beside it
        BENCH_CHECK(weft_pair_create(NULL, &g_pair) == WEFT_OK);
        BENCH_CHECK(weft_pair_wake_hint(g_pair) == WEFT_OK);
    }
}

static void rt_stop()
{
    if (g_ult) BENCH_CHECK(weft_finalize() == WEFT_OK);
    else BENCH_CHECK(weft_pair_free(&g_pair) == WEFT_OK);
}

static inline void both(task_fn fn, void *a, void *b)
{
    if (g_ult) {
        weft_thread t;
        BENCH_CHECK(weft_thread_create_to(g_xs1, fn, a, NULL, &t) == WEFT_OK);
        fn(b);
        BENCH_CHECK(weft_thread_free(&t) == WEFT_OK);
    } else {
        BENCH_CHECK(weft_pair_submit(g_pair, fn, a) == WEFT_OK);
        fn(b);
        BENCH_CHECK(weft_pair_wait(g_pair) == WEFT_OK);
    }
}

template <class F> static void in_context(F body) { body(); }

static const char *placement()
{
    if (g_ult) return "streams bound";
    weft_pair_placement how;
    int o, a;
    BENCH_CHECK(weft_pair_placement_get(g_pair, &how, &o, &a) == WEFT_OK);
    static char buf[96];
    const char *names[] = {"SMT sibling", "shared cache", "other CPU", "same CPU", "unbound", "given CPU"};
    std::snprintf(buf, sizeof buf, "%s (owner CPU %d, assistant CPU %d)", names[how], o, a);
    return buf;
}

#elif defined(PAIR_RT_OMP)
static void rt_start() {}
static void rt_stop() {}

static inline void both(task_fn fn, void *a, void *b)
{
#pragma omp task firstprivate(fn, a)
    fn(a);
    fn(b);
#pragma omp taskwait
}

template <class F> static void in_context(F body)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    body();
}

static const char *placement() { return "OMP_PROC_BIND=close, OMP_PLACES=cores"; }

#elif defined(PAIR_RT_TBB)
static pinned_arena g_arena;
static tbb::task_group *g_group;

static void rt_start() { g_arena.start(2); }
static void rt_stop() { g_arena.stop(); }

static inline void both(task_fn fn, void *a, void *b)
{
    g_group->run([fn, a] { fn(a); });
    fn(b);
    g_group->wait();
}

template <class F> static void in_context(F body)
{
    g_arena->execute([&] {
        tbb::task_group g;
        g_group = &g;
        body();
        g_group = nullptr;
    });
}

static const char *placement() { return "arena of 2, threads pinned"; }
#endif

// ---------------------------------------------------------------------
// The kernels

// Are the first two CPUs of the process hardware threads of one core?
static int smt_siblings()
{
    int c0 = bench_worker_cpu(0, 2), c1 = bench_worker_cpu(1, 2);
    if (c0 < 0 || c1 < 0) return 0;
    char path[128], buf[256];
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", c0);
    FILE *f = std::fopen(path, "r");
    int core0 = -1, core1 = -2, pkg0 = -1, pkg1 = -2;
    if (f && std::fgets(buf, sizeof buf, f)) core0 = std::atoi(buf);
    if (f) std::fclose(f);
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", c1);
    if ((f = std::fopen(path, "r")) && std::fgets(buf, sizeof buf, f)) core1 = std::atoi(buf);
    if (f) std::fclose(f);
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c0);
    if ((f = std::fopen(path, "r")) && std::fgets(buf, sizeof buf, f)) pkg0 = std::atoi(buf);
    if (f) std::fclose(f);
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c1);
    if ((f = std::fopen(path, "r")) && std::fgets(buf, sizeof buf, f)) pkg1 = std::atoi(buf);
    if (f) std::fclose(f);
    return core0 == core1 && pkg0 == pkg1;
}

static pk::Instance g_inst[2];

// ns per iteration of `iters` iterations of kernel k, serial or parallel;
// checked.
static double run_loop(const pk::Kernel &k, long iters, bool parallel, double ref)
{
    pk::Job ja = {&k, &g_inst[0]}, jb = {&k, &g_inst[1]};
    for (auto &in : g_inst) in.sum = 0, in.runs = 0;
    double t0 = bench_now_ns();
    if (parallel)
        for (long i = 0; i < iters; i++) both(pk::run_job, &ja, &jb);
    else
        for (long i = 0; i < iters; i++) pk::run_job(&ja), pk::run_job(&jb);
    double dt = (bench_now_ns() - t0) / (double)iters;
    for (auto &in : g_inst) BENCH_CHECK(pk::instance_check(&in, k, iters, ref));
    return dt;
}

static void kernels(long iters, int reps)
{
    pk::Graph g = pk::make_graph(0x5eed2024ull);
    for (auto &in : g_inst) pk::instance_init(&in, g);
    for (int ki = 0; ki < pk::NKERNELS; ki++) {
        const pk::Kernel &k = pk::KERNELS[ki];
        pk::Instance ref_in;
        pk::instance_init(&ref_in, g);
        double ref = k.fn(&ref_in);
        std::vector<double> speed(reps), ser(reps), par(reps);
        in_context([&] {
            run_loop(k, iters / 10 + 1, false, ref); // warm-up
            run_loop(k, iters / 10 + 1, true, ref);
            for (int r = 0; r < reps; r++) {
                bool par_first = r % 2;
                if (par_first) par[r] = run_loop(k, iters, true, ref);
                ser[r] = run_loop(k, iters, false, ref);
                if (!par_first) par[r] = run_loop(k, iters, true, ref);
                speed[r] = ser[r] / par[r];
            }
        });
        std::vector<double> s2 = ser, p2 = par;
        std::sort(s2.begin(), s2.end());
        std::sort(p2.begin(), p2.end());
        char extra[5200], name[32];
        std::snprintf(extra, sizeof extra, "\"kernel\": \"%s\", \"serial_ns\": %.1f, \"parallel_ns\": %.1f, %s", k.name,
                      s2[reps / 2], p2[reps / 2], g_extra);
        std::snprintf(name, sizeof name, "smt_%s", k.name);
        bench_point(name, g_label, 2, "x", extra, speed.data(), reps, 1);
    }
}

// ---------------------------------------------------------------------
// Latency: submit (or task, or create) of an empty task that notes the
// time it starts; the owner waits for it.

static std::atomic<double> g_started;

static void mark(void *) { g_started.store(bench_now_ns(), std::memory_order_relaxed); }

/* The owner waits for the other thread to start the task rather than run
 * it itself in its wait (OpenMP's taskwait and TBB's wait would): the
 * latency of the hand-over. After a second it gives up and lets the wait
 * run it. */
static void until_started(double t0)
{
    for (long i = 0; g_started.load(std::memory_order_relaxed) < t0; i++) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
        if (i % 1024 == 1023 && bench_now_ns() - t0 > 1e9) break;
    }
}

static void latency(int samples)
{
    std::vector<double> start(samples), rt(samples);
    in_context([&] {
        for (int i = -samples / 10; i < samples; i++) {
            int dummy = 0;
            double t0 = bench_now_ns();
#if defined(PAIR_RT_WEFT)
            if (g_ult) {
                weft_thread t;
                BENCH_CHECK(weft_thread_create_to(g_xs1, mark, &dummy, NULL, &t) == WEFT_OK);
                BENCH_CHECK(weft_thread_free(&t) == WEFT_OK);
            } else {
                BENCH_CHECK(weft_pair_submit(g_pair, mark, &dummy) == WEFT_OK);
                until_started(t0);
                BENCH_CHECK(weft_pair_wait(g_pair) == WEFT_OK);
            }
#elif defined(PAIR_RT_OMP)
#pragma omp task firstprivate(dummy)
            mark(&dummy);
            until_started(t0);
#pragma omp taskwait
#elif defined(PAIR_RT_TBB)
            g_group->run([&dummy] { mark(&dummy); });
            until_started(t0);
            g_group->wait();
#endif
            double t2 = bench_now_ns();
            if (i >= 0) start[i] = g_started.load() - t0, rt[i] = t2 - t0;
        }
    });
    bench_point("smt_start", g_label, 2, "ns", g_extra, start.data(), samples, 0);
    bench_point("smt_roundtrip", g_label, 2, "ns", g_extra, rt.data(), samples, 0);
}

int main(int argc, char **argv)
{
    bench_cpus_init();
    bool quick = bench_quick(argc, argv);
    long iters = quick ? 10000 : 100000;
    int reps = quick ? 3 : 5, samples = quick ? 500 : 2000;
#if defined(PAIR_RT_WEFT)
    g_label = "weft-pair";
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--runtime=weft-ult")) g_ult = true, g_label = "weft-ult";
        if (!std::strcmp(argv[i], "--iters=1000")) iters = 1000; // a smoke run
    }
#elif defined(PAIR_RT_OMP)
    for (int i = 1; i < argc; i++) bench_omp_arg(argv[i]);
    g_label = bench_omp_runtime;
#elif defined(PAIR_RT_TBB)
    g_label = "tbb";
#endif
    rt_start();
    std::snprintf(g_extra, sizeof g_extra, "\"placement\": \"%s\", \"siblings\": %d, \"iterations\": %ld", placement(),
                  smt_siblings(), iters);
#if defined(PAIR_RT_OMP)
    std::strncat(g_extra, ", ", sizeof g_extra - std::strlen(g_extra) - 1);
    std::strncat(g_extra, bench_omp_lib_field(), sizeof g_extra - std::strlen(g_extra) - 1);
#endif
    kernels(iters, reps);
    latency(samples);
    rt_stop();
    return 0;
}
