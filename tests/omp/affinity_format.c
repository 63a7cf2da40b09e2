/* affinity_format: every field and size form of the affinity format
 * (OpenMP 5.1 section 6.14, libgomp's documented fields), beyond
 * ../api_affinity.c.
 *  - %i / %{native_thread_id}: "0x" and hex digits; %0.Ni pads with zeros
 *    after the "0x" to N characters in all, %.Ni / %Ni pad with blanks;
 *  - %A / %{thread_affinity}: the CPUs of the thread's place as a list
 *    with ranges ("0-3,6"), or the CPUs the process may use when the
 *    thread has no place; string fields take widths with blanks only
 *    ("%0.6A" is blank padded, like "%.6A");
 *  - numbers: "%0.4a" of -1 is "-001", "%.4a" is "  -1", "%4a" is "-1  ";
 *  - in nested teams %L, %n, %N, %a are the thread's own at its level;
 *    in a host teams region %t and %T are the team number and count;
 *  - OMP_AFFINITY_FORMAT sets affinity-format-var (an empty value too);
 *  - OMP_DISPLAY_AFFINITY=true prints, on stderr, one line per thread of
 *    the first parallel region in affinity-format-var's form;
 *  - malformed formats are fatal with libgomp's message on stderr and exit
 *    status 1: "%05n" (leading zero not followed by dot), "%.n" (size
 *    required), "%x", "%-3n", "%{foo}", "%{team_num" (unterminated).
 */
#include "omp_check.h"

#include <sched.h>

/* "a-b,c" form of a sorted CPU list */
static void cpu_list(char *out, size_t cap, const int *c, int n)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && c[j + 1] == c[j] + 1)
            j++;
        if (j == i)
            len += snprintf(out + len, cap - len, "%s%d", i ? "," : "", c[i]);
        else
            len += snprintf(out + len, cap - len, "%s%d-%d", i ? "," : "", c[i], c[j]);
        i = j + 1;
    }
}

/* What %A must show for the calling thread. */
static void expected_affinity(char *out, size_t cap)
{
    int ids[1024], n = 0;
    int p = omp_get_place_num();
    if (p >= 0) {
        n = omp_get_place_num_procs(p);
        CHECK(n > 0 && n <= 1024);
        omp_get_place_proc_ids(p, ids);
        /* sort (a place lists its CPUs in any order) */
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
                int t = ids[j];
                ids[j] = ids[j - 1];
                ids[j - 1] = t;
            }
    } else {
        cpu_set_t set;
        CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
        for (int c = 0; c < CPU_SETSIZE && n < 1024; c++)
            if (CPU_ISSET(c, &set))
                ids[n++] = c;
    }
    cpu_list(out, cap, ids, n);
}

static void check_native_id(void)
{
    char buf[128];
    omp_capture_affinity(buf, sizeof buf, "%i");
    CHECKF(buf[0] == '0' && buf[1] == 'x' && buf[2], "%%i gave [%s]", buf);
    for (char *q = buf + 2; *q; q++)
        CHECKF((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f'), "%%i gave [%s]", buf);
    size_t len = strlen(buf);
    char b2[128];
    omp_capture_affinity(b2, sizeof b2, "%{native_thread_id}");
    CHECK(!strcmp(buf, b2));
    /* widths: zeros go after the "0x" */
    char w[160];
    CHECK(len <= 30);
    memcpy(w, "0x", 2);
    memset(w + 2, '0', 30 - len);
    strcpy(w + 2 + 30 - len, buf + 2);
    strcat(w, "|");
    omp_capture_affinity(b2, sizeof b2, "%0.30i|");
    CHECKF(!strcmp(b2, w), "%%0.30i gave [%s], expected [%s]", b2, w);
    omp_capture_affinity(b2, sizeof b2, "%.30i|");
    CHECKF(strlen(b2) == 31 && !strncmp(b2 + 30 - len, buf, len) && b2[0] == ' ', "%%.30i gave [%s]", b2);
    omp_capture_affinity(b2, sizeof b2, "%30i|");
    CHECKF(strlen(b2) == 31 && !strncmp(b2, buf, len) && b2[29] == ' ', "%%30i gave [%s]", b2);
    omp_capture_affinity(b2, sizeof b2, "%0.3i");
    CHECK(!strcmp(b2, buf)); /* narrower than the value: the value */
}

static void check_affinity_field(void)
{
    char want[4096], got[4096], pad[4200];
    expected_affinity(want, sizeof want);
    omp_capture_affinity(got, sizeof got, "%A");
    CHECKF(!strcmp(got, want), "%%A gave [%s], expected [%s]", got, want);
    omp_capture_affinity(got, sizeof got, "%{thread_affinity}");
    CHECK(!strcmp(got, want));
    int w = (int)strlen(want) + 3;
    snprintf(pad, sizeof pad, "%*s|", w, want);
    snprintf(want, sizeof want, "%%0.%dA|", w);
    omp_capture_affinity(got, sizeof got, want);
    CHECKF(!strcmp(got, pad), "%s gave [%s]", want, got);
    snprintf(want, sizeof want, "%%.%dA|", w);
    omp_capture_affinity(got, sizeof got, want);
    CHECKF(!strcmp(got, pad), "%s gave [%s]", want, got);
}

static void child_format(const char *fmt)
{
    char buf[64];
    omp_capture_affinity(buf, sizeof buf, fmt);
    printf("survived [%s]\n", buf);
    exit(0);
}

static void child_display(void)
{
    int sink = 0;
#pragma omp parallel num_threads(3)
    __atomic_fetch_add(&sink, omp_get_thread_num(), __ATOMIC_RELAXED); /* not an empty region */
    (void)sink;
    exit(0);
}

static void child_env_format(void)
{
    char buf[256];
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    printf("%zu[%s]", n, buf);
    exit(0);
}

static void fatal_format(const char *fmt, const char *msg)
{
    char mode[128];
    snprintf(mode, sizeof mode, "fmt:%s", fmt);
    struct child c = run_self(mode, NULL);
    char want[256];
    snprintf(want, sizeof want, "\nlibgomp: %s\n", msg);
    CHECKF(c.exited && c.status == 1, "format [%s]: exited %d status %d, out [%s]", fmt, c.exited, c.status, c.out);
    CHECKF(!strcmp(c.err, want), "format [%s]: stderr [%s], expected [%s]", fmt, c.err, want);
    child_free(&c);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "fmt:", 4))
        child_format(argv[1] + 4);
    if (argc > 1 && !strcmp(argv[1], "display"))
        child_display();
    if (argc > 1 && !strcmp(argv[1], "envfmt"))
        child_env_format();

    char buf[512];
    check_native_id();
    check_affinity_field();

    /* numbers with a sign */
    omp_capture_affinity(buf, sizeof buf, "[%0.4a][%.4a][%4a][%0.2a][%.1a]");
    CHECKF(!strcmp(buf, "[-001][  -1][-1  ][-1][-1]"), "got [%s]", buf);
    omp_capture_affinity(buf, sizeof buf, "[%0.3{ancestor_tnum}][%0.3{process_id}]");
    char want[128];
    snprintf(want, sizeof want, "[-01][%03d]", (int)getpid());
    CHECKF(!strcmp(buf, want), "got [%s] want [%s]", buf, want);
    /* text around fields, %% next to a field */
    omp_capture_affinity(buf, sizeof buf, "a%%%n%%b%%");
    CHECKF(!strcmp(buf, "a%0%b%"), "got [%s]", buf);

    /* nested teams */
    omp_set_max_active_levels(2);
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        int outer = omp_get_thread_num();
        char b[128], w[128];
        snprintf(w, sizeof w, "L1 n%d N2 a0", outer);
        omp_capture_affinity(b, sizeof b, "L%L n%n N%N a%a");
        if (strcmp(b, w))
            bad++, fprintf(stderr, "level 1: [%s] want [%s]\n", b, w);
        check_affinity_field();
#pragma omp parallel num_threads(2) reduction(+ : bad)
        {
            char b2[128], w2[128];
            snprintf(w2, sizeof w2, "L2 n%d N%d a%d", omp_get_thread_num(), omp_get_num_threads(), outer);
            omp_capture_affinity(b2, sizeof b2, "L%{nesting_level} n%{thread_num} N%{num_threads} a%{ancestor_tnum}");
            if (strcmp(b2, w2))
                bad++, fprintf(stderr, "level 2: [%s] want [%s]\n", b2, w2);
        }
    }
    CHECK_EQ(bad, 0);

    /* host teams */
    int tbad = 0;
