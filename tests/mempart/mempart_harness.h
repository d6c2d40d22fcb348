// mempart_harness — drives one memory partition model core the way a shell does: event to event
// (never cycle by cycle), with a stub DRAM controller (fixed latency, optional capacity, optional
// refusal) and a reply sink that records the cycle each reply leaves and can refuse.
//
// Stub DRAM: a request accepted at cycle x is returned (mempart_dram_return) at x + latency; a
// refused return is retried at the partition's next event. Everything runs on one clock (the L2
// clock), so the numbers in the tests are L2 cycles.
#ifndef SIMTVP_TESTS_MEMPART_HARNESS_H
#define SIMTVP_TESTS_MEMPART_HARNESS_H

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "cache.h"
#include "mem_req.h"
#include "mempart.h"
#include "stats.h"
}

namespace mptest {

// A small sectored write-back L2 slice: 16 sets × 4 ways × 128 B, LRU, allocate on miss, lazy
// fetch-on-read, linear index, 32 MSHRs merging 4, miss queue 8, 32-byte data port.
inline const char *kL2WriteBack = "S:16:128:4,L:B:m:L:L,A:32:4,8:0,32";
// The same with write-through and no write-allocate.
inline const char *kL2WriteThrough = "S:16:128:4,L:T:m:N:L,A:32:4,8:0,32";

struct Reply {
  uint64_t id;
  uint64_t at;
  uint32_t sub;
  uint8_t kind;
  bool is_write;
};

struct DramSend {
  uint64_t id;
  uint64_t at;
  uint32_t sub_partition;
  uint8_t kind;
  bool is_write;
};

class Part {
 public:
  // rop / dram latency in L2 cycles; dram_latency_stub = the stub controller's service time.
  explicit Part(mempart_config cfg, uint64_t dram_service = 20, bool with_stats = true)
      : dram_service_(dram_service) {
    pool_ = mem_req_pool_create();
    if (with_stats) st_ = stats_create();
    cfg.stats = st_;
    cfg.ports = {this, &Part::OnReply, &Part::OnDram, nullptr, nullptr};
    cfg.msg = {this, &Part::OnMsg};
    simtvp_diag_clear(&diag_);
    status_ = mempart_create(&cfg, &mp_, &diag_);
  }
  ~Part() {
    if (mp_) mempart_destroy(mp_);
    for (auto &e : dram_) mem_req_free(e.req);
    for (mem_req *r : held_replies_) mem_req_free(r);
    mem_req_pool_destroy(pool_);
    if (st_) stats_destroy(st_);
  }
  static mempart_config Config(uint32_t rop = 10, uint32_t dram_latency = 5,
                               const char *l2 = kL2WriteBack) {
    mempart_config cfg;
    mempart_config_default(&cfg);
    cfg.rop_latency = rop;
    cfg.dram_latency = dram_latency;
    cfg.l2 = l2;
    return cfg;
  }

  mempart *mp() { return mp_; }
  stats *st() { return st_; }
  simtvp_status status() const { return status_; }
  const simtvp_diag &diag() const { return diag_; }
  mem_req_pool *pool() { return pool_; }

  mem_req *Make(uint64_t addr, uint8_t kind, uint32_t size = 32, bool needs_reply = true) {
    mem_req *r = mem_req_alloc(pool_);
    r->addr = addr;
    r->size = size;
    r->kind = kind;
    r->is_write = kind == MEM_ACC_GLOBAL_W || kind == MEM_ACC_LOCAL_W || kind == MEM_ACC_L1_WRBK;
    r->needs_reply = needs_reply;
    r->src_node = 3;
    r->sm = 0;
    return r;
  }
  static constexpr uint64_t kRefused = UINT64_MAX;
  // Pushes a request at `now`; returns its id, or kRefused (the request is freed).
  uint64_t Push(uint32_t sub, uint64_t addr, uint8_t kind, uint64_t now, uint32_t size = 32,
                bool needs_reply = true) {
    mem_req *r = Make(addr, kind, size, needs_reply);
    uint64_t id = r->id;
    if (!mempart_push(mp_, sub, r, now)) {
      mem_req_free(r);
      return kRefused;
    }
    return id;
  }

