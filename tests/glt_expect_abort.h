/* For the GLT tests: a misuse case runs in a forked child, which must
 * print "glt: ..." with `says` in it on stderr and abort. `threads`, when
 * not NULL, is the child's GLT_NUM_THREADS. Needs CHECK. */
#ifndef WEFT_TESTS_GLT_EXPECT_ABORT_H
#define WEFT_TESTS_GLT_EXPECT_ABORT_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glt.h"

static void glt_expect_abort(const char *name, void (*fn)(void), const char *says, const char *threads)
{
    int fd[2];
    CHECK(pipe(fd) == 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        if (threads) setenv("GLT_NUM_THREADS", threads, 1);
        glt_init(0, NULL);
        fn();
        _exit(0); /* not reached: fn must abort */
    }
    close(fd[1]);
    char buf[4096];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)r;
    buf[n] = 0;
    close(fd[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT || !strstr(buf, "glt: ") || !strstr(buf, says)) {
        fprintf(stderr, "misuse %s: status %#x, said: %s\n", name, st, buf);
        exit(1);
    }
}

#endif
