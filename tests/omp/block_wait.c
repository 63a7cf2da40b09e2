/* block_wait: OpenMP threads that wait for each other inside calls that
 * block in the kernel: reads of pipes, writes to full ones, and condition
 * variables of the C library (futex waits).
 * RUN-ENV: OMP_NUM_THREADS=4 WEFT_NUM_XSTREAMS=2
 * RUN-ENV: OMP_NUM_THREADS=8 WEFT_NUM_XSTREAMS=2 WEFT_OMP_SHARE_STREAMS=true WEFT_OMP_RESCUE_MS=20
 * RUN-ENV: OMP_NUM_THREADS=2 WEFT_NUM_XSTREAMS=1 WEFT_OMP_SHARE_STREAMS=true WEFT_OMP_RESCUE_MS=10 OMP_TEST_MAIN_BEHIND=1
 * Under libgomp every OpenMP thread is an OS thread, so a thread blocked
 * in read(), write() or pthread_cond_wait() holds up nobody else. With
 * weft-omp's shared streams, several OpenMP threads are ULTs of one OS
 * thread: when one blocks in the kernel waiting for a thread ready behind
 * it on that stream, the stream would wait forever. weft-omp's watchdog
 * (rescue.c) moves the thread left behind to a stream of its own, or,
 * when only the initial thread waits behind it (OMP_TEST_MAIN_BEHIND),
 * the blocked thread itself if it waits on a condition variable, whose
 * call the kernel then restarts on its new OS thread (a thread in read()
 * may be inside stdio, which ties its FILE's lock to the OS thread: it is
 * not moved, and the initial thread waits behind it). The program must
 * never see EINTR from these calls: the checks below take none.
 * ThreadSanitizer runs signal handlers late, so weft-omp built with it
 * has no watchdog; under an emulator (qemu-user) the watchdog cannot see
 * which call a thread waits in: both are skipped.
 */
#include "omp_check.h"

#include <pthread.h>
#include <sys/syscall.h>

#define MAXT 64
#define ITEMS 200

/* Each thread reads a byte written by the next one; even threads read
 * first, odd ones write first. */
