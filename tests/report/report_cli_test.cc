// The `simtvp` command end to end on the bundled sample (naive and tiled SGEMM, cycle-accurate):
// the default per-kernel blocks and table, --stats full and OUTDIR/stats.txt (GPGPU-Sim's text),
// progress off a terminal (which changes no statistic), the timeline trace of a real run checked
// against the trace-event format, the same timeline as a VCD file, and report.html loaded in headless Chromium (skipped with a
// message when Chromium is not installed).
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "json_reader.h"
#include "trace_check.h"

using namespace cli;

namespace {


std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

TEST(SimtvpOutput, DefaultIsAShortBlockPerKernelAndATable) {
  std::string dir = build_dir("default-output");
  result r = run("", dir);
  ASSERT_EQ(r.code(), 0) << r.err;
  EXPECT_TRUE(has(r.out, "PASS")) << r.out;
  // Block: name, then shape and timing, occupancy and stalls, caches and DRAM.
  std::regex head("simtvp: kernel 1: sgemm_naive\\(int, int, int, float, float const\\*, float const\\*, float, float\\*\\)\n"
                  "  grid \\(3,4,1\\)  block \\(16,16,1\\)  12 CTAs  \\|  [0-9]+ cycles \\([0-9.]+ us\\)  IPC [0-9]+\\.[0-9]{2}  warp insns [0-9]+\n"
                  "  occupancy [0-9.]+%  \\|  issue [0-9.]+%, stalls: [a-z ]+ [0-9.]+%(, [a-z ]+ [0-9.]+%)*\n"
                  "  L1D hit [0-9.]+%  L2 hit [0-9.]+%  DRAM bandwidth [0-9.]+% of peak\n");
  EXPECT_TRUE(std::regex_search(r.err, head)) << r.err;
  EXPECT_TRUE(has(r.err, "simtvp: kernel 2: sgemm_tiled(")) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("simtvp: 2 kernels\n +# kernel +grid +block +cycles +IPC +occupancy "
                                                  "+L1D hit +L2 hit +DRAM bw +top stall\n +1 sgemm_naive .*\n +2 sgemm_tiled "
                                                  ".*\n +total +[0-9]+ +[0-9.]+\nsimtvp: run summary: ")))
      << r.err;
  EXPECT_FALSE(has(r.err, "gpu_sim_cycle =")) << r.err;
  EXPECT_FALSE(has(r.err, "nan")) << r.err;
  EXPECT_FALSE(has(r.out, "simtvp:")) << r.out;  // nothing of simtvp's on the program's stdout
}

TEST(SimtvpOutput, FullStatisticsAreGpgpuSimTextAndOutdirHasThemAsStatsTxt) {
  std::string dir = build_dir("full-output"), o1 = dir + "/full", o2 = dir + "/summary";
  result full = run("--stats full -o '" + o1 + "'", dir);
  ASSERT_EQ(full.code(), 0) << full.err;
  std::string dump;
  for (const std::string &l : lines(full.err))
    if (l.find(" = ") != std::string::npos && l.rfind("simtvp:", 0) != 0) dump += l + "\n";
  EXPECT_TRUE(has(dump, "kernel_name = _Z11sgemm_naiveiiifPKfS0_fPf\nkernel_launch_uid = 1\ngpu_sim_cycle = ")) << dump.substr(0, 300);
  EXPECT_TRUE(has(dump, "\ngpu_tot_sim_cycle = ")) << dump.substr(0, 300);
  EXPECT_TRUE(has(dump, "\nL1D_total_cache_miss_rate = ")) << dump.substr(0, 300);
  EXPECT_FALSE(has(dump, "nan"));
  EXPECT_FALSE(has(full.err, "simtvp: kernel 1:")) << "no summary block with --stats full";
  EXPECT_EQ(slurp(o1 + "/stats.txt"), dump);  // the same text, byte for byte
  result summary = run("-q -o '" + o2 + "'", dir);
  ASSERT_EQ(summary.code(), 0) << summary.err;
  EXPECT_EQ(slurp(o2 + "/stats.txt"), dump);  // written whatever stderr shows
  EXPECT_EQ(summary.err, "");
  for (const char *f : {"/stats.json", "/report.html", "/simtvp.config"})
    EXPECT_EQ(access((o2 + f).c_str(), R_OK), 0) << f;
}

