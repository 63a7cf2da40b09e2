#define _GNU_SOURCE
/* Units created on one stream and freed on another: their descriptors go
 * back to the creating stream in batches, so memory stays flat however
 * long the pattern runs, and every unit runs once. Then units sent to
 * another stream in rounds larger than a stream's cache (3,000): the
 * descriptors of one round serve the next, no new memory per round. */
#include <malloc.h>

#include "check.h"

#define PER_ROUND 1000

static _Atomic long g_ran;
static weft_thread g_units[PER_ROUND];
#define FAR_ROUND 3000
static weft_thread g_far[FAR_ROUND];

static void work(void *arg)
{
    (void)arg;
    g_ran++;
}

/* On the other stream: free what the primary created. */
static void free_all(void *arg)
{
    (void)arg;
    CHECK_OK(weft_thread_free_many(PER_ROUND, g_units));
}

int main(void)
{
    start_weft(2);
    weft_xstream other;
    CHECK_OK(weft_xstream_get(1, &other));
    weft_pool mine = self_pool();
    /* WEFT_STRESS_N units in all (ThreadSanitizer runs get fewer). */
    const char *env = getenv("WEFT_STRESS_N");
    int rounds = env ? atoi(env) / PER_ROUND : 300;
    if (rounds < 10) rounds = 10;
    if (rounds > 300) rounds = 300;
    size_t base = 0;
    int base_round = rounds / 10;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < PER_ROUND; i++) {
            if (i & 1) CHECK_OK(weft_thread_create(mine, work, NULL, NULL, &g_units[i]));
            else CHECK_OK(weft_tasklet_create(mine, work, NULL, &g_units[i]));
        }
        weft_thread f;
        CHECK_OK(weft_thread_create_to(other, free_all, NULL, NULL, &f));
        CHECK_OK(weft_thread_free(&f));
        if (r == base_round) base = mallinfo2().uordblks;
    }
    CHECK(g_ran == (long)PER_ROUND * rounds);
    size_t grown = mallinfo2().uordblks - base;
    if (grown > (1u << 20)) {
        fprintf(stderr, "heap grew by %zu bytes over %d rounds\n", grown, rounds - base_round);
        return 1;
    }

    g_ran = 0;
    int far_rounds = rounds / 3 > 20 ? rounds / 3 : 20;
    for (int r = 0; r < far_rounds; r++) {
        for (int i = 0; i < FAR_ROUND; i++) {
            if (i & 1) CHECK_OK(weft_thread_create_to(other, work, NULL, NULL, &g_far[i]));
            else CHECK_OK(weft_tasklet_create_to(other, work, NULL, &g_far[i]));
        }
        CHECK_OK(weft_thread_free_many(FAR_ROUND, g_far));
        if (r == 5) base = mallinfo2().uordblks;
    }
    CHECK(g_ran == (long)FAR_ROUND * far_rounds);
    grown = mallinfo2().uordblks - base;
    if (grown > (1u << 20)) {
        fprintf(stderr, "heap grew by %zu bytes over %d rounds of exports\n", grown, far_rounds - 5);
        return 1;
    }
    CHECK_OK(weft_finalize());
    return 0;
}
