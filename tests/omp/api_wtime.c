/* api_wtime: omp_get_wtime and omp_get_wtick.
 *  - omp_get_wtick() is positive and at most 1 ms;
 *  - omp_get_wtime() never goes backwards over many calls, in every
 *    thread of a team;
 *  - a 50 ms nanosleep measures between 49 ms and 2 s;
 *  - the time is elapsed wall-clock time, not CPU time: a thread that
 *    sleeps 30 ms sees at least 29 ms pass.
 */
#include "omp_check.h"

#include <time.h>

int main(void)
{
    double tick = omp_get_wtick();
    CHECKF(tick > 0 && tick <= 1e-3, "wtick = %g", tick);

    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        double prev = omp_get_wtime();
        for (int i = 0; i < 100000; i++) {
            double now = omp_get_wtime();
            if (now < prev)
                bad++;
            prev = now;
        }
    }
    CHECK_EQ(bad, 0);

    double t0 = omp_get_wtime();
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double dt = omp_get_wtime() - t0;
    CHECKF(dt >= 0.049 && dt < 2.0, "50 ms sleep measured as %g s", dt);

#pragma omp parallel reduction(+ : bad)
    {
        double a = omp_get_wtime();
        struct timespec t30 = {0, 30 * 1000 * 1000};
        nanosleep(&t30, NULL);
        double d = omp_get_wtime() - a;
        if (d < 0.029 || d > 2.0)
            bad++;
    }
    CHECK_EQ(bad, 0);
    return 0;
}
