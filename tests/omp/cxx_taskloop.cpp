// cxx_taskloop: taskloop in C++. firstprivate objects with copy
// constructors (gcc passes a copy function: each task's arguments are
// copy-constructed, then the runtime writes the task's bounds over their
// first words), lastprivate of a class type, a loop over a
// random-access iterator, and task reductions with a user-defined
// reduction over std::vector and std::string.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#define CHECK(c)                                                              \
    do {                                                                      \
        if (!(c)) {                                                           \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)

struct Counted {
    static int live;
    std::vector<int> v;
    Counted() : v(8, 1) { __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED); }
    Counted(const Counted &o) : v(o.v) { __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED); }
    Counted &operator=(const Counted &o) = default;
    ~Counted() { __atomic_fetch_sub(&live, 1, __ATOMIC_RELAXED); }
};
int Counted::live = 0;

static void vadd(std::vector<long> &out, const std::vector<long> &in)
{
    for (size_t i = 0; i < out.size(); i++) out[i] += in[i];
}
#pragma omp declare reduction(vplus : std::vector<long> : vadd(omp_out, omp_in)) \
    initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))

int main()
{
    for (int rep = 0; rep < 10; rep++) {
        // firstprivate through copy constructors; every task's copy gone at the end
        {
            Counted c;
            std::string tag = "weft";
            long sum = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop firstprivate(c, tag) grainsize(3) reduction(+ : sum)
            for (int i = 0; i < 100; i++) sum += c.v[i % 8] + (long)tag.size();
            CHECK(sum == 100 * 5);
            CHECK(Counted::live == 1);
        }
        // lastprivate of a class type
        std::string last;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop lastprivate(last) num_tasks(7)
        for (int i = 0; i < 50; i++) last = "it" + std::to_string(i);
        CHECK(last == "it49");
        // a random-access iterator
        std::vector<int> v(1000);
        std::iota(v.begin(), v.end(), 0);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(64)
        for (std::vector<int>::iterator it = v.begin(); it < v.end(); ++it) *it *= 2;
        for (int i = 0; i < 1000; i++) CHECK(v[i] == 2 * i);
        // a user-defined task reduction over a vector: taskloop and in_reduction
        std::vector<long> hist(10, 0);
#pragma omp parallel
#pragma omp single
        {
#pragma omp taskgroup task_reduction(vplus : hist)
            {
#pragma omp taskloop in_reduction(vplus : hist) grainsize(10)
                for (int i = 0; i < 1000; i++) hist[i % 10] += 1;
#pragma omp task in_reduction(vplus : hist)
                hist[0] += 5;
            }
        }
        for (int k = 0; k < 10; k++) CHECK(hist[k] == 100 + (k == 0 ? 5 : 0));
        std::vector<long> h2(4, 0);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(vplus : h2) num_tasks(16)
        for (int i = 0; i < 400; i++) h2[i % 4] += i;
        CHECK(h2[0] == 19800 && h2[1] == 19900 && h2[2] == 20000 && h2[3] == 20100);
    }
    std::puts("cxx_taskloop: ok");
    return 0;
}
