/* barrier: the barrier construct (GOMP_barrier).
 * In each of many phases every thread writes its slot with the phase
 * number, passes a barrier, checks that every slot holds the phase number,
 * and passes a second barrier before the next phase overwrites them.
 * Threads arrive in a different order each phase (uneven delays).  Also:
 * a barrier in each of two nested inner teams only synchronises that
 * team, and the team keeps working after many barriers in a row.
 */
#include "omp_check.h"

#define MAXT 64
static volatile int slot[MAXT];
static volatile int inner_slot[4][4];

int main(void)
{
    enum { PHASES = 100 };
    int bad = 0, ran = 0, team = 0;
#pragma omp parallel reduction(+ : bad) shared(ran, team)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp atomic
        ran++;
        if (t == 0)
            team = n;
        for (int p = 1; p <= PHASES; p++) {
            tiny_delay(((t * 7 + p * 13) % 11) * 50);
            slot[t] = p;
#pragma omp barrier
            for (int k = 0; k < n; k++)
                if (slot[k] != p)
                    bad++;
#pragma omp barrier
        }
        for (int p = 0; p < 30; p++) {
#pragma omp barrier
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(team >= 1);
    CHECK_EQ(ran, team);
    CHECK_EQ(team, omp_get_max_threads());

    omp_set_max_active_levels(2);
    bad = 0;
    ran = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad) shared(ran)
    {
        int o = omp_get_thread_num();
#pragma omp parallel num_threads(3) reduction(+ : bad) shared(ran)
        {
            int t = omp_get_thread_num();
#pragma omp atomic
            ran++;
            for (int p = 1; p <= 50; p++) {
                tiny_delay(((t * 5 + p * 3 + o) % 7) * 40);
                inner_slot[o][t] = p;
#pragma omp barrier
                for (int k = 0; k < 3; k++)
                    if (inner_slot[o][k] != p)
                        bad++;
#pragma omp barrier
            }
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(ran, 6);
    return 0;
}
