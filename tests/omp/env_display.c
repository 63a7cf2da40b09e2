/* env_display: OMP_DISPLAY_ENV and OMP_DISPLAY_AFFINITY.
 * RUN-ENV: OMP_NUM_THREADS=2
 * The test runs itself in children with chosen environments and reads
 * their stderr:
 *  - OMP_DISPLAY_ENV=true prints the environment block once at start-up
 *    (before main), showing the values set: OMP_NUM_THREADS '3,2',
 *    OMP_SCHEDULE 'GUIDED,4', OMP_DYNAMIC 'TRUE', OMP_PROC_BIND
 *    'SPREAD,CLOSE', OMP_PLACES '{0},{1}', OMP_STACKSIZE '3145728' (3M in
 *    bytes), OMP_WAIT_POLICY 'ACTIVE', OMP_THREAD_LIMIT '9',
 *    OMP_MAX_ACTIVE_LEVELS '4', OMP_NUM_TEAMS '4', OMP_TEAMS_THREAD_LIMIT
 *    '3', OMP_CANCELLATION 'TRUE', OMP_DEFAULT_DEVICE '2',
 *    OMP_MAX_TASK_PRIORITY '7', OMP_DISPLAY_AFFINITY 'FALSE',
 *    OMP_AFFINITY_FORMAT 'aff %n/%N', OMP_ALLOCATOR 'omp_pteam_mem_alloc';
 *    the ICV routines agree with them (same run);
 *  - OMP_DISPLAY_ENV=verbose adds GOMP_* lines; OMP_DISPLAY_ENV=false
 *    (and unset) print nothing; OMP_STACKSIZE=100 means 100 KiB;
 *    OMP_WAIT_POLICY=passive shows 'PASSIVE';
 *  - OMP_DISPLAY_AFFINITY=true with OMP_AFFINITY_FORMAT="aff %n/%N": a
 *    region of 3 threads prints "aff 0/3", "aff 1/3", "aff 2/3" (any
 *    order); a second identical region prints nothing (nothing changed);
 *    a region of 2 prints "aff 0/2", "aff 1/2".
 */
#include "omp_check.h"

static void child_icvs(void)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    printf("%d %d %d %d %d %d %d %d %d %d %d %d\n", omp_get_max_threads(), (int)k, c,
           omp_get_dynamic(), (int)omp_get_proc_bind(), omp_get_num_places(),
           omp_get_thread_limit(), omp_get_max_active_levels(), omp_get_max_teams(),
           omp_get_teams_thread_limit(), omp_get_cancellation(), omp_get_max_task_priority());
    exit(0);
}

