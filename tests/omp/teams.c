/* teams: the teams construct on the host (OpenMP 5.0), GOMP_teams_reg.
 *  - num_teams(3): exactly 3 teams (5.1: without a lower bound the
 *    lower bound equals the upper one), each team number 0..2 runs once;
 *    omp_get_num_teams() is 3 inside and 1 outside; omp_get_team_num() 0
 *    outside;
 *  - thread_limit(2): a parallel region inside a team gets at most 2
 *    threads, omp_get_thread_limit() is 2 there and the team number and
 *    count are those of the enclosing team (OpenMP forbids most other
 *    runtime calls directly in a teams region; gcc rejects them);
 *  - teams distribute: each iteration runs once, dist_schedule(static, 4)
 *    gives chunk k of 4 to team k % nteams;
 *  - teams distribute parallel for with a reduction;
 *  - omp_set_num_teams / omp_get_max_teams (nteams-var) decides the number
 *    of teams when no num_teams clause is given; omp_set_teams_thread_limit
 *    / omp_get_teams_thread_limit likewise caps each team's threads.
 */
#include "omp_check.h"

int main(void)
{
    CHECK_EQ(omp_get_num_teams(), 1);
    CHECK_EQ(omp_get_team_num(), 0);

    int ran[8] = {0}, nteams = 0, bad = 0;
#pragma omp teams num_teams(3) thread_limit(2) reduction(+ : bad)
    {
        int t = omp_get_team_num();
        __atomic_fetch_add(&ran[t], 1, __ATOMIC_RELAXED);
        if (t == 0)
            nteams = omp_get_num_teams();
        int inner = 0;
#pragma omp parallel num_threads(4) shared(inner)
        {
#pragma omp master
            inner = omp_get_num_threads();
            if (omp_get_team_num() != t || omp_get_num_teams() != 3 ||
                omp_get_thread_limit() != 2 || omp_get_level() != 1)
                __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        }
        if (inner < 1 || inner > 2)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(nteams, 3);
    for (int t = 0; t < 3; t++)
        CHECK_EQ(ran[t], 1);
    CHECK_EQ(ran[3], 0);
    CHECK_EQ(omp_get_num_teams(), 1);

    /* distribute */
    enum { N = 103 };
    static int owner[N], cnt[N];
    int nt = 0;
#pragma omp teams num_teams(4)
    {
        if (omp_get_team_num() == 0)
            nt = omp_get_num_teams();
#pragma omp distribute dist_schedule(static, 4)
        for (int i = 0; i < N; i++) {
            owner[i] = omp_get_team_num();
            __atomic_fetch_add(&cnt[i], 1, __ATOMIC_RELAXED);
        }
    }
    CHECK_EQ(nt, 4);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(cnt[i], 1);
        CHECK_EQ(owner[i], (i / 4) % 4);
    }

    long sum = 0;
#pragma omp teams distribute parallel for num_teams(2) reduction(+ : sum) schedule(dynamic, 3)
    for (int i = 0; i < 1000; i++)
        sum += i;
    CHECK_EQ(sum, 499500);

    /* nteams-var and teams-thread-limit-var */
    omp_set_num_teams(5);
    CHECK_EQ(omp_get_max_teams(), 5);
    omp_set_teams_thread_limit(1);
    CHECK_EQ(omp_get_teams_thread_limit(), 1);
    int seen[8] = {0}, n2 = 0, inner[8] = {0};
#pragma omp teams
    {
        int t = omp_get_team_num();
        __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
        if (t == 0)
            n2 = omp_get_num_teams();
#pragma omp parallel num_threads(3) shared(inner)
#pragma omp master
        inner[t] = omp_get_num_threads();
    }
    CHECK_EQ(n2, 5);
    for (int t = 0; t < 5; t++) {
        CHECK_EQ(seen[t], 1);
        CHECK_EQ(inner[t], 1); /* each team is capped at one thread */
    }
    CHECK_EQ(seen[5], 0);
    return 0;
}
