// html_report — see html_report.h.
#include "html_report.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "demangle.h"
#include "json_text.h"
#include "names.h"
#include "summary.h"

extern "C" const char simtvp_report_js[];
extern "C" const char simtvp_report_css[];

namespace simtvp::report {

namespace {

constexpr uint32_t kBuckets = 400;
constexpr size_t kMaxCopies = 20000, kMaxCpWork = 20000, kHotLines = 40;

uint64_t kget(const stats *s, uint32_t k, const std::string &name, bool *found = nullptr) {
  int f = 0;
  uint64_t v = stats_kernel_get(s, k, name.c_str(), &f);
  if (found) *found = f != 0;
  return v;
}

void u32x3(json_text &j, const uint32_t v[3]) {
  j.begin_array();
  for (int i = 0; i < 3; i++) j.num(v[i]);
  j.end_array();
}

// Time-weighted share of each bucket covered by [b, e), times weight.
void spread(std::vector<double> &buckets, uint64_t bucket_ps, uint64_t b, uint64_t e, double weight) {
  if (e <= b || !bucket_ps) return;
  uint64_t first = b / bucket_ps, last = (e - 1) / bucket_ps;
  for (uint64_t i = first; i <= last && i < buckets.size(); i++) {
    uint64_t lo = std::max(b, i * bucket_ps), hi = std::min(e, (i + 1) * bucket_ps);
    buckets[i] += weight * static_cast<double>(hi - lo) / static_cast<double>(bucket_ps);
  }
}

void kernels_json(json_text &j, const stats *s, const timeline &t) {
  // Instances present in the statistics.
  uint32_t n_sm = 0, n_ch = 0, n_banks = 0;
  while (stats_counter_find(s, ("simt_core[" + std::to_string(n_sm) + "].thread_insn").c_str())) n_sm++;
  while (stats_counter_find(s, ("DRAM[" + std::to_string(n_ch) + "].n_cmd").c_str())) n_ch++;
  while (stats_counter_find(s, ("L2_cache_bank[" + std::to_string(n_banks) + "].access").c_str())) n_banks++;
  std::vector<std::string> mem_stall_names;
  for (uint32_t i = 0; i < stats_counter_count(s); i++) {
    const char *c = stats_counter_name(s, i);
    if (std::strncmp(c, "gpgpu_stall_shd_mem[", 20) == 0) mem_stall_names.push_back(c);
  }
  j.key("kernels").begin_array();
  for (uint32_t k = 0; k < stats_kernel_count(s); k++) {
    kernel_figures f = kernel_figures_of(s, k, &t);
    const kernel_span *ks = t.kernel(f.uid);
    j.begin_object();
    j.key("uid").num(f.uid);
    j.key("name").str(f.name);
    j.key("display").str(f.display);
    j.key("short").str(short_name(f.display, 40, true));
    uint32_t zero[3] = {0, 0, 0};
    j.key("grid");
    u32x3(j, f.has_shape ? f.grid : zero);
    j.key("block");
    u32x3(j, f.has_shape ? f.block : zero);
    j.key("ctas").num(f.n_ctas);
    j.key("begin_ps").num(ks ? ks->begin_ps : 0);
    j.key("end_ps").num(ks ? ks->end_ps : 0);
    j.key("lane").num(ks ? ks->lane : 0u);
    j.key("cycles").num(f.cycles);
    j.key("thread_insn").num(f.thread_insn);
    j.key("warp_insn").num(f.warp_insn);
    j.key("ipc").num(f.ipc);
    j.key("occupancy").num(f.occupancy);
    j.key("l1d_hit").num(f.l1d_hit);
    j.key("l2_hit").num(f.l2_hit);
    j.key("dram_util").num(f.dram_util);
    j.key("issue").num(f.issue_cycles);
    j.key("sched").num(f.sched_cycles);
    j.key("stalls").begin_array();
    for (auto &r : f.stalls) j.begin_array().str(r.first).num(r.second).end_array();
    j.end_array();
    j.key("mem_stalls").begin_array();
    for (const std::string &n : mem_stall_names) {
      std::string label = n.substr(20);
      label.pop_back();  // "c_mem][resource_stall"
      size_t cut = label.find("][");
      if (cut != std::string::npos) label = label.substr(0, cut) + " " + label.substr(cut + 2);
      j.begin_array().str(label).num(kget(s, k, n)).end_array();
    }
    j.end_array();
    j.key("sm_ipc").begin_array();
    for (uint32_t sm = 0; sm < n_sm; sm++)
      j.num(f.cycles ? static_cast<double>(kget(s, k, "simt_core[" + std::to_string(sm) + "].thread_insn")) /
                           static_cast<double>(f.cycles)
                     : -1.0);
    j.end_array();
    j.key("part_dram_util").begin_array();
    for (uint32_t ch = 0; ch < n_ch; ch++) {
      std::string b = "DRAM[" + std::to_string(ch) + "].";
      uint64_t cmd = kget(s, k, b + "n_cmd");
      j.num(cmd ? static_cast<double>(kget(s, k, b + "bwutil")) / static_cast<double>(cmd) : -1.0);
    }
    j.end_array();
    j.key("part_l2_hit").begin_array();
    uint32_t per = n_ch && n_banks % n_ch == 0 ? n_banks / n_ch : 1;
    for (uint32_t ch = 0; n_banks && ch < (n_ch ? n_ch : n_banks); ch++) {
      uint64_t acc = 0, miss = 0;
      for (uint32_t b = ch * per; b < (ch + 1) * per && b < n_banks; b++) {
        acc += kget(s, k, "L2_cache_bank[" + std::to_string(b) + "].access");
        miss += kget(s, k, "L2_cache_bank[" + std::to_string(b) + "].miss");
      }
      j.num(acc ? 1.0 - static_cast<double>(miss) / static_cast<double>(acc) : -1.0);
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

void series_json(json_text &j, const series *ser) {
  j.key("series").begin_object();
  j.key("t").begin_array();
  if (ser)
    for (uint64_t v : ser->times_ps()) j.num(v);
  j.end_array();
  if (ser) {
    std::map<std::string, const series::column *> by;
    for (const series::column &c : ser->columns()) by[c.name] = &c;
    auto arr = [&](const series::column *c) {
      j.begin_array();
      for (uint64_t v : c->values) j.num(v);
      j.end_array();
    };
    for (const char *n : {"insn", "l1d_access", "l1d_miss", "l2_access", "l2_miss"})
      if (by.count(n)) {
        j.key(n);
        arr(by[n]);
      }
    j.key("sm").begin_array();
    for (uint32_t i = 0; by.count("sm[" + std::to_string(i) + "].insn"); i++) arr(by["sm[" + std::to_string(i) + "].insn"]);
    j.end_array();
    j.key("dram_busy").begin_array();
    for (uint32_t i = 0; by.count("dram[" + std::to_string(i) + "].busy"); i++) arr(by["dram[" + std::to_string(i) + "].busy"]);
    j.end_array();
    j.key("dram_cmd").begin_array();
    for (uint32_t i = 0; by.count("dram[" + std::to_string(i) + "].cmd"); i++) arr(by["dram[" + std::to_string(i) + "].cmd"]);
    j.end_array();
  }
  j.end_object();
}

// Achieved occupancy over the busy part of the run (first kernel begin .. last kernel end): the
// warps of resident CTAs on all SMs over all warp slots, in kBusyBuckets buckets.
void occupancy_json(json_text &j, const timeline &t, const html_info &info) {
  constexpr uint32_t kBusyBuckets = 200;
  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (const kernel_span &k : t.kernels()) {
    t0 = std::min(t0, k.begin_ps);
    t1 = std::max(t1, k.end_ps);
  }
  j.key("occupancy").begin_object();
  size_t n_sm = info.sm_model.size();
  if (t1 <= t0 || !n_sm || !info.max_warps_per_sm || t.ctas().empty()) {
    j.key("values").begin_array().end_array().end_object();
    return;
  }
  std::vector<double> warps(kBusyBuckets, 0.0);
  double width = static_cast<double>(t1 - t0) / kBusyBuckets;
  for (auto &sm : t.ctas())
    for (const span &c : sm.second) {
      const kernel_span *k = t.kernel(c.ref);
      if (!k || c.end_ps <= c.begin_ps) continue;
      uint64_t threads = static_cast<uint64_t>(k->block[0]) * k->block[1] * k->block[2];
      double w = static_cast<double>((threads + info.warp_size - 1) / info.warp_size);
      for (uint32_t b = 0; b < kBusyBuckets; b++) {
        double lo = t0 + b * width, hi = lo + width;
        double a = std::max(lo, static_cast<double>(c.begin_ps)), z = std::min(hi, static_cast<double>(c.end_ps));
        if (z > a) warps[b] += w * (z - a) / width;
      }
    }
  j.key("t0").num(t0);
  j.key("t1").num(t1);
  j.key("values").begin_array();
  for (double w : warps) j.num(std::round(w / (static_cast<double>(n_sm) * info.max_warps_per_sm) * 10000) / 10000);
  j.end_array();
  j.end_object();
}

void timeline_json(json_text &j, const timeline &t, size_t n_sm) {
  uint64_t end = std::max<uint64_t>(t.end_ps(), 1);
  uint64_t bucket = (end + kBuckets - 1) / kBuckets;
  j.key("timeline").begin_object();
  j.key("end_ps").num(end);
  j.key("buckets").num(kBuckets);
  j.key("bucket_ps").num(bucket);
  j.key("dropped").num(t.dropped());
  j.key("copies").begin_array();
  size_t n = 0;
  for (const span &c : t.copies()) {
    if (n++ == kMaxCopies) break;
    j.begin_array().num(c.begin_ps).num(c.end_ps).num(c.lane).num(c.ref).str(copy_name(c.a)).end_array();
  }
  j.end_array();
  j.key("cp").begin_array();
  n = 0;
  for (const span &c : t.cp_work()) {
    if (n++ == kMaxCpWork) break;
    j.begin_array().num(c.begin_ps).num(c.end_ps).end_array();
  }
  j.end_array();
  j.key("irqs").begin_array();
  for (const instant &i : t.irqs()) j.begin_array().num(i.at_ps).num(i.a).end_array();
  j.end_array();
  j.key("dram").begin_array();
  for (auto &ch : t.dram()) {
    std::vector<double> b(kBuckets, 0.0);
    for (const span &s : ch.second) spread(b, bucket, s.begin_ps, s.end_ps, 1.0);
    j.begin_array();
    for (double v : b) j.num(std::round(v * 1000) / 1000);
    j.end_array();
  }
  j.end_array();
  double max_ctas = 0;
  j.key("sm_ctas").begin_array();
  for (size_t sm = 0; sm < n_sm; sm++) {
    std::vector<double> b(kBuckets, 0.0);
    auto it = t.ctas().find(static_cast<uint32_t>(sm));
    if (it != t.ctas().end())
      for (const span &s : it->second) spread(b, bucket, s.begin_ps, s.end_ps, 1.0);
    j.begin_array();
    for (double v : b) {
      max_ctas = std::max(max_ctas, v);
      j.num(std::round(v * 100) / 100);
    }
    j.end_array();
  }
  j.end_array();
  j.key("max_ctas").num(max_ctas);
  j.end_object();
}

struct hot_line {
  std::string file, src;
  uint32_t line;
  uint64_t warp, thread, stall;
};

void collect(void *ctx, const stats_code_line *l) {
  auto *v = static_cast<std::vector<hot_line> *>(ctx);
  hot_line h;
  h.file = l->file ? l->file : "?";
  h.line = l->line;
  h.src = l->src_file ? std::string(l->src_file) + ":" + std::to_string(l->src_line) : "";
  h.warp = l->v[STATS_CODE_WARP_INSN];
  h.thread = l->v[STATS_CODE_THREAD_INSN];
  h.stall = l->v[STATS_CODE_STALL_CYCLES];
  v->push_back(h);
}

void hotspots_json(json_text &j, const stats *s) {
  j.key("hotspots");
  if (!stats_code_count(s)) {
    j.null();
    return;
  }
  j.begin_object();
  for (int by_source = 0; by_source < 2; by_source++) {
    std::vector<hot_line> v;
    stats_code_lines(s, UINT32_MAX, by_source, collect, &v);
    std::stable_sort(v.begin(), v.end(), [](const hot_line &a, const hot_line &b) {
      return a.stall != b.stall ? a.stall > b.stall : a.warp > b.warp;
    });
    if (v.size() > kHotLines) v.resize(kHotLines);
    j.key(by_source ? "source" : "ptx").begin_array();
    for (const hot_line &h : v) {
      j.begin_object();
      j.key("file").str(h.file);
      j.key("line").num(h.line);
      j.key("src").str(h.src);
      j.key("warp").num(h.warp);
      j.key("thread").num(h.thread);
      j.key("stall").num(h.stall);
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
}

void config_json(json_text &j, const html_info &info) {
  j.key("config").begin_object();
  j.key("fidelity").begin_object();
  j.key("sm").begin_array();
  for (const std::string &m : info.sm_model) j.str(m);
  j.end_array();
  j.key("dram").begin_array();
  for (const std::string &m : info.dram_model) j.str(m);
  j.end_array();
  j.end_object();
  j.key("params").begin_array();
  for (auto &p : info.params) j.begin_array().str(p.first).str(p.second).end_array();
  j.end_array();
  j.key("options").begin_array();
  for (auto &o : info.options) j.begin_array().str(o[0]).str(o[1]).str(o[2]).end_array();
  j.end_array();
  j.key("not_modelled").begin_array();
  for (auto &o : info.not_modelled) j.str(o);
  j.end_array();
  j.end_object();
}

// "</" never appears inside the <script> element.
std::string script_safe(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      i++;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string html_escape(const std::string &s) {
  std::string o;
  for (char c : s) {
    switch (c) {
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '&': o += "&amp;"; break;
    case '"': o += "&quot;"; break;
    default: o += c;
    }
  }
  return o;
}

}  // namespace

std::string report_data_json(const stats *s, const timeline &t, const series *ser, const html_info &info) {
  json_text j;
  j.begin_object();
  j.key("run").begin_object();
  j.key("title").str(info.title);
  j.key("gpu").str(info.gpu);
  j.key("config").str(info.config);
  j.key("simt_model").str(info.simt_model);
  j.key("version").str(info.version);
  j.key("sim_ps").num(info.sim_ps);
  j.key("wall_s").num(info.wall_s);
  j.key("core_mhz").num(info.core_mhz);
  j.key("dram_peak_gbs").num(info.dram_peak_gbs);
  int found = 0;
  j.key("thread_insn").num(stats_get(s, "gpu_sim_insn", &found));
  j.end_object();
  kernels_json(j, s, t);
  series_json(j, ser);
  timeline_json(j, t, info.sm_model.size());
  occupancy_json(j, t, info);
  hotspots_json(j, s);
  config_json(j, info);
  j.end_object();
  return j.text();
}

bool write_html_report(FILE *out, const stats *s, const timeline &t, const series *ser, const html_info &info) {
  std::string data = script_safe(report_data_json(s, t, ser, info));
  std::string title = html_escape("simtvp report: " + info.title);
  std::fprintf(out,
               "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
               "script-src 'unsafe-inline'; img-src data:\">\n"
               "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body data-errors=\"0\">\n",
               title.c_str(), simtvp_report_css);
  std::fprintf(out,
               "<header><h1>%s</h1><div class=\"sub\">%s &middot; %s &middot; %s SIMT side &middot; %s</div></header>\n",
               title.c_str(), html_escape(info.gpu).c_str(), html_escape(info.config).c_str(),
               html_escape(info.simt_model).c_str(), html_escape(info.version).c_str());
  std::fputs("<nav><a href=\"#s-run\">run</a><a href=\"#s-kernels\">kernels</a><a href=\"#s-time\">over time</a>"
             "<a href=\"#s-stalls\">stalls</a><a href=\"#s-heat\">heat maps</a><a href=\"#s-hot\">hot spots</a>"
             "<a href=\"#s-config\">configuration</a></nav>\n<main>\n",
             out);
  std::fputs("<section id=\"s-run\"><h2>Run</h2><div id=\"facts\" class=\"facts\"></div></section>\n"
             "<section id=\"s-kernels\"><h2>Kernels</h2><div id=\"kernel-table\" class=\"scroll\"></div>\n"
             "<h3>Timeline</h3><p class=\"note\">Kernels, copy-engine operations, command-processor work, "
             "interrupts, DRAM channels (busy share) and SMs (resident CTAs) over simulated time. The full "
             "timeline, CTA by CTA, is in the trace (<code>simtvp --trace FILE.json</code>, opens in Perfetto).</p>"
             "<div id=\"timeline\" class=\"chart scroll\"></div></section>\n"
             "<section id=\"s-time\"><h2>Over time</h2><div class=\"charts\">"
             "<div class=\"chart\"><h3>IPC</h3><div id=\"chart-ipc\"></div></div>"
             "<div class=\"chart\"><h3>Warp occupancy</h3><div id=\"chart-occ\"></div></div>"
             "<div class=\"chart\"><h3>DRAM bandwidth</h3><div id=\"chart-dram\"></div></div>"
             "<div class=\"chart\"><h3>Cache hit rates</h3><div id=\"chart-cache\"></div></div>"
             "</div></section>\n"
             "<section id=\"s-stalls\"><h2>Stall breakdown per kernel</h2><p class=\"note\">Every scheduler cycle "
             "either issued or was kept from issuing for one reason (GPGPU-Sim's scheduler stall "
             "classification, docs/simt.md).</p><div id=\"stalls\" class=\"chart scroll\"></div></section>\n"
             "<section id=\"s-heat\"><h2>Heat maps</h2><div class=\"charts\">"
             "<div class=\"chart\"><h3>IPC per SM over time</h3><div id=\"heat-sm-time\"></div></div>"
             "<div class=\"chart\"><h3>DRAM utilisation per channel over time</h3><div id=\"heat-dram-time\"></div></div>"
             "<div class=\"chart\"><h3>IPC per SM per kernel</h3><div id=\"heat-sm-kernel\"></div></div>"
             "<div class=\"chart\"><h3>DRAM utilisation per partition per kernel</h3><div id=\"heat-part-kernel\"></div></div>"
             "<div class=\"chart\"><h3>L2 hit rate per partition per kernel</h3><div id=\"heat-l2-kernel\"></div></div>"
             "</div></section>\n"
             "<section id=\"s-hot\"><h2>Hot spots</h2><div id=\"hotspots\"></div></section>\n"
             "<section id=\"s-config\"><h2>Configuration</h2><div id=\"config\"></div></section>\n"
             "</main>\n",
             out);
  std::fprintf(out, "<script id=\"simtvp-data\" type=\"application/json\">%s</script>\n<script>\n%s</script>\n",
               data.c_str(), simtvp_report_js);
  std::fputs("</body>\n</html>\n", out);
  return !std::ferror(out);
}

}  // namespace simtvp::report
