// cxx_tasks_vector: standard containers in explicit tasks.
//  - a parallel merge sort of a std::vector<int> with tasks (sub-ranges
//    sorted in tasks, taskwait, std::inplace_merge) equals std::sort;
//  - a std::vector captured firstprivate by a task is the task's own copy:
//    the task may change it and the generating task's vector is unchanged,
//    and later changes by the generating task are not seen by the task;
//  - tasks fill slots of a shared std::vector<std::vector<int>> and of a
//    std::vector<std::string>; the results equal a sequential computation;
//  - a task-parallel tree sum over a std::vector-based tree.
#include "omp_check.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

static void psort(std::vector<int> &v, size_t lo, size_t hi)
{
    if (hi - lo < 256) {
        std::sort(v.begin() + lo, v.begin() + hi);
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
#pragma omp task shared(v)
    psort(v, lo, mid);
#pragma omp task shared(v)
    psort(v, mid, hi);
#pragma omp taskwait
    std::inplace_merge(v.begin() + lo, v.begin() + mid, v.begin() + hi);
}

struct node {
    long value;
    std::vector<int> kids;
};

static long tree_sum(const std::vector<node> &t, int i)
{
    long s = t[i].value;
    std::vector<long> part(t[i].kids.size(), 0);
    for (size_t k = 0; k < t[i].kids.size(); k++) {
#pragma omp task shared(t, part) firstprivate(k)
        part[k] = tree_sum(t, t[i].kids[k]);
    }
#pragma omp taskwait
    return s + std::accumulate(part.begin(), part.end(), 0L);
}

int main()
{
    std::vector<int> v(50000);
    unsigned s = 7;
    for (auto &x : v) {
        s = s * 1664525u + 1013904223u;
        x = (int)(s >> 4);
    }
    std::vector<int> ref = v;
    std::sort(ref.begin(), ref.end());
#pragma omp parallel
#pragma omp single
    psort(v, 0, v.size());
    CHECK(v == ref);

    std::vector<int> base{1, 2, 3};
    std::vector<std::vector<int>> seen(8);
    bool copies_ok = true;
#pragma omp parallel
#pragma omp single
    {
        for (int k = 0; k < 8; k++) {
#pragma omp task firstprivate(base, k) shared(seen, copies_ok)
            {
                if (base.size() != 3u + (k >= 4 ? 1u : 0u))
                    copies_ok = false;
                base.push_back(100 + k);
                seen[k] = base;
            }
            if (k == 3)
                base.push_back(4); /* tasks 4..7 see it, 0..3 must not */
        }
#pragma omp taskwait
    }
    CHECK(copies_ok);
    CHECK_EQ(base.size(), 4u);
    for (int k = 0; k < 8; k++) {
        std::vector<int> want{1, 2, 3};
        if (k >= 4)
            want.push_back(4);
        want.push_back(100 + k);
        CHECKF(seen[k] == want, "task %d saw a vector of %zu", k, seen[k].size());
    }

    std::vector<std::string> words(300);
    std::vector<std::vector<int>> rows(300);
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 300; i++) {
#pragma omp task shared(words, rows)
        {
            words[i] = "w" + std::to_string(i * i);
            rows[i].resize(i % 17);
            std::iota(rows[i].begin(), rows[i].end(), i);
        }
    }
    for (int i = 0; i < 300; i++) {
        CHECK(words[i] == "w" + std::to_string(i * i));
        CHECK_EQ(rows[i].size(), (size_t)(i % 17));
        for (size_t j = 0; j < rows[i].size(); j++)
            CHECK_EQ(rows[i][j], i + (int)j);
    }

    std::vector<node> tree(1);
    tree[0].value = 1;
    for (int i = 1; i < 2000; i++) {
        tree.push_back(node{i + 1, {}});
        tree[(i - 1) / 3].kids.push_back(i);
    }
    long total = 0;
#pragma omp parallel
#pragma omp single
    total = tree_sum(tree, 0);
    CHECK_EQ(total, 2000L * 2001 / 2);
    return 0;
}
