// simt_cluster_shell — the SIMT-cluster shell (simt_cluster_shell.h).
#include "simt_cluster_shell.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace simtvp {

namespace {

size_t hash_ptr(const void *p) {
  uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p) >> 4) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h >> 24);
}

}  // namespace

simt_cluster_shell::simt_cluster_shell(sc_core::sc_module_name name, domain_driver &core_clock,
                                       const simt_cluster_config &cfg,
                                       const simt_cluster_shell_ports &ports, bool parallel)
    : sc_core::sc_module(name), to_icnt("to_icnt", *this, 0, pool_), from_icnt("from_icnt", *this, 1),
      cfg_(cfg), cores_(cfg.cores, cfg.cores + cfg.n_cores), ports_(ports), parallel_(parallel),
      messages_(ports.messages) {
  simtvp_diag_clear(&diag_);
  cfg_.cores = cores_.data();
  if (parallel_) {
    // One statistics shard for the cluster and its cores: aggregates they share with other
    // clusters are counted privately and folded (stats.h "shards").
    stats *shard = nullptr;
    for (simt_core_config &c : cores_) {
      if (c.stats && !shard) shard = stats_shard_create(c.stats, deferring_flag());
      if (c.stats) c.stats = shard;
    }
    if (cfg_.stats) cfg_.stats = shard ? shard : stats_shard_create(cfg_.stats, deferring_flag());
  }
  uint32_t ctas = 0;
  for (const simt_core_config &c : cores_) ctas += c.max_ctas;
  pending_.reserve(ctas);
  starting_.reserve(ctas);
  inflight_.assign(256, inflight{});
  from_icnt.set_timed(this);
  status_ = create_model(&diag_);
  core_clock.add(*this);
}

simt_cluster_shell::~simt_cluster_shell() {
  simt_cluster_destroy(model_);
  // Requests of every generation are back home once the memory system is gone (its owner
  // destroys it first); the pools go last.
  mem_req_pool_destroy(req_pool_);
  for (mem_req_pool *p : retired_pools_) mem_req_pool_destroy(p);
}

bool simt_cluster_shell::ok(simtvp_diag *diag) const {
  if (status_ == SIMTVP_OK) return true;
  if (diag) *diag = diag_;
  return false;
}

simtvp_status simt_cluster_shell::create_model(simtvp_diag *diag) {
  req_pool_ = mem_req_pool_create();
  if (!req_pool_) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "%s: out of host memory", name());
  if (parallel_) mem_req_pool_set_shared(req_pool_, true);  // the L2 and DRAM free its requests
  for (simt_core_config &c : cores_) c.pool = req_pool_;
  simt_cluster_ports p;
  p.ctx = this;
  p.inject = &simt_cluster_shell::on_inject;
  p.inject_timed = &simt_cluster_shell::on_inject_timed;
  p.cta_done = &simt_cluster_shell::on_cta_done;
  p.messages = parallel_ ? messages_.port() : ports_.messages;
  p.fault = ports_.fault ? &simt_cluster_shell::on_fault : nullptr;
  return simt_cluster_create(&cfg_, p, &model_, diag);
}

simtvp_status simt_cluster_shell::rebuild(simtvp_diag *diag) {
  simt_cluster_destroy(model_);
  model_ = nullptr;
  pending_.clear();
  // The old generation's requests still in the memory system come back to this pool: keep it.
  if (req_pool_) retired_pools_.push_back(req_pool_);
  req_pool_ = nullptr;
  std::fill(inflight_.begin(), inflight_.end(), inflight{});
  inflight_n_ = 0;
  status_ = create_model(diag);
  if (status_ != SIMTVP_OK && diag) diag_ = *diag;
  wake_at(driver()->current_cycle() + 1);
  return status_;
}

bool simt_cluster_shell::idle() const {
  return pending_.empty() && (!model_ || simt_cluster_idle(model_));
}

void simt_cluster_shell::poke() { wake_at(driver()->current_cycle() + 1); }

void simt_cluster_shell::launch_cta(uint32_t sm, const simt_kernel *k, const uint32_t cta[3]) {
  pending_.push_back({sm, k, {cta[0], cta[1], cta[2]}});
  // The first edge strictly after now (a launch at an edge is seen at the next one).
  wake_after(sc_core::sc_time_stamp());
}

// ---- ports of the model ---------------------------------------------------------------------------

bool simt_cluster_shell::on_inject(void *ctx, mem_req *req, uint64_t now) {
  auto *self = static_cast<simt_cluster_shell *>(ctx);
  bool reply = req->needs_reply;
  if (!self->to_icnt.send(req)) return false;
  if (reply) self->track(req, now);  // req may be gone already when it needs no reply
  return true;
}

