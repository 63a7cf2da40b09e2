/* The GLT patterns of [Threading-HPC] and [LWT-PM], each with its result checked: a for loop
 * over 1,000 elements (a chunk per thread), 1,000 tasks from one ULT, tasks
 * from every thread, and a nested parallel for (100 outer iterations, each
 * a parallel loop of 100). The n-queens search is in glt_queens.c.
 *
 * One source, two runtimes: example_glt_patterns runs over weft,
 * example_glt_patterns_pthreads (-DGLT_BACKEND_PTHREADS) over OS threads:
 *   GLT_NUM_THREADS=4 ./example_glt_patterns */
#define _GNU_SOURCE /* the pthreads backend pins threads */
#include <stdio.h>
#include <stdlib.h>

#include "glt.h"

static int g_nth;

#define N 1000

static double g_v[N];

/* For loop: thread i scales its chunk. */
static void chunk(void *arg)
{
    int t = (int)(intptr_t)arg, lo = N * t / g_nth, hi = N * (t + 1) / g_nth;
    for (int i = lo; i < hi; i++) g_v[i] *= 2.0;
}

/* One task per element. */
static void one(void *arg) { g_v[(intptr_t)arg] += 1.0; }

static void spawn_all(void *arg)
{
    (void)arg;
    GLT_tasklet *t = glt_tasklet_malloc(N);
    for (int i = 0; i < N; i++) glt_tasklet_create(one, (void *)(intptr_t)i, &t[i]);
    for (int i = 0; i < N; i++) glt_tasklet_join(&t[i]);
    for (int i = 0; i < N; i++) glt_tasklet_free(&t[i]);
    free(t);
}

/* Tasks from every thread: thread t's share. */
static void spawn_share(void *arg)
{
    int t = (int)(intptr_t)arg, lo = N * t / g_nth, hi = N * (t + 1) / g_nth;
    GLT_ult *u = glt_ult_malloc(hi - lo);
    for (int i = lo; i < hi; i++) glt_ult_create(one, (void *)(intptr_t)i, &u[i - lo]);
    for (int i = lo; i < hi; i++) glt_ult_join(&u[i - lo]);
    for (int i = lo; i < hi; i++) glt_ult_free(&u[i - lo]);
    free(u);
}

/* Nested parallel for: each outer iteration runs an inner parallel loop. */
#define OUT 100
#define IN 100
static int g_cell[OUT][IN];
static void inner(void *arg)
{
    intptr_t k = (intptr_t)arg;
    g_cell[k / IN][k % IN]++;
}
static void outer(void *arg)
{
    intptr_t o = (intptr_t)arg;
    GLT_ult u[IN];
    for (int i = 0; i < IN; i++) glt_ult_create_to(inner, (void *)(o * IN + i), &u[i], i);
    for (int i = 0; i < IN; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < IN; i++) glt_ult_free(&u[i]);
}


static int g_bad;
static void check(int ok, const char *what)
{
    printf("%-28s %s\n", what, ok ? "ok" : "WRONG");
    g_bad += !ok;
}

int main(int argc, char **argv)
{
    glt_init(argc, argv);
    g_nth = glt_get_num_threads();
    double t0 = glt_get_wtime();

    /* For loop. */
    for (int i = 0; i < N; i++) g_v[i] = i;
    GLT_ult *u = glt_ult_malloc(g_nth);
    for (int t = 0; t < g_nth; t++) glt_ult_create_to(chunk, (void *)(intptr_t)t, &u[t], t);
    for (int t = 0; t < g_nth; t++) glt_ult_join(&u[t]);
    for (int t = 0; t < g_nth; t++) glt_ult_free(&u[t]);
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= g_v[i] == 2.0 * i;
    check(ok, "for loop");

    /* Tasks from one ULT, then from every thread. */
    GLT_ult one_ult;
    glt_ult_create(spawn_all, NULL, &one_ult);
    glt_ult_join(&one_ult);
    glt_ult_free(&one_ult);
    for (int t = 0; t < g_nth; t++) glt_ult_create_to(spawn_share, (void *)(intptr_t)t, &u[t], t);
    for (int t = 0; t < g_nth; t++) glt_ult_join(&u[t]);
    for (int t = 0; t < g_nth; t++) glt_ult_free(&u[t]);
    ok = 1;
    for (int i = 0; i < N; i++) ok &= g_v[i] == 2.0 * i + 2.0;
    check(ok, "tasks, one ULT and every thread");

    /* Nested parallel for. */
    GLT_ult *o = glt_ult_malloc(OUT);
    for (int i = 0; i < OUT; i++) glt_ult_create_to(outer, (void *)(intptr_t)i, &o[i], i);
    for (int i = 0; i < OUT; i++) glt_ult_join(&o[i]);
    for (int i = 0; i < OUT; i++) glt_ult_free(&o[i]);
    free(o);
    ok = 1;
    for (int i = 0; i < OUT; i++)
        for (int j = 0; j < IN; j++) ok &= g_cell[i][j] == 1;
    check(ok, "nested parallel for");

    free(u);
    printf("%d threads, %.3f s: %s\n", g_nth, glt_get_wtime() - t0, g_bad ? "WRONG" : "all ok");
    glt_finalize();
    return g_bad != 0;
}
