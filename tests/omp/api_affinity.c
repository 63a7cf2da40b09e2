/* api_affinity: affinity format routines (OpenMP 5.0).
 *  - omp_get_affinity_format returns the length of the format (without
 *    the NUL), copies a truncated NUL-terminated prefix into a small
 *    buffer; libgomp's default format is "level %L thread %i affinity %A";
 *  - omp_set_affinity_format round trip;
 *  - omp_capture_affinity: fields %n (thread_num), %N (num_threads),
 *    %a (ancestor_tnum), %t (team_num), %T (num_teams), %L (nesting
 *    level), %P (process_id), %H (host), %% and the long forms
 *    %{thread_num} ...; a size: %4n left-justified, %.4n right-justified,
 *    %0.4n zero-padded; the return value is the full length even when
 *    the buffer is too small (the copy is truncated, NUL-terminated) or
 *    NULL; a NULL or empty format uses affinity-format-var;
 *  - in a team of 3 every thread's %n/%N/%a/%L fields are right;
 *  - omp_display_affinity writes one line ending in a newline, using the
 *    given format (or affinity-format-var for NULL), to stderr as libgomp
 *    does (the specification names no stream; captured with dup2).
 */
#include "omp_check.h"

int main(void)
{
    char buf[512];
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    CHECK_EQ(n, strlen("level %L thread %i affinity %A"));
    CHECK(!strcmp(buf, "level %L thread %i affinity %A"));
    n = omp_get_affinity_format(buf, 6);
    CHECK_EQ(n, strlen("level %L thread %i affinity %A"));
    CHECK(!strcmp(buf, "level"));

    omp_set_affinity_format("T%n of %N");
    n = omp_get_affinity_format(buf, sizeof buf);
    CHECK_EQ(n, 9);
    CHECK(!strcmp(buf, "T%n of %N"));

    n = omp_capture_affinity(buf, sizeof buf, NULL);
    CHECK(!strcmp(buf, "T0 of 1"));
    CHECK_EQ(n, 7);
    n = omp_capture_affinity(buf, sizeof buf, "");
    CHECK(!strcmp(buf, "T0 of 1"));

    char expect[256];
    snprintf(expect, sizeof expect, "0|1|-1|0|1|0|%d|%%", (int)getpid());
    n = omp_capture_affinity(buf, sizeof buf, "%n|%N|%a|%t|%T|%L|%P|%%");
    CHECKF(!strcmp(buf, expect), "got [%s] want [%s]", buf, expect);
    CHECK_EQ(n, strlen(expect));
    n = omp_capture_affinity(buf, sizeof buf,
                             "%{thread_num}/%{num_threads}/%{nesting_level}/%{team_num}");
    CHECKF(!strcmp(buf, "0/1/0/0"), "got [%s]", buf);

    char host[256];
    CHECK(gethostname(host, sizeof host) == 0);
    host[sizeof host - 1] = '\0';
    omp_capture_affinity(buf, sizeof buf, "%H");
    CHECKF(!strcmp(buf, host), "%%H gave [%s], hostname [%s]", buf, host);

    /* widths */
    omp_capture_affinity(buf, sizeof buf, "[%4n][%.4n][%0.4n][%3N]");
    CHECKF(!strcmp(buf, "[0   ][   0][0000][1  ]"), "got [%s]", buf);

    /* truncation */
    n = omp_capture_affinity(buf, 5, "abcdefghij");
    CHECK_EQ(n, 10);
    CHECK(!strcmp(buf, "abcd"));
    n = omp_capture_affinity(NULL, 0, "abcdefghij");
    CHECK_EQ(n, 10);

    /* in a team */
    static char lines[3][128];
#pragma omp parallel num_threads(3)
    omp_capture_affinity(lines[omp_get_thread_num()], 128, "%n/%N/%a/%L/%{ancestor_tnum}");
    for (int t = 0; t < 3; t++) {
        snprintf(expect, sizeof expect, "%d/3/0/1/0", t);
        CHECKF(!strcmp(lines[t], expect), "thread %d: [%s] want [%s]", t, lines[t], expect);
    }

    /* display */
    struct capture c = capture_begin(2);
    omp_display_affinity("shown %n of %N");
    omp_display_affinity(NULL);
    char *out = capture_end(c);
    CHECKF(!strcmp(out, "shown 0 of 1\nT0 of 1\n"), "display_affinity wrote [%s]", out);
    free(out);
    return 0;
}
