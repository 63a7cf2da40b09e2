/* env_warnings: what malformed (and unusual but valid) environment
 * variables do, exactly as libgomp 12 does it: the warning text on
 * stderr ("\nlibgomp: ...\n"), the value the ICV ends up with, the order
 * of several warnings, and the OMP_DISPLAY_ENV block (OpenMP 5.1 chapter
 * 6 leaves the diagnostics to the implementation; a drop-in replacement
 * keeps libgomp's). Each case runs this program in a child with only its
 * variables set (every other OMP_* and GOMP_* removed) and compares the
 * child's stderr and its printout of the ICVs.
 */
#include "omp_check.h"

static void child_icv(void)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    printf("nt=%d/%d dyn=%d sched=%#x,%d mal=%d tl=%d bind=%d np=%d prio=%d dev=%d teams=%d ttl=%d cancel=%d "
           "alloc=%lu",
           omp_get_max_threads(), omp_get_num_procs(), omp_get_dynamic(), (unsigned)k, c, omp_get_max_active_levels(), omp_get_thread_limit(),
           (int)omp_get_proc_bind(), omp_get_num_places(), omp_get_max_task_priority(), omp_get_default_device(),
           omp_get_max_teams(), omp_get_teams_thread_limit(), omp_get_cancellation(),
           (unsigned long)omp_get_default_allocator());
    exit(0);
}

#define DEF_NT "nt=P"
#define DEF_REST "dyn=0 sched=0x2,1 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"
#define DEFAULTS DEF_NT " " DEF_REST
#define INVALID(name) "\nlibgomp: Invalid value for environment variable " name "\n"

struct tcase {
    const char *env[6];
    const char *err; /* exact stderr */
    const char *icv; /* exact printout, NULL: not checked */
};

