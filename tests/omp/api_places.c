/* api_places: places and thread binding (OMP_PLACES, OMP_PROC_BIND and
 * the place routines).
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_PLACES=threads OMP_NUM_THREADS=2
 * RUN-ENV: OMP_PLACES=cores OMP_NUM_THREADS=4
 * RUN-ENV: OMP_PLACES={0},{1} OMP_PROC_BIND=spread OMP_NUM_THREADS=2
 * RUN-ENV: OMP_PLACES={1},{0} OMP_PROC_BIND=close OMP_NUM_THREADS=3
 * RUN-ENV: OMP_PROC_BIND=close OMP_NUM_THREADS=4
 * RUN-ENV: OMP_PLACES={0},{1} OMP_PROC_BIND=spread OMP_NUM_THREADS=5
 * RUN-ENV: OMP_PLACES={0},{1} OMP_PROC_BIND=close OMP_NUM_THREADS=7
 * RUN-ENV: OMP_PROC_BIND=spread,close OMP_PLACES=threads OMP_NUM_THREADS=2,2
 *
 * The expected place list is built from the environment and the machine:
 * "threads" = one place per CPU the process may use, "cores" = one place
 * per core (CPUs grouped by /sys/.../topology/core_cpus_list), "{a},{b}" =
 * those CPUs in that order (skipped with a note if they are not all
 * usable), OMP_PROC_BIND alone = cores (libgomp's default), neither =
 * no places (unbound: 0 places, place number -1).  Checked:
 *  - omp_get_num_places, omp_get_place_num_procs (0 outside 0..n-1),
 *    omp_get_place_proc_ids against that list;
 *  - omp_get_proc_bind against OMP_PROC_BIND (true when only OMP_PLACES
 *    is set), per nesting level for a list;
 *  - the initial thread is in place 0, its partition is every place;
 *  - in a team: every thread's place number is valid and sched_getcpu()
 *    is one of that place's CPUs (the thread is bound there); close with
 *    T <= P puts thread i in place (p0 + i) mod P, with T > P places get
 *    floor or ceil(T/P) threads; close and spread with T > P give runs of
 *    T/P consecutive threads per place, then one per place (libgomp's
 *    order); spread with T <= P gives each thread a
 *    distinct subpartition of consecutive places containing its place,
 *    the subpartitions covering the whole list;
 *  - omp_get_partition_num_places / omp_get_partition_place_nums agree.
 */
#include "omp_check.h"

#include <sched.h>

#define MAXC 1024
static int allowed[MAXC], nallowed;
static int eplaces[MAXC][16], esize[MAXC], neplaces;

static void parse_list(const char *s, int *out, int *n)
{
    /* "0-3,5,7-8" */
    *n = 0;
    while (*s && *s != '\n') {
        int a = (int)strtol(s, (char **)&s, 10), b = a;
        if (*s == '-')
            b = (int)strtol(s + 1, (char **)&s, 10);
        for (int c = a; c <= b; c++)
            out[(*n)++] = c;
        if (*s == ',')
            s++;
    }
}

/* the CPUs the process may use: the parent's affinity (libgomp may have
 * bound this thread already), falling back to the online CPUs */
static void read_allowed(void)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)getppid());
    FILE *f = fopen(path, "r");
    nallowed = 0;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "Cpus_allowed_list:", 18)) {
                char *p = line + 18;
                while (*p == ' ' || *p == '\t')
                    p++;
                parse_list(p, allowed, &nallowed);
            }
        fclose(f);
    }
    if (nallowed == 0) {
        f = fopen("/sys/devices/system/cpu/online", "r");
        CHECK(f != NULL);
        CHECK(fgets(line, sizeof line, f) != NULL);
        fclose(f);
        parse_list(line, allowed, &nallowed);
    }
    CHECK(nallowed > 0);
}

static int is_allowed(int c)
{
    for (int i = 0; i < nallowed; i++)
        if (allowed[i] == c)
            return 1;
    return 0;
}

static void expect_threads(void)
{
    neplaces = 0;
    for (int i = 0; i < nallowed; i++) {
        eplaces[neplaces][0] = allowed[i];
        esize[neplaces++] = 1;
    }
}

static void expect_cores(void)
{
    static int done[MAXC];
    memset(done, 0, sizeof done);
    neplaces = 0;
    for (int i = 0; i < nallowed; i++) {
        int c = allowed[i];
        if (done[c])
            continue;
        char path[128], line[512];
        int sib[MAXC], nsib = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", c);
        FILE *f = fopen(path, "r");
        if (!f) {
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
            f = fopen(path, "r");
        }
        if (f && fgets(line, sizeof line, f))
            parse_list(line, sib, &nsib);
        if (f)
            fclose(f);
        if (nsib == 0) {
            sib[0] = c;
            nsib = 1;
        }
        esize[neplaces] = 0;
        for (int k = 0; k < nsib; k++)
            if (is_allowed(sib[k]) && !done[sib[k]]) {
                done[sib[k]] = 1;
                eplaces[neplaces][esize[neplaces]++] = sib[k];
            }
        neplaces++;
    }
}

static int bind_of(const char *s)
{
    if (!strncasecmp(s, "true", 4))
        return omp_proc_bind_true;
    if (!strncasecmp(s, "false", 5))
        return omp_proc_bind_false;
    if (!strncasecmp(s, "close", 5))
        return omp_proc_bind_close;
    if (!strncasecmp(s, "spread", 6))
        return omp_proc_bind_spread;
    return omp_proc_bind_primary;
}

static int in_place(int cpu, int p)
{
    int ids[MAXC];
    int n = omp_get_place_num_procs(p);
    omp_get_place_proc_ids(p, ids);
    for (int i = 0; i < n; i++)
        if (ids[i] == cpu)
            return 1;
    return 0;
}

