// worker_pool — host threads for the parallel phases of domain drivers (worker_pool.h).
#include "worker_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SIMTVP_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define SIMTVP_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define SIMTVP_CPU_RELAX() ((void)0)
#endif

namespace simtvp {

namespace {

// How long a thread keeps polling before it sleeps: phases follow each other every few
// microseconds while the GPU is busy, and a sleep/wake costs tens of microseconds, so a thread
// spins (with the CPU's pause hint) for up to a millisecond; an idle pool then sleeps and costs
// nothing. No sched_yield while there is a core per thread: on a loaded host a yield can give the
// core away for a whole time slice, and the others would then take this thread's blocks. With
// more threads than cores a spinning thread would hold the core another thread needs: it yields,
// briefly, then sleeps.
constexpr int kPausesPerCheck = 1024;
constexpr auto kSpinFor = std::chrono::microseconds(1000);
constexpr auto kOversubscribedSpinFor = std::chrono::microseconds(50);

// Polls `done` until it is true; false when the spin time ran out (the caller then sleeps).
template <typename Done>
bool poll(Done done, bool oversubscribed) {
  if (oversubscribed) {
    auto until = std::chrono::steady_clock::now() + kOversubscribedSpinFor;
    do {
      if (done()) return true;
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < until);
    return done();
  }
  auto until = std::chrono::steady_clock::now() + kSpinFor;
  do {
    for (int i = 0; i < kPausesPerCheck; i++) {
      if (done()) return true;
      SIMTVP_CPU_RELAX();
    }
  } while (std::chrono::steady_clock::now() < until);
  return done();
}

}  // namespace

worker_pool::worker_pool(unsigned threads) {
  const unsigned cores = std::thread::hardware_concurrency();
  oversubscribed_ = cores && threads > cores;
  ranges_ = std::make_unique<range[]>(threads ? threads : 1);
  for (unsigned i = 1; i < threads; i++) workers_.emplace_back(&worker_pool::worker_main, this, i);
}

worker_pool::~worker_pool() {
  {
    std::lock_guard<std::mutex> lk(m_);
    stop_.store(true, std::memory_order_seq_cst);
  }
  start_cv_.notify_all();
  for (std::thread &t : workers_) t.join();
}

void worker_pool::work(uint32_t gen, unsigned self) {
  const unsigned threads = this->threads();
  size_t finished = 0;
  for (unsigned k = 0; k < threads; k++) {
    std::atomic<uint64_t> &w = ranges_[(self + k) % threads].word;
    uint64_t t = w.load(std::memory_order_acquire);
    // A claim fails when another thread claimed first; a word of another run (gen differs) has
    // nothing for this one.
    while (gen_of(t) == gen && next_of(t) < end_of(t)) {
      if (!w.compare_exchange_weak(t, t + (uint64_t{1} << kItemBits), std::memory_order_acquire,
                                   std::memory_order_acquire))
        continue;
      fn_(ctx_, next_of(t));
      finished++;
      t += uint64_t{1} << kItemBits;
    }
  }
  if (finished && done_.fetch_add(finished, std::memory_order_acq_rel) + finished == n_ &&
      caller_sleeping_.load(std::memory_order_seq_cst)) {
    std::lock_guard<std::mutex> lk(m_);
    end_cv_.notify_one();
  }
}

void worker_pool::run(size_t n, item_fn fn, void *ctx) {
  if (n == 0) return;
  runs_++;
  if (workers_.empty() || n == 1) {
    for (size_t i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  for (size_t from = 0; from < n; from += kMaxItems) {  // more items than a range holds: in turns
    size_t m = std::min<size_t>(n - from, kMaxItems);
    if (from == 0) {
      run_chunk(m, fn, ctx);
    } else {
      struct offset {
        item_fn fn;
        void *ctx;
        size_t from;
      } o{fn, ctx, from};
      run_chunk(m, [](void *c, size_t i) {
        auto *p = static_cast<offset *>(c);
        p->fn(p->ctx, p->from + i);
      }, &o);
    }
  }
}

void worker_pool::run_chunk(size_t n, item_fn fn, void *ctx) {
  // Every item of the previous run is finished, so no thread reads these until it claims an item
  // of this run (the range words and the ticket, stored after them, publish them).
  fn_ = fn;
  ctx_ = ctx;
  n_ = n;
  done_.store(0, std::memory_order_relaxed);
  const uint32_t gen = ++generation_;
  const unsigned threads = this->threads();
  for (unsigned r = 0; r < threads; r++) {
    uint64_t begin = n * r / threads, end = n * (r + 1) / threads;
    ranges_[r].word.store((uint64_t{gen} << 32) | (begin << kItemBits) | end, std::memory_order_release);
  }
  ticket_.store(gen, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lk(m_);
    start_cv_.notify_all();
  }
  work(gen, 0);
  // Wait until the items other threads claimed are finished (never for a thread that claimed none).
  auto all_done = [&] { return done_.load(std::memory_order_acquire) == n; };
  if (!poll(all_done, oversubscribed_)) {
    std::unique_lock<std::mutex> lk(m_);
    caller_sleeping_.store(true, std::memory_order_seq_cst);
    end_cv_.wait(lk, all_done);
    caller_sleeping_.store(false, std::memory_order_relaxed);
  }
}

void worker_pool::worker_main(unsigned self) {
  uint32_t seen = 0;  // the generation before the first run (a thread may start after it began)
  for (;;) {
    uint32_t gen = 0;
    auto published = [&] {
      gen = static_cast<uint32_t>(ticket_.load(std::memory_order_seq_cst));
      return gen != seen || stop_.load(std::memory_order_relaxed);
    };
    if (!poll(published, oversubscribed_)) {
      std::unique_lock<std::mutex> lk(m_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      start_cv_.wait(lk, published);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    seen = gen;
    work(gen, self);
  }
}

}  // namespace simtvp
