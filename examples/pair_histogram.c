/* Pair mode: split a short computation in two, many times over.
 *
 * Each round builds the histogram of a small buffer (a few microseconds of
 * work): the assistant counts the first half while the calling thread
 * counts the second, then the halves are merged. The calling thread binds
 * itself to the CPU it runs on, so that weft puts the assistant beside it
 * (its SMT sibling where the machine has one).
 *
 *   ./example_pair_histogram [rounds]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft_pair.h>

#define BYTES 4096

struct half {
    const unsigned char *data;
    size_t n;
    unsigned counts[256];
};

static void count_half(void *arg)
{
    struct half *h = arg;
    memset(h->counts, 0, sizeof h->counts);
    for (size_t i = 0; i < h->n; i++) h->counts[h->data[i]]++;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 100000;
    static unsigned char buf[BYTES];
    for (size_t i = 0; i < BYTES; i++) buf[i] = (unsigned char)(i * 2654435761u >> 13);

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one); /* best effort */

    weft_pair pair;
    int rc = weft_pair_create(NULL, &pair);
    if (rc != WEFT_OK) {
        fprintf(stderr, "weft_pair_create: %s\n", weft_strerror(rc));
        return 1;
    }
    weft_pair_placement how;
    int owner, assistant;
    weft_pair_placement_get(pair, &how, &owner, &assistant);

    struct half a = {buf, BYTES / 2, {0}}, b = {buf + BYTES / 2, BYTES - BYTES / 2, {0}};
    unsigned long total = 0, zeros = 0;
    weft_pair_wake_hint(pair); /* the parallel section starts */
    for (long r = 0; r < rounds; r++) {
        weft_pair_submit(pair, count_half, &a); /* the assistant takes the first half */
        count_half(&b);                          /* this thread the second */
        weft_pair_wait(pair);
        for (int v = 0; v < 256; v++) total += a.counts[v] + b.counts[v];
        zeros += a.counts[0] + b.counts[0];
    }
    weft_pair_sleep_hint(pair); /* over: the assistant may sleep */
    weft_pair_free(&pair);

    int ok = total == (unsigned long)rounds * BYTES;
    printf("pair (placement %d, owner CPU %d, assistant CPU %d): %ld rounds, %lu bytes counted, %lu zeros: %s\n",
           (int)how, owner, assistant, rounds, total, zeros, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
