/* Shared helpers of the weft-omp conformance tests (C and C++).
 *
 * A failed check prints "FAIL file:line: what" on stderr and exits 1.
 * Nothing here depends on weft: the tests only use OpenMP and POSIX, so
 * they run against any libgomp.so.1 (the system one, or weft-omp through
 * LD_LIBRARY_PATH). */
#ifndef WEFT_OMP_CHECK_H
#define WEFT_OMP_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

/* Integer equality with both values printed. */
#define CHECK_EQ(got, want)                                                           \
    do {                                                                              \
        long long g_ = (long long)(got), w_ = (long long)(want);                      \
        if (g_ != w_) {                                                               \
            fprintf(stderr, "FAIL %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
                    __LINE__, #got, g_, #want, w_);                                   \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* A check with a formatted explanation. */
#define CHECKF(cond, ...)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

/* ---- capturing output -------------------------------------------------- */

/* Read all of fd (from offset 0) into a malloc'ed NUL-terminated string. */
static inline char *slurp_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    CHECK(buf != NULL);
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap);
            CHECK(buf != NULL);
        }
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    return buf;
}

/* Redirect file descriptor `fd` (1 or 2) into a temporary file until
 * capture_end(), which returns what was written (malloc'ed). */
struct capture {
    int fd, saved, tmp;
};

static inline struct capture capture_begin(int fd)
{
    struct capture c;
    char name[] = "/tmp/omp-test-capture.XXXXXX";
    fflush(NULL);
    c.fd = fd;
    c.tmp = mkstemp(name);
    CHECK(c.tmp >= 0);
    unlink(name);
    c.saved = dup(fd);
    CHECK(c.saved >= 0);
    CHECK(dup2(c.tmp, fd) == fd);
    return c;
}

static inline char *capture_end(struct capture c)
{
    fflush(NULL);
    CHECK(dup2(c.saved, c.fd) == c.fd);
    close(c.saved);
    char *s = slurp_fd(c.tmp);
    close(c.tmp);
    return s;
}

/* ---- running this program again in a child --------------------------- */

/* Result of run_self(). */
struct child {
    int exited;    /* 1 if it exited normally */
    int status;    /* its exit status, or the signal number */
    char *out;     /* its stdout */
    char *err;     /* its stderr */
};

/* Run /proc/self/exe with argv[1] = mode, after removing every OMP_* and
 * GOMP_* variable from the child's environment and setting the NULL-ended
 * list `env` of "NAME=value" strings.  Captures stdout and stderr.  Under
 * OMP_TEST_RUNNER (run.sh: an emulator for a cross build), the child runs
 * through the same runner. */
static inline struct child run_self(const char *mode, const char *const *env)
{
    struct child r;
    char on[] = "/tmp/omp-test-out.XXXXXX", en[] = "/tmp/omp-test-err.XXXXXX";
    int fo = mkstemp(on), fe = mkstemp(en);
    CHECK(fo >= 0 && fe >= 0);
    unlink(on);
    unlink(en);
    fflush(NULL);
    const char *runner = getenv("OMP_TEST_RUNNER");
    char *rargv[16];
    int rargc = 0;
    char self[4096], *words = NULL;
    if (runner && *runner) {
        words = strdup(runner);
        CHECK(words != NULL);
        for (char *w = strtok(words, " \t"); w && rargc < 12; w = strtok(NULL, " \t")) rargv[rargc++] = w;
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        CHECK(n > 0);
        self[n] = '\0';
        rargv[rargc++] = self;
        rargv[rargc++] = (char *)mode;
        rargv[rargc] = NULL;
    }
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        extern char **environ;
        /* drop OMP_* / GOMP_* (restart the scan after each removal) */
        for (int again = 1; again;) {
            again = 0;
            for (char **e = environ; e && *e; e++) {
                if (!strncmp(*e, "OMP_", 4) || !strncmp(*e, "GOMP_", 5)) {
                    char name[256];
                    size_t n = strcspn(*e, "=");
                    if (n >= sizeof name)
                        n = sizeof name - 1;
                    memcpy(name, *e, n);
                    name[n] = '\0';
                    unsetenv(name);
                    again = 1;
                    break;
                }
            }
        }
        for (const char *const *e = env; e && *e; e++)
            putenv((char *)*e);
        dup2(fo, 1);
        dup2(fe, 2);
        if (rargc)
            execvp(rargv[0], rargv);
        else
            execl("/proc/self/exe", "child", mode, (char *)NULL);
        _exit(127);
    }
    free(words);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        CHECK(errno == EINTR);
    r.exited = WIFEXITED(st);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st);
    r.out = slurp_fd(fo);
    r.err = slurp_fd(fe);
    close(fo);
    close(fe);
    return r;
}

static inline void child_free(struct child *c)
{
    free(c->out);
    free(c->err);
}

/* Small busy delay (a few microseconds): widens race windows in mutual
 * exclusion checks without sleeping. */
static inline void tiny_delay(int n)
{
    for (volatile int i = 0; i < n; i++) {
    }
}

#endif