static void child_affinity(void)
{
    int s = 0;
#pragma omp parallel num_threads(3) reduction(+ : s)
    s++;
#pragma omp parallel num_threads(3) reduction(+ : s)
    s++;
#pragma omp parallel num_threads(2) reduction(+ : s)
    s++;
    printf("%d\n", s);
    exit(0);
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_line(const char *text, const char *line)
{
    char pat[512];
    snprintf(pat, sizeof pat, "\n%s\n", line);
    return strstr(text, pat) != NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "icvs"))
        child_icvs();
    if (argc > 1 && !strcmp(argv[1], "affinity"))
        child_affinity();

    int two_cpus = omp_get_num_procs() >= 2;
    const char *env_full[] = {"OMP_DISPLAY_ENV=true",
                              "OMP_NUM_THREADS=3,2",
                              "OMP_SCHEDULE=guided,4",
                              "OMP_WAIT_POLICY=active",
                              "OMP_STACKSIZE=3M",
                              "OMP_PROC_BIND=spread,close",
                              two_cpus ? "OMP_PLACES={0},{1}" : "OMP_PLACES={0}",
                              "OMP_MAX_TASK_PRIORITY=7",
                              "OMP_DEFAULT_DEVICE=2",
                              "OMP_CANCELLATION=true",
                              "OMP_ALLOCATOR=omp_pteam_mem_alloc",
                              "OMP_NUM_TEAMS=4",
                              "OMP_TEAMS_THREAD_LIMIT=3",
                              "OMP_THREAD_LIMIT=9",
                              "OMP_DYNAMIC=true",
                              "OMP_MAX_ACTIVE_LEVELS=4",
                              "OMP_AFFINITY_FORMAT=aff %n/%N",
                              NULL};
    struct child c = run_self("icvs", env_full);
    CHECKF(c.exited && c.status == 0, "child status %d", c.status);
    const char *want_lines[] = {
        "OPENMP DISPLAY ENVIRONMENT BEGIN",
        "  OMP_DYNAMIC = 'TRUE'",
        "  OMP_NUM_THREADS = '3,2'",
        "  OMP_SCHEDULE = 'GUIDED,4'",
        "  OMP_PROC_BIND = 'SPREAD,CLOSE'",
        two_cpus ? "  OMP_PLACES = '{0},{1}'" : "  OMP_PLACES = '{0}'",
        "  OMP_STACKSIZE = '3145728'",
        "  OMP_WAIT_POLICY = 'ACTIVE'",
        "  OMP_THREAD_LIMIT = '9'",
        "  OMP_MAX_ACTIVE_LEVELS = '4'",
        "  OMP_NUM_TEAMS = '4'",
        "  OMP_TEAMS_THREAD_LIMIT = '3'",
        "  OMP_CANCELLATION = 'TRUE'",
        "  OMP_DEFAULT_DEVICE = '2'",
        "  OMP_MAX_TASK_PRIORITY = '7'",
        "  OMP_DISPLAY_AFFINITY = 'FALSE'",
        "  OMP_AFFINITY_FORMAT = 'aff %n/%N'",
        "  OMP_ALLOCATOR = 'omp_pteam_mem_alloc'",
        "OPENMP DISPLAY ENVIRONMENT END",
    };
    for (unsigned i = 0; i < sizeof want_lines / sizeof *want_lines; i++)
        CHECKF(has_line(c.err, want_lines[i]), "line [%s] missing from:\n%s", want_lines[i],
               c.err);
    CHECK(strstr(c.err, "GOMP_") == NULL);
    {
        int v[12];
        CHECK_EQ(sscanf(c.out, "%d %d %d %d %d %d %d %d %d %d %d %d", &v[0], &v[1], &v[2], &v[3],
                        &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]),
                 12);
        CHECK_EQ(v[0], 3);
        CHECK_EQ(v[1], omp_sched_guided);
        CHECK_EQ(v[2], 4);
        CHECK_EQ(v[3], 1);
        CHECK_EQ(v[4], omp_proc_bind_spread);
        CHECK_EQ(v[5], two_cpus ? 2 : 1);
        CHECK_EQ(v[6], 9);
        CHECK_EQ(v[7], 4);
        CHECK_EQ(v[8], 4);
        CHECK_EQ(v[9], 3);
        CHECK_EQ(v[10], 1);
        CHECK_EQ(v[11], 7);
    }
    child_free(&c);

    const char *env_verbose[] = {"OMP_DISPLAY_ENV=verbose", "OMP_STACKSIZE=100",
                                 "OMP_WAIT_POLICY=passive", NULL};
    c = run_self("icvs", env_verbose);
    CHECK(c.exited && c.status == 0);
    CHECK(has_line(c.err, "  OMP_STACKSIZE = '102400'"));
    CHECK(has_line(c.err, "  OMP_WAIT_POLICY = 'PASSIVE'"));
    CHECK(strstr(c.err, "\n  GOMP_") != NULL);
    child_free(&c);

    const char *env_off[] = {"OMP_DISPLAY_ENV=false", NULL};
    c = run_self("icvs", env_off);
    CHECK(c.exited && c.status == 0);
    CHECKF(c.err[0] == '\0', "OMP_DISPLAY_ENV=false printed [%s]", c.err);
    child_free(&c);
    c = run_self("icvs", NULL);
    CHECK(c.exited && c.status == 0 && c.err[0] == '\0');
    child_free(&c);

    const char *env_aff[] = {"OMP_DISPLAY_AFFINITY=true", "OMP_AFFINITY_FORMAT=aff %n/%N", NULL};
    c = run_self("affinity", env_aff);
    CHECK(c.exited && c.status == 0);
    CHECK(!strcmp(c.out, "8\n"));
    char *lines[16];
    int nl = 0;
    for (char *save = NULL, *tok = strtok_r(c.err, "\n", &save); tok && nl < 16;
         tok = strtok_r(NULL, "\n", &save))
        lines[nl++] = tok;
    qsort(lines, nl, sizeof *lines, cmpstr);
    static const char *want_aff[] = {"aff 0/2", "aff 0/3", "aff 1/2", "aff 1/3", "aff 2/3"};
    CHECKF(nl == 5, "%d affinity lines", nl);
    for (int i = 0; i < 5; i++)
        CHECKF(!strcmp(lines[i], want_aff[i]), "affinity line [%s], expected [%s]", lines[i],
               want_aff[i]);
    child_free(&c);
    return 0;
}
