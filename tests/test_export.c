#define _GNU_SOURCE
/* Units a stream makes for another stream's pool get descriptors away from
 * the pages of the descriptors it makes for itself (a unit running on
 * another stream must not sit among the creator's hot lines), and those
 * exported descriptors are recycled like the others: whether the creator
 * or the other stream frees them, memory stays flat. */
#include <malloc.h>
#include <stdint.h>

#include "check.h"

#define LOCAL_N 300 /* more than one slab's worth */
#define PAGE ((uintptr_t)4096)

static _Atomic long g_ran;
static weft_thread g_sent[64];

static void work(void *arg)
{
    (void)arg;
    g_ran++;
}

static uintptr_t page_of(weft_thread t)
{
    return (uintptr_t)t / PAGE;
}

/* On the other stream: free what the primary sent it. */
static void free_sent(void *arg)
{
    CHECK_OK(weft_thread_free_many((int)(intptr_t)arg, g_sent));
}

int main(void)
{
    start_weft(2);
    weft_xstream other;
    CHECK_OK(weft_xstream_get(1, &other));
    weft_pool mine = self_pool();

    /* Interleave local and exported creations: no exported descriptor may
     * share a page with a local one. */
    static weft_thread local[LOCAL_N];
    for (int i = 0; i < LOCAL_N; i++) {
        CHECK_OK(weft_tasklet_create(mine, work, NULL, &local[i]));
        if (i % 10 == 0) CHECK_OK(weft_thread_create_to(other, work, NULL, NULL, &g_sent[i / 10]));
    }
    int nsent = LOCAL_N / 10;
    for (int s = 0; s < nsent; s++)
        for (int i = 0; i < LOCAL_N; i++)
            if (page_of(g_sent[s]) == page_of(local[i])) {
                fprintf(stderr, "unit sent to stream 1 (%p) shares a page with a local one (%p)\n",
                        (void *)g_sent[s], (void *)local[i]);
                return 1;
            }
    CHECK_OK(weft_thread_free_many(LOCAL_N, local));
    CHECK_OK(weft_thread_free_many(nsent, g_sent));
    CHECK(g_ran == LOCAL_N + nsent);

    /* Recycling: freed here (back to the export cache) and freed by the
     * other stream (sent back in batches); the heap does not grow. */
    const char *env = getenv("WEFT_STRESS_N");
    int rounds = env ? atoi(env) / 64 : 3000;
    if (rounds < 100) rounds = 100;
    if (rounds > 3000) rounds = 3000;
    size_t base = 0;
    long expect = g_ran;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 64; i++) {
            if (i & 1) CHECK_OK(weft_thread_create_to(other, work, NULL, NULL, &g_sent[i]));
            else CHECK_OK(weft_tasklet_create_to(other, work, NULL, &g_sent[i]));
        }
        if (r & 1) {
            CHECK_OK(weft_thread_free_many(64, g_sent));
        } else {
            weft_thread f;
            CHECK_OK(weft_thread_create_to(other, free_sent, (void *)(intptr_t)64, NULL, &f));
            CHECK_OK(weft_thread_free(&f));
        }
        expect += 64;
        if (r == rounds / 10) base = mallinfo2().uordblks;
    }
    CHECK(g_ran == expect);
    size_t grown = mallinfo2().uordblks - base;
    if (grown > (1u << 20)) {
        fprintf(stderr, "heap grew by %zu bytes over %d rounds\n", grown, rounds - rounds / 10);
        return 1;
    }
    CHECK_OK(weft_finalize());
    return 0;
}
