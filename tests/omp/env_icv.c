/* env_icv: ICVs initialised from environment variables.
 * Each RUN-ENV line is one run; OMP_TEST_CASE names the expectations.
 * RUN-ENV: OMP_TEST_CASE=full OMP_NUM_THREADS=3,2 OMP_SCHEDULE=dynamic,4 OMP_DYNAMIC=false OMP_MAX_ACTIVE_LEVELS=2 OMP_THREAD_LIMIT=16 OMP_WAIT_POLICY=passive OMP_MAX_TASK_PRIORITY=5 OMP_DEFAULT_DEVICE=0 OMP_NUM_TEAMS=3 OMP_TEAMS_THREAD_LIMIT=2 OMP_ALLOCATOR=omp_low_lat_mem_alloc OMP_CANCELLATION=true
 * RUN-ENV: OMP_TEST_CASE=limits OMP_NUM_THREADS=4 OMP_THREAD_LIMIT=3 OMP_DYNAMIC=true OMP_SCHEDULE=static,2 OMP_WAIT_POLICY=active
 * RUN-ENV: OMP_TEST_CASE=levels OMP_NUM_THREADS=2,3,2 OMP_MAX_ACTIVE_LEVELS=3 OMP_SCHEDULE=guided,3
 * RUN-ENV: OMP_TEST_CASE=nested OMP_NESTED=true OMP_NUM_THREADS=2 OMP_SCHEDULE=auto
 * RUN-ENV: OMP_TEST_CASE=list OMP_NUM_THREADS=2,3 OMP_DYNAMIC=TRUE OMP_SCHEDULE=monotonic:dynamic,3
 * RUN-ENV: OMP_TEST_CASE=alloc OMP_ALLOCATOR=omp_high_bw_mem_alloc OMP_NUM_TEAMS=5 OMP_SCHEDULE=nonmonotonic:guided,2
 * RUN-ENV: OMP_TEST_CASE=stack OMP_STACKSIZE=24M OMP_NUM_THREADS=4
 * RUN-ENV: OMP_TEST_CASE=stack OMP_STACKSIZE=25600k OMP_NUM_THREADS=3
 *
 * full:   nthreads-var list 3,2 gives a team of 3 whose threads' nested
 *         regions have 2 threads (omp_get_max_threads() is 2 in the
 *         outer region); run-sched-var dynamic,4 (a runtime loop hands
 *         out aligned chunks of 4); dyn false; max-active-levels 2;
 *         thread-limit 16; max-task-priority 5; default device 0;
 *         nteams 3 (a host teams construct without num_teams makes 3
 *         teams) and teams-thread-limit 2 (their parallel regions have at
 *         most 2 threads); default allocator omp_low_lat_mem_alloc;
 *         cancellation true;
 * limits: thread-limit 3 caps a 4-thread request at 3 or fewer (dyn true
 *         allows fewer); OMP_SCHEDULE=static,2 reads back as static (libgomp
 *         adds the monotonic modifier flag) with chunk 2 and a runtime loop
 *         is round-robin by 2;
 * levels: 2 x 3 x 2 nested teams with max-active-levels 3; guided,3;
 * nested: OMP_NESTED=true sets max-active-levels above 1 (libgomp: 255)
 *         and omp_get_nested() to 1; auto schedule;
 * list:   a nthreads list alone raises max-active-levels above 1
 *         (libgomp: 255); dyn TRUE (case-insensitive); monotonic:dynamic,3
 *         reads back with omp_sched_monotonic;
 * alloc:  OMP_ALLOCATOR=omp_high_bw_mem_alloc; nteams 5;
 *         nonmonotonic:guided,2 reads back as guided,2;
 * stack:  OMP_STACKSIZE (24M, 25600k): every non-initial thread of a team
 *         touches a 16 MiB array on its stack (the default 8 MiB thread
 *         stack could not hold it; the initial thread is not governed by
 *         OMP_STACKSIZE and does not try).
 */
#include "omp_check.h"

static void sched_is(omp_sched_t kind, int chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    CHECKF(k == kind && c == chunk, "schedule %#x,%d expected %#x,%d", (unsigned)k, c,
           (unsigned)kind, chunk);
}

/* runtime loop: check the chunk pattern (static: round robin; dynamic:
 * aligned chunks); returns the team size */
static int runtime_loop(int chunk, int round_robin)
{
    enum { N = 200 };
    int owner[N], nthr = 0;
#pragma omp parallel shared(owner, nthr)
    {
#pragma omp single
        nthr = omp_get_num_threads();
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++)
            owner[i] = omp_get_thread_num();
    }
    for (int i = 0; i < N; i++) {
        if (round_robin)
            CHECKF(owner[i] == (i / chunk) % nthr, "runtime static,%d: %d on %d", chunk, i,
                   owner[i]);
        else
            CHECKF(owner[i] == owner[(i / chunk) * chunk], "runtime dynamic,%d: chunk split at %d",
                   chunk, i);
    }
    return nthr;
}


static void big_stack(int *ok)
{
    char arr[16 << 20];
    for (size_t k = 0; k < sizeof arr; k += 4096)
        arr[k] = (char)k;
    arr[sizeof arr - 1] = 1;
    volatile char sinkc = arr[(16 << 20) / 2] + arr[sizeof arr - 1]; /* local: no race */
    (void)sinkc;
    *ok = 1;
}

