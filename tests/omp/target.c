/* target: device constructs with host fallback (no offload device).
 *  - omp_get_num_devices() == 0, omp_is_initial_device() == 1,
 *    omp_get_initial_device() == omp_get_device_num() ==
 *    omp_get_num_devices() (OpenMP 5.1: the host's device number);
 *  - target with map(to / from / tofrom) computes on the data and returns
 *    it (GOMP_target_ext); inside, omp_is_initial_device() is 1;
 *  - target data / target enter data / target exit data / target update
 *    (GOMP_target_data_ext, GOMP_target_end_data,
 *    GOMP_target_enter_exit_data, GOMP_target_update_ext);
 *  - target teams num_teams(3) (GOMP_teams4 inside the target region);
 *  - target teams distribute parallel for reduction;
 *  - target nowait + taskwait (the target region is a deferred task);
 *    with depend, its maker goes on before the predecessors complete, and
 *    its firstprivate copies are made when the construct is met;
 *  - depend on target enter data / target update / target exit data: each
 *    waits for its predecessors and orders its successors (a chain of
 *    tasks and data constructs whose values depend on the order; weft-omp
 *    once ignored depend there: GCC's libgomp.c/target-25.c, target-32.c);
 *    with nowait, the maker goes on before the predecessors complete;
 *  - declare target functions and variables;
 *  - omp_target_alloc / omp_target_free / omp_target_memcpy /
 *    omp_target_memcpy_rect / omp_target_is_present on the initial device
 *    work on host memory; omp_target_memcpy_rect(NULL, NULL, ...) reports
 *    at least 3 supported dimensions; omp_target_associate_ptr on the host
 *    device fails (non-zero).
 */
#include "omp_check.h"

#pragma omp declare target
static int dev_counter = 5;
static int square(int x)
{
    return x * x;
}
#pragma omp end declare target

int main(void)
{
    int host = omp_get_initial_device();
    CHECK_EQ(omp_get_num_devices(), 0);
    CHECK_EQ(omp_is_initial_device(), 1);
    CHECK_EQ(host, omp_get_num_devices());
    CHECK_EQ(omp_get_device_num(), host);

    enum { N = 256 };
    int in[N], out[N], io[N];
    for (int i = 0; i < N; i++) {
        in[i] = i;
        out[i] = -1;
        io[i] = 2 * i;
    }
    int on_host = 0, devnum = -1;
#pragma omp target map(to : in) map(from : out) map(tofrom : io) map(from : on_host, devnum)
    {
        on_host = omp_is_initial_device();
        devnum = omp_get_device_num();
        for (int i = 0; i < N; i++) {
            out[i] = square(in[i]);
            io[i] += 1;
        }
        dev_counter += 10;
    }
    CHECK_EQ(on_host, 1);
    CHECK_EQ(devnum, host);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(out[i], i * i);
        CHECK_EQ(io[i], 2 * i + 1);
    }
#pragma omp target update from(dev_counter)
    CHECK_EQ(dev_counter, 15);

    /* data environments */
    int a[N];
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp target data map(tofrom : a)
    {
#pragma omp target
        for (int i = 0; i < N; i++)
            a[i] *= 3;
#pragma omp target update from(a)
        CHECK_EQ(a[10], 30);
        a[0] = 1000;
#pragma omp target update to(a)
#pragma omp target
        a[0] += 1;
    }
    CHECK_EQ(a[0], 1001);
    CHECK_EQ(a[N - 1], 3 * (N - 1));

    double *b = malloc(N * sizeof *b);
    CHECK(b != NULL);
    for (int i = 0; i < N; i++)
        b[i] = i * 0.5;
#pragma omp target enter data map(to : b[0 : N])
#pragma omp target map(alloc : b[0 : N])
    for (int i = 0; i < N; i++)
        b[i] += 1.0;
#pragma omp target exit data map(from : b[0 : N])
    for (int i = 0; i < N; i++)
        CHECK(b[i] == i * 0.5 + 1.0);
    free(b);

    /* target teams */
    int tseen[8] = {0}, tn = 0;
#pragma omp target teams num_teams(3) map(tofrom : tseen, tn)
    {
        tseen[omp_get_team_num()]++;
        if (omp_get_team_num() == 0)
            tn = omp_get_num_teams();
    }
    CHECK_EQ(tn, 3); /* OpenMP 5.1: no lower bound given = upper bound */
    for (int t = 0; t < tn; t++)
        CHECK_EQ(tseen[t], 1);
    long sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(tofrom : sum)
    for (int i = 0; i < 1000; i++)
        sum += square(i % 10);
    CHECK_EQ(sum, 100L * (0 + 1 + 4 + 9 + 16 + 25 + 36 + 49 + 64 + 81));

    /* nowait */
    int late = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp target nowait map(tofrom : late)
        {
            tiny_delay(10000);
            late = 7;
        }
