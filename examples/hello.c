/* The shortest useful weft program: ULTs spread over all streams, joined by
 * the main ULT. Build: cc hello.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <weft.h>

static void greet(void *arg)
{
    weft_xstream xs;
    int rank;
    weft_xstream_self(&xs);
    weft_xstream_rank(xs, &rank);
    printf("hello from ULT %ld on stream %d\n", (long)(intptr_t)arg, rank);
}

int main(void)
{
    int rc = weft_init(NULL); /* one stream per core */
    if (rc != WEFT_OK) {
        fprintf(stderr, "weft_init: %s\n", weft_strerror(rc));
        return 1;
    }
    int n;
    weft_xstream_count(&n);
    weft_thread t[8];
    for (int i = 0; i < 8; i++) {
        weft_xstream xs;
        weft_xstream_get(i % n, &xs);
        weft_thread_create_to(xs, greet, (void *)(intptr_t)i, NULL, &t[i]);
    }
    for (int i = 0; i < 8; i++) weft_thread_free(&t[i]); /* join, then release */
    return weft_finalize() == WEFT_OK ? 0 : 1;
}
