/* atomic: the atomic construct, including the types gcc cannot update
 * with a native atomic instruction on x86-64 (long double, __int128
 * without -mcx16): for those gcc brackets a plain
 * update with GOMP_atomic_start / GOMP_atomic_end, so these checks test
 * that those two calls give mutual exclusion.
 *  - update (x += v, x *= v, x = x - v, x |= v ...) totals;
 *  - capture: every thread's captured old values of a fetch-and-add are
 *    all distinct and cover 0..N-1 exactly;
 *  - read / write of 16-byte values are never torn (the two halves always
 *    match);
 *  - atomic compare (OpenMP 5.1): a compare-and-swap maximum.
 */
#include "omp_check.h"

enum { R = 2000 };

int main(void)
{
    int nthr = 1;
    int i_sum = 0;
    long l_or = 0;
    double d_sum = 0;
    long double ld_sum = 0, ld_prod = 1;
    __int128 q_sum = 0, q_sub = 0;
    int imax = -1;
    long double ldmax = -1;
    static __int128 caught[R * 8];
    static long double caught_ld[R * 8];
    __int128 pair = 0; /* both 64-bit halves always equal */
    int torn = 0;

#pragma omp parallel shared(nthr) reduction(+ : torn)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nthr = omp_get_num_threads();
        for (int r = 0; r < R; r++) {
#pragma omp atomic
            i_sum += 1;
#pragma omp atomic update
            l_or |= 1L << ((r + t) % 60);
#pragma omp atomic
            d_sum += 0.5;
#pragma omp atomic
            ld_sum += 0.25L;
#pragma omp atomic
            q_sum += (__int128)1 << 70;
#pragma omp atomic
            q_sub = q_sub - 3;
            if (r % 500 == 0) {
#pragma omp atomic
                ld_prod *= 2.0L;
            }
            __int128 old;
#pragma omp atomic capture
            {
                old = q_sum;
                q_sum += 0; /* capture of an update by zero: reads only */
            }
            (void)old;
            long double oldld;
#pragma omp atomic capture
            {
                oldld = ld_sum;
                ld_sum += 0.0L;
            }
            (void)oldld;

            /* 16-byte write / read: never torn */
            __int128 v = (__int128)(unsigned long)(r * 8 + t);
            v = (v << 64) | (unsigned long)(r * 8 + t);
#pragma omp atomic write
            pair = v;
            __int128 rd;
#pragma omp atomic read
            rd = pair;
            if ((unsigned long)(rd >> 64) != (unsigned long)rd)
                torn++;

#pragma omp atomic compare
            imax = imax < r * 8 + t ? r * 8 + t : imax;
#pragma omp atomic compare
            ldmax = ldmax < (long double)(r * 8 + t) ? (long double)(r * 8 + t) : ldmax;
        }
    }
    CHECK_EQ(torn, 0);
    CHECK_EQ(i_sum, nthr * R);
    CHECK_EQ(l_or, (1L << 60) - 1);
    CHECK(d_sum == 0.5 * nthr * R);
    CHECK(ld_sum == 0.25L * nthr * R);
    CHECK(q_sum == (__int128)nthr * R << 70);
    CHECK(q_sub == -(__int128)3 * nthr * R);
    long double want_prod = 1;
    for (int k = 0; k < nthr * (R / 500); k++)
        want_prod *= 2.0L;
    CHECK(ld_prod == want_prod);
    CHECK_EQ(imax, (R - 1) * 8 + nthr - 1);
    CHECK(ldmax == (long double)((R - 1) * 8 + nthr - 1));

    /* fetch-and-add capture: distinct tickets */
    __int128 ticket = 0;
    long double tld = 0;
    int n_total = 0;
#pragma omp parallel shared(n_total)
    {
        for (int r = 0; r < R; r++) {
            __int128 mine;
#pragma omp atomic capture
            mine = ticket++;
            long double mld;
#pragma omp atomic capture
            {
                mld = tld;
                tld += 1.0L;
            }
            if (mine >= 0 && mine < R * 8)
                caught[(int)mine] = mine + 1;
            if (mld >= 0 && mld < R * 8)
                caught_ld[(int)mld] = mld + 1;
        }
#pragma omp atomic
        n_total += R;
    }
    CHECK(n_total <= R * 8);
    CHECK(ticket == n_total);
    CHECK(tld == (long double)n_total);
    for (int k = 0; k < n_total; k++) {
        CHECKF(caught[k] == k + 1, "ticket %d not captured exactly once", k);
        CHECKF(caught_ld[k] == k + 1, "long double ticket %d not captured", k);
    }
    return 0;
}
