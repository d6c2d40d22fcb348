// traffic_gen — a SIMT-cluster stand-in for the memory-system tests and the bandwidth bench: a
// clocked SystemC module in the core clock domain that injects mem_req records into the
// interconnect through a message link (as a cluster shell does), receives the replies on another,
// and records when each request left and when its reply came back.
//
// Traffic is either a script (requests at given core cycles) or a closed-loop source called
// whenever fewer than `max_outstanding` requests are in flight. The destination node comes from
// the memory system's address map, exactly as a cluster computes it.
#ifndef SIMTVP_TESTS_TLM_MEM_TRAFFIC_GEN_H
#define SIMTVP_TESTS_TLM_MEM_TRAFFIC_GEN_H

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "gpu_payload.h"
#include "link.h"
#include "mem_system.h"

extern "C" {
#include "dram_addrdec.h"
#include "mem_req.h"
}

namespace tlmtest {

struct mem_access {
  uint64_t cycle = 0; // core cycle at which it may leave (script mode)
  uint64_t addr = 0;
  uint8_t kind = MEM_ACC_GLOBAL_R;
  uint32_t size = 32;
  bool needs_reply = true;
  uint8_t aperture = MEM_APERTURE_VIDMEM; // SYSMEM: system memory through the hub (zero-copy)
};

struct record {
  uint64_t addr = 0;
  uint64_t issued = UINT64_MAX;  // core cycle the request left
  uint64_t replied = UINT64_MAX; // core cycle the reply was taken
  sc_core::sc_time reply_time;
};

class traffic_gen : public sc_core::sc_module, public simtvp::clocked {
  simtvp::payload_pool payload_; // first: the links below refer to it

 public:
  using source = std::function<bool(uint64_t cycle, mem_access &next)>; // false: no more

  traffic_gen(sc_core::sc_module_name name, simtvp::domain_driver &core, simtvp::mem_system &mem,
              uint32_t cluster, uint32_t max_outstanding = 0)
      : sc_core::sc_module(name),
        to_icnt("to_icnt", *this, 0, payload_),
        from_icnt("from_icnt", *this, 1),
        mem_(mem),
        cluster_(cluster),
        max_outstanding_(max_outstanding) {
    pool_ = mem_req_pool_create();
    core.add(*this);
    simtvp::bind(to_icnt, mem.cluster_in(cluster));
    simtvp::bind(mem.cluster_out(cluster), from_icnt);
  }
  ~traffic_gen() override { mem_req_pool_destroy(pool_); }

  void script(std::vector<mem_access> list) {
    for (auto &a : list) script_.push_back(a);
    wake_at(script_.empty() ? never : script_.front().cycle);
  }
  void closed_loop(source src) {
    source_ = std::move(src);
    wake_at(0);
  }

  const std::vector<record> &records() const { return records_; }
  uint64_t replies() const { return replies_; }
  uint64_t sent() const { return records_.size(); }
  uint64_t outstanding() const { return outstanding_; }
  bool done() const { return !held_ && script_.empty() && !source_ && outstanding_ == 0; }
  uint64_t last_reply_cycle() const { return last_reply_; }
  size_t requests_alive() const { return mem_req_pool_outstanding(pool_); }

  simtvp::msg_out to_icnt;
  simtvp::msg_in from_icnt;

  void tick(uint64_t c) override {
    cycle_ = c;
    while (mem_req *r = from_icnt.peek()) {
      record &rec = records_[r->owner_tag];
      rec.replied = c;
      rec.reply_time = sc_core::sc_time_stamp();
      from_icnt.pop();
      mem_req_free(r);
      outstanding_--;
      replies_++;
      last_reply_ = c;
    }
    if (!held_) held_ = next_request(c);
    if (held_ && to_icnt.send(held_)) {
      records_[held_->owner_tag].issued = c;
      if (held_->needs_reply) outstanding_++;
      held_ = nullptr;
    }
  }

  uint64_t next_tick() const override {
    const uint64_t c1 = cycle_ + 1;
    if (held_) return to_icnt.awaiting() ? never : c1; // END_REQ will wake us
    if (max_outstanding_ && outstanding_ >= max_outstanding_) return never; // replies wake us
    if (source_) return c1;
    if (!script_.empty()) return script_.front().cycle > cycle_ ? script_.front().cycle : c1;
    return never;
  }

 private:
  mem_req *next_request(uint64_t c) {
    if (max_outstanding_ && outstanding_ >= max_outstanding_) return nullptr;
    mem_access a;
    if (!script_.empty()) {
      if (script_.front().cycle > c) return nullptr;
      a = script_.front();
      script_.pop_front();
    } else if (source_) {
      if (!source_(c, a)) {
        source_ = nullptr;
        return nullptr;
      }
    } else {
      return nullptr;
    }
    mem_req *r = mem_req_alloc(pool_);
    r->addr = a.addr;
    r->size = a.size;
    r->kind = a.kind;
    r->is_write = a.kind == MEM_ACC_GLOBAL_W || a.kind == MEM_ACC_LOCAL_W;
    r->needs_reply = a.needs_reply;
    r->cluster = static_cast<uint16_t>(cluster_);
    r->sm = static_cast<uint16_t>(cluster_);
    dram_addr d;
    dram_addrmap_decode(mem_.addrmap(), a.addr, &d);
    r->partition = d.channel;
    r->sub_partition = d.sub_partition;
    r->dst_node = static_cast<uint16_t>(mem_.node_of(d.sub_partition));
    r->aperture = a.aperture;
    r->owner_tag = records_.size();
    record rec;
    rec.addr = a.addr;
    records_.push_back(rec);
    return r;
  }

  mem_req_pool *pool_ = nullptr;
  simtvp::mem_system &mem_;
  uint32_t cluster_;
  uint32_t max_outstanding_;
  std::deque<mem_access> script_;
  source source_;
  mem_req *held_ = nullptr;
  std::vector<record> records_;
  uint64_t outstanding_ = 0, replies_ = 0, last_reply_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace tlmtest

#endif  // SIMTVP_TESTS_TLM_MEM_TRAFFIC_GEN_H
