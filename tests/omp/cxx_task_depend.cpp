// cxx_task_depend: the depend clause on objects of C++ types.
//  - a pipeline of stages over blocks of a std::vector<std::string>, each
//    stage a task with in/out dependences on the block's element: every
//    block's stages must run in order (each appends its letter), blocks in
//    any order;
//  - firstprivate std::vector copies (copy constructors run by the task's
//    cpyfn) in tasks chained by inout on a shared std::vector: the chain's
//    result depends on the order.
#include "omp_check.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

int main()
{
    const int blocks = 16, stages = 5;
    std::vector<std::string> text(blocks);
    std::string *tp = text.data(); // depend names elements through a pointer (gcc 12)
#pragma omp parallel
#pragma omp single
    for (int s = 0; s < stages; s++)
        for (int b = 0; b < blocks; b++) {
#pragma omp task depend(inout : tp[b]) shared(text) firstprivate(s, b)
            {
                if ((b + s) % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
                text[b] += char('a' + s);
            }
        }
    for (int b = 0; b < blocks; b++) CHECK(text[b] == "abcde");

    std::vector<long> acc;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 40; i++) {
        std::vector<long> add(3, i); // copied into the task by its copy constructor
#pragma omp task depend(inout : acc) shared(acc) firstprivate(add)
        {
            if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
            acc.push_back(add[0] * 2 + (acc.empty() ? 0 : acc.back() % 7));
        }
    }
    std::vector<long> want;
    for (int i = 0; i < 40; i++) want.push_back(i * 2 + (want.empty() ? 0 : want.back() % 7));
    CHECK(acc == want);
    std::printf("cxx_task_depend: ok\n");
    return 0;
}
