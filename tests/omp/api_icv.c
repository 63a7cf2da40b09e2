/* api_icv: the ICV routines of omp.h (setters and getters).
 * Values under a clean environment (run.sh removes OMP_* variables; the
 * team size comes from OMP_NUM_THREADS only), libgomp 12's defaults where
 * the specification leaves them implementation defined:
 *  - omp_get_num_procs() == CPUs of the process's affinity mask;
 *  - dyn-var: set/get; with dynamic adjustment on, a region gets between
 *    1 and the requested number of threads;
 *  - nest-var (deprecated): omp_set_nested(1) raises max-active-levels
 *    above 1, omp_set_nested(0) sets it to 1; omp_get_nested follows;
 *  - run-sched-var: omp_set_schedule / omp_get_schedule round trip for
 *    every kind with and without the monotonic modifier; a chunk < 1 means
 *    the default chunk (1 for dynamic and guided, 0 = unspecified for
 *    static, ignored for auto);
 *  - max-active-levels: set/get, negative ignored, clamped to
 *    omp_get_supported_active_levels();
 *  - thread-limit-var: INT_MAX by default;
 *  - default-device-var, nteams-var, teams-thread-limit-var set/get;
 *  - max-task-priority 0, cancellation off, proc-bind false by default;
 *  - nthreads-var, dyn-var, run-sched-var and default-device-var belong to
 *    the task: a thread's setting inside a region is seen by that thread
 *    only, and by regions it creates, and does not leak out of the region.
 */
#include "omp_check.h"

#include <limits.h>
#include <sched.h>

int main(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    CHECK_EQ(omp_get_num_procs(), CPU_COUNT(&set));

    /* dynamic */
    CHECK_EQ(omp_get_dynamic(), 0);
    omp_set_dynamic(1);
    CHECK_EQ(omp_get_dynamic(), 1);
    {
        int n = 0;
#pragma omp parallel num_threads(3) shared(n)
#pragma omp master
        n = omp_get_num_threads();
        CHECK(n >= 1 && n <= 3);
    }
    omp_set_dynamic(0);
    CHECK_EQ(omp_get_dynamic(), 0);

    /* nested */
    CHECK_EQ(omp_get_max_active_levels(), 1);
    CHECK_EQ(omp_get_nested(), 0);
    omp_set_nested(1);
    CHECK_EQ(omp_get_nested(), 1);
    CHECK(omp_get_max_active_levels() > 1);
    omp_set_nested(0);
    CHECK_EQ(omp_get_nested(), 0);
    CHECK_EQ(omp_get_max_active_levels(), 1);

    /* schedule */
    {
        omp_sched_t k;
        int c;
        omp_get_schedule(&k, &c);
        CHECK_EQ(k, omp_sched_dynamic); /* libgomp default: dynamic,1 */
        CHECK_EQ(c, 1);
        static const omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided};
        for (int i = 0; i < 3; i++)
            for (int mono = 0; mono < 2; mono++)
                for (int chunk = 1; chunk < 100; chunk += 33) {
                    omp_sched_t want = (omp_sched_t)(kinds[i] | (mono ? omp_sched_monotonic : 0));
                    omp_set_schedule(want, chunk);
                    omp_get_schedule(&k, &c);
                    CHECK_EQ(k, want);
                    CHECK_EQ(c, chunk);
                }
        omp_set_schedule(omp_sched_dynamic, 0);
        omp_get_schedule(&k, &c);
        CHECK_EQ(k, omp_sched_dynamic);
        CHECK_EQ(c, 1);
        omp_set_schedule(omp_sched_guided, -2);
        omp_get_schedule(&k, &c);
        CHECK_EQ(k, omp_sched_guided);
        CHECK_EQ(c, 1);
        omp_set_schedule(omp_sched_static, -3);
        omp_get_schedule(&k, &c);
        CHECK_EQ(k, omp_sched_static);
        CHECK_EQ(c, 0);
        omp_set_schedule(omp_sched_auto, 5);
        omp_get_schedule(&k, &c);
        CHECK_EQ(k, omp_sched_auto);
        CHECK_EQ(c, 0);
    }

    /* max active levels */
    {
        int sup = omp_get_supported_active_levels();
        CHECK(sup >= 1);
        omp_set_max_active_levels(3);
        CHECK_EQ(omp_get_max_active_levels(), sup >= 3 ? 3 : sup);
        omp_set_max_active_levels(-4);
        CHECK_EQ(omp_get_max_active_levels(), sup >= 3 ? 3 : sup);
        omp_set_max_active_levels(INT_MAX);
        CHECK_EQ(omp_get_max_active_levels(), sup);
        omp_set_max_active_levels(1);
    }

    CHECK_EQ(omp_get_thread_limit(), INT_MAX);

    /* devices, teams, tasks, cancellation, binding */
    CHECK_EQ(omp_get_default_device(), 0);
    omp_set_default_device(3);
    CHECK_EQ(omp_get_default_device(), 3);
    omp_set_default_device(0);
    CHECK_EQ(omp_get_max_teams(), 0);
    omp_set_num_teams(6);
    CHECK_EQ(omp_get_max_teams(), 6);
    CHECK_EQ(omp_get_teams_thread_limit(), 0);
    omp_set_teams_thread_limit(4);
    CHECK_EQ(omp_get_teams_thread_limit(), 4);
    CHECK_EQ(omp_get_max_task_priority(), 0);
    CHECK_EQ(omp_get_cancellation(), 0);
    CHECK_EQ(omp_get_proc_bind(), omp_proc_bind_false);
    CHECK_EQ(omp_get_initial_device(), omp_get_num_devices());

    /* per-task ICVs */
    {
        int maxt = omp_get_max_threads();
        int bad = 0;
        omp_set_max_active_levels(2);
#pragma omp parallel num_threads(4) reduction(+ : bad)
        {
            int t = omp_get_thread_num();
            omp_set_num_threads(t + 1);
            omp_set_dynamic(t % 2);
            omp_set_schedule(t % 2 ? omp_sched_guided : omp_sched_static, t + 10);
            omp_set_default_device(t);
#pragma omp barrier
            omp_sched_t k;
            int c;
            omp_get_schedule(&k, &c);
            if (omp_get_max_threads() != t + 1 || omp_get_dynamic() != t % 2 ||
                k != (t % 2 ? omp_sched_guided : omp_sched_static) || c != t + 10 ||
                omp_get_default_device() != t)
                bad++;
            /* a nested region's implicit tasks inherit them */
            omp_set_dynamic(0);
#pragma omp parallel reduction(+ : bad)
            {
                omp_sched_t k2;
                int c2;
                omp_get_schedule(&k2, &c2);
                if (omp_get_num_threads() != t + 1 || c2 != t + 10 || omp_get_default_device() != t)
                    bad++;
            }
        }
        CHECK_EQ(bad, 0);
        /* nothing leaked to the initial task */
        omp_sched_t k;
        int c;
        omp_get_schedule(&k, &c);
        CHECK_EQ(omp_get_max_threads(), maxt);
        CHECK_EQ(omp_get_dynamic(), 0);
        CHECK_EQ(k, omp_sched_auto);
        CHECK_EQ(omp_get_default_device(), 0);
    }

    /* thread queries from an orphaned function */
    {
        int bad = 0, n = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad) shared(n)
        {
#pragma omp single
            n = omp_get_num_threads();
            if (omp_get_thread_num() >= n || !omp_in_parallel() || omp_get_level() != 1)
                bad++;
        }
        CHECK_EQ(n, 3);
        CHECK_EQ(bad, 0);
    }
    return 0;
}