static void pipe_ring(void)
{
    int p[MAXT][2];
    int n = omp_get_max_threads();
    CHECK(n <= MAXT);
    for (int i = 0; i < n; i++) CHECK(pipe(p[i]) == 0);
    long sum = 0;
    int got_n = 0;
#pragma omp parallel reduction(+ : sum)
    {
        int me = omp_get_thread_num(), nt = omp_get_num_threads();
        char mine = (char)me, r = 0;
        int prev = (me + nt - 1) % nt;
#pragma omp single
        got_n = nt;
        if (me % 2 == 0) {
            CHECK(read(p[me][0], &r, 1) == 1);
            CHECK(write(p[prev][1], &mine, 1) == 1);
        } else {
            CHECK(write(p[prev][1], &mine, 1) == 1);
            CHECK(read(p[me][0], &r, 1) == 1);
        }
        CHECK_EQ(r, (me + 1) % nt);
        sum += r;
    }
    CHECK_EQ(got_n, n);
    CHECK_EQ(sum, (long)n * (n - 1) / 2);
    for (int i = 0; i < n; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
}

/* Thread i writes more than a pipe holds, in messages of at most
 * PIPE_BUF bytes (each written whole), to thread i + n/2, which reads
 * them: a writer ahead of its reader blocks in write() until it reads. */
#define MSG 512
#define MSGS 200 /* 100 KiB: more than the 64 KiB of a pipe */
static void pipe_full(void)
{
    int p[MAXT][2];
    int n = omp_get_max_threads();
    CHECK(n <= MAXT);
    for (int i = 0; i < n / 2; i++) CHECK(pipe(p[i]) == 0);
#pragma omp parallel
    {
        int me = omp_get_thread_num(), half = omp_get_num_threads() / 2;
        char msg[MSG];
        if (me < half) {
            for (int k = 0; k < MSGS; k++) {
                memset(msg, k & 0x7f, sizeof msg);
                CHECK(write(p[me][1], msg, sizeof msg) == MSG);
            }
        } else if (me < 2 * half) {
            for (int k = 0; k < MSGS; k++) {
                CHECK(read(p[me - half][0], msg, sizeof msg) == MSG);
                CHECK_EQ(msg[0], k & 0x7f);
                CHECK_EQ(msg[MSG - 1], k & 0x7f);
            }
        }
    }
    for (int i = 0; i < n / 2; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
}

/* A mailbox of one slot between thread i (producer) and thread i + n/2
 * (consumer), which share a stream when two threads share each: both
 * sides wait on a condition variable of the C library. */
struct mailbox {
    pthread_mutex_t m;
    pthread_cond_t c;
    int full, value;
};

static void condvar_pairs(void)
{
    static struct mailbox box[MAXT];
    long got[MAXT] = {0};
    int n = omp_get_max_threads();
    CHECK(n <= MAXT);
    for (int i = 0; i < n; i++) {
        CHECK(pthread_mutex_init(&box[i].m, NULL) == 0);
        CHECK(pthread_cond_init(&box[i].c, NULL) == 0);
        box[i].full = 0;
    }
#pragma omp parallel
    {
        int me = omp_get_thread_num(), nt = omp_get_num_threads(), half = nt / 2;
        if (me < half) {
            struct mailbox *b = &box[me];
            for (int v = 1; v <= ITEMS; v++) {
                CHECK(pthread_mutex_lock(&b->m) == 0);
                while (b->full) CHECK(pthread_cond_wait(&b->c, &b->m) == 0);
                b->value = v;
                b->full = 1;
                CHECK(pthread_cond_broadcast(&b->c) == 0);
                CHECK(pthread_mutex_unlock(&b->m) == 0);
            }
        } else if (me < 2 * half) {
            struct mailbox *b = &box[me - half];
            long sum = 0;
            for (int k = 0; k < ITEMS; k++) {
                CHECK(pthread_mutex_lock(&b->m) == 0);
                while (!b->full) CHECK(pthread_cond_wait(&b->c, &b->m) == 0);
                sum += b->value;
                b->full = 0;
                CHECK(pthread_cond_broadcast(&b->c) == 0);
                CHECK(pthread_mutex_unlock(&b->m) == 0);
            }
            got[me] = sum;
        }
    }
    for (int i = n / 2; i < 2 * (n / 2); i++) CHECK_EQ(got[i], (long)ITEMS * (ITEMS + 1) / 2);
}

/* On one stream: thread 0 waits at the barrier first, so thread 1 leaves
 * it first and waits on a condition variable that thread 0 signals after
 * it. */
static void main_behind(void)
{
    static struct mailbox b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    for (int rep = 0; rep < 10; rep++) {
        CHECK_EQ(omp_pause_resource_all(omp_pause_soft), 0); /* a new team: its worker on the one stream again */
        b.full = 0;
        int got = 0;
#pragma omp parallel num_threads(2)
        {
            int me = omp_get_thread_num();
#pragma omp barrier
            CHECK(pthread_mutex_lock(&b.m) == 0);
            if (me == 1) {
                while (!b.full) CHECK(pthread_cond_wait(&b.c, &b.m) == 0);
                got = b.value;
            } else {
                b.value = rep + 1;
                b.full = 1;
                CHECK(pthread_cond_broadcast(&b.c) == 0);
            }
            CHECK(pthread_mutex_unlock(&b.m) == 0);
            /* the moved thread, and the one left behind, still know who they are */
            CHECK(omp_get_num_threads() == 2);
            CHECK_EQ(omp_get_thread_num(), me);
        }
        CHECK_EQ(got, rep + 1);
    }
}

/* Does /proc show this thread's own read as SYS_read? Not under qemu-user. */
static int syscalls_visible(void)
{
    char buf[64];
    int fd = open("/proc/thread-self/syscall", O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    return atol(buf) == SYS_read && buf[0] != 'r';
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL; /* ring, full or condvar: that one alone */
#if defined(__SANITIZE_THREAD__)
#define BLOCK_WAIT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BLOCK_WAIT_TSAN 1
#endif
#endif
#ifdef BLOCK_WAIT_TSAN
    printf("block_wait: skipped (shared streams under ThreadSanitizer)\n");
    return 0;
#endif
    if (!syscalls_visible()) {
        printf("block_wait: skipped (the kernel's view of system calls is not this machine's: an emulator)\n");
        return 0;
    }
    if (getenv("OMP_TEST_MAIN_BEHIND")) {
        main_behind();
        printf("block_wait: main behind ok\n");
        return 0;
    }
    /* Each on new teams (a hot team keeps the streams its threads were
     * moved to): with shared streams each one needs its own rescues. */
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"ring", pipe_ring}, {"full", pipe_full}, {"condvar", condvar_pairs}, {"ring", pipe_ring}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (only && strcmp(only, cases[i].name) != 0) continue;
        CHECK_EQ(omp_pause_resource_all(omp_pause_soft), 0);
        cases[i].run();
    }
    printf("block_wait: ok (%d threads)\n", omp_get_max_threads());
    return 0;
}
