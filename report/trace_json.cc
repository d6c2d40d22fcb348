// trace_json — see trace_json.h.
#include "trace_json.h"

#include <cinttypes>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "demangle.h"
#include "names.h"
#include "stats_json.h"

namespace simtvp::report {

namespace {

enum : int { kPidGpu = 1, kPidCopy = 2, kPidCp = 3, kPidIrq = 4, kPidDram = 5, kPidCounters = 6, kPidSm = 100 };

struct writer {
  FILE *out;
  bool first = true;
  void begin_event() {
    std::fputs(first ? "\n" : ",\n", out);
    first = false;
  }
  void str(const std::string &s) { stats_json_write_escaped(out, s.c_str()); }
  void meta(int pid, int tid, const char *what, const std::string &value) {
    begin_event();
    std::fprintf(out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
    str(value);
    std::fputs("}}", out);
  }
  void sort(int pid, int tid, const char *what, long index) {
    begin_event();
    std::fprintf(out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"sort_index\":%ld}}", pid,
                 tid, what, index);
  }
  // A complete event; args: JSON object members without braces ("" for none).
  void slice(int pid, int tid, const std::string &name, const char *cat, uint64_t b, uint64_t e,
             const std::string &args) {
    begin_event();
    std::fprintf(out, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"cat\":\"%s\",\"name\":", pid, tid, cat);
    str(name);
    std::fprintf(out, ",\"ts\":%s,\"dur\":%s", trace_us(b).c_str(), trace_us(e > b ? e - b : 0).c_str());
    if (!args.empty()) std::fprintf(out, ",\"args\":{%s}", args.c_str());
    std::fputs("}", out);
  }
  void instant(int pid, int tid, const std::string &name, const char *cat, uint64_t at, const std::string &args) {
    begin_event();
    std::fprintf(out, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"cat\":\"%s\",\"name\":", pid, tid, cat);
    str(name);
    std::fprintf(out, ",\"ts\":%s", trace_us(at).c_str());
    if (!args.empty()) std::fprintf(out, ",\"args\":{%s}", args.c_str());
    std::fputs("}", out);
  }
  void counter(int pid, const char *name, uint64_t at, const char *key, double v) {
    begin_event();
    char num[64];
    std::snprintf(num, sizeof num, "%.6g", v);
    stats_json_c_decimal_point(num);
    std::fprintf(out, "{\"ph\":\"C\",\"pid\":%d,\"tid\":0,\"name\":\"%s\",\"ts\":%s,\"args\":{\"%s\":%s}}", pid, name,
                 trace_us(at).c_str(), key, num);
  }
};

std::string escaped(const std::string &s) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return "\"\"";
  stats_json_write_escaped(f, s.c_str());
  std::fclose(f);
  std::string r(buf, len);
  std::free(buf);
  return r;
}

std::string u64(uint64_t v) { return std::to_string(v); }

}  // namespace

std::string trace_us(uint64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64, ps / 1000000u, ps % 1000000u);
  return buf;
}

