// TBB peers: bind each thread that enters an arena to the CPU of its slot
// (bench_bind.h), the way TBB users pin threads. Create it after the arena.
#ifndef WEFT_BENCH_TBB_PIN_H
#define WEFT_BENCH_TBB_PIN_H

#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include "bench_bind.h"

class pin_to_slot : public tbb::task_scheduler_observer {
  public:
    pin_to_slot(tbb::task_arena &a, int slots) : tbb::task_scheduler_observer(a), slots_(slots) { observe(true); }
    void on_scheduler_entry(bool) override { bench_bind_worker(tbb::this_task_arena::current_thread_index(), slots_); }

  private:
    int slots_;
};

#endif