uint64_t simt_cluster_shell::on_inject_timed(void *ctx, mem_req *req, uint64_t at) {
  auto *self = static_cast<simt_cluster_shell *>(ctx);
  if (!self->to_icnt.timed()) return SIMT_MEM_UNTIMED;
  const clock_domain &clk = self->domain();
  const sc_core::sc_time now = sc_core::sc_time_stamp(), t = clk.time_of(at);
  sc_core::sc_time delay = t > now ? t - now : sc_core::SC_ZERO_TIME;
  const bool reply = req->needs_reply;
  if (reply) self->track(req, at);
  if (!self->to_icnt.transport(req, delay)) return SIMT_MEM_DEFERRED; // the reply comes later
  if (reply) self->untrack(req);
  return clk.cycle_after(now + delay);
}

bool simt_cluster_shell::timed_transport(uint32_t, mem_req *r, sc_core::sc_time &delay) {
  if (!model_ || r->pool != req_pool_) { // an earlier generation's: its requester is gone
    mem_req_free(r);
    return true;
  }
  untrack(r);
  simt_cluster_deliver_at(model_, r, domain().cycle_after(sc_core::sc_time_stamp() + delay));
  uint64_t next = simt_cluster_next_event(model_);
  if (next != SIMT_NEVER) wake_at(next);
  return true;
}

void simt_cluster_shell::on_cta_done(void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r,
                                     uint64_t now) {
  static_cast<simt_cluster_shell *>(ctx)->cta_done(sm, slot, *r, now);
}

namespace {
struct cta_done_note {
  uint32_t sm, slot;
  gpu_cta_result r;
};
struct fault_note {
  uint32_t sm, slot;
  simtvp_diag report;
};
}  // namespace

void simt_cluster_shell::cta_done(uint32_t sm, uint32_t slot, const gpu_cta_result &r, uint64_t cycle) {
  cta_done_note n{sm, slot, r};
  serially(&simt_cluster_shell::deliver_cta_done, this, &n, sizeof n, cycle);
}

void simt_cluster_shell::deliver_cta_done(void *ctx, const void *data, size_t, uint64_t cycle) {
  auto *self = static_cast<simt_cluster_shell *>(ctx);
  cta_done_note n;
  std::memcpy(&n, data, sizeof n);
  self->ports_.cta_done(self->ports_.ctx, n.sm, n.slot, &n.r, cycle);
}

void simt_cluster_shell::on_fault(void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report,
                                  uint64_t now) {
  auto *self = static_cast<simt_cluster_shell *>(ctx);
  fault_note n{sm, slot, *report};
  self->serially(&simt_cluster_shell::deliver_fault, self, &n, sizeof n, now);
}

void simt_cluster_shell::deliver_fault(void *ctx, const void *data, size_t, uint64_t cycle) {
  auto *self = static_cast<simt_cluster_shell *>(ctx);
  fault_note n;
  std::memcpy(static_cast<void *>(&n), data, sizeof n);
  self->ports_.fault(self->ports_.ctx, n.sm, n.slot, &n.report, cycle);
}

void simt_cluster_shell::deliver_ticked(void *ctx, const void *, size_t, uint64_t cycle) {
  auto *self = static_cast<simt_cluster_shell *>(ctx);
  self->ports_.ticked(self->ports_.ctx, cycle);
}

// ---- requests waiting for replies (deadlock dumps) -----------------------------------------------

size_t simt_cluster_shell::slot_of(const mem_req *r) const {
  return hash_ptr(r) & (inflight_.size() - 1);
}

void simt_cluster_shell::track(const mem_req *r, uint64_t cycle) {
  if ((inflight_n_ + 1) * 2 > inflight_.size()) {  // grow (rare: the table keeps its size)
    std::vector<inflight> old;
    old.swap(inflight_);
    inflight_.assign(old.size() * 2, inflight{});
    inflight_n_ = 0;
    for (const inflight &e : old)
      if (e.req) track(e.req, e.sent);
  }
  size_t mask = inflight_.size() - 1, i = slot_of(r);
  while (inflight_[i].req && inflight_[i].req != r) i = (i + 1) & mask;
  if (!inflight_[i].req) inflight_n_++;
  inflight_[i] = {r, cycle};
}

void simt_cluster_shell::untrack(const mem_req *r) {
  size_t mask = inflight_.size() - 1, i = slot_of(r);
  while (inflight_[i].req && inflight_[i].req != r) i = (i + 1) & mask;
  if (!inflight_[i].req) return;
  // Backward-shift deletion: probe chains stay unbroken without tombstones.
  size_t hole = i;
  for (size_t j = (i + 1) & mask; inflight_[j].req; j = (j + 1) & mask) {
    size_t home = slot_of(inflight_[j].req);
    bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      inflight_[hole] = inflight_[j];
      hole = j;
    }
  }
  inflight_[hole] = inflight{};
  inflight_n_--;
}

