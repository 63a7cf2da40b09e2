/* api_display_env: omp_display_env (OpenMP 5.1) and its output format.
 * Output is captured from stderr with dup2.
 *  - omp_display_env(0) prints, on stderr, a block starting with a blank
 *    line and "OPENMP DISPLAY ENVIRONMENT BEGIN", the line
 *    "  _OPENMP = 'N'" with N the compiler's _OPENMP value, lines of the
 *    form "  NAME = 'value'", and "OPENMP DISPLAY ENVIRONMENT END";
 *  - it shows the INITIAL ICV values (5.1 wording): OMP_NUM_THREADS is
 *    the value from the environment even after omp_set_num_threads(7),
 *    OMP_DYNAMIC stays 'FALSE' after omp_set_dynamic(1);
 *  - the names libgomp 12 prints are all present, in libgomp's order;
 *  - omp_display_env(1) (verbose) prints the same plus GOMP_* lines;
 *  - it works from inside a parallel region too.
 */
#include "omp_check.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char *names[] = {
    "_OPENMP",           "OMP_DYNAMIC",         "OMP_NESTED",
    "OMP_NUM_THREADS",   "OMP_SCHEDULE",        "OMP_PROC_BIND",
    "OMP_PLACES",        "OMP_STACKSIZE",       "OMP_WAIT_POLICY",
    "OMP_THREAD_LIMIT",  "OMP_MAX_ACTIVE_LEVELS", "OMP_NUM_TEAMS",
    "OMP_TEAMS_THREAD_LIMIT", "OMP_CANCELLATION", "OMP_DEFAULT_DEVICE",
    "OMP_MAX_TASK_PRIORITY", "OMP_DISPLAY_AFFINITY", "OMP_AFFINITY_FORMAT",
    "OMP_ALLOCATOR",     "OMP_TARGET_OFFLOAD",
};

/* checks one block; returns the number of lines between BEGIN and END */
static int check_block(const char *s, int verbose)
{
    const char *begin = "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n";
    const char *end = "OPENMP DISPLAY ENVIRONMENT END\n";
    CHECKF(!strncmp(s, begin, strlen(begin)), "block starts [%.60s]", s);
    const char *e = strstr(s, end);
    CHECK(e != NULL);
    CHECKF(e[strlen(end)] == '\0', "text after END: [%s]", e + strlen(end));
    int lines = 0, next_name = 0, gomp_lines = 0;
    for (const char *p = s + strlen(begin); p < e;) {
        const char *nl = strchr(p, '\n');
        CHECK(nl != NULL && nl < e + 1);
        char line[512];
        size_t len = (size_t)(nl - p);
        CHECK(len < sizeof line);
        memcpy(line, p, len);
        line[len] = '\0';
        /* "  NAME = 'value'" */
        char name[128];
        CHECKF(sscanf(line, "  %127s = '", name) == 1 && strstr(line, " = '") &&
                   line[len - 1] == '\'',
               "bad line [%s]", line);
        if (next_name < (int)(sizeof names / sizeof *names) && !strcmp(name, names[next_name]))
            next_name++;
        if (!strncmp(name, "GOMP_", 5))
            gomp_lines++;
        if (!strcmp(name, "_OPENMP"))
            CHECKF(!strcmp(line, "  _OPENMP = '" STR(_OPENMP) "'"), "[%s]", line);
        if (!strcmp(name, "OMP_NUM_THREADS")) {
            char want[128];
            const char *env = getenv("OMP_NUM_THREADS");
            snprintf(want, sizeof want, "  OMP_NUM_THREADS = '%s'", env ? env : "?");
            if (env)
                CHECKF(!strcmp(line, want), "[%s], expected [%s]", line, want);
        }
        if (!strcmp(name, "OMP_DYNAMIC"))
            CHECKF(!strcmp(line, "  OMP_DYNAMIC = 'FALSE'"), "[%s]", line);
        lines++;
        p = nl + 1;
    }
    CHECKF(next_name == (int)(sizeof names / sizeof *names), "name %s missing or out of order",
           names[next_name]);
    if (verbose)
        CHECK(gomp_lines > 0);
    else
        CHECK_EQ(gomp_lines, 0);
    return lines;
}

int main(void)
{
    omp_set_num_threads(7);
    omp_set_dynamic(1);
    struct capture c = capture_begin(2);
    omp_display_env(0);
    char *plain = capture_end(c);
    int n0 = check_block(plain, 0);

    c = capture_begin(2);
    omp_display_env(1);
    char *verbose = capture_end(c);
    int n1 = check_block(verbose, 1);
    CHECK(n1 > n0);

    omp_set_dynamic(0);
    char *inpar = NULL;
#pragma omp parallel num_threads(2) shared(inpar)
    {
#pragma omp master
        {
            struct capture c2 = capture_begin(2);
            omp_display_env(0);
            inpar = capture_end(c2);
        }
    }
    CHECK(!strcmp(inpar, plain));
    free(plain);
    free(verbose);
    free(inpar);
    return 0;
}