int main(void)
{
    const char *cs = getenv("OMP_TEST_CASE");
    CHECKF(cs != NULL, "OMP_TEST_CASE not set: run this test through run.sh");

    if (!strcmp(cs, "full")) {
        CHECK_EQ(omp_get_max_threads(), 3);
        sched_is(omp_sched_dynamic, 4);
        CHECK_EQ(omp_get_dynamic(), 0);
        CHECK_EQ(omp_get_max_active_levels(), 2);
        CHECK_EQ(omp_get_thread_limit(), 16);
        CHECK_EQ(omp_get_max_task_priority(), 5);
        CHECK_EQ(omp_get_default_device(), 0);
        CHECK_EQ(omp_get_max_teams(), 3);
        CHECK_EQ(omp_get_teams_thread_limit(), 2);
        CHECK(omp_get_default_allocator() == omp_low_lat_mem_alloc);
        CHECK_EQ(omp_get_cancellation(), 1);
        int outer = 0, inner[3] = {0, 0, 0}, inner_max[3] = {0, 0, 0};
#pragma omp parallel shared(outer, inner, inner_max)
        {
            int t = omp_get_thread_num();
#pragma omp single
            outer = omp_get_num_threads();
            inner_max[t] = omp_get_max_threads();
#pragma omp parallel
#pragma omp master
            inner[t] = omp_get_num_threads();
        }
        CHECK_EQ(outer, 3);
        for (int t = 0; t < 3; t++) {
            CHECK_EQ(inner_max[t], 2);
            CHECK_EQ(inner[t], 2);
        }
        CHECK_EQ(runtime_loop(4, 0), 3);
        int nteams = 0, tin[8] = {0};
#pragma omp teams
        {
            int tn = omp_get_team_num();
            if (tn == 0)
                nteams = omp_get_num_teams();
#pragma omp parallel num_threads(4)
#pragma omp master
            tin[tn] = omp_get_num_threads();
        }
        CHECK_EQ(nteams, 3);
        for (int t = 0; t < 3; t++)
            CHECK(tin[t] >= 1 && tin[t] <= 2);
    } else if (!strcmp(cs, "limits")) {
        CHECK_EQ(omp_get_thread_limit(), 3);
        CHECK_EQ(omp_get_dynamic(), 1);
        CHECK_EQ(omp_get_max_threads(), 4);
        sched_is((omp_sched_t)(omp_sched_static | omp_sched_monotonic), 2);
        int n = 0;
#pragma omp parallel num_threads(4) shared(n)
#pragma omp master
        n = omp_get_num_threads();
        CHECK(n >= 1 && n <= 3);
        omp_set_dynamic(0);
        int nt = runtime_loop(2, 1);
        CHECK(nt >= 1 && nt <= 3);
    } else if (!strcmp(cs, "levels")) {
        CHECK_EQ(omp_get_max_active_levels(), 3);
        sched_is(omp_sched_guided, 3);
        int cnt = 0, bad = 0;
#pragma omp parallel shared(cnt) reduction(+ : bad)
        {
            if (omp_get_num_threads() != 2)
                bad++;
#pragma omp parallel reduction(+ : bad)
            {
                if (omp_get_num_threads() != 3)
                    bad++;
#pragma omp parallel reduction(+ : bad)
                {
                    if (omp_get_num_threads() != 2 || omp_get_active_level() != 3)
                        bad++;
#pragma omp atomic
                    cnt++;
                }
            }
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(cnt, 12);
    } else if (!strcmp(cs, "nested")) {
        CHECK_EQ(omp_get_nested(), 1);
        CHECK_EQ(omp_get_max_active_levels(), omp_get_supported_active_levels());
        sched_is(omp_sched_auto, 1);
        int cnt = 0;
#pragma omp parallel shared(cnt)
#pragma omp parallel shared(cnt)
#pragma omp atomic
        cnt++;
        CHECK_EQ(cnt, 4);
    } else if (!strcmp(cs, "list")) {
        CHECK_EQ(omp_get_max_threads(), 2);
        CHECK_EQ(omp_get_max_active_levels(), omp_get_supported_active_levels());
        CHECK_EQ(omp_get_nested(), 1);
        CHECK_EQ(omp_get_dynamic(), 1);
        sched_is((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 3);
    } else if (!strcmp(cs, "alloc")) {
        CHECK(omp_get_default_allocator() == omp_high_bw_mem_alloc);
        CHECK_EQ(omp_get_max_teams(), 5);
        sched_is(omp_sched_guided, 2);
        void *p = omp_alloc(1000, omp_null_allocator);
        CHECK(p != NULL);
        omp_free(p, omp_null_allocator);
    } else if (!strcmp(cs, "stack")) {
        int ok[8] = {0}, n = 0;
#pragma omp parallel shared(ok, n)
        {
            int t = omp_get_thread_num();
#pragma omp single
            n = omp_get_num_threads();
            if (t != 0)
                big_stack(&ok[t]);
        }
        CHECK(n >= 3);
        for (int t = 1; t < n; t++)
            CHECK_EQ(ok[t], 1);
    } else {
        CHECKF(0, "unknown OMP_TEST_CASE %s", cs);
    }
    return 0;
}