// Progress lines come from the wall clock, which must not reach any statistic: with a period that
// makes every poll print, the statistics equal those of a quiet run byte for byte.
TEST(SimtvpProgress, OffATerminalLinesComeOnStderrAndChangeNoStatistic) {
  std::string dir = build_dir("progress");
  result on = run("-o '" + dir + "/on' --set '-liveness_message_freq 0.000000001'", dir);
  ASSERT_EQ(on.code(), 0) << on.err;
  std::regex line("simtvp: cycles simulated: [0-9]+  inst\\.: [0-9]+ \\(ipc= *[0-9.]+\\) sim_rate=[0-9]+ \\(inst/sec\\) "
                  "elapsed = [0-9]+:[0-9]+:[0-9]{2}:[0-9]{2} / (kernel [12] sgemm_(naive|tiled), CTAs [0-9]+/12|"
                  "between kernels \\([0-9]+ so far\\))");
  size_t progress = 0;
  for (const std::string &l : lines(on.err))
    if (l.find("cycles simulated") != std::string::npos) {
      EXPECT_TRUE(std::regex_match(l, line)) << l;
      progress++;
    }
  EXPECT_GE(progress, 2u) << on.err;
  EXPECT_FALSE(has(on.out, "cycles simulated"));
  EXPECT_FALSE(has(on.err, "\r"));  // not a terminal: no redrawn line
  result quiet = run("-q -o '" + dir + "/quiet'", dir);
  ASSERT_EQ(quiet.code(), 0);
  EXPECT_FALSE(has(quiet.err, "cycles simulated"));
  EXPECT_EQ(slurp(dir + "/on/stats.json"), slurp(dir + "/quiet/stats.json"));
  result none = run("--set '-liveness_message_freq 0'", dir);
  EXPECT_FALSE(has(none.err, "cycles simulated"));
}

TEST(SimtvpTrace, RealRunIsValidTraceEventJsonWithEveryTrack) {
  std::string dir = build_dir("trace");
  result r = run("-q --trace '" + dir + "/t.json'", dir);
  ASSERT_EQ(r.code(), 0) << r.err;
  json_reader::Value doc = json_reader::parse(slurp(dir + "/t.json"));
  ASSERT_EQ(trace_check::check(doc), "");
  std::map<std::string, int> cat;
  std::set<std::string> names, processes;
  const json_reader::Value &ev = doc["traceEvents"];
  for (size_t i = 0; i < ev.size(); i++) {
    const json_reader::Value &e = ev[i];
    if (e.has("cat")) {
      cat[e["cat"].text]++;
      names.insert(e["name"].text);
    }
    if (e["ph"].text == "M" && e["name"].text == "process_name") processes.insert(e["args"]["name"].text);
    if (e["ph"].text == "C" && e["name"].text == "irq") cat["irq"]++;
  }
  EXPECT_EQ(cat["kernel"], 2);
  EXPECT_EQ(cat["cta"], 24);  // 12 CTAs per kernel
  EXPECT_GE(cat["copy"], 3);  // A and B in, C out
  EXPECT_GE(cat["packet"], 5);
  EXPECT_GE(cat["cp"], 5);
  EXPECT_GE(cat["dram"], 1);
  EXPECT_GE(cat["irq"], 3);   // the initial level and at least one edge pair
  for (const char *n : {"sgemm_naive", "sgemm_tiled", "LAUNCH", "COPY", "copy H2D", "copy D2H", "busy"})
    EXPECT_TRUE(names.count(n)) << n;
  for (const char *p : {"GPU", "Copy engine", "Command processor", "Interrupt", "DRAM", "Counters", "SM 0", "SM 7"})
    EXPECT_TRUE(processes.count(p)) << p;
  EXPECT_EQ(doc["otherData"]["time"].text, "simulated");
}

