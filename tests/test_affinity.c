/* weft stays inside the CPUs it is given: a process started under
 * `taskset` (or bound by cgroups or an MPI launcher) gets streams on those
 * CPUs only, counts only those as cores, and has its main thread's mask
 * back after weft_finalize(). */
#define _GNU_SOURCE
#include <sched.h>

#include "check.h"

static int main_cpu(void)
{
    weft_xstream xs;
    int cpu;
    CHECK_OK(weft_xstream_get(0, &xs));
    CHECK_OK(weft_xstream_get_cpubind(xs, &cpu));
    return cpu;
}

int main(void)
{
    cpu_set_t all, one, now;
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    int last = -1, n = CPU_COUNT(&all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) last = c;

    /* The whole mask: whether or not the main thread is bound while weft
     * runs, it gets the whole mask back. */
    CHECK_OK(weft_init(NULL));
    int first = main_cpu();
    CHECK(first == -1 || CPU_ISSET(first, &all));
    CHECK_OK(weft_finalize());
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &all));
    if (n < 2) {
        printf("affinity: ok (one CPU: the restricted case needs two)\n");
        return 0;
    }

    /* Only the last CPU: one core counted, the primary bound there, the
     * other CPUs refused. */
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    CHECK(cfg.num_xstreams == 1 || getenv("WEFT_NUM_XSTREAMS"));
    cfg.num_xstreams = 2; /* more streams than cores: unbound by default */
    cfg.bind = 1;
    CHECK_OK(weft_init(&cfg));
    CHECK(main_cpu() == last);
    weft_xstream x1;
    int cpu;
    CHECK_OK(weft_xstream_get(1, &x1));
    CHECK_OK(weft_xstream_get_cpubind(x1, &cpu));
    CHECK(cpu == last);
    int other = 0;
    while (!CPU_ISSET(other, &all) || other == last) other++;
    CHECK_RC(weft_xstream_set_cpubind(x1, other), WEFT_ERR_INVALID);
    CHECK_OK(weft_finalize());
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &one));

    /* The topology weft_config_init() loaded under the whole mask is not
     * the one weft_init() uses once the mask is narrower. */
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    CHECK_OK(weft_config_init(&cfg));
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    cfg.num_xstreams = 2;
    cfg.bind = 1;
    CHECK_OK(weft_init(&cfg));
    CHECK(main_cpu() == last);
    CHECK_OK(weft_xstream_get(1, &x1));
    CHECK_OK(weft_xstream_get_cpubind(x1, &cpu));
    CHECK(cpu == last);
    CHECK_RC(weft_xstream_set_cpubind(x1, other), WEFT_ERR_INVALID);
    CHECK_OK(weft_finalize());

    /* The default leaves every stream unbound (README: binding on a shared
     * machine), whatever the count; WEFT_BIND=1 binds. */
    if (!getenv("WEFT_BIND")) {
        CHECK_OK(weft_config_init(&cfg));
        CHECK(cfg.bind == -1);
        cfg.num_xstreams = 2;
        CHECK_OK(weft_init(&cfg));
        CHECK(main_cpu() == -1);
        CHECK_OK(weft_xstream_get(1, &x1));
        CHECK_OK(weft_xstream_get_cpubind(x1, &cpu));
        CHECK(cpu == -1);
        CHECK_OK(weft_finalize());
        CHECK_OK(weft_config_init(&cfg));
        cfg.num_xstreams = 1;
        CHECK_OK(weft_init(&cfg));
        CHECK(main_cpu() == -1);
        CHECK_OK(weft_finalize());
        CHECK(setenv("WEFT_BIND", "1", 1) == 0);
        CHECK_OK(weft_config_init(&cfg));
        CHECK(cfg.bind == 1);
        cfg.num_xstreams = 1;
        CHECK_OK(weft_init(&cfg));
        CHECK(main_cpu() == last);
        CHECK_OK(weft_finalize());
        CHECK(unsetenv("WEFT_BIND") == 0);
        cfg.bind = 2;
        CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    }

    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    printf("affinity: ok\n");
    return 0;
}
