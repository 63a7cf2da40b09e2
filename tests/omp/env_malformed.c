/* env_malformed: malformed OpenMP environment variables.
 * RUN-ENV: OMP_NUM_THREADS=2
 * Each case runs this program again in a child whose environment holds
 * only the given variable (every other OMP_* removed).  The child prints
 * its ICVs and the size of a parallel region; the parent compares them
 * with a child run without any variable (the defaults), except for the
 * fields the case changes, and compares the child's stderr with exactly
 * what GCC 12's libgomp prints (nothing, or "\nlibgomp: <message>\n" lines).
 * Nothing may crash; an invalid value leaves the ICV at its default.
 * Cases where libgomp accepts an odd value are asserted as libgomp does:
 *  - OMP_NUM_THREADS=" 3 " (blanks trimmed), OMP_DYNAMIC=" true ";
 *  - OMP_SCHEDULE=dynamic,0 gives chunk 1; dynamic,-1 is kept as -1;
 *    static,abc warns about the chunk but sets static (with libgomp's
 *    monotonic flag), keeping the previous chunk 1;
 *  - OMP_MAX_ACTIVE_LEVELS=1000 is clamped to the supported 255 silently,
 *    0 is accepted (then every region is inactive: one thread);
 *  - OMP_STACKSIZE=0 warns "Stack size less than minimum of 16k" and the
 *    runtime still works; OMP_PLACES with an unknown CPU warns twice.
 */
#include "omp_check.h"

static void child(void)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    int team = 0;
#pragma omp parallel shared(team)
#pragma omp master
    team = omp_get_num_threads();
    printf("nt=%d dyn=%d mal=%d tl=%d sched=%#x,%d bind=%d np=%d canc=%d prio=%d dev=%d "
           "teams=%d ttl=%d alloc=%lu team=%d\n",
           omp_get_max_threads(), omp_get_dynamic(), omp_get_max_active_levels(),
           omp_get_thread_limit(), (unsigned)k, c, (int)omp_get_proc_bind(),
           omp_get_num_places(), omp_get_cancellation(), omp_get_max_task_priority(),
           omp_get_default_device(), omp_get_max_teams(), omp_get_teams_thread_limit(),
           (unsigned long)omp_get_default_allocator(), team);
    exit(0);
}

static const char *INV = "\nlibgomp: Invalid value for environment variable ";

struct kase {
    const char *env;    /* NAME=value */
    const char *err;    /* exact stderr; "INV:NAME" for the invalid-value line */
    const char *fields; /* "key=value ..." that differ from the defaults */
};