#pragma omp teams num_teams(3) reduction(+ : tbad)
    {
#pragma omp parallel num_threads(1) reduction(+ : tbad)
        {
            char b[64], w[64];
            snprintf(w, sizeof w, "t%d T%d", omp_get_team_num(), omp_get_num_teams());
            omp_capture_affinity(b, sizeof b, "t%t T%{num_teams}");
            if (strcmp(b, w) || omp_get_num_teams() != 3)
                tbad++, fprintf(stderr, "teams: [%s] want [%s] of 3\n", b, w);
        }
    }
    CHECK_EQ(tbad, 0);

    /* OMP_AFFINITY_FORMAT */
    const char *env1[] = {"OMP_AFFINITY_FORMAT=<%n:%N> %{host} ", NULL};
    struct child c = run_self("envfmt", env1);
    CHECKF(c.exited && c.status == 0 && !strcmp(c.out, "16[<%n:%N> %{host} ]"), "out [%s]", c.out);
    child_free(&c);
    const char *env2[] = {"OMP_AFFINITY_FORMAT=", NULL};
    c = run_self("envfmt", env2);
    CHECKF(c.exited && c.status == 0 && !strcmp(c.out, "0[]"), "out [%s]", c.out);
    child_free(&c);

    /* OMP_DISPLAY_AFFINITY: a line per thread at the first region */
    const char *env3[] = {"OMP_DISPLAY_AFFINITY=true", "OMP_AFFINITY_FORMAT=TH %n/%N", NULL};
    c = run_self("display", env3);
    CHECKF(c.exited && c.status == 0, "display child status %d", c.status);
    for (int t = 0; t < 3; t++) {
        snprintf(want, sizeof want, "TH %d/3\n", t);
        CHECKF(strstr(c.err, want) != NULL, "no [%s] in stderr [%s]", want, c.err);
    }
    CHECKF(strlen(c.err) >= 3 * strlen("TH 0/3\n") && !strstr(c.err, "TH 3/"), "stderr [%s]", c.err);
    child_free(&c);

    /* malformed formats: fatal */
    fatal_format("%05n", "leading zero not followed by dot in affinity format");
    fatal_format("x%0n", "leading zero not followed by dot in affinity format");
    fatal_format("%.n", "leading zero or right justification in affinity format requires size");
    fatal_format("%0.n", "leading zero or right justification in affinity format requires size");
    fatal_format("%x", "unsupported type x in affinity format");
    fatal_format("%-3n", "unsupported type - in affinity format");
    fatal_format("%5%", "unsupported type % in affinity format");
    fatal_format("%{foo}", "unsupported long type name 'foo' in affinity format");
    fatal_format("%{team_num", "unterminated long type name 'team_num' in affinity format");
    printf("affinity_format: ok\n");
    return 0;
}
