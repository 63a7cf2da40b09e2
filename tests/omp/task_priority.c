/* task_priority: the priority clause and max-task-priority-var.
 * RUN-ENV: OMP_MAX_TASK_PRIORITY=20 OMP_NUM_THREADS=2
 * RUN-ENV: OMP_MAX_TASK_PRIORITY=3 OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=2
 * omp_get_max_task_priority() returns OMP_MAX_TASK_PRIORITY (0 when
 * unset), in and out of parallel regions; tasks with priorities from 0
 * to beyond the maximum (clamped by the runtime) all run exactly once.
 * Priority is only a hint, so no full execution order is asserted; but
 * with two threads, one kept busy by a long task, and priorities on, the
 * tasks with the highest priority made after it all run before any task
 * of priority 0 (libgomp 12 and weft-omp queue them and take the
 * highest first; weft-omp once ran priority-0 tasks at once meanwhile).
 */
#include "omp_check.h"

int main(void)
{
    const char *e = getenv("OMP_MAX_TASK_PRIORITY");
    int want = e ? atoi(e) : 0;
    CHECK_EQ(omp_get_max_task_priority(), want);
    int maxp = omp_get_max_task_priority();

    enum { N = 300 };
    static int ran[N];
    int in_par = 0;
#pragma omp parallel shared(in_par)
    {
        CHECK_EQ(omp_get_max_task_priority(), want); /* same value everywhere */
#pragma omp single
        {
            in_par = omp_get_num_threads();
            for (int i = 0; i < N; i++) {
                int p = i % (maxp + 3); /* includes values above the maximum */
#pragma omp task priority(p) firstprivate(i)
                __atomic_fetch_add(&ran[i], 1, __ATOMIC_RELAXED);
            }
        }
    }
    CHECK(in_par >= 1);
    for (int i = 0; i < N; i++)
        CHECK_EQ(ran[i], 1);
    if (maxp >= 3 && omp_get_max_threads() == 2) { /* at 4, libgomp's idle threads take tasks side by side */
        int order[16], k = 0, made = 0, holder = 0, producer = -1;
#pragma omp parallel shared(order, k, made, holder, producer)
#pragma omp single
        {
            producer = omp_get_thread_num();
            /* Keeps the other thread busy until all 12 are made (a fixed
             * delay could end first under an emulator); bounded, should
             * the producer run it itself, which leaves nothing to check. */
#pragma omp task shared(made, holder)
            {
                __atomic_store_n(&holder, omp_get_thread_num() + 1, __ATOMIC_RELEASE);
                for (int spins = 0; !__atomic_load_n(&made, __ATOMIC_ACQUIRE) && spins < 200; spins++)
                    tiny_delay(100000);
            }
            for (int spins = 0; !__atomic_load_n(&holder, __ATOMIC_ACQUIRE) && spins < 200; spins++)
                tiny_delay(100000); /* the other thread has it */
            for (int i = 0; i < 12; i++) {
#pragma omp task shared(order, k) priority(i % 4) firstprivate(i)
                order[__atomic_fetch_add(&k, 1, __ATOMIC_SEQ_CST)] = i % 4;
            }
            __atomic_store_n(&made, 1, __ATOMIC_RELEASE);
        }
        CHECK_EQ(k, 12);
        int last3 = -1, first0 = 12;
        for (int i = 0; i < 12; i++) {
            if (order[i] == 3) last3 = i;
            if (order[i] == 0 && i < first0) first0 = i;
        }
        /* Under an emulator (OMP_TEST_RUNNER) threads keep no timing a
         * priority order can be read from: seen failing 1 run in 20 under
         * qemu-user with the holder on the other thread. */
        const char *emu = getenv("OMP_TEST_RUNNER");
        if (holder - 1 != producer && !(emu && *emu))
            CHECKF(last3 < first0, "a priority-0 task ran before the last priority-3 one (%d, %d)", first0, last3);
    }
    return 0;
}
