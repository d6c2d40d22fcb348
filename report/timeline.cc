// timeline — see timeline.h.
#include "timeline.h"

#include <algorithm>

namespace simtvp::report {

uint32_t timeline::lanes::take(uint64_t at) {
  for (uint32_t i = 0; i < busy_until.size(); i++)
    if (busy_until[i] <= at) {
      busy_until[i] = UINT64_MAX;
      return i;
    }
  busy_until.push_back(UINT64_MAX);
  return static_cast<uint32_t>(busy_until.size() - 1);
}

const kernel_span *timeline::kernel(uint64_t uid) const {
  auto it = kernel_index_.find(uid);
  return it == kernel_index_.end() ? nullptr : &kernels_[it->second];
}

void timeline::kernel_begin(const kernel_span &k) {
  kernel_index_[k.uid] = kernels_.size();
  kernels_.push_back(k);
  kernels_.back().lane = kernel_lanes_.take(k.begin_ps);
  end_ps_ = std::max(end_ps_, k.begin_ps);
}

void timeline::kernel_end(uint64_t uid, uint64_t at_ps, uint64_t cycles) {
  auto it = kernel_index_.find(uid);
  if (it == kernel_index_.end()) return;
  kernel_span &k = kernels_[it->second];
  k.end_ps = at_ps;
  k.cycles = cycles;
  k.ended = true;
  kernel_lanes_.release(k.lane, at_ps);
  end_ps_ = std::max(end_ps_, at_ps);
}

void timeline::cta_begin(uint64_t uid, uint32_t sm, uint64_t at_ps) {
  end_ps_ = std::max(end_ps_, at_ps);
  if (!room()) return;
  n_spans_++;
  span s;
  s.begin_ps = at_ps;
  s.end_ps = UINT64_MAX;
  s.ref = uid;
  s.lane = cta_lanes_[sm].take(at_ps);
  std::vector<span> &v = ctas_[sm];
  open_ctas_[{sm, uid}].push_back(v.size());
  v.push_back(s);
}

void timeline::cta_end(uint64_t uid, uint32_t sm, uint64_t at_ps, uint32_t status) {
  auto k = kernel_index_.find(uid);
  if (k != kernel_index_.end()) kernels_[k->second].ctas_done++;
  end_ps_ = std::max(end_ps_, at_ps);
  auto it = open_ctas_.find({sm, uid});
  if (it == open_ctas_.end() || it->second.empty()) return;  // its begin was dropped
  span &s = ctas_[sm][it->second.front()];
  it->second.erase(it->second.begin());
  if (it->second.empty()) open_ctas_.erase(it);
  s.end_ps = at_ps;
  s.a = status;
  cta_lanes_[sm].release(s.lane, at_ps);
}

void timeline::copy(uint64_t begin_ps, uint64_t end_ps, uint64_t bytes, uint32_t kind, uint32_t src_aperture,
                    uint32_t dst_aperture) {
  span s;
  s.begin_ps = begin_ps;
  s.end_ps = end_ps;
  s.ref = bytes;
  s.a = kind | src_aperture << 8 | dst_aperture << 16;
  s.lane = copy_lanes_.take(begin_ps);
  copy_lanes_.release(s.lane, end_ps);
  copies_.push_back(s);
  end_ps_ = std::max(end_ps_, end_ps);
}

void timeline::cp_work(uint64_t begin_ps, uint64_t end_ps, uint32_t what, uint32_t reg) {
  span s;
  s.begin_ps = begin_ps;
  s.end_ps = end_ps;
  s.ref = what;
  s.b = reg;
  cp_.push_back(s);
  end_ps_ = std::max(end_ps_, end_ps);
}

void timeline::packet(uint64_t at_ps, uint32_t channel, uint32_t opcode) {
  packets_.push_back(instant{at_ps, channel, opcode});
  end_ps_ = std::max(end_ps_, at_ps);
}

void timeline::irq(uint64_t at_ps, bool level) {
  irqs_.push_back(instant{at_ps, level ? 1u : 0u, 0});
  end_ps_ = std::max(end_ps_, at_ps);
}

void timeline::dram_busy(uint32_t channel, bool busy, uint64_t at_ps) {
  end_ps_ = std::max(end_ps_, at_ps);
  if (busy) {
    dram_open_[channel] = at_ps;
    return;
  }
  auto it = dram_open_.find(channel);
  if (it == dram_open_.end()) return;
  uint64_t begin = it->second;
  dram_open_.erase(it);
  if (!room()) return;
  n_spans_++;
  std::vector<span> &v = dram_[channel];
  // Back-to-back intervals (idle for no time at all) are one.
  if (!v.empty() && v.back().end_ps == begin) {
    v.back().end_ps = at_ps;
    return;
  }
  span s;
  s.begin_ps = begin;
  s.end_ps = at_ps;
  v.push_back(s);
}

void timeline::close(uint64_t at_ps) {
  end_ps_ = std::max(end_ps_, at_ps);
  for (kernel_span &k : kernels_)
    if (!k.ended) k.end_ps = end_ps_;
  for (auto &sm : ctas_)
    for (span &s : sm.second)
      if (s.end_ps == UINT64_MAX) s.end_ps = end_ps_;
  open_ctas_.clear();
  for (auto &ch : std::map<uint32_t, uint64_t>(dram_open_)) dram_busy(ch.first, false, end_ps_);
}

}  // namespace simtvp::report
