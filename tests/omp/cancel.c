/* cancel: the cancel and cancellation point constructs.
 * RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=1
 * RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=2
 * RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=4
 * RUN-ENV: OMP_CANCELLATION=false OMP_NUM_THREADS=2
 *
 * omp_get_cancellation() must be true exactly when OMP_CANCELLATION=true.
 * With cancellation enabled:
 *  - cancel parallel: the encountering thread (thread 0) leaves at once;
 *    the others, held in a barrier (a cancellation point, GOMP_barrier_cancel)
 *    that cannot complete before thread 0 arrives, leave it cancelled: no
 *    thread runs the code after the cancel or after the barrier (500
 *    regions in a row);
 *  - cancel for / cancel sections / cancel taskgroup: the encountering
 *    thread or task leaves at once; the other threads (tasks created after
 *    the cancelling one, which is undeferred) poll a
 *    `cancellation point` of the same kind (with taskyield and a short
 *    sleep, giving up after 10 s) and must leave through it, so the code
 *    after the polling never runs;
 *  - in a region containing `cancel parallel`, gcc ends worksharing
 *    constructs with cancellable barriers (GOMP_loop_end_cancel,
 *    GOMP_sections_end_cancel, GOMP_barrier_cancel after single): after
 *    thread 0 cancels, no thread gets past any of them;
 *  - cancel parallel with a false if clause does nothing;
 *  - the next region after a cancelled one runs normally.
 * With cancellation disabled every cancel is ignored and all code runs.
 */
#include <strings.h>
#include <time.h>

#include "omp_check.h"

static int on;

#define PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define PRAGMA(...) PRAGMA_(__VA_ARGS__)

/* poll a cancellation point of kind KIND; returns (falls through) only
 * if cancellation is off or 10 s passed */
#define POLL(KIND)                                                            \
    do {                                                                      \
        if (on) {                                                             \
            double t0_ = omp_get_wtime();                                     \
            for (;;) {                                                        \
                PRAGMA(omp cancellation point KIND)                           \
                if (omp_get_wtime() - t0_ > 10.0)                             \
                    break;                                                    \
                _Pragma("omp taskyield")                                      \
                usleep(200);                                                  \
            }                                                                 \
        }                                                                     \
    } while (0)

int main(void)
{
    const char *env = getenv("OMP_CANCELLATION");
    int want_on = env && !strcasecmp(env, "true");
    on = omp_get_cancellation();
    CHECK_EQ(on, want_on);

    int nthr = 1;
    /* cancel parallel + cancellable barrier, many times: a thread that
     * waits in the barrier while thread 0 cancels must not sleep through
     * the cancel (weft-omp once read `cancelled` before the word it then
     * slept on: a hang in about 1 run in 200 of one region, every run of
     * 500) */
    for (int rep = 0; rep < 500; rep++) {
        int before = 0, after_cancel = 0, after_barrier = 0;
#pragma omp parallel shared(nthr, before, after_cancel, after_barrier)
        {
            if (omp_get_thread_num() == 0)
                nthr = omp_get_num_threads();
#pragma omp atomic
            before++;
            if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
#pragma omp atomic
                after_cancel++;
            }
#pragma omp barrier
#pragma omp atomic
            after_barrier++;
        }
        CHECK_EQ(before, nthr);
        CHECK_EQ(after_cancel, on ? 0 : 1);
        CHECK_EQ(after_barrier, on ? 0 : nthr);
    }

    /* cancel parallel / cancellation point parallel */
    {
        int after = 0, polled_out = 0;
#pragma omp parallel shared(after, polled_out)
        {
            if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
            } else {
                POLL(parallel);
#pragma omp atomic
                polled_out++;
            }
#pragma omp atomic
            after++;
        }
        CHECK_EQ(polled_out, on ? 0 : nthr - 1);
        CHECK_EQ(after, on ? 0 : nthr);
    }

    /* worksharing constructs inside a region that has `cancel parallel`
     * end with cancellable barriers (GOMP_loop_end_cancel,
     * GOMP_sections_end_cancel, GOMP_barrier_cancel): thread 0 cancels
     * first thing, so no end barrier can complete normally */
    {
        int after_loop = 0, after_sections = 0, after_single = 0;
        long iters = 0;
#pragma omp parallel shared(after_loop, after_sections, after_single, iters)
        {
            if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
            }
#pragma omp for schedule(dynamic)
            for (int i = 0; i < 100; i++) {
#pragma omp atomic
                iters++;
            }
#pragma omp atomic
            after_loop++;
#pragma omp sections
            {
#pragma omp section
                tiny_delay(10);
#pragma omp section
                tiny_delay(10);
            }
#pragma omp atomic
            after_sections++;
#pragma omp single
            tiny_delay(10);
#pragma omp atomic
            after_single++;
        }
        CHECK_EQ(after_loop, on ? 0 : nthr);
        CHECK_EQ(after_sections, on ? 0 : nthr);
        CHECK_EQ(after_single, on ? 0 : nthr);
        if (!on)
            CHECK_EQ(iters, 100);
    }

    /* a false if clause: no cancellation */
    {
        int after = 0;
        volatile int zero = 0;
#pragma omp parallel shared(after)
        {
#pragma omp cancel parallel if (zero)
#pragma omp barrier
#pragma omp atomic
            after++;
        }
        CHECK_EQ(after, nthr);
    }

    /* cancel for */
    {
        enum { N = 64 };
        int body = 0, after_loop = 0, iters = 0;
#pragma omp parallel shared(body, after_loop, iters)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                iters++;
                if (i == 0) {
#pragma omp cancel for
                } else {
                    POLL(for);
                }
#pragma omp atomic
                body++;
            }
            /* cancelling a loop does not cancel the region */