int main(void)
{
    read_allowed();
    const char *pl = getenv("OMP_PLACES"), *pb = getenv("OMP_PROC_BIND");
    int bind1 = omp_proc_bind_false, bind2 = omp_proc_bind_false;
    if (pb) {
        bind1 = bind_of(pb);
        const char *comma = strchr(pb, ',');
        bind2 = comma ? bind_of(comma + 1) : bind1;
    } else if (pl) {
        bind1 = bind2 = omp_proc_bind_true;
    }

    if (!pl && !pb)
        neplaces = 0;
    else if (!pl || !strcmp(pl, "cores"))
        expect_cores();
    else if (!strcmp(pl, "threads"))
        expect_threads();
    else {
        /* "{a},{b},..." */
        neplaces = 0;
        for (const char *s = pl; *s;) {
            CHECK(*s == '{');
            int c = (int)strtol(s + 1, (char **)&s, 10);
            CHECK(*s == '}');
            s++;
            if (*s == ',')
                s++;
            if (!is_allowed(c)) {
                printf("note: CPU %d of OMP_PLACES=%s is not usable here; test skipped\n", c, pl);
                return 0;
            }
            eplaces[neplaces][0] = c;
            esize[neplaces++] = 1;
        }
    }

    int n = omp_get_num_places();
    CHECKF(n == neplaces, "omp_get_num_places() = %d, expected %d", n, neplaces);
    for (int p = 0; p < n; p++) {
        int ids[MAXC];
        CHECK_EQ(omp_get_place_num_procs(p), esize[p]);
        omp_get_place_proc_ids(p, ids);
        for (int k = 0; k < esize[p]; k++)
            CHECKF(ids[k] == eplaces[p][k], "place %d proc %d is %d, expected %d", p, k, ids[k],
                   eplaces[p][k]);
    }
    CHECK_EQ(omp_get_place_num_procs(-1), 0);
    CHECK_EQ(omp_get_place_num_procs(n), 0);
    CHECK_EQ(omp_get_proc_bind(), bind1);

    if (n == 0) {
        CHECK_EQ(omp_get_place_num(), -1);
        CHECK_EQ(omp_get_partition_num_places(), 0);
        int bad = 0;
#pragma omp parallel reduction(+ : bad)
        if (omp_get_place_num() != -1 || omp_get_partition_num_places() != 0)
            bad++;
        CHECK_EQ(bad, 0);
        return 0;
    }

    /* the initial thread */
    CHECK_EQ(omp_get_place_num(), 0);
    CHECK_EQ(omp_get_partition_num_places(), n);
    {
        int pn[MAXC];
        omp_get_partition_place_nums(pn);
        for (int p = 0; p < n; p++)
            CHECK_EQ(pn[p], p);
    }

    /* a team */
    static int tplace[64], tpart_first[64], tpart_n[64], tcpu_ok[64], tbind2[64];
    int T = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel shared(T)
    {
        int t = omp_get_thread_num();
#pragma omp single
        T = omp_get_num_threads();
        tplace[t] = omp_get_place_num();
        tpart_n[t] = omp_get_partition_num_places();
        int pn[MAXC];
        omp_get_partition_place_nums(pn);
        tpart_first[t] = pn[0];
        int contiguous = 1, mine = 0;
        for (int k = 0; k < tpart_n[t]; k++) {
            if (k && pn[k] != pn[k - 1] + 1)
                contiguous = 0;
            if (pn[k] == tplace[t])
                mine = 1;
        }
        tcpu_ok[t] = tplace[t] >= 0 && tplace[t] < n && in_place(sched_getcpu(), tplace[t]) &&
                     contiguous && mine;
        /* nested level */
        tbind2[t] = -1;
#pragma omp parallel num_threads(2)
#pragma omp master
        tbind2[t] = omp_get_proc_bind();
    }
    CHECK(T >= 1 && T <= 64);
    for (int t = 0; t < T; t++) {
        CHECKF(tcpu_ok[t], "thread %d: place %d, cpu not in it / bad partition", t, tplace[t]);
        CHECK_EQ(tbind2[t], bind2);
    }
    if (bind1 == omp_proc_bind_close) {
        if (T <= n) {
            for (int t = 0; t < T; t++)
                CHECKF(tplace[t] == (tplace[0] + t) % n, "close: thread %d in place %d", t,
                       tplace[t]);
        } else {
            int per[MAXC] = {0};
            for (int t = 0; t < T; t++)
                per[tplace[t]]++;
            for (int p = 0; p < n; p++)
                CHECKF(per[p] >= T / n && per[p] <= (T + n - 1) / n, "close: place %d has %d", p,
                       per[p]);
        }
        for (int t = 0; t < T; t++)
            CHECK_EQ(tpart_n[t], n);
    }
    if ((bind1 == omp_proc_bind_close || bind1 == omp_proc_bind_spread) && T > n) {
        /* libgomp's order: runs of T/P consecutive threads per place from
         * thread 0's on, then the T%P left over one per place from there. */
        int run = T / n, rest = T % n;
        for (int t = 0; t < T; t++) {
            int k = t < T - rest ? t / run : t - (T - rest);
            CHECKF(tplace[t] == (tplace[0] + k) % n, "T > P: thread %d in place %d", t, tplace[t]);
        }
    }
    if (bind1 == omp_proc_bind_spread && T <= n) {
        int cover[MAXC] = {0};
        for (int t = 0; t < T; t++)
            for (int k = 0; k < tpart_n[t]; k++)
                cover[tpart_first[t] + k]++;
        for (int p = 0; p < n; p++)
            CHECKF(cover[p] == 1, "spread: place %d in %d subpartitions", p, cover[p]);
    }
    return 0;
}
