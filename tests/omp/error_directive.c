/* error_directive: `#pragma omp error at(execution)` (OpenMP 5.1,
 * GOMP_warning / GOMP_error).
 * The test runs itself in child processes and checks their stderr:
 *  - severity(warning) with a message prints the message and continues
 *    (libgomp's exact text: "\nlibgomp: error directive encountered: MSG\n");
 *    without a message "\nlibgomp: error directive encountered\n"; inside a
 *    parallel region every thread that reaches it prints it;
 *  - severity(fatal) (the default severity) prints
 *    "\nlibgomp: fatal error: error directive encountered: MSG\n" and the
 *    process exits with status 1 without running the code after it.
 */
#include "omp_check.h"

static void child_warning(void)
{
#pragma omp error at(execution) severity(warning) message("first warning")
#pragma omp error at(execution) severity(warning)
#pragma omp parallel num_threads(3)
    {
#pragma omp error at(execution) severity(warning) message("from a thread")
    }
    printf("continued\n");
    exit(0);
}

static void child_fatal(void)
{
    printf("before\n");
    fflush(stdout);
#pragma omp error at(execution) severity(fatal) message("stop here")
    printf("after\n");
    exit(0);
}

static void child_default(void)
{
    volatile int yes = 1;
    if (yes) {
#pragma omp error at(execution) message("default severity")
    }
    printf("after\n");
    exit(0);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "warning"))
            child_warning();
        if (!strcmp(argv[1], "fatal"))
            child_fatal();
        if (!strcmp(argv[1], "default"))
            child_default();
        return 2;
    }
    struct child c = run_self("warning", NULL);
    CHECKF(c.exited && c.status == 0, "warning child: exited %d status %d", c.exited, c.status);
    CHECK(!strcmp(c.out, "continued\n"));
    CHECKF(strstr(c.err, "\nlibgomp: error directive encountered: first warning\n") != NULL,
           "stderr was [%s]", c.err);
    CHECKF(strstr(c.err, "\nlibgomp: error directive encountered\n") != NULL, "stderr was [%s]",
           c.err);
    CHECK_EQ(count_of(c.err, "error directive encountered: from a thread\n"), 3);
    CHECK_EQ(count_of(c.err, "libgomp: "), 5);
    child_free(&c);

    c = run_self("fatal", NULL);
    CHECKF(c.exited && c.status == 1, "fatal child: exited %d status %d", c.exited, c.status);
    CHECK(!strcmp(c.out, "before\n"));
    CHECKF(!strcmp(c.err, "\nlibgomp: fatal error: error directive encountered: stop here\n"),
           "stderr was [%s]", c.err);
    child_free(&c);

    c = run_self("default", NULL);
    CHECKF(c.exited && c.status == 1, "default-severity child: exited %d status %d", c.exited,
           c.status);
    CHECK(strstr(c.err, "fatal error: error directive encountered: default severity") != NULL);
    CHECK(strstr(c.out, "after") == NULL);
    child_free(&c);
    return 0;
}
