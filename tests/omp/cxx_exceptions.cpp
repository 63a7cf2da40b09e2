// cxx_exceptions: C++ exceptions inside OpenMP regions.
// OpenMP requires that an exception thrown in a region is caught in the
// same region by the same thread.  Checked:
//  - every thread of a team throws and catches its own exception (the
//    object carries the thrower's thread number) in a parallel region;
//  - exceptions thrown in worksharing-loop iterations (dynamic schedule),
//    in sections, in single, in critical (caught inside the critical
//    block: the lock is released normally afterwards), in explicit tasks
//    and in nested parallel regions are all caught where thrown;
//  - destructors of automatic objects between the throw and the catch run
//    (RAII counter balanced);
//  - the runtime works normally afterwards.
#include "omp_check.h"

#include <atomic>
#include <stdexcept>
#include <string>

struct tagged_error : std::runtime_error {
    int thread;
    explicit tagged_error(int t) : std::runtime_error("tagged " + std::to_string(t)), thread(t) {}
};

static std::atomic<int> live{0};
struct guard {
    guard() { live++; }
    ~guard() { live--; }
};

[[gnu::noinline]] static void deep_throw(int t, int depth)
{
    guard g;
    if (depth == 0)
        throw tagged_error(t);
    deep_throw(t, depth - 1);
}

int main()
{
    int nthr = 0;
    std::atomic<int> caught{0}, wrong{0};
#pragma omp parallel shared(nthr)
    {
#pragma omp single
        nthr = omp_get_num_threads();
        int me = omp_get_thread_num();
        try {
            deep_throw(me, 5);
        } catch (const tagged_error &e) {
            if (e.thread != me || omp_get_thread_num() != me)
                wrong++;
            caught++;
        }
    }
    CHECK_EQ(caught.load(), nthr);
    CHECK_EQ(wrong.load(), 0);
    CHECK_EQ(live.load(), 0);

    // loop iterations
    caught = 0;
#pragma omp parallel for schedule(dynamic, 3)
    for (int i = 0; i < 300; i++) {
        try {
            if (i % 3 == 0)
                deep_throw(omp_get_thread_num(), i % 4);
        } catch (const tagged_error &e) {
            if (e.thread != omp_get_thread_num())
                wrong++;
            caught++;
        }
    }
    CHECK_EQ(caught.load(), 100);
    CHECK_EQ(wrong.load(), 0);

    // sections, single, critical, tasks
    caught = 0;
    long protected_count = 0;
#pragma omp parallel shared(protected_count)
    {
#pragma omp sections
        {
#pragma omp section
            try {
                throw std::string("s1");
            } catch (const std::string &s) {
                if (s == "s1")
                    caught++;
            }
#pragma omp section
            try {
                throw 42;
            } catch (int v) {
                if (v == 42)
                    caught++;
            }
        }
#pragma omp single
        try {
            deep_throw(omp_get_thread_num(), 2);
        } catch (const std::exception &e) {
            caught++;
        }
        for (int r = 0; r < 50; r++) {
#pragma omp critical(exc)
            {
                try {
                    protected_count++;
                    if (r % 2)
                        throw std::runtime_error("in critical");
                } catch (const std::runtime_error &) {
                    caught++;
                }
            }
        }
#pragma omp single
        {
            for (int k = 0; k < 40; k++) {
#pragma omp task
                {
                    try {
                        deep_throw(omp_get_thread_num(), k % 3);
                    } catch (const tagged_error &e) {
                        if (e.thread != omp_get_thread_num())
                            wrong++;
                        caught++;
                    }
                }
            }
        }
    }
    CHECK_EQ(protected_count, 50L * nthr);
    CHECK_EQ(caught.load(), 2 + 1 + 25 * nthr + 40);
    CHECK_EQ(wrong.load(), 0);
    CHECK_EQ(live.load(), 0);

    // nested
    omp_set_max_active_levels(2);
    caught = 0;
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    {
        try {
            deep_throw(omp_get_thread_num(), 3);
        } catch (const tagged_error &e) {
            if (e.thread == omp_get_thread_num() && omp_get_level() == 2)
                caught++;
        }
    }
    CHECK_EQ(caught.load(), 4);
    CHECK_EQ(live.load(), 0);

    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += i;
    CHECK_EQ(sum, 499500);
    return 0;
}
