// The `simtvp` command end to end on the bundled sample (naive and tiled SGEMM, cycle-accurate):
// the default per-kernel blocks and table, --stats full and OUTDIR/stats.txt (GPGPU-Sim's text),
// progress off a terminal (which changes no statistic), the timeline trace of a real run checked
// against the trace-event format, and report.html loaded in headless Chromium (skipped with a
// message when Chromium is not installed).
#include <gtest/gtest.h>

#include <unistd.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

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