  // Runs events up to and including `limit` (stub DRAM returns first, then the partition).
  void RunTo(uint64_t limit) {
    for (;;) {
      uint64_t t = NextEvent();
      if (t == UINT64_MAX || t > limit) break;
      Step(t);
    }
  }
  void RunToIdle(uint64_t limit = 1000000) { RunTo(limit); }
  void Step(uint64_t t) {
    DeliverDram(t);
    mempart_advance(mp_, t);
    now_ = t;
  }
  uint64_t NextEvent() const {
    uint64_t t = mempart_next_event(mp_);
    if (!dram_.empty() && !dram_return_blocked_) t = std::min(t, dram_.front().done);
    return t;
  }

  // Reply sink control.
  void SetReplyRefuse(bool refuse) { reply_refuse_ = refuse; }
  void ReplyReady(uint32_t sub, uint64_t now) {
    reply_refuse_ = false;
    mempart_reply_ready(mp_, sub, now);
  }
  void KeepReplies(bool keep) { keep_replies_ = keep; }
  // DRAM stub control: capacity (0 = unlimited) and refusal.
  void SetDramRefuse(bool refuse) { dram_refuse_ = refuse; }
  void DramReady(uint64_t now) {
    dram_refuse_ = false;
    mempart_dram_ready(mp_, now);
  }

  const std::vector<Reply> &replies() const { return replies_; }
  const std::vector<DramSend> &dram_sends() const { return dram_sends_; }
  const std::vector<std::string> &messages() const { return messages_; }
  uint64_t ReplyAt(uint64_t id) const {
    for (auto &r : replies_)
      if (r.id == id) return r.at;
    return UINT64_MAX;
  }
  uint64_t Stat(const char *name) const {
    int found = 0;
    uint64_t v = stats_get(st_, name, &found);
    return found ? v : UINT64_MAX;
  }
  size_t Outstanding() const { return mem_req_pool_outstanding(pool_); }

 private:
  struct InFlight {
    mem_req *req;
    uint64_t done;
  };
  static bool OnReply(void *ctx, uint32_t sub, mem_req *req, uint64_t now) {
    auto *self = static_cast<Part *>(ctx);
    if (self->reply_refuse_) return false;
    self->replies_.push_back({req->id, now, sub, req->kind, req->is_write});
    if (self->keep_replies_) self->held_replies_.push_back(req);
    else mem_req_free(req);
    return true;
  }
  static bool OnDram(void *ctx, mem_req *req, uint64_t now) {
    auto *self = static_cast<Part *>(ctx);
    if (self->dram_refuse_) return false;
    self->dram_sends_.push_back({req->id, now, req->sub_partition, req->kind, req->is_write});
    self->dram_.push_back({req, now + self->dram_service_});
    return true;
  }
  static void OnMsg(void *ctx, simtvp_severity, const char *message) {
    static_cast<Part *>(ctx)->messages_.push_back(message);
  }
  void DeliverDram(uint64_t t) {
    dram_return_blocked_ = false;
    while (!dram_.empty() && dram_.front().done <= t) {
      if (!mempart_dram_return(mp_, dram_.front().req, t)) {
        dram_return_blocked_ = true; // retried at the partition's next event
        return;
      }
      dram_.pop_front();
    }
  }

  mempart *mp_ = nullptr;
  mem_req_pool *pool_ = nullptr;
  stats *st_ = nullptr;
  simtvp_status status_ = SIMTVP_OK;
  simtvp_diag diag_;
  uint64_t dram_service_;
  uint64_t now_ = 0;
  std::deque<InFlight> dram_;
  bool dram_return_blocked_ = false;
  bool reply_refuse_ = false, dram_refuse_ = false, keep_replies_ = false;
  std::vector<Reply> replies_;
  std::vector<mem_req *> held_replies_;
  std::vector<DramSend> dram_sends_;
  std::vector<std::string> messages_;
};

}  // namespace mptest

#endif  // SIMTVP_TESTS_MEMPART_HARNESS_H
