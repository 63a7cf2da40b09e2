/* A GLT program: count the solutions of the n-queens problem with a ULT
 * per safe placement, then scale a vector with a parallel for over the
 * enabled threads, shrinking the team half way (malleability).
 *
 * The same source builds over weft (example_glt_queens) and, with
 * -DGLT_BACKEND_PTHREADS, over OS threads (example_glt_queens_pthreads):
 *   GLT_NUM_THREADS=4 ./example_glt_queens 9
 * prints "queens(9) = 352" on both. */
#define _GNU_SOURCE /* the pthreads backend pins threads */
#include <stdio.h>
#include <stdlib.h>

#include "glt.h"

struct board {
    int n, row;
    int col[32];
    long *count;
    GLT_mutex lock;
};

static int safe(const struct board *b, int c)
{
    for (int r = 0; r < b->row; r++)
        if (b->col[r] == c || abs(b->col[r] - c) == b->row - r) return 0;
    return 1;
}

/* One ULT per queen that fits on the next row; they run wherever the
 * runtime puts them, and the parent joins them all. */
static void place(void *arg)
{
    struct board *b = arg;
    if (b->row == b->n) {
        glt_mutex_lock(b->lock);
        (*b->count)++;
        glt_mutex_unlock(b->lock);
        return;
    }
    struct board next[32];
    GLT_ult u[32];
    int k = 0;
    for (int c = 0; c < b->n; c++) {
        if (!safe(b, c)) continue;
        next[k] = *b;
        next[k].col[b->row] = c;
        next[k].row = b->row + 1;
        glt_ult_create(place, &next[k], &u[k]);
        k++;
    }
    for (int i = 0; i < k; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < k; i++) glt_ult_free(&u[i]);
}

#define LEN 100000
static double vec[LEN];

/* Thread t of the team scales its share. */
static void scale(void *arg)
{
    int t = (int)(intptr_t)arg, nth = glt_get_num_threads();
    for (int i = LEN * t / nth; i < LEN * (t + 1) / nth; i++) vec[i] *= 2;
}

static void parallel_scale(void)
{
    int nth = glt_get_num_threads();
    GLT_ult *u = glt_ult_malloc(nth);
    for (int t = 0; t < nth; t++) glt_ult_create_to(scale, (void *)(intptr_t)t, &u[t], t);
    for (int t = 0; t < nth; t++) glt_ult_free(&u[t]);
    free(u);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    if (n < 1 || n > 14) {
        fprintf(stderr, "usage: %s [n, 1..14]\n", argv[0]);
        return 2;
    }
    glt_init(argc, argv);

    long count = 0;
    struct board b = {.n = n, .row = 0, .count = &count};
    glt_mutex_create(&b.lock);
    double t0 = glt_get_wtime();
    GLT_ult root;
    glt_ult_create(place, &b, &root);
    glt_ult_join(&root);
    glt_ult_free(&root);
    double secs = glt_get_wtime() - t0;
    glt_mutex_free(&b.lock);
    printf("queens(%d) = %ld (%.3f s, %d threads)\n", n, count, secs, glt_get_num_threads());

    for (int i = 0; i < LEN; i++) vec[i] = i;
    parallel_scale();
    if (glt_can_malleability()) glt_thread_disable(); /* give a core back */
    parallel_scale();
    int teams = glt_get_num_threads();
    glt_thread_enable();
    int bad = 0;
    for (int i = 0; i < LEN; i++) bad += vec[i] != 4.0 * i;
    printf("vector scaled twice, the second time by %d threads: %s\n", teams, bad ? "WRONG" : "ok");
    glt_finalize();
    return bad != 0;
}
