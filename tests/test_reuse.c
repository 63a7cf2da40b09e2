/* One stack, reused by 100,000 ULTs in a row: ends that return and ends by
 * weft_thread_exit() from deep inside. Every ULT runs once, and nothing
 * builds up per ULT on a reused stack: under ThreadSanitizer each end used
 * to leave frames on the stack's fiber until TSan aborted at 65,536 of
 * them (fiber_hooks.h, hook_ult_end). */
#include "check.h"

#define ULTS 100000
#define DEPTH 20

static long g_ran, g_exited, g_returned;

static void dive(int depth)
{
    if (depth == 0) {
        g_exited++;
        weft_thread_exit();
        g_returned++; /* must not happen */
        return;
    }
    dive(depth - 1);
    __asm__ volatile("" ::: "memory"); /* keep the recursion a recursion */
}

static void body(void *arg)
{
    g_ran++;
    if ((long)arg % 100 == 0) dive(DEPTH);
}

int main(void)
{
    start_weft(1);
    weft_pool pool = self_pool();
    for (long i = 0; i < ULTS; i++) {
        weft_thread t;
        CHECK_OK(weft_thread_create(pool, body, (void *)i, NULL, &t));
        CHECK_OK(weft_thread_free(&t));
    }
    CHECK(g_ran == ULTS);
    CHECK(g_exited == ULTS / 100);
    CHECK(g_returned == 0);
    CHECK_OK(weft_finalize());
    printf("reuse: ok\n");
    return 0;
}