// A VCD file checked the way a waveform viewer reads it: declarations, then strictly increasing
// times with changes of declared identifiers only ("" when it is well-formed). Fills `changes`
// (identifier -> values in order) and `names` (identifier -> scope.name).
std::string check_vcd(const std::string &text, std::map<std::string, std::vector<std::string>> *changes,
                      std::map<std::string, std::string> *names) {
  std::istringstream in(text);
  std::vector<std::string> scope;
  std::string w;
  bool defs_done = false, in_dumpvars = false;
  long long last_time = -1;
  while (in >> w) {
    if (!defs_done) {
      if (w == "$scope") {
        std::string kind, name;
        in >> kind >> name >> w;
        scope.push_back(name);
      } else if (w == "$upscope") {
        if (scope.empty()) return "$upscope without $scope";
        scope.pop_back();
        in >> w;
      } else if (w == "$var") {
        std::string type, width, id, name;
        in >> type >> width >> id >> name >> w;
        if (w != "$end") return "$var " + name + " does not end with $end";
        std::string full;
        for (const std::string &s : scope) full += s + ".";
        (*names)[id] = full + name;
      } else if (w == "$enddefinitions") {
        in >> w;
        if (!scope.empty()) return "a $scope is not closed";
        defs_done = true;
      } else if (w[0] == '$') {
        while (in >> w && w != "$end") {}
      }
      continue;
    }
    if (w[0] == '#') {
      long long t = std::stoll(w.substr(1));
      if (t <= last_time) return "time " + w + " does not increase";
      last_time = t;
    } else if (w == "$dumpvars") {
      in_dumpvars = true;
    } else if (w == "$end") {
      if (!in_dumpvars) return "$end outside $dumpvars";
      in_dumpvars = false;
    } else if (w[0] == 'b') {
      std::string id;
      in >> id;
      if (!names->count(id)) return "undeclared identifier " + id;
      (*changes)[id].push_back(w.substr(1));
    } else if (w[0] == '0' || w[0] == '1') {
      std::string id = w.substr(1);
      if (!names->count(id)) return "undeclared identifier " + id;
      (*changes)[id].push_back(w.substr(0, 1));
    } else {
      return "unexpected '" + w + "'";
    }
  }
  if (!defs_done) return "no $enddefinitions";
  return "";
}

// --vcd writes the run's timeline as waveforms: the interrupt line goes up and down, two kernels
// run one after the other, every SM holds CTAs, the copy engine and DRAM channels are busy; the
// statistics are those of a run without it.
TEST(SimtvpVcd, RealRunIsAWellFormedDumpWithEverySignal) {
  std::string dir = build_dir("vcd");
  result r = run("-q -o '" + dir + "/with' --vcd '" + dir + "/run.vcd'", dir);
  ASSERT_EQ(r.code(), 0) << r.err;
  std::map<std::string, std::vector<std::string>> changes;
  std::map<std::string, std::string> names;
  std::string text = slurp(dir + "/run.vcd");
  ASSERT_EQ(check_vcd(text, &changes, &names), "") << text.substr(0, 2000);
  EXPECT_TRUE(has(text, "$timescale 1ps $end\n")) << text.substr(0, 2000);
  std::map<std::string, std::vector<std::string>> by_name;
  for (const auto &n : names) by_name[n.second] = changes[n.first];
  for (const char *n : {"gpu.irq", "gpu.kernels", "gpu.kernel0", "gpu.sm.sm0_ctas", "gpu.sm.sm7_ctas",
                        "gpu.copy_engine.ce0_busy", "gpu.command_processor.busy", "gpu.command_processor.packets",
                        "gpu.dram.ch0_busy"})
    EXPECT_TRUE(by_name.count(n)) << n;
  // kernels: 0 at #0, then 1, 0 for each of the two launches; kernel0 shows launch numbers 1 and 2
  EXPECT_EQ(by_name["gpu.kernels"], (std::vector<std::string>{"0", "1", "0", "1", "0"}));
  EXPECT_EQ(by_name["gpu.kernel0"], (std::vector<std::string>{"0", "1", "0", "10", "0"}));
  EXPECT_GE(by_name["gpu.irq"].size(), 3u);
  EXPECT_EQ(by_name["gpu.irq"][0], "0");
  EXPECT_GE(by_name["gpu.copy_engine.ce0_busy"].size(), 3u);
  EXPECT_GE(by_name["gpu.sm.sm0_ctas"].size(), 3u);
  result plain = run("-q -o '" + dir + "/without'", dir);
  ASSERT_EQ(plain.code(), 0) << plain.err;
  std::string a = slurp(dir + "/with/stats.txt"), b = slurp(dir + "/without/stats.txt");
  EXPECT_TRUE(has(a, "gpu_sim_cycle = ")) << a.substr(0, 500);
  EXPECT_EQ(a, b);
}

