// cxx_udr: C++ class objects in data-sharing clauses and user-defined
// reductions (`declare reduction`).
//  - private(obj): each thread's copy is default-constructed, the
//    original is untouched;
//  - firstprivate(obj) on parallel and on task: copies are
//    copy-constructed from the original (values equal), one per thread /
//    task (for tasks gcc passes a copy function to GOMP_task);
//  - lastprivate(obj) on a loop: the original gets the value of the
//    sequentially last iteration (copy assignment);
//  - declare reduction on a class with a std::vector member (a histogram)
//    with an initializer, on parallel and on a for loop; and on a class
//    whose combiner is a member function;
//  - every constructed object is destroyed: constructor and destructor
//    counts balance after each construct.
#include "omp_check.h"

#include <atomic>
#include <vector>

static std::atomic<long> ctors{0}, dtors{0}, copies{0};

struct tracked {
    int value;
    std::vector<int> payload;
    tracked() : value(-1), payload(3, 7) { ctors++; }
    explicit tracked(int v) : value(v), payload(3, v) { ctors++; }
    tracked(const tracked &o) : value(o.value), payload(o.payload)
    {
        ctors++;
        copies++;
    }
    tracked &operator=(const tracked &o)
    {
        value = o.value;
        payload = o.payload;
        return *this;
    }
    ~tracked() { dtors++; }
};

struct histogram {
    std::vector<long> bins;
    histogram() : bins(16, 0) { ctors++; }
    histogram(const histogram &o) : bins(o.bins) { ctors++; }
    histogram &operator=(const histogram &o)
    {
        bins = o.bins;
        return *this;
    }
    ~histogram() { dtors++; }
    void add(int v) { bins[v % 16]++; }
    void merge(const histogram &o)
    {
        for (size_t i = 0; i < bins.size(); i++)
            bins[i] += o.bins[i];
    }
};
#pragma omp declare reduction(merge : histogram : omp_out.merge(omp_in)) initializer(omp_priv = histogram())

struct minmax {
    long lo, hi, n;
    minmax() : lo(1L << 60), hi(-(1L << 60)), n(0) {}
    void take(long v)
    {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        n++;
    }
    void combine(const minmax &o)
    {
        lo = o.lo < lo ? o.lo : lo;
        hi = o.hi > hi ? o.hi : hi;
        n += o.n;
    }
};
#pragma omp declare reduction(mm : minmax : omp_out.combine(omp_in)) initializer(omp_priv = minmax())

static void balanced(const char *what)
{
    CHECKF(ctors.load() == dtors.load(), "%s: %ld constructed, %ld destroyed", what, ctors.load(),
           dtors.load());
}

int main()
{
    int nthr = 0;
    {
        tracked orig(10);
        long c0 = ctors, cp0 = copies;
        int bad = 0;
#pragma omp parallel private(orig) shared(nthr) reduction(+ : bad)
        {
#pragma omp single
            nthr = omp_get_num_threads();
            if (orig.value != -1 || orig.payload.size() != 3 || orig.payload[0] != 7)
                bad++;
            orig.value = omp_get_thread_num();
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(orig.value, 10);
        CHECK_EQ(ctors - c0, nthr);
        CHECK_EQ(copies - cp0, 0);

        cp0 = copies;
#pragma omp parallel firstprivate(orig) reduction(+ : bad)
        {
            if (orig.value != 10 || orig.payload[2] != 10)
                bad++;
            orig.value = 100 + omp_get_thread_num();
            orig.payload.push_back(1);
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(orig.value, 10);
        CHECK_EQ(orig.payload.size(), 3u);
        CHECK_EQ(copies - cp0, nthr);
    }
    balanced("parallel private/firstprivate");

    {
        tracked t(5);
        std::atomic<int> ok{0};
        long cp0 = copies;
#pragma omp parallel
#pragma omp single
        {
            for (int k = 0; k < 20; k++) {
#pragma omp task firstprivate(t)
                {
                    if (t.value == 5 && t.payload.size() == 3)
                        ok++;
                    t.value = -k;
                }
            }
            t.value = 6; /* the tasks took copies at creation */
        }
        CHECK_EQ(ok.load(), 20);
        CHECK(copies - cp0 >= 20);
    }
    balanced("task firstprivate");

    {
        tracked last(0);
#pragma omp parallel for lastprivate(last) schedule(dynamic, 2)
        for (int i = 0; i < 101; i++) {
            last.value = i * 3;
            last.payload.assign(2, i);
        }
        CHECK_EQ(last.value, 300);
        CHECK_EQ(last.payload.size(), 2u);
        CHECK_EQ(last.payload[1], 100);
    }
    balanced("lastprivate");

    {
        histogram h;
        h.bins[0] = 1000; /* the original takes part in the reduction */
#pragma omp parallel for reduction(merge : h) schedule(guided)
        for (int i = 0; i < 10000; i++)
            h.add(i * 7 + i / 3);
        histogram ref;
        ref.bins[0] = 1000;
        for (int i = 0; i < 10000; i++)
            ref.add(i * 7 + i / 3);
        for (int b = 0; b < 16; b++)
            CHECKF(h.bins[b] == ref.bins[b], "bin %d: %ld vs %ld", b, h.bins[b], ref.bins[b]);

        histogram h2;
#pragma omp parallel reduction(merge : h2)
        for (int k = 0; k <= omp_get_thread_num(); k++)
            h2.add(omp_get_thread_num());
        long total = 0;
        for (int b = 0; b < 16; b++)
            total += h2.bins[b];
        CHECK_EQ(total, (long)nthr * (nthr + 1) / 2);
    }
    balanced("declare reduction");

    minmax m;
#pragma omp parallel for reduction(mm : m)
    for (long i = -500; i < 1500; i++)
        m.take(i * i % 1009 - 300);
    minmax r;
    for (long i = -500; i < 1500; i++)
        r.take(i * i % 1009 - 300);
    CHECK_EQ(m.lo, r.lo);
    CHECK_EQ(m.hi, r.hi);
    CHECK_EQ(m.n, 2000);
    return 0;
}
