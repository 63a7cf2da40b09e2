// cxx_cancel: cancelling a taskgroup or a region whose queued tasks hold
// C++ firstprivate copies.
// RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=1
// RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=2
// RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=4
// RUN-ENV: OMP_NUM_THREADS=4
//
// gcc copy-constructs a task's firstprivate objects when the task is made
// (a copy function passed to GOMP_task) and destroys them at the end of the
// task's body. A queued task whose taskgroup or region is cancelled must
// still run its body, which leaves at its first cancellation point and
// destroys the copies; discarding it would leak them (weft-omp once did:
// GCC's libgomp.c++/cancel-taskgroup-3.C). Every object constructed is
// destroyed once the construct is over.
#include "omp_check.h"

#include <atomic>
#include <unistd.h>

static std::atomic<long> live{0};

struct copy_counted {
    int v;
    copy_counted() : v(0) { live++; }
    copy_counted(const copy_counted &o) : v(o.v) { live++; }
    ~copy_counted() { live--; }
};

int main()
{
    const bool on = omp_get_cancellation();
    for (int round = 0; round < 20; round++) {
        std::atomic<int> bodies{0};
        copy_counted obj;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup
        {
            for (int k = 0; k < 40; k++) {
#pragma omp task firstprivate(obj, k) shared(bodies)
                {
                    if (k == 3) {
#pragma omp cancel taskgroup
                    }
#pragma omp cancellation point taskgroup
                    bodies++;
                    usleep(10);
                    (void)obj.v;
                }
            }
        }
        CHECK_EQ(live.load(), 1L);
        if (!on) CHECK_EQ(bodies.load(), 40);
    }

    // cancel parallel with tasks queued in the region
    for (int round = 0; round < 20; round++) {
        copy_counted obj;
#pragma omp parallel
        {
#pragma omp single nowait
            for (int k = 0; k < 40; k++) {
#pragma omp task firstprivate(obj)
                {
                    usleep(10);
                    (void)obj.v;
                }
            }
            if (omp_get_thread_num() == omp_get_num_threads() - 1) {
#pragma omp cancel parallel
            }
#pragma omp barrier
        }
        CHECK_EQ(live.load(), 1L);
    }
    CHECK_EQ(live.load(), 0L);
    return 0;
}