static const struct tcase cases[] = {
    {{"OMP_NUM_THREADS=x"}, INVALID("OMP_NUM_THREADS"), DEFAULTS},
    {{"OMP_NUM_THREADS=4,0"}, INVALID("OMP_NUM_THREADS"), DEFAULTS},
    {{"OMP_NUM_THREADS=4,"}, INVALID("OMP_NUM_THREADS"), DEFAULTS},
    {{"OMP_NUM_THREADS=-3"}, INVALID("OMP_NUM_THREADS"), DEFAULTS},
    {{"OMP_NUM_THREADS="}, INVALID("OMP_NUM_THREADS"), DEFAULTS},
    {{"OMP_NUM_THREADS= 4 , 3 "}, "", "nt=4 dyn=0 sched=0x2,1 mal=255 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 "
                                      "ttl=0 cancel=0 alloc=1"},
    {{"OMP_SCHEDULE=foo"}, "\nlibgomp: Unknown value for environment variable OMP_SCHEDULE\n", DEFAULTS},
    {{"OMP_SCHEDULE=runtime"}, "\nlibgomp: Unknown value for environment variable OMP_SCHEDULE\n", DEFAULTS},
    {{"OMP_SCHEDULE=static,x"},
     "\nlibgomp: Invalid value for chunk size in environment variable OMP_SCHEDULE\n",
     DEF_NT " dyn=0 sched=0x80000001,1 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_SCHEDULE=dynamic,2147483648"},
     "\nlibgomp: Invalid value for chunk size in environment variable OMP_SCHEDULE\n", DEFAULTS},
    {{"OMP_SCHEDULE= GUIDED , 7 "}, "",
     DEF_NT " dyn=0 sched=0x3,7 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_SCHEDULE=monotonic : dynamic"}, "",
     DEF_NT " dyn=0 sched=0x80000002,1 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_SCHEDULE=nonmonotonic:static,0"}, "",
     DEF_NT " dyn=0 sched=0x1,0 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_SCHEDULE=static"}, "",
     DEF_NT " dyn=0 sched=0x80000001,0 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_SCHEDULE=auto,4"}, "",
     DEF_NT " dyn=0 sched=0x4,4 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_DYNAMIC=yes"}, INVALID("OMP_DYNAMIC"), DEFAULTS},
    {{"OMP_DYNAMIC= TRUE "}, "", DEF_NT " dyn=1 sched=0x2,1 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 "
                                 "ttl=0 cancel=0 alloc=1"},
    {{"OMP_NESTED=1"}, INVALID("OMP_NESTED"), DEFAULTS},
    {{"OMP_NESTED=true"}, "", DEF_NT " dyn=0 sched=0x2,1 mal=255 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 "
                              "ttl=0 cancel=0 alloc=1"},
    {{"OMP_NESTED=true", "OMP_MAX_ACTIVE_LEVELS=2"}, "",
     DEF_NT " dyn=0 sched=0x2,1 mal=2 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_NESTED=false", "OMP_NUM_THREADS=3,2"}, "",
     "nt=3 dyn=0 sched=0x2,1 mal=1 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_MAX_ACTIVE_LEVELS=-1"}, INVALID("OMP_MAX_ACTIVE_LEVELS"), DEFAULTS},
    {{"OMP_MAX_ACTIVE_LEVELS=1000"}, "",
     DEF_NT " dyn=0 sched=0x2,1 mal=255 tl=2147483647 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=1"},
    {{"OMP_THREAD_LIMIT=0"}, INVALID("OMP_THREAD_LIMIT"), DEFAULTS},
    {{"OMP_THREAD_LIMIT=5"}, "", DEF_NT " dyn=0 sched=0x2,1 mal=1 tl=5 bind=0 np=0 prio=0 dev=0 teams=0 ttl=0 "
                                 "cancel=0 alloc=1"},
    {{"OMP_PROC_BIND=sideways"}, INVALID("OMP_PROC_BIND"), DEFAULTS},
    {{"OMP_PROC_BIND=true,close"}, INVALID("OMP_PROC_BIND"), DEFAULTS},
    {{"OMP_PROC_BIND=close,"}, INVALID("OMP_PROC_BIND"), DEFAULTS},
    {{"OMP_PLACES=foo"}, INVALID("OMP_PLACES"), DEFAULTS},
    {{"OMP_PLACES={0"}, INVALID("OMP_PLACES"), DEFAULTS},
    {{"OMP_PLACES={0},!{0}"}, "\nlibgomp: All places have been removed\n" INVALID("OMP_PLACES"), DEFAULTS},
    {{"OMP_PLACES={0:2},!{0}"},
     "\nlibgomp: Trying to remove a non-existing place from list of places\n" INVALID("OMP_PLACES"), DEFAULTS},
    {{"OMP_PLACES=threads(0)"}, "\nlibgomp: Error reading core/socket topology\n", DEFAULTS},
    {{"OMP_PROC_BIND=false", "OMP_PLACES=threads"}, "", DEFAULTS},
    {{"OMP_STACKSIZE=1"}, "\nlibgomp: Stack size less than minimum of 16k\n", DEFAULTS},
    {{"OMP_STACKSIZE=5MB"}, INVALID("OMP_STACKSIZE"), DEFAULTS},
    {{"OMP_STACKSIZE=x", "GOMP_STACKSIZE=y"}, INVALID("OMP_STACKSIZE") INVALID("GOMP_STACKSIZE"), DEFAULTS},
    {{"OMP_WAIT_POLICY=busy"}, INVALID("OMP_WAIT_POLICY"), DEFAULTS},
    {{"GOMP_SPINCOUNT=lots"}, INVALID("GOMP_SPINCOUNT"), DEFAULTS},
    {{"GOMP_CPU_AFFINITY=x"}, "\nlibgomp: Invalid value for enviroment variable GOMP_CPU_AFFINITY\n", DEFAULTS},
    {{"OMP_MAX_TASK_PRIORITY=-1"}, INVALID("OMP_MAX_TASK_PRIORITY"), DEFAULTS},
    {{"OMP_MAX_TASK_PRIORITY=3000000000"}, INVALID("OMP_MAX_TASK_PRIORITY"), DEFAULTS},
    {{"OMP_DEFAULT_DEVICE=-1"}, INVALID("OMP_DEFAULT_DEVICE"), DEFAULTS},
    {{"OMP_NUM_TEAMS=0"}, INVALID("OMP_NUM_TEAMS"), DEFAULTS},
    {{"OMP_TEAMS_THREAD_LIMIT=0"}, INVALID("OMP_TEAMS_THREAD_LIMIT"), DEFAULTS},
    {{"OMP_TARGET_OFFLOAD=sometimes"}, INVALID("OMP_TARGET_OFFLOAD"), DEFAULTS},
    {{"OMP_ALLOCATOR=omp_null_allocator"}, INVALID("OMP_ALLOCATOR"), DEFAULTS},
    {{"OMP_ALLOCATOR=5"}, INVALID("OMP_ALLOCATOR"), DEFAULTS},
    {{"OMP_ALLOCATOR= omp_low_lat_mem_alloc "}, "", DEF_NT " dyn=0 sched=0x2,1 mal=1 tl=2147483647 bind=0 np=0 "
                                                    "prio=0 dev=0 teams=0 ttl=0 cancel=0 alloc=5"},
    {{"OMP_CANCELLATION=maybe"}, INVALID("OMP_CANCELLATION"), DEFAULTS},
    {{"OMP_DISPLAY_AFFINITY=on"}, INVALID("OMP_DISPLAY_AFFINITY"), DEFAULTS},
    {{"OMP_DISPLAY_ENV=yes"}, INVALID("OMP_DISPLAY_ENV"), DEFAULTS},
    /* several: libgomp's order, whatever the order in the environment */
    {{"OMP_STACKSIZE=x", "OMP_NUM_THREADS=x", "OMP_DYNAMIC=x", "OMP_SCHEDULE=x", "OMP_PROC_BIND=x"},
     "\nlibgomp: Unknown value for environment variable OMP_SCHEDULE\n" INVALID("OMP_DYNAMIC")
         INVALID("OMP_NUM_THREADS") INVALID("OMP_PROC_BIND") INVALID("OMP_STACKSIZE"),
     DEFAULTS},
    {{"OMP_THREAD_LIMIT=x", "OMP_CANCELLATION=x", "OMP_NESTED=x", "OMP_WAIT_POLICY=x", "OMP_ALLOCATOR=x"},
     INVALID("OMP_CANCELLATION") INVALID("OMP_ALLOCATOR") INVALID("OMP_THREAD_LIMIT") INVALID("OMP_NESTED")
         INVALID("OMP_WAIT_POLICY"),
     DEFAULTS},
};

