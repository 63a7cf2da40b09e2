/* loop_misc: data clauses and synchronisation of worksharing loops.
 *  - the implicit barrier at the end of a loop (GOMP_loop_end): a second
 *    loop reads elements written by other threads in the first one;
 *  - nowait: two independent nowait loops, then an explicit barrier;
 *  - lastprivate (scalar, array, and lastprivate(conditional:)) takes the
 *    value of the sequentially last iteration under dynamic and guided
 *    schedules; firstprivate + lastprivate on one variable;
 *  - reductions (+, *, max, min, ^, &&) on loops of every schedule kind;
 *  - linear(j:3);
 *  - `omp loop` (OpenMP 5.0) and `for simd`;
 *  - `for` inside nested parallel regions: each inner team shares its own
 *    loop (every outer thread's inner loop runs each iteration once);
 *  - scan: reduction(inscan, +) with inclusive and exclusive scan
 *    (gcc 12 calls GOMP_loop_start for its scratch memory).
 */
#include "omp_check.h"

#define N 1000
static int a[N], b[N], c[N];

int main(void)
{
    volatile int vn = N;
    int n = vn;

    /* end-of-loop barrier */
    {
        int bad = 0;
#pragma omp parallel reduction(+ : bad)
        {
#pragma omp for schedule(static, 1)
            for (int i = 0; i < n; i++)
                a[i] = i * 3 + 1;
#pragma omp for schedule(dynamic, 3)
            for (int i = 0; i < n; i++)
                if (a[n - 1 - i] != (n - 1 - i) * 3 + 1)
                    bad++;
            /* and across a dynamic loop followed by a static one */
#pragma omp for schedule(dynamic, 7)
            for (int i = 0; i < n; i++)
                b[i] = a[i] + 1;
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++)
                if (b[(i * 37) % n] != a[(i * 37) % n] + 1)
                    bad++;
        }
        CHECK_EQ(bad, 0);
    }

    /* nowait */
    {
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        int bad = 0;
#pragma omp parallel reduction(+ : bad)
        {
#pragma omp for schedule(dynamic, 5) nowait
            for (int i = 0; i < n; i++)
                a[i] = i;
#pragma omp for schedule(guided) nowait
            for (int i = 0; i < n; i++)
                b[i] = 2 * i;
#pragma omp barrier
#pragma omp for
            for (int i = 0; i < n; i++)
                if (a[i] != i || b[i] != 2 * i)
                    bad++;
        }
        CHECK_EQ(bad, 0);
    }

    /* lastprivate */
    {
        int x = -1, y = -1, z = -1;
        int arr[3] = {0, 0, 0};
        int fl = 100;
#pragma omp parallel for schedule(dynamic, 3) lastprivate(x, arr) firstprivate(fl) lastprivate(fl)
        for (int i = 0; i < n; i++) {
            x = i * 2;
            arr[0] = i;
            arr[1] = -i;
            arr[2] = i % 7;
            fl += 1; /* each thread starts from 100 */
        }
        CHECK_EQ(x, 2 * (N - 1));
        CHECK_EQ(arr[0], N - 1);
        CHECK_EQ(arr[1], -(N - 1));
        CHECK_EQ(arr[2], (N - 1) % 7);
        CHECK(fl > 100 && fl <= 100 + N);
#pragma omp parallel for schedule(guided, 2) lastprivate(y)
        for (int i = n - 1; i >= 0; i -= 3)
            y = i;
        CHECK_EQ(y, (N - 1) % 3);
        /* conditional: the value of the last iteration that assigned it */
#pragma omp parallel for schedule(dynamic) lastprivate(conditional : z)
        for (int i = 0; i < n; i++)
            if (i % 97 == 5)
                z = i;
        CHECK_EQ(z, ((N - 1 - 5) / 97) * 97 + 5);
    }

    /* reductions under each schedule */
    {
        long s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        double prod = 1.0;
        int mx = -1, mn = 1 << 30, x = 0, all = 1;
        omp_set_schedule(omp_sched_guided, 3);
#pragma omp parallel
        {
#pragma omp for schedule(static) reduction(+ : s1) reduction(max : mx)
            for (int i = 0; i < n; i++) {
                s1 += i;
                mx = (i * 7919) % 1009 > mx ? (i * 7919) % 1009 : mx;
            }
#pragma omp for schedule(dynamic, 11) reduction(+ : s2) reduction(min : mn)
            for (int i = 0; i < n; i++) {
                s2 += (long)i * i;
                mn = (i * 7919) % 1009 + 3 < mn ? (i * 7919) % 1009 + 3 : mn;
            }
#pragma omp for schedule(guided) reduction(+ : s3) reduction(^ : x)
            for (int i = 0; i < n; i++) {
                s3 += n - i;
                x ^= i * 2654435761u;
            }
#pragma omp for schedule(runtime) reduction(+ : s4) reduction(* : prod) reduction(&& : all)
            for (int i = 0; i < n; i++) {
                s4 += 1;
                if (i % 100 == 0)
                    prod *= 2.0;
                all = all && (i < N);
            }
        }
        long es2 = 0;
        int ex = 0, emx = -1, emn = 1 << 30;
        for (int i = 0; i < N; i++) {
            es2 += (long)i * i;
            ex ^= i * 2654435761u;
            emx = (i * 7919) % 1009 > emx ? (i * 7919) % 1009 : emx;
            emn = (i * 7919) % 1009 + 3 < emn ? (i * 7919) % 1009 + 3 : emn;
        }
        CHECK_EQ(s1, (long)N * (N - 1) / 2);
        CHECK_EQ(s2, es2);
        CHECK_EQ(s3, (long)N * (N + 1) / 2);
        CHECK_EQ(s4, N);
        CHECK(prod == 1024.0);
        CHECK_EQ(x, ex);
        CHECK_EQ(mx, emx);
        CHECK_EQ(mn, emn);
        CHECK_EQ(all, 1);
    }

    /* linear */
    {
        int j = 5;
#pragma omp parallel for linear(j : 3) schedule(static, 4)
        for (int i = 0; i < n; i++) {
            c[i] = j;
            j += 3;
        }
        for (int i = 0; i < N; i++)
            CHECKF(c[i] == 5 + 3 * i, "linear: c[%d] = %d", i, c[i]);
        CHECK_EQ(j, 5 + 3 * N);
    }

    /* omp loop and for simd */
    {
        long s = 0, t = 0;
#pragma omp parallel for simd schedule(dynamic, 8) reduction(+ : s)
        for (int i = 0; i < n; i++)
            s += i;
#pragma omp parallel
#pragma omp loop reduction(+ : t)
        for (int i = 0; i < n; i++)
            t += 2 * i;
        CHECK_EQ(s, (long)N * (N - 1) / 2);
        CHECK_EQ(t, (long)N * (N - 1));
    }

    /* loops in nested teams */
    omp_set_max_active_levels(2);
    {
        int hits[4][64];
        memset(hits, 0, sizeof hits);
        int bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
        {
            int o = omp_get_thread_num();
#pragma omp parallel num_threads(3) reduction(+ : bad)
            {
#pragma omp for schedule(dynamic, 2)
                for (int i = 0; i < 64; i++)
                    __atomic_fetch_add(&hits[o][i], 1, __ATOMIC_RELAXED);
                /* the barrier above is the inner team's: all 64 done */
                for (int i = 0; i < 64; i++)
                    if (__atomic_load_n(&hits[o][i], __ATOMIC_RELAXED) != 1)
                        bad++;
                if (omp_get_team_size(2) != 3 || omp_get_level() != 2)
                    bad++;
            }
        }
        CHECK_EQ(bad, 0);
        for (int o = 0; o < 4; o++)
            for (int i = 0; i < 64; i++)
                CHECK_EQ(hits[o][i], 1);
    }

    /* scan */
    {
        int sum = 0, esum = 0;
        static int incl[N], excl[N];
#pragma omp parallel for reduction(inscan, + : sum)
        for (int i = 0; i < n; i++) {
            sum += i % 13;
#pragma omp scan inclusive(sum)
            incl[i] = sum;
        }
        for (int i = 0; i < N; i++) {
            esum += i % 13;
            CHECKF(incl[i] == esum, "inclusive scan [%d] = %d, want %d", i, incl[i], esum);
        }
        CHECK_EQ(sum, esum);
        int s2 = 0;
#pragma omp parallel for reduction(inscan, + : s2)
        for (int i = 0; i < n; i++) {
            excl[i] = s2;
#pragma omp scan exclusive(s2)
            s2 += i % 13;
        }
        esum = 0;
        for (int i = 0; i < N; i++) {
            CHECKF(excl[i] == esum, "exclusive scan [%d] = %d, want %d", i, excl[i], esum);
            esum += i % 13;
        }
    }
    return 0;
}
