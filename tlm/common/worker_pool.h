// worker_pool — host threads that run the parallel phase of a domain driver (docs/timing.md
// "Parallel simulation", docs/tlm.md §3).
//
// run(n, fn, ctx) calls fn(ctx, i) for every i in [0, n) on the pool's threads and on the calling
// thread, and returns when every call has returned. The items are split into one contiguous range
// per thread (the same blocks go to the same thread run after run, so their state stays in that
// core's caches); a thread takes its own range's items one at a time, then takes what is left of
// the others' (a slow block does not hold up the rest, and a thread the host has not scheduled is
// never waited for: the others take its items). Each range is one atomic word (run generation,
// next item, end) on a cache line of its own, so a claim is an uncontended compare-and-swap and a
// thread that wakes late cannot claim an item of a run that is over. Which thread runs which item
// does not matter to the result (the blocks of one phase are independent). One run at a time: the
// SystemC kernel runs one process at a time and only its thread calls run().
//
// Synchronisation is what a simulation needs thousands of times per simulated microsecond: a run
// costs a store per range and one to publish, and each thread reports its finished items once.
// Threads spin briefly for work and for the end of a run, then sleep on a condition variable, so an
// idle pool (or a machine with fewer free cores than threads) costs no CPU time.
#ifndef SIMTVP_TLM_WORKER_POOL_H
#define SIMTVP_TLM_WORKER_POOL_H

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace simtvp {

class worker_pool {
 public:
  using item_fn = void (*)(void *ctx, size_t item);

  // `threads` host threads in all, the caller of run() included (threads - 1 are started); 0 or 1:
  // no thread is started and run() calls fn in order on the calling thread.
  explicit worker_pool(unsigned threads);
  ~worker_pool();
  worker_pool(const worker_pool &) = delete;
  worker_pool &operator=(const worker_pool &) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void run(size_t n, item_fn fn, void *ctx);

  // Runs (parallel phases) and the items they handed out, for benchmarks.
  uint64_t runs() const { return runs_; }

 private:
  // A range word: generation (high 32 bits) | next item (16) | end (16).
  static constexpr uint64_t kItemBits = 16, kMaxItems = (1u << kItemBits) - 1;
  static uint32_t gen_of(uint64_t t) { return static_cast<uint32_t>(t >> 32); }
  static size_t next_of(uint64_t t) { return static_cast<size_t>((t >> kItemBits) & kMaxItems); }
  static size_t end_of(uint64_t t) { return static_cast<size_t>(t & kMaxItems); }
  struct alignas(64) range {
    std::atomic<uint64_t> word{0};
  };
  void worker_main(unsigned self);
  // Runs items of run `gen`: own range first, then the others'; adds the count to done_ once.
  void work(uint32_t gen, unsigned self);
  void run_chunk(size_t n, item_fn fn, void *ctx);

  std::vector<std::thread> workers_;
  std::unique_ptr<range[]> ranges_;              // one per thread (0: the caller)
  // The current run: written before it is published, read only after claiming an item.
  item_fn fn_ = nullptr;
  void *ctx_ = nullptr;
  size_t n_ = 0;
  alignas(64) std::atomic<uint64_t> ticket_{0};  // the current run's generation (publishes it)
  alignas(64) std::atomic<size_t> done_{0};      // items of the current run finished
  std::atomic<bool> stop_{false};
  std::mutex m_;
  std::condition_variable start_cv_, end_cv_;
  std::atomic<unsigned> sleepers_{0};            // workers waiting on start_cv_
  std::atomic<bool> caller_sleeping_{false};     // run() waiting on end_cv_
  uint32_t generation_ = 0;                      // the caller's
  bool oversubscribed_ = false;                  // more threads than the host's cores
  uint64_t runs_ = 0;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_WORKER_POOL_H