bool write_trace_json(FILE *out, const timeline &t, const series *s, const trace_info &info) {
  writer w{out};
  std::fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{", out);
  std::fputs("\"generator\":\"simtvp\",\"gpu\":", out);
  w.str(info.gpu);
  std::fputs(",\"config\":", out);
  w.str(info.config);
  std::fputs(",\"simt_model\":", out);
  w.str(info.simt_model);
  std::fprintf(out, ",\"time\":\"simulated\",\"dropped_intervals\":%" PRIu64 "},\n\"traceEvents\":[", t.dropped());

  // Names and order of the tracks.
  w.meta(kPidGpu, 0, "process_name", "GPU");
  w.sort(kPidGpu, 0, "process_sort_index", 0);
  uint32_t kernel_lanes = 0;
  for (const kernel_span &k : t.kernels()) kernel_lanes = std::max(kernel_lanes, k.lane + 1);
  for (uint32_t l = 0; l < std::max(kernel_lanes, 1u); l++)
    w.meta(kPidGpu, static_cast<int>(l), "thread_name", l ? "kernels (concurrent " + std::to_string(l) + ")" : "kernels");
  w.meta(kPidCopy, 0, "process_name", "Copy engine");
  w.sort(kPidCopy, 0, "process_sort_index", 1);
  w.meta(kPidCp, 0, "process_name", "Command processor");
  w.sort(kPidCp, 0, "process_sort_index", 2);
  w.meta(kPidCp, 0, "thread_name", "firmware");
  w.meta(kPidCp, 1, "thread_name", "packets");
  w.meta(kPidIrq, 0, "process_name", "Interrupt");
  w.sort(kPidIrq, 0, "process_sort_index", 3);
  if (!t.dram().empty()) {
    w.meta(kPidDram, 0, "process_name", "DRAM");
    w.sort(kPidDram, 0, "process_sort_index", 4);
    for (auto &ch : t.dram()) {
      w.meta(kPidDram, static_cast<int>(ch.first), "thread_name", "channel " + std::to_string(ch.first));
      w.sort(kPidDram, static_cast<int>(ch.first), "thread_sort_index", ch.first);
    }
  }
  if (s && !s->times_ps().empty()) {
    w.meta(kPidCounters, 0, "process_name", "Counters");
    w.sort(kPidCounters, 0, "process_sort_index", 5);
  }
  for (auto &sm : t.ctas()) {
    int pid = kPidSm + static_cast<int>(sm.first);
    w.meta(pid, 0, "process_name", "SM " + std::to_string(sm.first));
    w.sort(pid, 0, "process_sort_index", 10 + sm.first);
    uint32_t lanes = 0;
    for (const span &c : sm.second) lanes = std::max(lanes, c.lane + 1);
    for (uint32_t l = 0; l < lanes; l++) {
      w.meta(pid, static_cast<int>(l), "thread_name", "CTA slot " + std::to_string(l));
      w.sort(pid, static_cast<int>(l), "thread_sort_index", l);
    }
  }

  // Kernels.
  std::map<uint64_t, std::string> short_names;
  for (const kernel_span &k : t.kernels()) {
    std::string d = demangle(k.name);
    short_names[k.uid] = short_name(d, 60, true);
    char shape[160];
    std::snprintf(shape, sizeof shape,
                  "\"grid\":\"(%u,%u,%u)\",\"block\":\"(%u,%u,%u)\",\"ctas\":%" PRIu64 ",\"cycles\":%" PRIu64
                  ",\"stream\":%u",
                  k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.n_ctas, k.cycles, k.stream_id);
    std::string args = "\"launch\":" + u64(k.uid) + ",\"kernel\":" + escaped(d) + "," + shape +
                       ",\"smem_bytes\":" + std::to_string(k.smem_bytes) +
                       ",\"regs_per_thread\":" + std::to_string(k.regs_per_thread) +
                       (k.ended ? "" : ",\"unfinished\":true");
    w.slice(kPidGpu, static_cast<int>(k.lane), short_names[k.uid], "kernel", k.begin_ps, k.end_ps, args);
  }
  // CTAs.
  for (auto &sm : t.ctas()) {
    for (const span &c : sm.second) {
      auto n = short_names.find(c.ref);
      std::string args = "\"launch\":" + u64(c.ref);
      if (c.a) args += ",\"status\":" + std::to_string(c.a);
      w.slice(kPidSm + static_cast<int>(sm.first), static_cast<int>(c.lane),
              n == short_names.end() ? "CTA" : n->second, "cta", c.begin_ps, c.end_ps, args);
    }
  }
  // Copy engine.
  uint32_t engines = 0;
  for (const span &c : t.copies()) engines = std::max(engines, c.lane + 1);
  for (uint32_t l = 0; l < engines; l++) w.meta(kPidCopy, static_cast<int>(l), "thread_name", "engine " + std::to_string(l));
  for (const span &c : t.copies())
    w.slice(kPidCopy, static_cast<int>(c.lane), copy_name(c.a), "copy", c.begin_ps, c.end_ps, "\"bytes\":" + u64(c.ref));
  // Command processor.
  for (const span &c : t.cp_work())
    w.slice(kPidCp, 0, cp_work_name(static_cast<uint32_t>(c.ref), c.b), "cp", c.begin_ps, c.end_ps, "");
  for (const instant &p : t.packets())
    w.instant(kPidCp, 1, packet_name(p.b), "packet", p.at_ps, "\"channel\":" + std::to_string(p.a));
  // Interrupt line.
  w.counter(kPidIrq, "irq", 0, "level", 0);
  for (const instant &i : t.irqs()) w.counter(kPidIrq, "irq", i.at_ps, "level", i.a);
  // DRAM channels.
  for (auto &ch : t.dram())
    for (const span &b : ch.second) w.slice(kPidDram, static_cast<int>(ch.first), "busy", "dram", b.begin_ps, b.end_ps, "");
  // Counters from the series: rates over each sampling interval, placed at its start.
  if (s && s->times_ps().size() > 1) {
    const std::vector<uint64_t> &tm = s->times_ps();
    const series::column *insn = s->find("insn");
    std::vector<std::pair<const series::column *, const series::column *>> dram;
    for (uint32_t ch = 0;; ch++) {
      const series::column *b = s->find("dram[" + std::to_string(ch) + "].busy");
      const series::column *c = s->find("dram[" + std::to_string(ch) + "].cmd");
      if (!b || !c) break;
      dram.emplace_back(b, c);
    }
    for (size_t i = 0; i + 1 < tm.size(); i++) {
      double dt = static_cast<double>(tm[i + 1] - tm[i]);
      if (insn && info.core_mhz > 0)
        w.counter(kPidCounters, "IPC", tm[i], "thread insn per cycle",
                  static_cast<double>(insn->values[i + 1] - insn->values[i]) / (dt * info.core_mhz * 1e-6));
      if (!dram.empty()) {
        uint64_t busy = 0, cmd = 0;
        for (auto &d : dram) {
          busy += d.first->values[i + 1] - d.first->values[i];
          cmd += d.second->values[i + 1] - d.second->values[i];
        }
        w.counter(kPidCounters, "DRAM bandwidth", tm[i], "% of peak",
                  cmd ? 100.0 * static_cast<double>(busy) / static_cast<double>(cmd) : 0);
      }
    }
  }
  std::fputs("\n]}\n", out);
  return !std::ferror(out);
}

}  // namespace simtvp::report
