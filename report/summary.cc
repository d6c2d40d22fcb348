// summary — see summary.h.
#include "summary.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <map>

#include "demangle.h"

namespace simtvp::report {

namespace {

uint64_t get(const stats *s, uint32_t k, const std::string &name, bool *found = nullptr) {
  int f = 0;
  uint64_t v = stats_kernel_get(s, k, name.c_str(), &f);
  if (found) *found = f != 0;
  return v;
}

double fraction(uint64_t num, uint64_t den) { return den ? static_cast<double>(num) / static_cast<double>(den) : -1; }

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "simt_sched_stall[pipe_busy]" -> "pipe busy"
std::string reason_of(const char *counter) {
  const char *b = std::strchr(counter, '[');
  std::string r(b + 1, std::strlen(b + 1) - 1);
  std::replace(r.begin(), r.end(), '_', ' ');
  return r;
}

std::string shape(const uint32_t d[3]) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%u,%u,%u)", d[0], d[1], d[2]);
  return buf;
}

std::string time_text(double us) {
  if (us < 0) return "";
  if (us >= 1e6) return fmt("%.3f s", us / 1e6);
  if (us >= 1e3) return fmt("%.3f ms", us / 1e3);
  return fmt("%.3f us", us);
}

std::string pad(const std::string &s, size_t w, bool right) {
  size_t n = display_width(s);
  if (n >= w) return s;
  return right ? std::string(w - n, ' ') + s : s + std::string(w - n, ' ');
}

std::string top_stall(const kernel_figures &f) {
  if (f.stalls.empty() || !f.sched_cycles || !f.stalls[0].second) return "-";
  return f.stalls[0].first + " " + percent(fraction(f.stalls[0].second, f.sched_cycles));
}

}  // namespace

std::string percent(double fraction) {
  if (!(fraction >= 0) || !std::isfinite(fraction)) return "-";
  return fmt("%.1f%%", fraction * 100.0);
}

kernel_figures kernel_figures_of(const stats *s, uint32_t k, const timeline *t) {
  kernel_figures f;
  f.index = k;
  f.uid = stats_kernel_uid(s, k);
  const char *n = stats_kernel_name(s, k);
  f.name = n ? n : "";
  f.display = demangle(f.name);
  if (t) {
    if (const kernel_span *ks = t->kernel(f.uid)) {
      f.has_shape = true;
      std::memcpy(f.grid, ks->grid, sizeof f.grid);
      std::memcpy(f.block, ks->block, sizeof f.block);
      f.n_ctas = ks->n_ctas;
      if (ks->ended) f.time_us = static_cast<double>(ks->end_ps - ks->begin_ps) / 1e6;
    }
  }
  f.cycles = get(s, k, "gpu_sim_cycle");
  f.thread_insn = get(s, k, "gpu_sim_insn");
  bool timing = false;
  f.warp_insn = get(s, k, "gpgpu_n_tot_w_icount", &timing);
  if (!timing) f.warp_insn = get(s, k, "func.warp_insn");
  f.ipc = fraction(f.thread_insn, f.cycles);
  f.occupancy = fraction(get(s, k, "simt.resident_warp_cycles"), get(s, k, "simt.warp_slot_cycles"));
  uint64_t l1a = get(s, k, "L1D_total_cache_accesses"), l1m = get(s, k, "L1D_total_cache_misses");
  uint64_t l2a = get(s, k, "L2_total_cache_accesses"), l2m = get(s, k, "L2_total_cache_misses");
  f.l1d_hit = l1a ? 1.0 - fraction(l1m, l1a) : -1;
  f.l2_hit = l2a ? 1.0 - fraction(l2m, l2a) : -1;
  uint64_t busy = 0, cmd = 0;
  for (uint32_t ch = 0;; ch++) {
    bool found = false;
    std::string base = "DRAM[" + std::to_string(ch) + "].";
    uint64_t b = get(s, k, base + "bwutil", &found);
    if (!found) break;
    busy += b;
    cmd += get(s, k, base + "n_cmd");
  }
  f.dram_util = fraction(busy, cmd);
  for (int w = 1; w <= 32; w++) f.issue_cycles += get(s, k, "W" + std::to_string(w));
  for (uint32_t i = 0; i < stats_counter_count(s); i++) {
    const char *c = stats_counter_name(s, i);
    if (std::strncmp(c, "simt_sched_stall[", 17) != 0) continue;
    uint64_t v = get(s, k, c);
    f.stalls.emplace_back(reason_of(c), v);
    f.sched_cycles += v;
  }
  f.sched_cycles += f.issue_cycles;
  std::stable_sort(f.stalls.begin(), f.stalls.end(),
                   [](const std::pair<std::string, uint64_t> &a, const std::pair<std::string, uint64_t> &b) {
                     return a.second > b.second;
                   });
  return f;
}

