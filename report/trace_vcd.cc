// trace_vcd — see trace_vcd.h.
#include "trace_vcd.h"

#include <algorithm>
#include <cinttypes>
#include <map>
#include <vector>

namespace simtvp::report {

namespace {

struct var {
  std::string scope, name;
  uint32_t width;
  std::string id;
  int64_t value = 0;    // what the changes make it
  int64_t shown = 0;    // what the dump says now
};

// A change at a time: `delta` adds v (intervals open and close: counts, busy lines), else sets v.
// Within one time, order 0 (ends) comes before order 1 (begins and instants), so an interval that
// ends where the next begins leaves a line high.
struct change {
  uint64_t at;
  uint32_t order;
  uint32_t var;
  bool delta;
  int64_t v;
};

// VCD identifiers: printable ASCII '!'..'~', base 94.
std::string vcd_id(uint32_t n) {
  std::string s;
  do {
    s += static_cast<char>('!' + n % 94);
    n /= 94;
  } while (n);
  return s;
}

class builder {
 public:
  uint32_t add(const std::string &scope, const std::string &name, uint32_t width, bool busy = false) {
    vars_.push_back(var{scope, name, width, vcd_id(static_cast<uint32_t>(vars_.size()))});
    busy_.push_back(busy);
    return static_cast<uint32_t>(vars_.size() - 1);
  }
  void interval(uint32_t v, uint64_t begin, uint64_t end) {
    changes_.push_back(change{begin, 1, v, true, 1});
    if (end != UINT64_MAX) changes_.push_back(change{end, 0, v, true, -1});
  }
  void set(uint32_t v, uint64_t at, int64_t value, uint32_t order = 1) { changes_.push_back(change{at, order, v, false, value}); }
  void count(uint32_t v, uint64_t at) { changes_.push_back(change{at, 1, v, true, 1}); }

  bool write(FILE *out, const vcd_info &info) {
    std::fputs("$version simtvp $end\n", out);
    std::fprintf(out, "$comment GPU %s, configuration %s, SIMT model %s; simulated time $end\n", info.gpu.c_str(),
                 info.config.c_str(), info.simt_model.c_str());
    std::fputs("$timescale 1ps $end\n", out);
    // scopes in first-use order, "a.b" nested under "a"
    std::vector<std::string> open;
    std::vector<std::string> order;
    for (const var &v : vars_)
      if (std::find(order.begin(), order.end(), v.scope) == order.end()) order.push_back(v.scope);
    for (const std::string &scope : order) {
      std::vector<std::string> parts;
      for (size_t b = 0, e; b <= scope.size(); b = e + 1) {
        e = scope.find('.', b);
        if (e == std::string::npos) e = scope.size();
        parts.push_back(scope.substr(b, e - b));
      }
      size_t common = 0;
      while (common < open.size() && common < parts.size() && open[common] == parts[common]) common++;
      for (size_t i = open.size(); i > common; i--) std::fputs("$upscope $end\n", out);
      open.resize(common);
      for (size_t i = common; i < parts.size(); i++) {
        std::fprintf(out, "$scope module %s $end\n", parts[i].c_str());
        open.push_back(parts[i]);
      }
      for (const var &v : vars_)
        if (v.scope == scope)
          std::fprintf(out, "$var %s %u %s %s $end\n", v.width == 1 ? "wire" : "reg", v.width, v.id.c_str(),
                       v.name.c_str());
    }
    for (size_t i = open.size(); i > 0; i--) std::fputs("$upscope $end\n", out);
    std::fputs("$enddefinitions $end\n", out);

    std::stable_sort(changes_.begin(), changes_.end(), [](const change &a, const change &b) {
      return a.at != b.at ? a.at < b.at : a.order < b.order;
    });
    size_t i = 0;
    bool first = true;
    while (first || i < changes_.size()) {
      uint64_t at = i < changes_.size() ? changes_[i].at : 0;
      if (first && at != 0) at = 0;  // the initial values at #0
      for (; i < changes_.size() && changes_[i].at == at; i++) {
        const change &c = changes_[i];
        vars_[c.var].value = c.delta ? vars_[c.var].value + c.v : c.v;
      }
      std::fprintf(out, "#%" PRIu64 "\n", at);
      if (first) std::fputs("$dumpvars\n", out);
      for (size_t v = 0; v < vars_.size(); v++) {
        var &x = vars_[v];
        int64_t now = busy_[v] ? (x.value > 0) : x.value;
        if (!first && now == x.shown) continue;
        x.shown = now;
        emit(out, x, now);
      }
      if (first) std::fputs("$end\n", out);
      first = false;
    }
    return !std::ferror(out);
  }