#pragma omp atomic
            after_loop++;
        }
        CHECK_EQ(body, on ? 0 : N);
        CHECK_EQ(after_loop, nthr);
        if (on)
            CHECK(iters <= nthr); /* each thread ran at most its first iteration */
        else
            CHECK_EQ(iters, N);
    }

    /* cancel sections: whichever section starts first cancels (the order
     * in which sections are handed out is unspecified), the others poll */
    {
        int first = 0, after_sections = 0, after = 0;
#define SECTION_BODY                                                   \
    do {                                                               \
        if (__atomic_exchange_n(&first, 1, __ATOMIC_SEQ_CST) == 0) {   \
            PRAGMA(omp cancel sections)                                \
        } else {                                                       \
            POLL(sections);                                            \
        }                                                              \
        __atomic_fetch_add(&after_sections, 1, __ATOMIC_RELAXED);      \
    } while (0)
#pragma omp parallel shared(first, after_sections, after)
        {
#pragma omp sections
            {
#pragma omp section
                SECTION_BODY;
#pragma omp section
                SECTION_BODY;
#pragma omp section
                SECTION_BODY;
            }
#pragma omp atomic
            after++;
        }
#undef SECTION_BODY
        CHECK_EQ(after_sections, on ? 0 : 3);
        CHECK_EQ(after, nthr);
    }

    /* cancel taskgroup */
    {
        int started = 0, after = 0, done_group = 0;
#pragma omp parallel shared(started, after, done_group)
#pragma omp single
        {
#pragma omp taskgroup
            {
                /* task 0 is undeferred (if(0)): it has cancelled the
                 * group before the others exist; those are discarded or
                 * leave at their first cancellation point */
                for (int k = 0; k < 8; k++) {
#pragma omp task shared(started, after) if (k != 0)
                    {
#pragma omp atomic
                        started++;
                        if (k == 0) {
#pragma omp cancel taskgroup
                        } else {
                            POLL(taskgroup);
                        }
#pragma omp atomic
                        after++;
                    }
                }
            }
            done_group = 1;
        }
        CHECK_EQ(done_group, 1);
        CHECK_EQ(after, on ? 0 : 8);
        CHECK(started >= 1 && started <= 8);
    }

    /* tasks made after `cancel taskgroup` are discarded even when they
     * would run at once (if(0)): the 6th of 10 cancels */
    {
        int ran = 0;
#pragma omp parallel shared(ran)
#pragma omp single
#pragma omp taskgroup
        for (int k = 0; k < 10; k++) {
#pragma omp task if (0) firstprivate(k) shared(ran)
            {
                ran++;
                if (k == 5) {
#pragma omp cancel taskgroup
                }
            }
        }
        CHECK_EQ(ran, on ? 6 : 10);
    }

    /* in a loop with reduction(task, ...), `cancel taskgroup` binds to the
     * user's taskgroup around the loop, not to the loop's own: the tasks
     * that thread makes after the loop in that taskgroup are discarded */
    {
        long x = 0;
        int after = 0, nth = 0;
#pragma omp parallel shared(after, nth)
        {
#pragma omp single
            nth = omp_get_num_threads();
#pragma omp taskgroup
            {
#pragma omp for reduction(task, + : x)
                for (int i = 0; i < 10; i++) {
#pragma omp task in_reduction(+ : x) firstprivate(i)
                    {
                        x++;
                        if (i == 0) {
#pragma omp cancel taskgroup
                        }
                    }
                }
                for (int k = 0; k < 10; k++) {
#pragma omp task shared(after)
                    {
#pragma omp atomic
                        after++;
                    }
                }
            }
        }
        CHECK(x <= 10);
        if (on) CHECK(after <= 10 * (nth - 1)); /* the cancelling thread's taskgroup ran none */
        else CHECK_EQ(after, 10 * nth);
    }

    /* everything works normally afterwards */
    {
        int cnt = 0;
        long sum = 0;
#pragma omp parallel shared(cnt) reduction(+ : sum)
        {
#pragma omp atomic
            cnt++;
#pragma omp barrier
#pragma omp for
            for (int i = 0; i < 100; i++)
                sum += i;
        }
        CHECK_EQ(cnt, nthr);
        CHECK_EQ(sum, 4950);
    }
    return 0;
}
