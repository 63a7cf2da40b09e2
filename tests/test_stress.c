/* Stress: 100,000 ULTs and 100,000 tasklets created and joined across all
 * streams, by the main ULT and by ULTs on every stream at once; every result
 * is checked. WEFT_STRESS_N scales it (the sanitizer runs use less). */
#include <stdlib.h>

#include "check.h"

static long *g_out;

static void square(void *arg)
{
    long i = (long)(intptr_t)arg;
    g_out[i] = i * i;
}

static void check_all(long n)
{
    for (long i = 0; i < n; i++)
        if (g_out[i] != i * i) {
            fprintf(stderr, "unit %ld: got %ld\n", i, g_out[i]);
            exit(1);
        }
}

struct share { long lo, hi; int tasklets; };

/* One creator per stream: creates its share into its own stream, joins it. */
static void creator(void *arg)
{
    struct share *s = arg;
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    weft_thread *t = malloc(sizeof *t * (size_t)(s->hi - s->lo));
    CHECK(t);
    for (long i = s->lo; i < s->hi; i++) {
        void *a = (void *)(intptr_t)i;
        if (s->tasklets) CHECK_OK(weft_tasklet_create_to(xs, square, a, &t[i - s->lo]));
        else CHECK_OK(weft_thread_create_to(xs, square, a, NULL, &t[i - s->lo]));
    }
    for (long i = s->lo; i < s->hi; i++) CHECK_OK(weft_thread_free(&t[i - s->lo]));
    free(t);
}

int main(void)
{
    long n = 100000;
    const char *env = getenv("WEFT_STRESS_N");
    if (env) n = atol(env);
    CHECK_OK(weft_init(NULL));
    int nxs;
    CHECK_OK(weft_xstream_count(&nxs));
    if (nxs < 2) {
        /* Exercise the cross-stream paths even on a one-core machine. */
        weft_xstream extra;
        CHECK_OK(weft_xstream_create(NULL, &extra));
        nxs = 2;
    }
    g_out = calloc((size_t)n, sizeof *g_out);
    weft_thread *t = malloc(sizeof *t * (size_t)n);
    CHECK(g_out && t);

    for (int tasklets = 0; tasklets < 2; tasklets++) {
        /* The main ULT creates round-robin on every stream. */
        for (long i = 0; i < n; i++) g_out[i] = -1;
        for (long i = 0; i < n; i++) {
            weft_xstream xs;
            CHECK_OK(weft_xstream_get((int)(i % nxs), &xs));
            void *a = (void *)(intptr_t)i;
            if (tasklets) CHECK_OK(weft_tasklet_create_to(xs, square, a, &t[i]));
            else CHECK_OK(weft_thread_create_to(xs, square, a, NULL, &t[i]));
        }
        for (long i = 0; i < n; i++) CHECK_OK(weft_thread_free(&t[i]));
        check_all(n);

        /* Every stream creates and joins its share at the same time. */
        for (long i = 0; i < n; i++) g_out[i] = -1;
        struct share *sh = calloc((size_t)nxs, sizeof *sh);
        weft_thread *cr = calloc((size_t)nxs, sizeof *cr);
        for (int k = 0; k < nxs; k++) {
            sh[k] = (struct share){n * k / nxs, n * (k + 1) / nxs, tasklets};
            weft_xstream xs;
            CHECK_OK(weft_xstream_get(k, &xs));
            CHECK_OK(weft_thread_create_to(xs, creator, &sh[k], NULL, &cr[k]));
        }
        for (int k = 0; k < nxs; k++) CHECK_OK(weft_thread_free(&cr[k]));
        check_all(n);
        free(sh);
        free(cr);
    }
    CHECK_OK(weft_finalize());
    free(t);
    free(g_out);
    printf("stress: %ld ULTs and %ld tasklets, twice each: ok\n", n, n);
    return 0;
}
