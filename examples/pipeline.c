/* Blocking code in ULTs: producers and consumers share a bounded queue
 * under a weft mutex and two condition variables; each consumer reports its
 * sum into one compartment of a future, whose callback adds them up. A
 * ULT that waits gives its stream to the others; nothing spins.
 * Usage: example_pipeline [items per producer] */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

enum { PRODUCERS = 4, CONSUMERS = 4, CAP = 16 };

static weft_mutex lock;
static weft_cond not_full, not_empty;
static long queue[CAP];
static int head, count, producers_left = PRODUCERS;
static weft_future sums;
static long per_producer = 10000;

static void produce(void *arg)
{
    (void)arg;
    for (long i = 1; i <= per_producer; i++) {
        weft_mutex_lock(lock);
        while (count == CAP) weft_cond_wait(not_full, lock);
        queue[(head + count++) % CAP] = i;
        weft_cond_signal(not_empty);
        weft_mutex_unlock(lock);
    }
    weft_mutex_lock(lock);
    if (--producers_left == 0) weft_cond_broadcast(not_empty); /* consumers may stop */
    weft_mutex_unlock(lock);
}

static void consume(void *arg)
{
    long *sum = arg;
    for (;;) {
        weft_mutex_lock(lock);
        while (count == 0 && producers_left > 0) weft_cond_wait(not_empty, lock);
        if (count == 0) { /* drained, and nobody produces any more */
            weft_mutex_unlock(lock);
            break;
        }
        *sum += queue[head];
        head = (head + 1) % CAP;
        count--;
        weft_cond_signal(not_full);
        weft_mutex_unlock(lock);
    }
    weft_future_set(sums, sum);
}

static long total;
static void add_up(void **values)
{
    for (int i = 0; i < CONSUMERS; i++) total += *(long *)values[i];
}

int main(int argc, char **argv)
{
    if (argc > 1) per_producer = atol(argv[1]);
    if (weft_init(NULL) != WEFT_OK) return 1;
    weft_mutex_create(NULL, &lock);
    weft_cond_create(&not_full);
    weft_cond_create(&not_empty);
    weft_future_create(CONSUMERS, add_up, &sums);

    int n;
    weft_xstream_count(&n);
    static long sum[CONSUMERS];
    weft_thread t[PRODUCERS + CONSUMERS];
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++) {
        weft_xstream xs;
        weft_xstream_get(i % n, &xs);
        if (i < PRODUCERS) weft_thread_create_to(xs, produce, NULL, NULL, &t[i]);
        else weft_thread_create_to(xs, consume, &sum[i - PRODUCERS], NULL, &t[i]);
    }
    weft_future_wait(sums); /* the main ULT blocks too; its stream runs the others */
    weft_thread_free_many(PRODUCERS + CONSUMERS, t);
    long want = PRODUCERS * per_producer * (per_producer + 1) / 2;
    printf("consumed sum %ld (expected %ld)\n", total, want);

    weft_future_free(&sums);
    weft_cond_free(&not_empty);
    weft_cond_free(&not_full);
    weft_mutex_free(&lock);
    return weft_finalize() == WEFT_OK && total == want ? 0 : 1;
}
