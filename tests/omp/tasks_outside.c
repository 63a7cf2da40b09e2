/* tasks_outside: tasks made outside any parallel region run at once.
 *
 * The initial thread outside a parallel region is a team of one that no
 * region's end will ever finish: libgomp runs every task made there before
 * GOMP_task returns, and programs rely on it (the OpenMP Examples' blocked
 * matrix product with `depend` reads the result with no taskwait).
 * weft-omp once queued such tasks when they had dependences, a priority,
 * or their maker held a lock, and they never ran. Each case below checks
 * the task's effect right after the construct, with no taskwait.
 */
#include "omp_check.h"

#define N 8

int main(void)
{
    /* depend, array sections over a 2-D block, as in the Examples */
    static float c[2 * N][N];
    for (int i = 0; i < 2 * N; i += N)
#pragma omp task depend(inout : c[i : N][0 : N]) firstprivate(i)
        for (int ii = i; ii < i + N; ii++)
            for (int j = 0; j < N; j++) c[ii][j] += 1.0f;
    for (int i = 0; i < 2 * N; i++)
        for (int j = 0; j < N; j++) CHECK(c[i][j] == 1.0f);

    /* an inout chain: order and completion */
    int x = 1;
    for (int k = 0; k < 10; k++)
#pragma omp task depend(inout : x) firstprivate(k) shared(x)
        x = x * 2 + k;
    int want = 1;
    for (int k = 0; k < 10; k++) want = want * 2 + k;
    CHECK_EQ(x, want);

    /* a priority */
    int ran = 0;
#pragma omp task priority(5) shared(ran)
    ran = 1;
    CHECK_EQ(ran, 1);

    /* made while the maker holds a lock, and inside a critical region */
    omp_lock_t l;
    omp_init_lock(&l);
    omp_set_lock(&l);
    ran = 0;
#pragma omp task shared(ran)
    ran = 1;
    CHECK_EQ(ran, 1);
    omp_unset_lock(&l);
    omp_destroy_lock(&l);
    ran = 0;
#pragma omp critical
    {
#pragma omp task shared(ran)
        ran = 1;
    }
    CHECK_EQ(ran, 1);

    /* mutexinoutset and a taskloop with a priority */
    int m = 0;
    for (int k = 0; k < 4; k++)
#pragma omp task depend(mutexinoutset : m) shared(m)
        m++;
    CHECK_EQ(m, 4);
    long sum = 0;
#pragma omp taskloop priority(3) reduction(+ : sum) grainsize(4)
    for (int i = 0; i < 100; i++) sum += i;
    CHECK_EQ(sum, 4950);

    /* a detached task whose event its own body fulfils, then a dependent
     * task: checked after a taskwait (libgomp 12 runs a detached task there
     * at once but waits for its event inside GOMP_task, and may queue the
     * tasks after it) */
    omp_event_handle_t ev;
    ran = 0;
#pragma omp task detach(ev) shared(ran) depend(out : x)
    {
        ran = 1;
        omp_fulfill_event(ev);
    }
#pragma omp taskwait
    CHECK_EQ(ran, 1);
#pragma omp task depend(in : x) shared(ran)
    ran = 2;
#pragma omp taskwait
    CHECK_EQ(ran, 2);

    /* and a parallel region afterwards still works */
    int cnt = 0;
#pragma omp parallel reduction(+ : cnt)
    cnt++;
    CHECK_EQ(cnt, omp_get_max_threads());
    return 0;
}