std::string kernel_block(const kernel_figures &f) {
  std::string out = "simtvp: kernel " + std::to_string(f.uid) + ": " + short_name(f.display, 110) + "\n  ";
  if (f.has_shape) out += "grid " + shape(f.grid) + "  block " + shape(f.block) + "  " + std::to_string(f.n_ctas) + " CTAs  |  ";
  if (f.cycles) {
    out += std::to_string(f.cycles) + " cycles";
    if (f.time_us >= 0) out += " (" + time_text(f.time_us) + ")";
    out += "  IPC " + fmt("%.2f", f.ipc) + "  warp insns " + std::to_string(f.warp_insn) + "\n";
    out += "  occupancy " + percent(f.occupancy);
    if (f.sched_cycles) {
      out += "  |  issue " + percent(fraction(f.issue_cycles, f.sched_cycles)) + ", stalls:";
      int shown = 0;
      for (auto &r : f.stalls) {
        if (!r.second || shown == 3) break;
        out += std::string(shown ? "," : "") + " " + r.first + " " + percent(fraction(r.second, f.sched_cycles));
        shown++;
      }
      if (!shown) out += " none";
    }
    out += "\n  L1D hit " + percent(f.l1d_hit) + "  L2 hit " + percent(f.l2_hit) + "  DRAM bandwidth " +
           percent(f.dram_util) + " of peak\n";
  } else {
    out += "functional (no timing): " + std::to_string(f.warp_insn) + " warp insns, " + std::to_string(f.thread_insn) +
           " thread insns\n";
  }
  return out;
}

std::string kernel_table(const std::vector<kernel_figures> &all, size_t max_rows) {
  struct row {
    std::string id, name, grid, block, cycles, ipc, occ, l1d, l2, dram, stall;
  };
  std::vector<row> rows;
  uint64_t total_cycles = 0, total_insn = 0;
  bool timing = false;
  for (const kernel_figures &f : all) {
    total_cycles += f.cycles;
    total_insn += f.thread_insn;
    timing |= f.cycles != 0;
  }
  auto add = [&](const std::string &id, const std::string &name, const kernel_figures &f, uint64_t cycles,
                 uint64_t insn) {
    row r;
    r.id = id;
    r.name = name;
    r.grid = f.has_shape ? shape(f.grid) : "-";
    r.block = f.has_shape ? shape(f.block) : "-";
    r.cycles = std::to_string(timing ? cycles : insn);
    r.ipc = cycles ? fmt("%.2f", static_cast<double>(insn) / static_cast<double>(cycles)) : "-";
    r.occ = percent(f.occupancy);
    r.l1d = percent(f.l1d_hit);
    r.l2 = percent(f.l2_hit);
    r.dram = percent(f.dram_util);
    r.stall = top_stall(f);
    rows.push_back(r);
  };
  if (all.size() <= max_rows) {
    for (const kernel_figures &f : all) add(std::to_string(f.uid), short_name(f.display, 40, true), f, f.cycles, f.thread_insn);
  } else {
    // One row per kernel name: launches, summed cycles and instructions; rates of the first launch's
    // shape are not meaningful for all, so caches and stalls are the sums' ratios.
    std::map<std::string, size_t> first;
    std::vector<std::string> order;
    std::map<std::string, std::vector<const kernel_figures *>> by;
    for (const kernel_figures &f : all) {
      if (!by.count(f.name)) order.push_back(f.name);
      by[f.name].push_back(&f);
    }
    for (const std::string &n : order) {
      const auto &v = by[n];
      kernel_figures agg = *v[0];
      uint64_t cycles = 0, insn = 0;
      for (const kernel_figures *f : v) {
        cycles += f->cycles;
        insn += f->thread_insn;
      }
      add("x" + std::to_string(v.size()), short_name(v[0]->display, 40, true), agg, cycles, insn);
      rows.back().occ = rows.back().l1d = rows.back().l2 = rows.back().dram = rows.back().stall = "";
      if (v.size() == 1) {
        rows.back().occ = percent(agg.occupancy);
        rows.back().l1d = percent(agg.l1d_hit);
        rows.back().l2 = percent(agg.l2_hit);
        rows.back().dram = percent(agg.dram_util);
        rows.back().stall = top_stall(agg);
      }
    }
  }
  row head{"#", "kernel", "grid", "block", timing ? "cycles" : "thread insns", "IPC", "occupancy", "L1D hit", "L2 hit", "DRAM bw", "top stall"};
  row total{"", "total", "", "", std::to_string(timing ? total_cycles : total_insn),
            total_cycles ? fmt("%.2f", static_cast<double>(total_insn) / static_cast<double>(total_cycles)) : "-",
            "", "", "", "", ""};
  std::vector<row> table{head};
  table.insert(table.end(), rows.begin(), rows.end());
  if (all.size() > 1) table.push_back(total);
  size_t w[11] = {0};
  for (const row &r : table) {
    const std::string *c[11] = {&r.id, &r.name, &r.grid, &r.block, &r.cycles, &r.ipc, &r.occ, &r.l1d, &r.l2, &r.dram, &r.stall};
    for (int i = 0; i < 11; i++) w[i] = std::max(w[i], display_width(*c[i]));
  }
  std::string out = "simtvp: " + std::to_string(all.size()) + " kernel" + (all.size() == 1 ? "" : "s") + "\n";
  for (const row &r : table) {
    const std::string *c[11] = {&r.id, &r.name, &r.grid, &r.block, &r.cycles, &r.ipc, &r.occ, &r.l1d, &r.l2, &r.dram, &r.stall};
    std::string line = " ";
    for (int i = 0; i < 11; i++) {
      if (!timing && i >= 4 && i <= 10 && i != 4) continue;  // functional: no rates
      bool right = i == 0 || (i >= 4 && i <= 9);
      line += " " + pad(*c[i], w[i], right);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace simtvp::report
