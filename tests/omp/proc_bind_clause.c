/* proc_bind_clause: what omp_get_proc_bind() says inside regions with and
 * without a proc_bind clause.
 * RUN-ENV: OMP_PROC_BIND=true
 * RUN-ENV: OMP_PROC_BIND=false
 * RUN-ENV: OMP_PROC_BIND=spread,primary,close
 * RUN-ENV: OMP_PROC_BIND=close OMP_PLACES=threads
 * RUN-ENV: OMP_PLACES=cores
 * RUN-ENV: OMP_NUM_THREADS=2
 *
 * bind-var of a region's threads is the clause's policy, unless bind-var
 * was false (then the clause is ignored and it stays false); where
 * OMP_PROC_BIND lists a policy for the new nesting level, that one wins
 * over the clause. Nested regions without a clause inherit it. (weft-omp
 * once ignored the clause here: GCC's libgomp.c++/affinity-1.C.)
 */
#include <string.h>

#include "omp_check.h"

static const char *env;
static int list[3], list_len;

static int parse1(const char *s, size_t n)
{
    if (!strncmp(s, "true", n)) return omp_proc_bind_true;
    if (!strncmp(s, "false", n)) return omp_proc_bind_false;
    if (!strncmp(s, "close", n)) return omp_proc_bind_close;
    if (!strncmp(s, "spread", n)) return omp_proc_bind_spread;
    return omp_proc_bind_primary;
}

/* bind-var expected inside a region at `level` whose encountering
 * thread's bind-var is `outer`, with clause `clause` (0: none) */
static int expect(int level, int outer, int clause)
{
    int b = outer != omp_proc_bind_false && clause ? clause : outer;
    return level < list_len ? list[level] : b;
}

static void check_here(int want)
{
    CHECK_EQ(omp_get_proc_bind(), want);
}

int main(void)
{
    env = getenv("OMP_PROC_BIND");
    for (const char *p = env; p && *p && list_len < 3;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        list[list_len++] = parse1(p, n);
        p = c ? c + 1 : p + n;
    }
    /* The initial bind-var: OMP_PROC_BIND's first entry, else what the
     * library starts with (with OMP_PLACES alone, libgomp takes true). */
    int b0 = omp_get_proc_bind();
    if (list_len) CHECK_EQ(b0, list[0]);
    omp_set_max_active_levels(4);

#pragma omp parallel num_threads(2) proc_bind(spread)
    {
        int b1 = expect(1, b0, omp_proc_bind_spread);
        check_here(b1);
#pragma omp parallel num_threads(2)
        {
            int b2 = expect(2, b1, 0);
            check_here(b2);
#pragma omp parallel if (0) proc_bind(primary)
            check_here(expect(3, b2, omp_proc_bind_primary));
#pragma omp parallel if (0)
            check_here(expect(3, b2, 0));
        }
#pragma omp parallel if (0) proc_bind(close)
        {
            int b2 = expect(2, b1, omp_proc_bind_close);
            check_here(b2);
#pragma omp parallel if (0)
            check_here(expect(3, b2, 0));
        }
    }
#pragma omp parallel if (0) proc_bind(primary)
    check_here(expect(1, b0, omp_proc_bind_primary));
    check_here(b0);
    return 0;
}