#pragma omp taskwait
        CHECK_EQ(late, 7);
    }

    /* device memory routines on the host device */
    int *p = omp_target_alloc(N * sizeof(int), host);
    CHECK(p != NULL);
    CHECK(omp_target_is_present(in, host));
    CHECK_EQ(omp_target_memcpy(p, in, N * sizeof(int), 0, 0, host, host), 0);
    for (int i = 0; i < N; i++)
        CHECK_EQ(p[i], i);
    int back[8];
    CHECK_EQ(omp_target_memcpy(back, p, 8 * sizeof(int), 0, 16 * sizeof(int), host, host), 0);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(back[i], 16 + i);
    omp_target_free(p, host);

    /* 2-D rectangle: copy src[2..4][3..6] into dst[1..3][0..3] */
    int src[6][8], dst[5][5];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
            src[i][j] = i * 100 + j;
    memset(dst, 0, sizeof dst);
    size_t vol[2] = {3, 4}, doff[2] = {1, 0}, soff[2] = {2, 3};
    size_t ddim[2] = {5, 5}, sdim[2] = {6, 8};
    CHECK_EQ(omp_target_memcpy_rect(dst, src, sizeof(int), 2, vol, doff, soff, ddim, sdim, host,
                                    host),
             0);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            int want = (i >= 1 && i < 4 && j < 4) ? (i - 1 + 2) * 100 + (j + 3) : 0;
            CHECKF(dst[i][j] == want, "rect dst[%d][%d] = %d, want %d", i, j, dst[i][j], want);
        }
    CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host) >= 3);
    int q = 0;
    CHECK(omp_target_associate_ptr(&q, &q, sizeof q, 0, host) != 0);
    /* depend on the data constructs: a chain through d[0..4] */
    for (int rep = 0; rep < 20; rep++) {
        int a = 0, d[5];
#pragma omp parallel shared(a, d)
#pragma omp single
        {
#pragma omp task depend(out : d[0]) shared(a)
            {
                usleep(200);
                a = 2;
            }
#pragma omp target enter data nowait map(to : a) depend(in : d[0]) depend(out : d[1])
#pragma omp task depend(in : d[1]) depend(out : d[2]) shared(a)
            a = a * 10 + 1;
#pragma omp target update to(a) nowait depend(inout : d[2])
#pragma omp task depend(in : d[2]) depend(out : d[3]) shared(a)
            {
                usleep(200);
                a = a * 10 + 2;
            }
#pragma omp target exit data map(from : a) depend(in : d[3]) depend(out : d[4])
#pragma omp task depend(in : d[4]) shared(a)
            a = a * 10 + 3;
        }
        CHECK_EQ(a, 2123);
    }
    /* target update nowait with depend does not hold its maker: the maker
     * fulfils the predecessor's event only after the construct */
    {
        int x = 0, y = 0;
#pragma omp parallel num_threads(2) shared(x, y)
#pragma omp single
        {
            omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
            x = 1;
#pragma omp target update to(x) nowait depend(in : x)
#pragma omp task depend(in : x) shared(x, y)
            y = x + 1;
            omp_fulfill_event(ev);
#pragma omp taskwait
        }
        CHECK_EQ(x, 1);
        CHECK_EQ(y, 2);
    }
    /* target nowait with depend is a deferred task too: the maker goes on
     * (and fulfils the predecessor's event); the region runs after it,
     * with the firstprivate values of when the construct was met */
    for (int rep = 0; rep < 20; rep++) {
        int x = 0, y = 0, v = 5, arr[4] = {1, 2, 3, 4}, got = 0, got_arr = 0;
#pragma omp parallel num_threads(2) shared(x, y, v, arr, got, got_arr)
#pragma omp single
        {
            omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
            x = 1;
#pragma omp target nowait depend(in : x) map(to : x) map(from : y, got, got_arr) firstprivate(v, arr)
            {
                y = x + 1;
                got = v;
                got_arr = arr[0] * 10 + arr[3];
            }
            v = 9;
            arr[0] = 100;
            omp_fulfill_event(ev);
#pragma omp taskwait
        }
        CHECK_EQ(y, 2);
        CHECK_EQ(got, 5);
        CHECK_EQ(got_arr, 14);
    }
    return 0;
}
