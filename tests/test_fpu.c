/* With WEFT_PRESERVE_FPU, each ULT keeps its own floating-point control
 * state (rounding mode) across switches, and a new ULT starts with the
 * ABI's default. Skipped (exit 77) in builds without it. */
#include <fenv.h>

#include "check.h"

#ifdef WEFT_TEST_PRESERVE_FPU
static int g_b_saw;

static void a_body(void *arg)
{
    (void)arg;
    CHECK(fesetround(FE_UPWARD) == 0);
    CHECK_OK(weft_yield()); /* b runs and sets its own mode */
    CHECK(fegetround() == FE_UPWARD);
    volatile double one = 1.0, three = 3.0;
    CHECK(one / three > 0.3333333333333333); /* rounded up */
}

static void b_body(void *arg)
{
    (void)arg;
    g_b_saw = fegetround();
    CHECK(fesetround(FE_DOWNWARD) == 0);
    CHECK_OK(weft_yield());
    CHECK(fegetround() == FE_DOWNWARD);
}
#endif

int main(void)
{
#ifndef WEFT_TEST_PRESERVE_FPU
    printf("fpu: skipped (built without WEFT_PRESERVE_FPU)\n");
    return 77;
#else
    start_weft(1);
    weft_pool pool = self_pool();
    weft_thread a, b;
    CHECK_OK(weft_thread_create(pool, a_body, NULL, NULL, &a));
    CHECK_OK(weft_thread_create(pool, b_body, NULL, NULL, &b));
    CHECK_OK(weft_thread_free(&a));
    CHECK_OK(weft_thread_free(&b));
    CHECK(g_b_saw == FE_TONEAREST);
    CHECK(fegetround() == FE_TONEAREST); /* main's own mode untouched */
    CHECK_OK(weft_finalize());
    printf("fpu: ok\n");
    return 0;
#endif
}
