// series — see series.h.
#include "series.h"

#include <cstdlib>
#include <cstring>
#include <map>

namespace simtvp::report {

namespace {

// "prefix[N]suffix" -> N, or -1.
long instance_of(const char *name, const char *prefix, const char *suffix) {
  size_t lp = std::strlen(prefix), ls = std::strlen(suffix), ln = std::strlen(name);
  if (ln <= lp + ls + 2 || std::strncmp(name, prefix, lp) != 0 || name[lp] != '[') return -1;
  if (std::strcmp(name + ln - ls, suffix) != 0 || name[ln - ls - 1] != ']') return -1;
  char *end = nullptr;
  long v = std::strtol(name + lp + 1, &end, 10);
  return end == name + ln - ls - 1 && v >= 0 ? v : -1;
}

}  // namespace

void series::add(const std::string &name, std::vector<const uint64_t *> members) {
  if (members.empty()) return;
  column c;
  c.name = name;
  c.members = std::move(members);
  columns_.push_back(std::move(c));
}

void series::attach(const stats *s) {
  columns_.clear();
  times_.clear();
  auto one = [&](const char *name) {
    std::vector<const uint64_t *> v;
    if (const uint64_t *p = stats_counter_find(s, name)) v.push_back(p);
    return v;
  };
  std::vector<const uint64_t *> l1d_access, l1d_miss, l2_access, l2_miss;
  std::map<long, const uint64_t *> sm_insn, dram_busy, dram_cmd;
  for (uint32_t i = 0; i < stats_counter_count(s); i++) {
    const char *n = stats_counter_name(s, i);
    // The live pointer only of the counters kept (a followed counter is kept up to date after
    // every parallel phase of -sim_threads: following them all would cost every phase).
    auto v = [&] { return stats_counter_value(s, i); };
    long k;
    if (instance_of(n, "L1D_cache_core", ".access") >= 0) l1d_access.push_back(v());
    else if (instance_of(n, "L1D_cache_core", ".miss") >= 0) l1d_miss.push_back(v());
    else if (instance_of(n, "L2_cache_bank", ".access") >= 0) l2_access.push_back(v());
    else if (instance_of(n, "L2_cache_bank", ".miss") >= 0) l2_miss.push_back(v());
    else if ((k = instance_of(n, "simt_core", ".thread_insn")) >= 0) sm_insn[k] = v();
    else if ((k = instance_of(n, "DRAM", ".bwutil")) >= 0) dram_busy[k] = v();
    else if ((k = instance_of(n, "DRAM", ".n_cmd")) >= 0) dram_cmd[k] = v();
  }
  add("insn", one("gpu_sim_insn"));
  add("l1d_access", l1d_access);
  add("l1d_miss", l1d_miss);
  add("l2_access", l2_access);
  add("l2_miss", l2_miss);
  for (auto &e : sm_insn) add("sm[" + std::to_string(e.first) + "].insn", {e.second});
  for (auto &e : dram_busy) {
    auto c = dram_cmd.find(e.first);
    if (c == dram_cmd.end()) continue;
    add("dram[" + std::to_string(e.first) + "].busy", {e.second});
    add("dram[" + std::to_string(e.first) + "].cmd", {c->second});
  }
}

void series::halve() {
  // Keep samples 0, 2, 4 …: every kept value is still the counter at its own time.
  size_t n = 0;
  for (size_t i = 0; i < times_.size(); i += 2, n++) {
    times_[n] = times_[i];
    for (column &c : columns_) c.values[n] = c.values[i];
  }
  times_.resize(n);
  for (column &c : columns_) c.values.resize(n);
  period_ps_ *= 2;
}

void series::sample(uint64_t t_ps) {
  if (!times_.empty() && t_ps <= times_.back()) {
    // Same instant again (a kernel boundary on a sample): take the newer values.
    for (column &c : columns_) {
      uint64_t v = 0;
      for (const uint64_t *p : c.members) v += *p;
      c.values.back() = v;
    }
    return;
  }
  if (times_.size() >= max_points_) halve();
  times_.push_back(t_ps);
  for (column &c : columns_) {
    uint64_t v = 0;
    for (const uint64_t *p : c.members) v += *p;
    c.values.push_back(v);
  }
}

const series::column *series::find(const std::string &name) const {
  for (const column &c : columns_)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace simtvp::report