TEST(SimtvpVcd, ItsMistakesAreReported) {
  std::string dir = build_dir("vcd-bad");
  result r = run("--vcd", dir);
  EXPECT_EQ(r.code(), 2);
  EXPECT_TRUE(has(r.err, "--vcd needs a file name, e.g. --vcd run.vcd")) << r.err;
  r = run("--vcd=", dir);
  EXPECT_EQ(r.code(), 2);
  EXPECT_TRUE(has(r.err, "--vcd needs a file name")) << r.err;
  // a file that cannot be written is reported (the program's own exit status stays, as for --trace)
  r = run("-q --vcd /proc/simtvp-cannot-write.vcd", dir);
  EXPECT_TRUE(has(r.err, "--vcd /proc/simtvp-cannot-write.vcd: cannot write the waveforms: ")) << r.err;
}

std::string chromium() {
  for (const char *c : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (access(c, X_OK) == 0) return c;
  return "";
}

// The tag that holds id="name" (from '<' to '>').
std::string tag_of(const std::string &dom, const std::string &id) {
  size_t at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  size_t b = dom.rfind('<', at), e = dom.find('>', at);
  return dom.substr(b, e - b + 1);
}

TEST(SimtvpReport, LoadsInHeadlessChromiumWithEveryChartAndNoScriptError) {
  std::string browser = chromium();
  if (browser.empty())
    GTEST_SKIP() << "headless Chromium is not installed (Debian: apt-get install chromium), so report.html is not "
                    "checked in a browser; .ci/setup installs it for CI";
  std::string dir = build_dir("report");
  result r = run("-q -o '" + dir + "/out' --set '-enable_ptx_file_line_stats 1'", dir);
  ASSERT_EQ(r.code(), 0) << r.err;
  // Flags that work on a closed network (no background connections) as root; a fresh profile.
  std::string flags = " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                      "--disable-background-networking --disable-component-update --disable-sync "
                      "--disable-extensions --enable-logging=stderr --v=0 --user-data-dir='" + dir + "/profile'";
  std::string page = "file://" + dir + "/out/report.html";
  std::string cmd = "timeout 120 '" + browser + "'" + flags + " --dump-dom '" + page + "' >'" + dir + "/dom.html' 2>'" +
                    dir + "/chromium.log'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir + "/chromium.log");
  cmd = "timeout 120 '" + browser + "'" + flags + " --window-size=1400,3000 --screenshot='" + dir + "/report.png' '" +
        page + "' >/dev/null 2>>'" + dir + "/chromium.log'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir + "/chromium.log");
  std::string dom = slurp(dir + "/dom.html"), log = slurp(dir + "/chromium.log");
  EXPECT_TRUE(has(dom, "data-ready=\"1\"")) << dom.substr(0, 500);
  EXPECT_TRUE(has(dom, "data-errors=\"0\"")) << "script errors in the page";
  for (const char *id : {"facts", "kernel-table", "timeline", "chart-ipc", "chart-occ", "chart-dram", "chart-cache",
                         "stalls", "heat-sm-time", "heat-dram-time", "heat-sm-kernel", "heat-part-kernel",
                         "heat-l2-kernel", "hotspots", "config"})
    EXPECT_TRUE(has(tag_of(dom, id), "data-rendered=\"1\"")) << id << ": " << tag_of(dom, id);
  EXPECT_GE(count(dom, "<svg"), 12u);
  EXPECT_GE(count(dom, "<rect"), 200u);  // bars, heat-map cells, timeline slices
  EXPECT_TRUE(has(dom, "PTX lines, by stall cycles"));
  EXPECT_TRUE(has(dom, "sgemm_tiled"));
  EXPECT_FALSE(has(log, "CONSOLE")) << log;  // the page logs nothing when all is well
  EXPECT_FALSE(has(log, "Uncaught")) << log;
  std::string png = slurp(dir + "/report.png");
  ASSERT_GT(png.size(), 20000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}


}  // namespace
