/* pause_threadprivate: omp_pause_resource ends the threads of the idle
 * teams, so threadprivate variables of the threads other than the initial
 * one start again from their initial value afterwards. The standard does
 * not require it (GCC's libgomp.c-c++-common/pause-2.c checks it, beyond
 * the standard: libgomp's pause ends its OS threads). weft-omp gives a
 * program with thread-local variables a stream per OpenMP thread, and its
 * pause ends the streams no OpenMP thread holds. Also: 40 rounds of
 * pauses with nested regions between them; and a plain thread whose own
 * team keeps running (and keeps its threadprivate values) while the
 * initial thread pauses.
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=3 OMP_MAX_ACTIVE_LEVELS=2
 */
#include <pthread.h>

#include "omp_check.h"

static int tp = 128;
#pragma omp threadprivate(tp)

/* Set tp in every thread of a region, then check it in the next one. */
static void set_and_check(int base)
{
#pragma omp parallel
    tp = omp_get_thread_num() + base;
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    bad += tp != omp_get_thread_num() + base;
    CHECK_EQ(bad, 0);
}

/* After a pause: every thread but the initial one sees the initial value. */
static void check_fresh(void)
{
    int bad = 0, n = 0;
#pragma omp parallel reduction(+ : bad) shared(n)
    {
        if (omp_get_thread_num() != 0) bad += tp != 128;
#pragma omp single
        n = omp_get_num_threads();
    }
    CHECK_EQ(bad, 0);
    CHECK(n >= 1);
}

static _Atomic int stop;
static _Atomic long other_rounds;

/* A plain thread with its own team, running while the initial thread
 * pauses: its team is not idle, its threads keep their values. */
static void *other(void *arg)
{
    (void)arg;
    long rounds = 0;
#pragma omp parallel num_threads(2)
    tp = 1000 + omp_get_thread_num();
    while (!stop) {
        int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
        bad += tp != 1000 + omp_get_thread_num();
        CHECK_EQ(bad, 0);
        rounds++;
        other_rounds = rounds;
    }
    return (void *)rounds;
}

int main(void)
{
    set_and_check(256);
    CHECK_EQ(omp_pause_resource(omp_pause_soft, omp_get_initial_device()), 0);
    check_fresh();
    set_and_check(384);
    CHECK_EQ(omp_pause_resource_all(omp_pause_hard), 0);
    check_fresh();
    set_and_check(512);

    omp_set_max_active_levels(2);
    for (int round = 0; round < 40; round++) {
        int inner_bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : inner_bad)
        {
#pragma omp parallel num_threads(2) reduction(+ : inner_bad)
            inner_bad += omp_get_num_threads() != (omp_get_max_active_levels() >= 2 ? 2 : 1);
        }
        CHECK_EQ(inner_bad, 0);
        set_and_check(round * 10);
        CHECK_EQ(omp_pause_resource_all(round % 2 ? omp_pause_soft : omp_pause_hard), 0);
        check_fresh();
    }

    pthread_t th;
    CHECK(pthread_create(&th, NULL, other, NULL) == 0);
    /* 20 rounds at least, and until the other thread's team has run
     * through the pauses (under qemu it may take that long to start) */
    for (int round = 0; round < 20 || other_rounds < 3; round++) {
        set_and_check(2000 + round % 1000);
        CHECK_EQ(omp_pause_resource_all(omp_pause_soft), 0);
        check_fresh();
    }
    stop = 1;
    void *rounds;
    pthread_join(th, &rounds);
    CHECK((long)rounds >= 1);
    printf("pause_threadprivate: ok\n");
    return 0;
}