// ---- clocked ---------------------------------------------------------------------------------------

void simt_cluster_shell::tick(uint64_t c) {
  cycle_ = c;
  if (!model_) return;
  // 1. CTAs handed over before this edge.
  // (A func core runs its CTA inside launch and reports it at once; the dispatcher never hands
  // a new CTA over from inside that report, but take the list first anyway.)
  starting_.swap(pending_);
  for (const pending_cta &p : starting_) {
    simtvp_diag d;
    simtvp_diag_clear(&d);
    simtvp_status st = simt_cluster_launch_cta(model_, p.sm, p.k, p.cta, c, &d);
    if (st != SIMTVP_OK) {
      simtvp_msg_port m = parallel_ ? messages_.port() : ports_.messages;
      simtvp_msg(&m, SIMTVP_ERROR, "%s: CTA (%u,%u,%u) of %s could not start on SM %u: %s", name(),
                 p.cta[0], p.cta[1], p.cta[2], p.k->name ? p.k->name : "?", p.sm, d.message);
      gpu_cta_result r = {st, 0, 0};
      cta_done(p.sm, p.k->slot, r, c);
    }
  }
  starting_.clear();
  // 2. Replies that arrived before this edge, into the response FIFO while it has room.
  while (mem_req *r = from_icnt.peek()) {
    if (r->pool != req_pool_) {  // an earlier generation's: its requester is gone
      from_icnt.pop();
      mem_req_free(r);
      continue;
    }
    if (!simt_cluster_deliver(model_, r, c)) break;  // stays in the link: END_REQ withheld upstream
    from_icnt.pop();
    untrack(r);
  }
  // 3. The cores (they send on to_icnt and report CTAs from inside).
  simt_cluster_advance(model_, c);
  if (ports_.ticked) serially(&simt_cluster_shell::deliver_ticked, this, nullptr, 0, c);
  // The model's next event, for next_tick: computed here, inside a parallel tick on the thread
  // that holds the cores' state; what runs between here and next_tick (the tick's deferred work)
  // does not touch the model.
  model_next_ = simt_cluster_next_event(model_);
}

uint64_t simt_cluster_shell::next_tick() const {
  if (!model_) return never;
  if (!pending_.empty() || to_icnt.retry_next_edge()) return cycle_ + 1;
  if (from_icnt.front()) return cycle_ + 1;  // a reply waits (the FIFO drains one per cycle)
  return model_next_;
}

// ---- dump ------------------------------------------------------------------------------------------

void simt_cluster_shell::dump(void (*line)(void *ctx, const char *text), void *ctx,
                              uint32_t max_requests) const {
  char buf[320];
  std::vector<inflight> open;
  for (const inflight &e : inflight_)
    if (e.req) open.push_back(e);
  std::sort(open.begin(), open.end(), [](const inflight &a, const inflight &b) {
    return a.sent != b.sent ? a.sent < b.sent : a.req->id < b.req->id;
  });
  const uint64_t now = driver() ? driver()->current_cycle() : cycle_;
  std::snprintf(buf, sizeof buf,
                "%s at core cycle %" PRIu64 " (last tick %" PRIu64 "): %zu requests wait for replies (%zu of this "
                "cluster's requests outstanding in all); to_icnt %s, from_icnt %u waiting; %zu CTA starts pending",
                name(), now, cycle_, open.size(), req_pool_ ? mem_req_pool_outstanding(req_pool_) : size_t{0},
                to_icnt.awaiting() ? "busy (END_REQ withheld)" : "free", from_icnt.size(), pending_.size());
  line(ctx, buf);
  uint32_t n = 0;
  for (const inflight &e : open) {
    if (n++ == max_requests) {
      std::snprintf(buf, sizeof buf, "  ... %zu more", open.size() - max_requests);
      line(ctx, buf);
      break;
    }
    const mem_req *r = e.req;
    std::snprintf(buf, sizeof buf,
                  "  request %" PRIu64 ": %s 0x%" PRIx64 " (%u bytes, sectors 0x%x) from SM %u warp %u to "
                  "partition %u sub-partition %u (node %u), sent at cycle %" PRIu64 " (%" PRIu64 " cycles ago)",
                  r->id, mem_access_kind_name(static_cast<mem_access_kind>(r->kind)), r->addr, r->size,
                  r->sector_mask, r->sm, r->warp, r->partition, r->sub_partition, r->dst_node, e.sent,
                  now - e.sent);
    line(ctx, buf);
  }
  if (model_) simt_cluster_dump(model_, line, ctx);
}

}  // namespace simtvp
