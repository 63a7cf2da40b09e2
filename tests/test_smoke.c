/* The basic life cycle: init, create ULTs and tasklets, join, finalize. */
#include "check.h"

static void add_one(void *arg)
{
    __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
}

int main(void)
{
    int counter = 0;
    CHECK_OK(weft_init(NULL));
    weft_xstream self;
    CHECK_OK(weft_xstream_self(&self));
    weft_pool pool;
    int n;
    CHECK_OK(weft_xstream_get_pools(self, 1, &pool, &n));
    CHECK(n == 1);
    weft_thread t[8];
    for (int i = 0; i < 4; i++) CHECK_OK(weft_thread_create(pool, add_one, &counter, NULL, &t[i]));
    for (int i = 4; i < 8; i++) CHECK_OK(weft_tasklet_create(pool, add_one, &counter, &t[i]));
    for (int i = 0; i < 8; i++) CHECK_OK(weft_thread_free(&t[i]));
    CHECK(counter == 8);
    CHECK_OK(weft_finalize());
    printf("smoke: ok\n");
    return 0;
}