/* OMP_DISPLAY_ENV=true at start-up */
static const char *display_env[] = {"OMP_DISPLAY_ENV=true", "OMP_NUM_THREADS=3,2", "OMP_SCHEDULE=static,4",
                                    "OMP_STACKSIZE=2M", "OMP_AFFINITY_FORMAT=<%n>", "OMP_PROC_BIND=false", NULL};
static const char display_block[] = "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n"
                                    "  _OPENMP = '201511'\n"
                                    "  OMP_DYNAMIC = 'FALSE'\n"
                                    "  OMP_NESTED = 'TRUE'\n"
                                    "  OMP_NUM_THREADS = '3,2'\n"
                                    "  OMP_SCHEDULE = 'STATIC,4'\n"
                                    "  OMP_PROC_BIND = 'FALSE'\n"
                                    "  OMP_PLACES = ''\n"
                                    "  OMP_STACKSIZE = '2097152'\n"
                                    "  OMP_WAIT_POLICY = 'PASSIVE'\n"
                                    "  OMP_THREAD_LIMIT = '4294967295'\n"
                                    "  OMP_MAX_ACTIVE_LEVELS = '255'\n"
                                    "  OMP_NUM_TEAMS = '0'\n"
                                    "  OMP_TEAMS_THREAD_LIMIT = '0'\n"
                                    "  OMP_CANCELLATION = 'FALSE'\n"
                                    "  OMP_DEFAULT_DEVICE = '0'\n"
                                    "  OMP_MAX_TASK_PRIORITY = '0'\n"
                                    "  OMP_DISPLAY_AFFINITY = 'FALSE'\n"
                                    "  OMP_AFFINITY_FORMAT = '<%n>'\n"
                                    "  OMP_ALLOCATOR = 'omp_default_mem_alloc'\n"
                                    "  OMP_TARGET_OFFLOAD = 'DEFAULT'\n"
                                    "OPENMP DISPLAY ENVIRONMENT END\n";

/* verbose: the same lines plus libgomp's GOMP_* ones; an implementation
 * may add lines of its own before END (weft-omp: "  WEFT_..."). */
static const char *verbose_env[] = {"OMP_DISPLAY_ENV=VERBOSE", "OMP_NUM_THREADS=3", "OMP_SCHEDULE=monotonic:guided",
                                    "OMP_PROC_BIND=spread,close", "OMP_WAIT_POLICY=active", "OMP_NUM_TEAMS=4",
                                    "GOMP_SPINCOUNT=5k", "OMP_TARGET_OFFLOAD=disabled",
                                    "OMP_ALLOCATOR=omp_pteam_mem_alloc", NULL};
