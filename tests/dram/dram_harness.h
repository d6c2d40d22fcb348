// dram_harness — a tiny driver around one DRAM controller for the timing tests and the AT-vs-CA
// comparison: builds a single-channel address map with easy-to-compute fields, records the cycle
// each request completes, and runs the controller from event to event exactly as a shell would
// (advance to next_event, never cycle by cycle).
//
// Test address map (1 channel), bit 63 first:
//   bits 31..16 row (16 bits) | bits 15..12 bank (16 banks) | bits 11..6 column | bits 5..0 burst
// so addr(bank, row, col) = row << 16 | bank << 12 | col << 6, and one 64-byte atom per column.
#ifndef SIMTVP_TESTS_DRAM_HARNESS_H
#define SIMTVP_TESTS_DRAM_HARNESS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "dram.h"
#include "mem_req.h"
#include "stats.h"
}

namespace dramtest {

inline const char *kTestMap =
    "00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.CCSSSSSS";

inline uint64_t Addr(uint32_t bank, uint32_t row, uint32_t col = 0) {
  return (uint64_t)row << 16 | (uint64_t)bank << 12 | (uint64_t)col << 6;
}

// The manual's named timing (GDDR5-class): burst = BL 8 / ratio 4 = 2 cycles, atom = 8 × 4 B × 2
// chips = 64 B; derived tRTW = 12+2+2-4 = 12, tWTR = 4+2+5 = 11, tWTP = 4+2+12 = 18, tRTP = 2.
inline dram_config BaseConfig(const dram_addrmap *map, const char *model = "ca") {
  dram_config cfg;
  dram_config_default(&cfg);
  cfg.model = model;
  cfg.addrmap = map;
  cfg.sched_queue_size = 64;
  return cfg;
}

struct Completion {
  uint64_t id;
  uint64_t at;
  bool is_write;
};

class Harness {
 public:
  explicit Harness(const char *mapping = kTestMap, uint32_t channels = 1) {
    dram_addrmap_config mc = {mapping, channels, 1, DRAM_PART_LINEAR};
    simtvp_diag diag;
    simtvp_diag_clear(&diag);
    status_ = dram_addrmap_create(&mc, &map_, &diag);
    pool_ = mem_req_pool_create();
  }
  ~Harness() {
    if (d_) dram_destroy(d_);
    // Requests still held by the test (completed ones were freed on completion).
    mem_req_pool_destroy(pool_);
    dram_addrmap_destroy(map_);
  }
  const dram_addrmap *map() const { return map_; }
  dram_config Config(const char *model = "ca") const { return BaseConfig(map_, model); }

  simtvp_status Create(const dram_config &cfg) {
    simtvp_diag_clear(&diag_);
    dram_ports ports = {this, &Harness::OnComplete};
    return dram_create(&cfg, ports, &d_, &diag_);
  }
  dram *d() { return d_; }
  void Destroy() {
    if (d_) dram_destroy(d_);
    d_ = nullptr;
  }
  const simtvp_diag &diag() const { return diag_; }

  static constexpr uint64_t kRefused = UINT64_MAX;
  // Builds a request (64 bytes unless told) and pushes it at `now`; returns its id, or kRefused.
  uint64_t Push(uint64_t addr, bool is_write, uint64_t now, uint32_t size = 64) {
    mem_req *r = mem_req_alloc(pool_);
    r->addr = addr;
    r->size = size;
    r->is_write = is_write;
    r->needs_reply = !is_write;
    if (!dram_push(d_, r, now)) {
      mem_req_free(r);
      return kRefused;
    }
    return r->id;
  }
  // Runs from event to event until the controller is idle (or `limit` is reached).
  void Run(uint64_t limit = 100000000) {
    for (;;) {
      uint64_t t = dram_next_event(d_);
      if (t == DRAM_NEVER || t > limit) break;
      dram_advance(d_, t);
    }
  }
  uint64_t DoneAt(uint64_t id) const {
    auto it = done_at_.find(id);
    return it == done_at_.end() ? UINT64_MAX : it->second;
  }
  const std::vector<Completion> &completions() const { return completions_; }
  dram_stats Stats() const {
    dram_stats s;
    dram_get_stats(d_, &s);
    return s;
  }
  void set_refuse(bool refuse) { refuse_ = refuse; }
  size_t outstanding() const { return mem_req_pool_outstanding(pool_); }
  simtvp_status map_status() const { return status_; }

 private:
  static bool OnComplete(void *ctx, mem_req *req, uint64_t now) {
    auto *h = static_cast<Harness *>(ctx);
    if (h->refuse_) return false;
    h->done_at_[req->id] = now;
    h->completions_.push_back({req->id, now, req->is_write});
    mem_req_free(req);
    return true;
  }

  dram_addrmap *map_ = nullptr;
  dram *d_ = nullptr;
  mem_req_pool *pool_ = nullptr;
  simtvp_status status_ = SIMTVP_OK;
  simtvp_diag diag_{};
  bool refuse_ = false;
  std::map<uint64_t, uint64_t> done_at_;
  std::vector<Completion> completions_;
};

// ---- request streams for AT-vs-CA comparisons ----------------------------------------------------

enum class Stream { kStreaming, kStrided, kRandom };

inline const char *StreamName(Stream s) {
  switch (s) {
    case Stream::kStreaming: return "streaming";
    case Stream::kStrided: return "strided";
    case Stream::kRandom: return "random";
  }
  return "?";
}

// The i-th address of a stream: streaming walks 64-byte atoms in order; strided jumps 2 KB + 64
// (a new row every few requests, rotating banks); random is a fixed LCG over 256 MB.
inline uint64_t StreamAddr(Stream s, uint64_t i, uint64_t *lcg) {
  switch (s) {
    case Stream::kStreaming: return i * 64;
    case Stream::kStrided: return i * (2048 + 64);
    case Stream::kRandom:
      *lcg = *lcg * 6364136223846793005ull + 1442695040888963407ull;
      return ((*lcg >> 20) % (256ull << 20)) & ~63ull;
  }
  return 0;
}

// Closed-loop driver: keeps the controller's queue full with `n` requests of a stream (every
// `write_every`-th a write, 0 = reads only) and returns the cycle the last one completed.
inline uint64_t RunStream(Harness &h, Stream s, uint32_t n, uint32_t write_every,
                          uint32_t size = 64) {
  uint64_t lcg = 12345, now = 0, last = 0;
  uint32_t pushed = 0;
  while (pushed < n || h.completions().size() < n) {
    while (pushed < n) {
      bool w = write_every && (pushed % write_every) == write_every - 1;
      uint64_t addr = StreamAddr(s, pushed, &lcg);
      if (!dram_can_accept(h.d(), w)) break;
      h.Push(addr, w, now, size);
      pushed++;
    }
    uint64_t t = dram_next_event(h.d());
    if (t == DRAM_NEVER) break;
    now = t;
    dram_advance(h.d(), now);
  }
  for (const auto &c : h.completions()) last = c.at > last ? c.at : last;
  return last;
}

}  // namespace dramtest

#endif  // SIMTVP_TESTS_DRAM_HARNESS_H
