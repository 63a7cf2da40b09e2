/* Recursive Fibonacci with a ULT per call: the divide-and-conquer shape that
 * lightweight threads make cheap. Each call spawns its two halves into the
 * caller's pool and joins them; a join suspends only the caller. */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

struct call { int n; long result; };

static void fib(void *arg)
{
    struct call *c = arg;
    if (c->n < 2) {
        c->result = c->n;
        return;
    }
    struct call a = {c->n - 1, 0}, b = {c->n - 2, 0};
    weft_xstream xs;
    weft_pool pool;
    int np;
    weft_xstream_self(&xs);
    weft_xstream_get_pools(xs, 1, &pool, &np);
    weft_thread ta, tb;
    weft_thread_create(pool, fib, &a, NULL, &ta);
    weft_thread_create(pool, fib, &b, NULL, &tb);
    weft_thread_free(&ta);
    weft_thread_free(&tb);
    c->result = a.result + b.result;
}

int main(int argc, char **argv)
{
    struct call c = {argc > 1 ? atoi(argv[1]) : 20, 0};
    if (weft_init(NULL) != WEFT_OK) return 1;
    fib(&c);
    weft_finalize();
    printf("fib(%d) = %ld\n", c.n, c.result);
    return 0;
}
