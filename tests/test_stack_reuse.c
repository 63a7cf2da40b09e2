/* More ULTs live at once than the stack caches hold (a stream's 1,024 plus
 * the global list's first bound of 4,096), round after round: once the
 * global list has grown to the program's need, a round maps no new stacks,
 * so it touches no new stack pages. Counted in page faults, not time: a
 * round that maps its stacks anew faults at least once per new stack. */
#include <sys/resource.h>

#include "check.h"

#define LIVE 7000
#define ROUNDS 8

static weft_eventual g_go;
static weft_thread g_u[LIVE];
static int g_ran;

static void waiter(void *arg)
{
    (void)arg;
    CHECK_OK(weft_eventual_wait(g_go, NULL));
    __atomic_fetch_add(&g_ran, 1, __ATOMIC_RELAXED);
}

static long minor_faults(void)
{
    struct rusage r;
    CHECK(getrusage(RUSAGE_SELF, &r) == 0);
    return r.ru_minflt;
}

int main(void)
{
#ifdef WEFT_TEST_EMULATED
    printf("stack reuse: skipped (qemu-user's own page faults count too)\n");
    return 0;
#endif
    if (getenv("WEFT_HUGE_PAGES") || getenv("WEFT_STACK_SIZE")) {
        printf("stack reuse: skipped (stack options from the environment)\n");
        return 0;
    }
    start_weft(1);
    weft_pool pool = self_pool();
    long faults[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        long f0 = minor_faults();
        CHECK_OK(weft_eventual_create(0, &g_go));
        for (int i = 0; i < LIVE; i++) CHECK_OK(weft_thread_create(pool, waiter, NULL, NULL, &g_u[i]));
        size_t left;
        do { /* every ULT starts, takes a stack and blocks */
            CHECK_OK(weft_yield());
            CHECK_OK(weft_pool_size(pool, &left));
        } while (left);
        CHECK_OK(weft_eventual_set(g_go, NULL, 0));
        CHECK_OK(weft_thread_free_many(LIVE, g_u));
        CHECK_OK(weft_eventual_free(&g_go));
        faults[r] = minor_faults() - f0;
    }
    CHECK(g_ran == LIVE * ROUNDS);
    /* The last rounds reuse every stack: far fewer faults than stacks. */
    for (int r = ROUNDS - 2; r < ROUNDS; r++)
        if (faults[r] > LIVE / 10) {
            fprintf(stderr, "round %d: %ld page faults for %d live ULTs (rounds:", r, faults[r], LIVE);
            for (int k = 0; k < ROUNDS; k++) fprintf(stderr, " %ld", faults[k]);
            fprintf(stderr, ")\n");
            return 1;
        }
    CHECK_OK(weft_finalize());
    printf("stack reuse: ok (page faults per round: first %ld, last %ld)\n", faults[0], faults[ROUNDS - 1]);
    return 0;
}