static const struct kase cases[] = {
    {"OMP_NUM_THREADS=abc", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS=0", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS=-1", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS=3x", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS=3,abc", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS=4,0", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS=", "INV:OMP_NUM_THREADS", ""},
    {"OMP_NUM_THREADS= 3 ", "", "nt=3 team=3"},
    {"OMP_SCHEDULE=bogus", "\nlibgomp: Unknown value for environment variable OMP_SCHEDULE\n", ""},
    {"OMP_SCHEDULE=,4", "\nlibgomp: Unknown value for environment variable OMP_SCHEDULE\n", ""},
    {"OMP_SCHEDULE=dynamic,",
     "\nlibgomp: Invalid value for chunk size in environment variable OMP_SCHEDULE\n", ""},
    {"OMP_SCHEDULE=dynamic,4x",
     "\nlibgomp: Invalid value for chunk size in environment variable OMP_SCHEDULE\n", ""},
    {"OMP_SCHEDULE=static,abc",
     "\nlibgomp: Invalid value for chunk size in environment variable OMP_SCHEDULE\n",
     "sched=0x80000001,1"},
    {"OMP_SCHEDULE=dynamic,0", "", "sched=0x2,1"},
    {"OMP_SCHEDULE=dynamic,-1", "", "sched=0x2,-1"},
    {"OMP_DYNAMIC=maybe", "INV:OMP_DYNAMIC", ""},
    {"OMP_DYNAMIC= true ", "", "dyn=1 team=?"}, /* dynamic: any team size */
    {"OMP_NESTED=maybe", "INV:OMP_NESTED", ""},
    {"OMP_PROC_BIND=bogus", "INV:OMP_PROC_BIND", ""},
    {"OMP_PROC_BIND=close,bogus", "INV:OMP_PROC_BIND", ""},
    {"OMP_PLACES=bogus", "INV:OMP_PLACES", ""},
    {"OMP_PLACES={0", "INV:OMP_PLACES", ""},
    {"OMP_PLACES={0},{99999}",
     "\nlibgomp: Logical CPU number 99999 out of range\n"
     "\nlibgomp: Invalid value for environment variable OMP_PLACES\n",
     ""},
    {"OMP_MAX_ACTIVE_LEVELS=-1", "INV:OMP_MAX_ACTIVE_LEVELS", ""},
    {"OMP_MAX_ACTIVE_LEVELS=abc", "INV:OMP_MAX_ACTIVE_LEVELS", ""},
    {"OMP_MAX_ACTIVE_LEVELS=1000", "", "mal=255"},
    {"OMP_MAX_ACTIVE_LEVELS=0", "", "mal=0 team=1"}, /* no active region */
    {"OMP_THREAD_LIMIT=0", "INV:OMP_THREAD_LIMIT", ""},
    {"OMP_THREAD_LIMIT=-5", "INV:OMP_THREAD_LIMIT", ""},
    {"OMP_THREAD_LIMIT=abc", "INV:OMP_THREAD_LIMIT", ""},
    {"OMP_STACKSIZE=bogus", "INV:OMP_STACKSIZE", ""},
    {"OMP_STACKSIZE=8Q", "INV:OMP_STACKSIZE", ""},
    {"OMP_STACKSIZE=0", "\nlibgomp: Stack size less than minimum of 16k\n", ""},
    {"OMP_WAIT_POLICY=bogus", "INV:OMP_WAIT_POLICY", ""},
    {"OMP_MAX_TASK_PRIORITY=-1", "INV:OMP_MAX_TASK_PRIORITY", ""},
    {"OMP_MAX_TASK_PRIORITY=abc", "INV:OMP_MAX_TASK_PRIORITY", ""},
    {"OMP_CANCELLATION=maybe", "INV:OMP_CANCELLATION", ""},
    {"OMP_DEFAULT_DEVICE=-1", "INV:OMP_DEFAULT_DEVICE", ""},
    {"OMP_DEFAULT_DEVICE=abc", "INV:OMP_DEFAULT_DEVICE", ""},
    {"OMP_NUM_TEAMS=0", "INV:OMP_NUM_TEAMS", ""},
    {"OMP_NUM_TEAMS=-3", "INV:OMP_NUM_TEAMS", ""},
    {"OMP_NUM_TEAMS=abc", "INV:OMP_NUM_TEAMS", ""},
    {"OMP_TEAMS_THREAD_LIMIT=abc", "INV:OMP_TEAMS_THREAD_LIMIT", ""},
    {"OMP_TEAMS_THREAD_LIMIT=0", "INV:OMP_TEAMS_THREAD_LIMIT", ""},
    {"OMP_ALLOCATOR=bogus", "INV:OMP_ALLOCATOR", ""},
    {"OMP_DISPLAY_ENV=bogus", "INV:OMP_DISPLAY_ENV", ""},
};

/* the value of `key` in a "k=v k=v" line (static buffer) */
static const char *field(const char *line, const char *key)
{
    static char val[64];
    char pat[32];
    snprintf(pat, sizeof pat, "%s=", key);
    const char *p = line;
    size_t kl = strlen(pat);
    while ((p = strstr(p, pat))) {
        if (p == line || p[-1] == ' ')
            break;
        p += kl;
    }
    if (!p)
        return NULL;
    p += kl;
    size_t n = strcspn(p, " \n");
    if (n >= sizeof val)
        n = sizeof val - 1;
    memcpy(val, p, n);
    val[n] = '\0';
    return val;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child"))
        child();

    struct child base = run_self("child", NULL);
    CHECKF(base.exited && base.status == 0 && base.err[0] == '\0',
           "baseline child: status %d stderr [%s]", base.status, base.err);
    static const char *keys[] = {"nt",   "dyn", "mal", "tl",  "sched", "bind",  "np", "canc",
                                 "prio", "dev", "teams", "ttl", "alloc", "team"};
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct kase *k = &cases[i];
        const char *env[] = {k->env, NULL};
        struct child c = run_self("child", env);
        CHECKF(c.exited && c.status == 0, "[%s]: child exited %d status %d", k->env, c.exited,
               c.status);
        char want_err[512];
        if (!strncmp(k->err, "INV:", 4))
            snprintf(want_err, sizeof want_err, "%s%s\n", INV, k->err + 4);
        else
            snprintf(want_err, sizeof want_err, "%s", k->err);
        CHECKF(!strcmp(c.err, want_err), "[%s]: stderr [%s], expected [%s]", k->env, c.err,
               want_err);
        for (unsigned j = 0; j < sizeof keys / sizeof *keys; j++) {
            char want[64], got[64];
            const char *w = field(k->fields, keys[j]);
            if (!w)
                w = field(base.out, keys[j]);
            CHECK(w != NULL);
            snprintf(want, sizeof want, "%s", w);
            if (!strcmp(want, "?"))
                continue;
            const char *g = field(c.out, keys[j]);
            CHECKF(g != NULL, "[%s]: no %s in [%s]", k->env, keys[j], c.out);
            snprintf(got, sizeof got, "%s", g);
            CHECKF(!strcmp(got, want), "[%s]: %s=%s, expected %s (defaults: %s)", k->env, keys[j],
                   got, want, base.out);
        }
        child_free(&c);
    }
    child_free(&base);
    return 0;
}
