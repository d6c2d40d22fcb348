// Test harness for the load/store unit: a configuration with explicit values, a fake memory
// system behind ports.send (logs every request, refuses on demand, replies by hand or after a
// fixed latency), a log of completions, and hand-built func_step records.
#ifndef SIMTVP_TESTS_LDST_HARNESS_H
#define SIMTVP_TESTS_LDST_HARNESS_H

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "mem_req.h"
#include "simt_ldst.h"
#include "stats.h"
}

namespace ldst_test {

// A configuration every test starts from: 32-thread warps, 32 banks of 4 bytes, sector
// coalescing, no caches (every request goes straight to memory), one dispatch slot.
inline simt_ldst_config base_config() {
  simt_ldst_config c;
  std::memset(&c, 0, sizeof c);
  c.sm = 3;
  c.cluster = 1;
  c.warp_size = 32;
  c.max_warps = 48;
  c.max_threads = 1536;
  c.smem_banks = 32;
  c.smem_bank_bytes = 4;
  c.smem_latency = 3;
  c.smem_limited_broadcast = false;
  c.smem_warp_parts = 1;
  c.coalesce_arch = 70;
  c.l1d = "none";
  c.l1c = "none";
  c.l1t = "none";
  c.l1d_latency = 20;
  c.l1d_banks = 1;
  c.l1d_bank_interleave = 32;
  c.l1d_bank_hash = 0;
  c.gmem_skip_l1d = false;
  c.response_buffer = 2;
  c.mem_unit_ports = 1;
  c.local_base = 0x40000000ull;
  return c;
}

// A memory step: `bytes` per lane for the lanes of `mask`, lane i at addr(i).
inline func_step mem_step(uint8_t space, bool load, bool store, bool atomic, uint16_t bytes,
                          uint32_t mask, const std::function<uint64_t(uint32_t)> &addr) {
  func_step s;
  std::memset(&s, 0, sizeof s);
  s.kind = FUNC_STEP_MEM;
  s.pc = 7;
  s.active = s.exec = s.mem_mask = mask;
  s.space = space;
  s.is_load = load;
  s.is_store = store;
  s.is_atomic = atomic;
  s.access_bytes = bytes;
  for (uint32_t i = 0; i < 32; i++)
    if ((mask >> i) & 1u) s.addr[i] = addr(i);
  return s;
}
inline func_step load(uint8_t space, uint16_t bytes, const std::function<uint64_t(uint32_t)> &a,
                      uint32_t mask = 0xffffffffu) {
  return mem_step(space, true, false, false, bytes, mask, a);
}
inline func_step store(uint8_t space, uint16_t bytes, const std::function<uint64_t(uint32_t)> &a,
                       uint32_t mask = 0xffffffffu) {
  return mem_step(space, false, true, false, bytes, mask, a);
}

struct Sent {
  mem_req *req;
  uint64_t at;
  uint64_t addr;
  uint32_t size;
  uint8_t kind;
  uint8_t sector_mask;
  bool is_write;
};

struct Done {
  uint32_t warp;
  uint64_t tag;
  uint64_t at;
};

class Harness {
 public:
  simt_ldst_config cfg = base_config();
  stats *st = stats_create();
  mem_req_pool *pool = mem_req_pool_create();
  simt_ldst *u = nullptr;
  uint64_t now = 0;
  std::vector<Sent> sent;
  std::vector<Done> done;
  int refuse = 0;               // refuse this many sends
  uint32_t auto_latency = 0;    // 0: replies by hand; else every request is answered this late
  std::deque<std::pair<uint64_t, mem_req *>> due;  // auto replies (cycle, request)
  uint64_t refused_replies = 0;
  bool event_driven = false;  // advance only when next_event says something is due
  uint64_t advances = 0;

  ~Harness() {
    if (u) simt_ldst_destroy(u);
    for (auto &d : due) mem_req_free(d.second);
    mem_req_pool_destroy(pool);
    stats_destroy(st);
  }

  void create() {
    cfg.stats = st;
    cfg.pool = pool;
    simt_ldst_ports p;
    p.ctx = this;
    p.send = &Harness::send_cb;
    p.complete = &Harness::complete_cb;
    simtvp_diag d;
    simtvp_diag_clear(&d);
    u = simt_ldst_create(&cfg, p, &d);
    ASSERT_NE(u, nullptr) << d.message;
  }

  static bool send_cb(void *ctx, mem_req *r, uint64_t now) {
    Harness *h = static_cast<Harness *>(ctx);
    if (h->refuse > 0) {
      h->refuse--;
      return false;
    }
    h->sent.push_back({r, now, r->addr, r->size, r->kind, r->sector_mask, r->is_write});
    if (h->auto_latency) {
      if (r->needs_reply) h->due.push_back({now + h->auto_latency, r});
      else mem_req_free(r);  // a write-back: the memory system is its last holder
    }
    return true;
  }
  static void complete_cb(void *ctx, uint32_t warp, uint64_t tag, uint64_t now) {
    static_cast<Harness *>(ctx)->done.push_back({warp, tag, now});
  }

  bool can_issue() const { return simt_ldst_can_issue(u, now); }
  void issue(uint32_t warp, const func_step &s, uint64_t tag) {
    ASSERT_TRUE(simt_ldst_can_issue(u, now)) << "cycle " << now;
    simt_ldst_issue(u, warp, &s, tag, now);
  }
  // Hands a sent request back as the memory system's reply, at the current cycle.
  bool reply(mem_req *r) {
    r->is_reply = true;
    return simt_ldst_reply(u, r, now);
  }
  // Next cycle: auto replies due are delivered (in order, while the buffer takes them), then the
  // unit advances.
  void tick() {
    now++;
    while (!due.empty() && due.front().first <= now) {
      mem_req *r = due.front().second;
      r->is_reply = true;
      if (!simt_ldst_reply(u, r, now)) {
        refused_replies++;
        break;
      }
      due.pop_front();
    }
    if (!event_driven || simt_ldst_next_event(u) <= now) {
      simt_ldst_advance(u, now);
      advances++;
    }
  }
  void run_to(uint64_t cycle) {
    while (now < cycle) tick();
  }
  // Ticks until the unit is idle and no auto reply is pending; false after `limit` cycles.
  bool drain(uint64_t limit = 100000) {
    for (uint64_t i = 0; i < limit; i++) {
      if (simt_ldst_idle(u) && due.empty()) return true;
      tick();
    }
    return false;
  }
  uint64_t stat(const char *name) const {
    int found = 0;
    uint64_t v = stats_get(st, name, &found);
    EXPECT_TRUE(found) << name;
    return v;
  }
  uint64_t done_at(uint64_t tag) const {
    for (auto &d : done)
      if (d.tag == tag) return d.at;
    ADD_FAILURE() << "tag " << tag << " never completed";
    return UINT64_MAX;
  }
  size_t completions(uint64_t tag) const {
    size_t n = 0;
    for (auto &d : done) n += d.tag == tag;
    return n;
  }
  std::string status() const {
    simtvp_diag d;
    simt_ldst_status(u, &d);
    return d.message;
  }
};

}  // namespace ldst_test

#endif