static const char *verbose_lines[] = {"",
                                      "OPENMP DISPLAY ENVIRONMENT BEGIN",
                                      "  _OPENMP = '201511'",
                                      "  OMP_DYNAMIC = 'FALSE'",
                                      "  OMP_NESTED = 'TRUE'",
                                      "  OMP_NUM_THREADS = '3'",
                                      "  OMP_SCHEDULE = 'MONOTONIC:GUIDED'",
                                      "  OMP_PROC_BIND = 'SPREAD,CLOSE'",
                                      NULL /* OMP_PLACES: the machine's */,
                                      "  OMP_STACKSIZE = '0'",
                                      "  OMP_WAIT_POLICY = 'ACTIVE'",
                                      "  OMP_THREAD_LIMIT = '4294967295'",
                                      "  OMP_MAX_ACTIVE_LEVELS = '255'",
                                      "  OMP_NUM_TEAMS = '4'",
                                      "  OMP_TEAMS_THREAD_LIMIT = '0'",
                                      "  OMP_CANCELLATION = 'FALSE'",
                                      "  OMP_DEFAULT_DEVICE = '0'",
                                      "  OMP_MAX_TASK_PRIORITY = '0'",
                                      "  OMP_DISPLAY_AFFINITY = 'FALSE'",
                                      "  OMP_AFFINITY_FORMAT = 'level %L thread %i affinity %A'",
                                      "  OMP_ALLOCATOR = 'omp_pteam_mem_alloc'",
                                      "  OMP_TARGET_OFFLOAD = 'DISABLED'",
                                      "  GOMP_CPU_AFFINITY = ''",
                                      "  GOMP_STACKSIZE = '0'",
                                      "  GOMP_SPINCOUNT = '5000'"};

static void check_verbose(void)
{
    struct child c = run_self("none", verbose_env);
    CHECKF(c.exited && c.status == 0, "status %d", c.status);
    char *s = c.err, *line;
    size_t n = sizeof verbose_lines / sizeof *verbose_lines;
    for (size_t i = 0; i < n; i++) {
        line = strsep(&s, "\n");
        CHECKF(line != NULL, "verbose block ends early, at line %zu", i);
        if (!verbose_lines[i])
            CHECKF(!strncmp(line, "  OMP_PLACES = '{", 17), "[%s]", line);
        else
            CHECKF(!strcmp(line, verbose_lines[i]), "line %zu [%s], expected [%s]", i, line, verbose_lines[i]);
    }
    while ((line = strsep(&s, "\n")) && strcmp(line, "OPENMP DISPLAY ENVIRONMENT END"))
        CHECKF(!strncmp(line, "  WEFT_", 7), "unexpected line [%s]", line);
    CHECK(line != NULL);
    CHECKF(s && !strcmp(s, ""), "after END: [%s]", s ? s : "(none)");
    child_free(&c);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "icv"))
        child_icv();
    if (argc > 1 && !strcmp(argv[1], "none"))
        exit(0);

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct tcase *t = &cases[i];
        struct child c = run_self("icv", t->env);
        CHECKF(c.exited && c.status == 0, "case %zu (%s): status %d", i, t->env[0], c.status);
        CHECKF(!strcmp(c.err, t->err), "case %zu (%s...): stderr [%s], expected [%s]", i, t->env[0], c.err, t->err);
        /* "nt=N/P ...": N, or "P" when the case expects the default (N == P) */
        int nt, np, used = 0;
        CHECKF(sscanf(c.out, "nt=%d/%d%n", &nt, &np, &used) == 2, "[%s]", c.out);
        char got[512];
        if (!strncmp(t->icv, "nt=P", 4) && nt == np)
            snprintf(got, sizeof got, "nt=P%s", c.out + used);
        else
            snprintf(got, sizeof got, "nt=%d%s", nt, c.out + used);
        if (t->icv)
            CHECKF(!strcmp(got, t->icv), "case %zu (%s...): ICVs\n  [%s], expected\n  [%s]", i, t->env[0], got,
                   t->icv);
        child_free(&c);
    }

    struct child c = run_self("none", display_env);
    CHECKF(c.exited && c.status == 0 && !strcmp(c.err, display_block), "display block [%s]", c.err);
    child_free(&c);
    check_verbose();
    printf("env_warnings: ok\n");
    return 0;
}
