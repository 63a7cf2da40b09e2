/* critical: mutual exclusion of the critical construct.
 * Each thread does many non-atomic read-delay-write increments of a shared
 * counter inside the construct; any overlap loses updates, so the final
 * count must be exactly threads x rounds.  Covered: the unnamed critical
 * (GOMP_critical_start/end), two named criticals (GOMP_critical_name_*)
 * protecting two counters, the same name used from two functions (one
 * lock program-wide), a critical with a hint clause, criticals nested with
 * different names, and criticals reached from two nested inner teams
 * (exclusion is program-wide, not per team).
 */
#include "omp_check.h"

static volatile long c_unnamed, c_a, c_b, c_hint, c_nested;

static void bump(volatile long *p)
{
    long t = *p;
    tiny_delay(30);
    *p = t + 1;
}

static void from_elsewhere(void)
{
#pragma omp critical(alpha)
    bump(&c_a);
}

int main(void)
{
    enum { R = 3000 };
    int nthr = 0;
#pragma omp parallel shared(nthr)
    {
#pragma omp single
        nthr = omp_get_num_threads();
        for (int r = 0; r < R; r++) {
#pragma omp critical
            bump(&c_unnamed);
#pragma omp critical(alpha)
            bump(&c_a);
            from_elsewhere();
#pragma omp critical(beta)
            bump(&c_b);
#pragma omp critical(gamma) hint(omp_sync_hint_contended)
            bump(&c_hint);
#pragma omp critical(outer)
            {
#pragma omp critical(inner)
                bump(&c_nested);
            }
        }
    }
    CHECK_EQ(c_unnamed, (long)nthr * R);
    CHECK_EQ(c_a, 2L * nthr * R);
    CHECK_EQ(c_b, (long)nthr * R);
    CHECK_EQ(c_hint, (long)nthr * R);
    CHECK_EQ(c_nested, (long)nthr * R);

    /* two inner teams, one critical */
    omp_set_max_active_levels(2);
    c_unnamed = 0;
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    for (int r = 0; r < R; r++) {
#pragma omp critical
        bump(&c_unnamed);
    }
    CHECK_EQ(c_unnamed, 4L * R);
    return 0;
}
