// TBB peers: bind each thread that enters an arena to the CPU of its slot
// (bench_bind.h), the way TBB users pin threads. Create it after the arena.
#ifndef WEFT_BENCH_TBB_PIN_H
#define WEFT_BENCH_TBB_PIN_H

#include <memory>
#include <tbb/global_control.h>
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

// The arena the TBB programs run everything in: `threads` slots (the
// main thread is one), no more threads in the process, each pinned.
class pinned_arena {
  public:
    void start(int threads)
    {
        limit_.reset(new tbb::global_control(tbb::global_control::max_allowed_parallelism, threads));
        arena_.reset(new tbb::task_arena(threads));
        arena_->initialize();
        pin_.reset(new pin_to_slot(*arena_, threads));
    }
    void stop()
    {
        pin_.reset();
        arena_.reset();
        limit_.reset();
    }
    tbb::task_arena *operator->() { return arena_.get(); }

  private:
    std::unique_ptr<tbb::global_control> limit_;
    std::unique_ptr<tbb::task_arena> arena_;
    std::unique_ptr<pin_to_slot> pin_;
};

#endif
