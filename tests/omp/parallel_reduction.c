/* parallel_reduction: reduction clauses on the parallel construct.
 * Every operator (+ * - & | ^ && || max min) on int and long, the ones C
 * allows on double (+ * - && || max min) and on double _Complex (+ * - &&
 * ||), plus an array section and a user-defined reduction.  Each thread
 * contributes a value that depends on its thread number; the expected
 * result is recomputed sequentially for the actual team size, and the
 * original value of the list item takes part in the combination.
 * Runs at team sizes 1..5 and at the default size.
 */
#include <complex.h>

#include "omp_check.h"

static void run(int req)
{
    int n = 0;
    int is = 10, ip = 3, im = 100, iand = -1, ior = 0x100, ixor = 0x55, iland = 1, ilor = 0,
        imax = -5, imin = 50;
    long ls = 1L << 40, lp = -2, lm = 0, land = ~0L, lor = 1L << 50, lxor = 0, lland = 7,
         llor = 0, lmax = -(1L << 45), lmin = 1L << 45;
    double ds = 0.5, dp = 2.0, dm = 1.0, dland = 1.0, dlor = 0.0, dmax = -1e300, dmin = 1e300;
    double _Complex cs = 1.0 + 1.0 * I, cp = 1.0, cm = 0.0, cland = 1.0, clor = 0.0;
    int arr[8] = {1, 2, 3, 4, 5, 6, 7, 8};

#pragma omp parallel num_threads(req) shared(n) \
    reduction(+ : is, ls, ds, cs) reduction(* : ip, lp, dp, cp) reduction(- : im, lm, dm, cm) \
    reduction(& : iand, land) reduction(| : ior, lor) reduction(^ : ixor, lxor) \
    reduction(&& : iland, lland, dland, cland) reduction(|| : ilor, llor, dlor, clor) \
    reduction(max : imax, lmax, dmax) reduction(min : imin, lmin, dmin) \
    reduction(+ : arr[2:5])
    {
        int t = omp_get_thread_num();
#pragma omp single
        n = omp_get_num_threads();
        is += t + 1;
        ls += (long)(t + 1) << 33;
        ds += 0.25 * (t + 1);
        cs += (t + 1) + 2.0 * t * I;
        ip *= t + 2;
        lp *= -(long)(t + 3);
        dp *= 1.5;
        cp *= (t % 2) ? I : (1.0 + 0.0 * I);
        im -= t + 1;
        lm -= (long)t * t;
        dm -= 0.5;
        cm -= 1.0 * I;
        iand &= ~(1 << t);
        land &= ~(1L << (40 + t));
        ior |= 1 << t;
        lor |= 1L << (20 + t);
        ixor ^= t * 37 + 1;
        lxor ^= (long)t << 35;
        iland = iland && (t < 100);
        lland = lland && (t != 3); /* false for a team of 4 or more */
        dland = dland && 1.0;
        cland = cland && (t + 1.0 * I);
        ilor = ilor || (t == 2); /* true from 3 threads on */
        llor = llor || 0;
        dlor = dlor || (t == 1 ? 0.5 : 0.0);
        clor = clor || 0.0;
        imax = imax > t * 7 ? imax : t * 7;
        lmax = lmax > -(long)t ? lmax : -(long)t;
        dmax = dmax > t * 0.5 ? dmax : t * 0.5;
        imin = imin < 40 - t ? imin : 40 - t;
        lmin = lmin < (long)t << 44 ? lmin : (long)t << 44;
        dmin = dmin < -t * 1.5 ? dmin : -t * 1.5;
        for (int k = 2; k < 7; k++)
            arr[k] += k * (t + 1);
    }
    CHECK(n >= 1);

    /* sequential recomputation for n threads */
    int es = 10, ep = 3, em = 100, eand = -1, eor = 0x100, exor = 0x55, eland = 1, elor = 0,
        emax = -5, emin = 50;
    long fs = 1L << 40, fp = -2, fm = 0, fand = ~0L, forr = 1L << 50, fxor = 0, fland = 7,
         flor = 0, fmax = -(1L << 45), fmin = 1L << 45;
    double gs = 0.5, gp = 2.0, gm = 1.0, gland = 1.0, glor = 0.0, gmax = -1e300, gmin = 1e300;
    double _Complex hs = 1.0 + 1.0 * I, hp = 1.0, hm = 0.0;
    int hland = 1, hlor = 0;
    int earr[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int t = 0; t < n; t++) {
        es += t + 1;
        fs += (long)(t + 1) << 33;
        gs += 0.25 * (t + 1);
        hs += (t + 1) + 2.0 * t * I;
        ep *= t + 2;
        fp *= -(long)(t + 3);
        gp *= 1.5;
        hp *= (t % 2) ? I : (1.0 + 0.0 * I);
        em -= t + 1;
        fm -= (long)t * t;
        gm -= 0.5;
        hm -= 1.0 * I;
        eand &= ~(1 << t);
        fand &= ~(1L << (40 + t));
        eor |= 1 << t;
        forr |= 1L << (20 + t);
        exor ^= t * 37 + 1;
        fxor ^= (long)t << 35;
        eland = eland && (t < 100);
        fland = fland && (t != 3);
        gland = gland && 1.0;
        hland = hland && 1;
        elor = elor || (t == 2);
        flor = flor || 0;
        glor = glor || (t == 1);
        hlor = hlor || 0;
        emax = emax > t * 7 ? emax : t * 7;
        fmax = fmax > -(long)t ? fmax : -(long)t;
        gmax = gmax > t * 0.5 ? gmax : t * 0.5;
        emin = emin < 40 - t ? emin : 40 - t;
        fmin = fmin < (long)t << 44 ? fmin : (long)t << 44;
        gmin = gmin < -t * 1.5 ? gmin : -t * 1.5;
        for (int k = 2; k < 7; k++)
            earr[k] += k * (t + 1);
    }
    CHECK_EQ(is, es);
    CHECK_EQ(ip, ep);
    CHECK_EQ(im, em);
    CHECK_EQ(iand, eand);
    CHECK_EQ(ior, eor);
    CHECK_EQ(ixor, exor);
    CHECK_EQ(iland, eland);
    CHECK_EQ(ilor, elor);
    CHECK_EQ(imax, emax);
    CHECK_EQ(imin, emin);
    CHECK_EQ(ls, fs);
    CHECK_EQ(lp, fp);
    CHECK_EQ(lm, fm);
    CHECK_EQ(land, fand);
    CHECK_EQ(lor, forr);
    CHECK_EQ(lxor, fxor);
    CHECK_EQ(lland, fland);
    CHECK_EQ(llor, flor);
    CHECK_EQ(lmax, fmax);
    CHECK_EQ(lmin, fmin);
    /* all double values are exact binary fractions: exact comparison */
    CHECK(ds == gs);
    CHECK(dp == gp);
    CHECK(dm == gm);
    CHECK_EQ(dland != 0, gland != 0);
    CHECK_EQ(dlor != 0, glor != 0);
    CHECK(dmax == gmax);
    CHECK(dmin == gmin);
    CHECKF(cs == hs, "cs=%g%+gi want %g%+gi", creal(cs), cimag(cs), creal(hs), cimag(hs));
    CHECKF(cp == hp, "cp=%g%+gi want %g%+gi", creal(cp), cimag(cp), creal(hp), cimag(hp));
    CHECK(cm == hm);
    CHECK_EQ(cland != 0, hland);
    CHECK_EQ(clor != 0, hlor);
    for (int k = 0; k < 8; k++)
        CHECK_EQ(arr[k], earr[k]);
}

/* a user-defined reduction: component-wise min/max of a 2-int struct */
struct range {
    int lo, hi;
};
#pragma omp declare reduction(span:struct range                                          \
                              : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
                                omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = (struct range){1 << 30, -(1 << 30)})

int main(void)
{
    for (int req = 1; req <= 5; req++)
        run(req);
    run(omp_get_max_threads());

    struct range r = {1000, -1000};
    int n = 0;
#pragma omp parallel num_threads(3) reduction(span : r) shared(n)
    {
        int t = omp_get_thread_num();
#pragma omp single
        n = omp_get_num_threads();
        if (t * 100 - 50 < r.lo)
            r.lo = t * 100 - 50;
        if (t * 1000 > r.hi)
            r.hi = t * 1000;
    }
    CHECK_EQ(n, 3);
    CHECK_EQ(r.lo, -50);
    CHECK_EQ(r.hi, 2000);
    return 0;
}