 private:
  static void emit(FILE *out, const var &x, int64_t value) {
    if (x.width == 1) {
      std::fprintf(out, "%d%s\n", value ? 1 : 0, x.id.c_str());
      return;
    }
    uint64_t u = static_cast<uint64_t>(value);
    char bits[66];
    int n = 0;
    for (int b = 63; b >= 0; b--)
      if (n || ((u >> b) & 1u) || b == 0) bits[n++] = static_cast<char>('0' + ((u >> b) & 1u));
    bits[n] = '\0';
    std::fprintf(out, "b%s %s\n", bits, x.id.c_str());
  }

  std::vector<var> vars_;
  std::vector<bool> busy_;  // shown as 0/1: whether the count of open intervals is positive
  std::vector<change> changes_;
};

}  // namespace

bool write_trace_vcd(FILE *out, const timeline &t, const vcd_info &info) {
  builder b;
  uint32_t irq = b.add("gpu", "irq", 1);
  for (const instant &e : t.irqs()) b.set(irq, e.at_ps, e.a ? 1 : 0);

  uint32_t kernels = b.add("gpu", "kernels", 32);
  uint32_t lanes = 0;
  for (const kernel_span &k : t.kernels()) lanes = std::max(lanes, k.lane + 1);
  std::vector<uint32_t> kernel_lane;
  for (uint32_t l = 0; l < lanes; l++) kernel_lane.push_back(b.add("gpu", "kernel" + std::to_string(l), 32));
  for (const kernel_span &k : t.kernels()) {
    uint64_t end = k.ended ? k.end_ps : UINT64_MAX;
    b.interval(kernels, k.begin_ps, end);
    b.set(kernel_lane[k.lane], k.begin_ps, static_cast<int64_t>(k.uid));
    if (end != UINT64_MAX) b.set(kernel_lane[k.lane], end, 0, 0);
  }

  for (const auto &sm : t.ctas()) {
    uint32_t v = b.add("gpu.sm", "sm" + std::to_string(sm.first) + "_ctas", 16);
    for (const span &s : sm.second) b.interval(v, s.begin_ps, s.end_ps);
  }

  std::map<uint32_t, std::pair<uint32_t, uint32_t>> ce;  // lane -> busy, bytes
  for (const span &s : t.copies()) {
    auto it = ce.find(s.lane);
    if (it == ce.end()) {
      std::string n = "ce" + std::to_string(s.lane);
      uint32_t busy = b.add("gpu.copy_engine", n + "_busy", 1, true);
      uint32_t bytes = b.add("gpu.copy_engine", n + "_bytes", 64);
      it = ce.emplace(s.lane, std::make_pair(busy, bytes)).first;
    }
    b.interval(it->second.first, s.begin_ps, s.end_ps);
    b.set(it->second.second, s.begin_ps, static_cast<int64_t>(s.ref));
    b.set(it->second.second, s.end_ps, 0, 0);
  }

  uint32_t cp_busy = b.add("gpu.command_processor", "busy", 1, true);
  uint32_t packets = b.add("gpu.command_processor", "packets", 32);
  uint32_t opcode = b.add("gpu.command_processor", "opcode", 32);
  for (const span &s : t.cp_work()) b.interval(cp_busy, s.begin_ps, s.end_ps);
  for (const instant &p : t.packets()) {
    b.count(packets, p.at_ps);
    b.set(opcode, p.at_ps, p.b);
  }

  for (const auto &ch : t.dram()) {
    uint32_t v = b.add("gpu.dram", "ch" + std::to_string(ch.first) + "_busy", 1, true);
    for (const span &s : ch.second) b.interval(v, s.begin_ps, s.end_ps);
  }
  return b.write(out, info);
}

}  // namespace simtvp::report
