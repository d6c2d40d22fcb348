// Tests of models/stats: counters, ratios, histograms, per-kernel deltas, time series, text in
// GPGPU-Sim's form and the JSON file (parsed back with a strict reader).
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "json_reader.h"
#include "stats.h"
#include "stats_json.h"

namespace {

struct Sink {
  stats *s = stats_create();
  ~Sink() { stats_destroy(s); }
};

std::string capture(void (*print)(const stats *, FILE *), const stats *s) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  print(s, f);
  fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}

std::string json_of(const stats *s) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(stats_write_json_stream(s, f, &d), SIMTVP_OK) << d.message;
  fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}

// Value of `name = value` in text output (the last occurrence, as GPGPU-Sim scripts read it).
std::string text_value(const std::string &text, const std::string &name) {
  std::istringstream in(text);
  std::string line, value = "<absent>";
  while (std::getline(in, line)) {
    if (line.compare(0, name.size() + 3, name + " = ") == 0) {
      value = line.substr(name.size() + 3);
      size_t b = value.find_first_not_of(' ');
      value = b == std::string::npos ? "" : value.substr(b);
    }
  }
  return value;
}

}  // namespace

TEST(Stats, CounterIsBumpedThroughItsPointer) {
  Sink k;
  uint64_t *c = stats_counter(k.s, "gpu_sim_insn", "insn", "instructions");
  ASSERT_NE(c, nullptr);
  ++*c;
  *c += 41;
  int found = 0;
  EXPECT_EQ(stats_get(k.s, "gpu_sim_insn", &found), 42u);
  EXPECT_EQ(found, 1);
}

TEST(Stats, RegisteringAnExistingNameReturnsTheSameCounter) {
  Sink k;
  uint64_t *a = stats_counter(k.s, "L1D.access", "requests", "from core 0");
  uint64_t *b = stats_counter(k.s, "L1D.access", "requests", "from core 1");
  EXPECT_EQ(a, b);
  *a += 2;
  *b += 3;
  EXPECT_EQ(stats_get(k.s, "L1D.access", nullptr), 5u);
}

TEST(Stats, CounterPointersStayValidAcrossManyRegistrations) {
  Sink k;
  uint64_t *first = stats_counter(k.s, "first", "events", "");
  *first = 7;
  for (int i = 0; i < 5000; i++) {
    char name[32];
    snprintf(name, sizeof name, "L1D[%d].access", i);
    *stats_counter(k.s, name, "requests", "") += (uint64_t)i;
  }
  *first += 1;
  EXPECT_EQ(stats_get(k.s, "first", nullptr), 8u);
  EXPECT_EQ(stats_get(k.s, "L1D[4999].access", nullptr), 4999u);
}

TEST(Stats, AbsentCounterReadsZeroAndNotFound) {
  Sink k;
  int found = 1;
  EXPECT_EQ(stats_get(k.s, "nope", &found), 0u);
  EXPECT_EQ(found, 0);
}

TEST(Stats, RatioIsEvaluatedWhenReadEvenIfRegisteredBeforeItsCounters) {
  Sink k;
  stats_ratio(k.s, "gpu_ipc", "instructions per cycle", "gpu_sim_insn", "gpu_sim_cycle");
  uint64_t *insn = stats_counter(k.s, "gpu_sim_insn", "insn", "");
  uint64_t *cyc = stats_counter(k.s, "gpu_sim_cycle", "cycles", "");
  *insn = 300;
  *cyc = 200;
  int found = 0;
  EXPECT_DOUBLE_EQ(stats_get_ratio(k.s, "gpu_ipc", &found), 1.5);
  EXPECT_EQ(found, 1);
  *cyc = 100;  // evaluated at read time, not at registration
  EXPECT_DOUBLE_EQ(stats_get_ratio(k.s, "gpu_ipc", nullptr), 3.0);
}

TEST(Stats, RatioWithZeroDenominatorIsNan) {
  Sink k;
  stats_counter(k.s, "a", "x", "");
  stats_counter(k.s, "b", "x", "");
  stats_ratio(k.s, "a_per_b", "", "a", "b");
  EXPECT_TRUE(std::isnan(stats_get_ratio(k.s, "a_per_b", nullptr)));
}

// The text never says nan: a ratio over zero and the mean of an empty histogram print 0.
TEST(Stats, TextPrintsZeroNotNanForUndefinedRatiosAndEmptyHistograms) {
  Sink k;
  stats_counter(k.s, "gpu_sim_insn", "x", "");
  stats_counter(k.s, "gpu_sim_cycle", "x", "");
  stats_ratio(k.s, "gpu_ipc", "", "gpu_sim_insn", "gpu_sim_cycle");
  stats_counter(k.s, "L1D_total_cache_misses", "x", "");
  stats_counter(k.s, "L1D_total_cache_accesses", "x", "");
  stats_ratio(k.s, "L1D_total_cache_miss_rate", "", "L1D_total_cache_misses", "L1D_total_cache_accesses");
  stats_histogram_register(k.s, "lat", "cycles", "", 10, 2);
  stats_kernel_begin(k.s, "k", 1);
  stats_kernel_end(k.s);
  std::string text = capture(stats_print_kernel, k.s) + capture(stats_print_totals, k.s);
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu_ipc =       0.0000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("L1D_total_cache_miss_rate =       0.0000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_avg =       0.0000\n"), std::string::npos) << text;
  EXPECT_NE(json_of(k.s).find("\"gpu_ipc\": null"), std::string::npos);
}

TEST(Stats, CountersCanBeFoundAndListedWithoutRegisteringAnything) {
  Sink k;
  uint64_t *a = stats_counter(k.s, "a", "x", "the a");
  stats_counter(k.s, "b[0].n", "x", "");
  stats_sum(k.s, "b_total", "x", "all b", "b[*].n");
  EXPECT_EQ(stats_counter_find(k.s, "a"), a);
  EXPECT_EQ(stats_counter_find(k.s, "b_total"), nullptr);  // a sum, not a counter
  EXPECT_EQ(stats_counter_find(k.s, "nope"), nullptr);
  EXPECT_EQ(stats_counter_count(k.s), 2u);  // find registered nothing
  EXPECT_STREQ(stats_counter_name(k.s, 1), "b[0].n");
  EXPECT_EQ(stats_counter_value(k.s, 0), a);
  EXPECT_EQ(stats_counter_value(k.s, 2), nullptr);
  EXPECT_STREQ(stats_item_description(k.s, "a"), "the a");
  EXPECT_STREQ(stats_item_description(k.s, "b_total"), "all b");
  EXPECT_EQ(stats_item_description(k.s, "nope"), nullptr);
}

TEST(Stats, HistogramTracksCountSumMinMaxAndBuckets) {
  Sink k;
  stats_histogram *h = stats_histogram_register(k.s, "mem_latency", "cycles", "", 10, 4);
  for (uint64_t v : {3u, 15u, 15u, 39u, 40u, 1000u}) stats_histogram_add(h, v);
  stats_histogram_view v;
  stats_histogram_read(h, &v);
  EXPECT_EQ(v.count, 6u);
  EXPECT_EQ(v.sum, 3u + 15 + 15 + 39 + 40 + 1000);
  EXPECT_EQ(v.min, 3u);
  EXPECT_EQ(v.max, 1000u);
  ASSERT_EQ(v.n_buckets, 4u);
  // Buckets [0,10) [10,20) [20,30) [30,40) and overflow [40,inf).
  EXPECT_EQ(v.buckets[0], 1u);
  EXPECT_EQ(v.buckets[1], 2u);
  EXPECT_EQ(v.buckets[2], 0u);
  EXPECT_EQ(v.buckets[3], 1u);
  EXPECT_EQ(v.buckets[4], 2u);
  EXPECT_EQ(stats_histogram_find(k.s, "mem_latency"), h);
  EXPECT_EQ(stats_histogram_register(k.s, "mem_latency", "cycles", "", 10, 4), h);
}

TEST(Stats, EmptyHistogramReportsZeroMin) {
  Sink k;
  stats_histogram *h = stats_histogram_register(k.s, "h", "cycles", "", 1, 2);
  stats_histogram_view v;
  stats_histogram_read(h, &v);
  EXPECT_EQ(v.count, 0u);
  EXPECT_EQ(v.min, 0u);
}

TEST(Stats, KernelEndRecordsDeltasSinceItsBegin) {
  Sink k;
  uint64_t *insn = stats_counter(k.s, "gpu_sim_insn", "insn", "");
  uint64_t *cyc = stats_counter(k.s, "gpu_sim_cycle", "cycles", "");
  stats_ratio(k.s, "gpu_ipc", "", "gpu_sim_insn", "gpu_sim_cycle");
  stats_kernel_begin(k.s, "first", 1);
  *insn += 100;
  *cyc += 50;
  stats_kernel_end(k.s);
  stats_kernel_begin(k.s, "second", 2);
  *insn += 30;
  *cyc += 30;
  uint64_t *late = stats_counter(k.s, "registered_mid_kernel", "events", "");
  *late += 4;
  stats_kernel_end(k.s);

  ASSERT_EQ(stats_kernel_count(k.s), 2u);
  EXPECT_STREQ(stats_kernel_name(k.s, 0), "first");
  EXPECT_EQ(stats_kernel_uid(k.s, 1), 2u);
  EXPECT_EQ(stats_kernel_get(k.s, 0, "gpu_sim_insn", nullptr), 100u);
  EXPECT_EQ(stats_kernel_get(k.s, 1, "gpu_sim_insn", nullptr), 30u);
  EXPECT_EQ(stats_kernel_get(k.s, 1, "registered_mid_kernel", nullptr), 4u);
  EXPECT_EQ(stats_kernel_get(k.s, 0, "registered_mid_kernel", nullptr), 0u);
  EXPECT_DOUBLE_EQ(stats_kernel_get_ratio(k.s, 0, "gpu_ipc", nullptr), 2.0);
  EXPECT_DOUBLE_EQ(stats_kernel_get_ratio(k.s, 1, "gpu_ipc", nullptr), 1.0);
  EXPECT_EQ(stats_get(k.s, "gpu_sim_insn", nullptr), 130u);  // totals are the counters
}

TEST(Stats, ConcurrentKernelsEndByUidInAnyOrder) {
  Sink k;
  uint64_t *c = stats_counter(k.s, "events", "events", "");
  stats_kernel_begin(k.s, "a", 10);
  *c += 1;
  stats_kernel_begin(k.s, "b", 11);
  *c += 2;
  stats_kernel_end_uid(k.s, 10);  // a saw 1 + 2
  *c += 4;
  stats_kernel_end_uid(k.s, 11);  // b saw 2 + 4
  ASSERT_EQ(stats_kernel_count(k.s), 2u);
  EXPECT_STREQ(stats_kernel_name(k.s, 0), "a");
  EXPECT_EQ(stats_kernel_get(k.s, 0, "events", nullptr), 3u);
  EXPECT_EQ(stats_kernel_get(k.s, 1, "events", nullptr), 6u);
  stats_kernel_end_uid(k.s, 99);  // unknown: nothing happens
  EXPECT_EQ(stats_kernel_count(k.s), 2u);
}

TEST(Stats, TextShowsLastKernelThenGpuTotTotalsLikeGpgpuSim) {
  Sink k;
  uint64_t *insn = stats_counter(k.s, "gpu_sim_insn", "insn", "");
  uint64_t *cyc = stats_counter(k.s, "gpu_sim_cycle", "cycles", "");
  stats_ratio(k.s, "gpu_ipc", "", "gpu_sim_insn", "gpu_sim_cycle");
  uint64_t *loads = stats_counter(k.s, "gpgpu_n_load_insn", "insn", "");
  uint64_t *dram = stats_counter(k.s, "gpu_stall_dramfull", "cycles", "");
  stats_mark_cumulative(k.s, "gpu_stall_dramfull");
  stats_kernel_begin(k.s, "k1", 1);
  *insn += 100, *cyc += 50, *loads += 7, *dram += 1;
  stats_kernel_end(k.s);
  stats_kernel_begin(k.s, "_Z6vecAddPfS_S_i", 2);
  *insn += 30, *cyc += 10, *loads += 3, *dram += 1;
  stats_kernel_end(k.s);

  std::string kern = capture(stats_print_kernel, k.s);
  EXPECT_EQ(text_value(kern, "kernel_name"), "_Z6vecAddPfS_S_i");
  EXPECT_EQ(text_value(kern, "kernel_launch_uid"), "2");
  EXPECT_EQ(text_value(kern, "gpu_sim_insn"), "30");
  EXPECT_EQ(text_value(kern, "gpu_sim_cycle"), "10");
  EXPECT_EQ(text_value(kern, "gpu_ipc"), "3.0000");
  // Non-gpu_ names (and those marked cumulative) are printed cumulatively with the totals, as
  // GPGPU-Sim does; scripts diff them between kernels.
  EXPECT_EQ(text_value(kern, "gpgpu_n_load_insn"), "<absent>");

  std::string tot = capture(stats_print_totals, k.s);
  EXPECT_EQ(text_value(tot, "gpu_tot_sim_insn"), "130");
  EXPECT_EQ(text_value(tot, "gpu_tot_sim_cycle"), "60");
  EXPECT_EQ(text_value(tot, "gpu_tot_ipc"), "2.1667");
  EXPECT_EQ(text_value(tot, "gpgpu_n_load_insn"), "10");
  EXPECT_EQ(text_value(tot, "gpu_stall_dramfull"), "2");
  EXPECT_EQ(text_value(tot, "gpu_sim_insn"), "<absent>");
  // Registration order is output order.
  EXPECT_LT(tot.find("gpu_tot_sim_insn"), tot.find("gpu_tot_sim_cycle"));
  EXPECT_LT(tot.find("gpu_tot_sim_cycle"), tot.find("gpu_tot_ipc"));
  EXPECT_LT(tot.find("gpu_tot_ipc"), tot.find("gpgpu_n_load_insn"));
}

TEST(Stats, TextIsEmptyBeforeAnyKernelEnds) {
  Sink k;
  stats_counter(k.s, "gpu_sim_cycle", "cycles", "");
  EXPECT_EQ(capture(stats_print_kernel, k.s), "");
}

TEST(Stats, HistogramTextHasSummaryAndBuckets) {
  Sink k;
  stats_histogram *h = stats_histogram_register(k.s, "lat", "cycles", "", 100, 2);
  stats_histogram_add(h, 50);
  stats_histogram_add(h, 250);
  std::string tot = capture(stats_print_totals, k.s);
  EXPECT_EQ(text_value(tot, "lat_count"), "2");
  EXPECT_EQ(text_value(tot, "lat_sum"), "300");
  EXPECT_EQ(text_value(tot, "lat_min"), "50");
  EXPECT_EQ(text_value(tot, "lat_max"), "250");
  EXPECT_EQ(text_value(tot, "lat_avg"), "150.0000");
  EXPECT_EQ(text_value(tot, "lat"), "0:1 100:0 200+:1");
}

TEST(Stats, KernelHistogramHoldsOnlyThatKernelsValues) {
  Sink k;
  stats_histogram *h = stats_histogram_register(k.s, "gpu_lat", "cycles", "", 10, 2);
  stats_histogram_add(h, 5);
  stats_kernel_begin(k.s, "k", 1);
  stats_histogram_add(h, 12);
  stats_histogram_add(h, 14);
  stats_kernel_end(k.s);
  std::string kern = capture(stats_print_kernel, k.s);
  EXPECT_EQ(text_value(kern, "gpu_lat_count"), "2");
  EXPECT_EQ(text_value(kern, "gpu_lat_min"), "12");
  EXPECT_EQ(text_value(kern, "gpu_lat_max"), "14");
  EXPECT_EQ(text_value(kern, "gpu_lat"), "0:0 10:2 20+:0");
}

TEST(Stats, TimeSeriesSamplesCountersAtEachCall) {
  Sink k;
  uint64_t *c = stats_counter(k.s, "gpu_sim_insn", "insn", "");
  stats_sample(k.s, 0);
  *c = 10;
  stats_sample(k.s, 1000);
  uint64_t *late = stats_counter(k.s, "late", "x", "");
  *late = 5;
  *c = 25;
  stats_sample(k.s, 2000);
  EXPECT_EQ(stats_sample_count(k.s), 3u);
  json_reader::Value doc = json_reader::parse(json_of(k.s));
  const auto &ts = doc["time_series"];
  ASSERT_EQ(ts["time_ps"].size(), 3u);
  EXPECT_EQ(ts["time_ps"][2].u64(), 2000u);
  const auto &insn = ts["counters"]["gpu_sim_insn"];
  EXPECT_EQ(insn[0].u64(), 0u);
  EXPECT_EQ(insn[1].u64(), 10u);
  EXPECT_EQ(insn[2].u64(), 25u);
  const auto &l = ts["counters"]["late"];  // did not exist before: zeros
  EXPECT_EQ(l[0].u64(), 0u);
  EXPECT_EQ(l[2].u64(), 5u);
}

TEST(Stats, TimeSeriesCanBeLimitedToPrefixes) {
  Sink k;
  stats_counter(k.s, "gpu_sim_insn", "insn", "");
  stats_counter(k.s, "L1D[0].access", "requests", "");
  stats_series_include(k.s, "gpu_");
  stats_sample(k.s, 10);
  json_reader::Value doc = json_reader::parse(json_of(k.s));
  EXPECT_TRUE(doc["time_series"]["counters"].has("gpu_sim_insn"));
  EXPECT_FALSE(doc["time_series"]["counters"].has("L1D[0].access"));
}

TEST(Stats, JsonHasKernelsTotalsMetadataAndParsesBack) {
  Sink k;
  stats_set_info(k.s, "config", "configs/default.config");
  stats_set_info(k.s, "gpu", "first");
  stats_set_info(k.s, "gpu", "QV100-class");  // replaces
  uint64_t *insn = stats_counter(k.s, "gpu_sim_insn", "insn", "warp instructions \"issued\"");
  uint64_t *cyc = stats_counter(k.s, "gpu_sim_cycle", "cycles", "core cycles");
  stats_ratio(k.s, "gpu_ipc", "ipc", "gpu_sim_insn", "gpu_sim_cycle");
  stats_histogram *h = stats_histogram_register(k.s, "lat", "cycles", "latency", 8, 2);
  stats_kernel_begin(k.s, "k\t\"odd\" name \x01 \xff", 7);
  *insn += 9;
  *cyc += 3;
  stats_histogram_add(h, 9);
  stats_kernel_end(k.s);
  std::string text = json_of(k.s);
  json_reader::Value doc = json_reader::parse(text);

  EXPECT_EQ(doc["format"].text, "simtvp-stats");
  EXPECT_EQ(doc["version"].u64(), 1u);
  EXPECT_EQ(doc["info"]["gpu"].text, "QV100-class");
  EXPECT_EQ(doc["metadata"]["counters"][0]["name"].text, "gpu_sim_insn");
  EXPECT_EQ(doc["metadata"]["counters"][0]["description"].text, "warp instructions \"issued\"");
  EXPECT_EQ(doc["metadata"]["ratios"][0]["denominator"].text, "gpu_sim_cycle");
  EXPECT_EQ(doc["metadata"]["histograms"][0]["bucket_width"].u64(), 8u);

  ASSERT_EQ(doc["kernels"].size(), 1u);
  const auto &k0 = doc["kernels"][0];
  EXPECT_EQ(k0["kernel_name"].text, "k\t\"odd\" name \x01 \xEF\xBF\xBD");  // U+FFFD for a stray byte
  EXPECT_EQ(k0["kernel_launch_uid"].u64(), 7u);
  EXPECT_EQ(k0["counters"]["gpu_sim_insn"].u64(), 9u);
  EXPECT_DOUBLE_EQ(k0["ratios"]["gpu_ipc"].number, 3.0);
  EXPECT_EQ(k0["histograms"]["lat"]["count"].u64(), 1u);
  EXPECT_EQ(k0["histograms"]["lat"]["buckets"][1].u64(), 1u);
  EXPECT_EQ(doc["totals"]["counters"]["gpu_sim_cycle"].u64(), 3u);
  EXPECT_DOUBLE_EQ(doc["totals"]["histograms"]["lat"]["mean"].number, 9.0);
}

TEST(Stats, JsonWritesNullForUndefinedRatio) {
  Sink k;
  stats_counter(k.s, "a", "x", "");
  stats_counter(k.s, "b", "x", "");
  stats_ratio(k.s, "r", "", "a", "b");
  json_reader::Value doc = json_reader::parse(json_of(k.s));
  EXPECT_EQ(doc["totals"]["ratios"]["r"].kind, json_reader::Value::Null);
}

TEST(Stats, JsonOutputIsDeterministic) {
  auto build = [] {
    stats *s = stats_create();
    for (int i = 0; i < 50; i++) {
      char name[32];
      snprintf(name, sizeof name, "c%d", (i * 37) % 50);
      *stats_counter(s, name, "x", "") += (uint64_t)i;
    }
    stats_kernel_begin(s, "k", 1);
    stats_kernel_end(s);
    stats_sample(s, 5);
    std::string out = json_of(s);
    stats_destroy(s);
    return out;
  };
  EXPECT_EQ(build(), build());
}

TEST(Stats, WriteJsonToUnwritablePathNamesTheFile) {
  Sink k;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(stats_write_json(k.s, "/nonexistent-dir/x/stats.json", &d), SIMTVP_ERR_IO);
  EXPECT_NE(std::string(d.message).find("/nonexistent-dir/x/stats.json"), std::string::npos);
}

TEST(Stats, WriteJsonToFileRoundTrips) {
  Sink k;
  *stats_counter(k.s, "gpu_sim_cycle", "cycles", "") = 12;
  std::string path = std::string(SIMTVP_BINARY_DIR) + "/stats_test_roundtrip.json";
  simtvp_diag d;
  simtvp_diag_clear(&d);
  ASSERT_EQ(stats_write_json(k.s, path.c_str(), &d), SIMTVP_OK) << d.message;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  json_reader::Value doc = json_reader::parse(ss.str());
  EXPECT_EQ(doc["totals"]["counters"]["gpu_sim_cycle"].u64(), 12u);
  std::remove(path.c_str());
}

TEST(Stats, NameUsedByAnotherKindIsReportedAtWrite) {
  Sink k;
  stats_counter(k.s, "a", "x", "");
  stats_counter(k.s, "b", "x", "");
  stats_ratio(k.s, "r", "", "a", "b");
  uint64_t *c = stats_counter(k.s, "r", "x", "");  // clash: still bumpable, reported
  ASSERT_NE(c, nullptr);
  ++*c;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  FILE *f = tmpfile();
  EXPECT_EQ(stats_write_json_stream(k.s, f, &d), SIMTVP_ERR_STATE);
  fclose(f);
  EXPECT_NE(std::string(d.message).find("r"), std::string::npos);
}

TEST(StatsJson, EscapesQuotesBackslashesAndControlCharacters) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_json_write_escaped(f, "a\"b\\c\nd\x1f\xc3\xa9");
  fclose(f);
  EXPECT_EQ(std::string(buf, len), "\"a\\\"b\\\\c\\nd\\u001f\xc3\xa9\"");
  free(buf);
}

// Integers are written without printf: the same digits as "%" PRIu64 / PRId64, the extremes too.
TEST(StatsJson, IntegersKeepPrintfsDigitsAtTheExtremes) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_json w;
  stats_json_init(&w, f);
  stats_json_begin_array(&w, true);
  stats_json_uint(&w, 0);
  stats_json_uint(&w, 10);
  stats_json_uint(&w, UINT64_MAX);
  stats_json_int(&w, -1);
  stats_json_int(&w, INT64_MIN);
  stats_json_int(&w, INT64_MAX);
  stats_json_end_array(&w);
  fclose(f);
  EXPECT_EQ(std::string(buf, len),
            "[0, 10, 18446744073709551615, -1, -9223372036854775808, 9223372036854775807]\n");
  free(buf);
}

// Plain text goes out in runs; the escapes between runs, at the ends and back to back stay exact,
// and the deepest nesting a writer allows indents two spaces a level.
TEST(StatsJson, EscapesBetweenPlainRunsAndDeepNestingIndentExactly) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_json_write_escaped(f, "\"\"lead\ttail\\");
  stats_json_write_escaped(f, "");
  stats_json_write_escaped(f, nullptr);
  fclose(f);
  EXPECT_EQ(std::string(buf, len), "\"\\\"\\\"lead\\ttail\\\\\"\"\"\"\"");
  free(buf);
  buf = nullptr;
  f = open_memstream(&buf, &len);
  stats_json w;
  stats_json_init(&w, f);
  const int depth = STATS_JSON_MAX_DEPTH - 1;  // the deepest a writer allows
  for (int i = 0; i < depth; i++) {
    stats_json_begin_object(&w);
    stats_json_key(&w, "k");
  }
  stats_json_uint(&w, 7);
  for (int i = 0; i < depth; i++) stats_json_end_object(&w);
  fclose(f);
  std::string want;
  // each object holds one key whose value is the next object
  for (int i = 0; i < depth; i++) want += "{\n" + std::string(2 * (i + 1), ' ') + "\"k\": ";
  want += "7";
  for (int i = depth - 1; i >= 0; i--) want += "\n" + std::string(2 * i, ' ') + "}";
  want += "\n";
  EXPECT_EQ(std::string(buf, len), want);
  EXPECT_TRUE(stats_json_ok(&w));
  free(buf);
}

// Plain text is tested eight bytes at a time: a byte that needs escaping (or is not ASCII) at any
// place in or after a word is still found, and a writer's buffer that fills many times over
// (a string longer than it, pieces across its end) loses nothing.
TEST(StatsJson, EscapesAnyByteAtAnyPlaceOfAWordAndLongOutputIsWhole) {
  const char specials[] = {'"', '\\', '\n', '\x1f', '\x7f'};
  const char *escaped[] = {"\\\"", "\\\\", "\\n", "\\u001f", "\\u007f"};
  for (size_t k = 0; k < sizeof specials; k++) {
    for (size_t at = 0; at < 20; at++) {
      std::string in(24, 'a'), want = "\"";
      in[at] = specials[k];
      for (size_t i = 0; i < in.size(); i++) want += i == at ? std::string(escaped[k]) : std::string(1, 'a');
      want += "\"";
      std::string utf8 = in;
      utf8.replace(at, 1, "\xc3\xa9");  // é stays as it is
      char *buf = nullptr;
      size_t len = 0;
      FILE *f = open_memstream(&buf, &len);
      stats_json_write_escaped(f, in.c_str());
      stats_json_write_escaped(f, utf8.c_str());
      fclose(f);
      EXPECT_EQ(std::string(buf, len), want + "\"" + utf8 + "\"") << "special " << k << " at " << at;
      free(buf);
    }
  }
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_json w;
  stats_json_init(&w, f);
  std::string longer(3 * STATS_JSON_BUFFER + 5, 'x'), want = "[";
  stats_json_begin_array(&w, true);
  for (int i = 0; i < 1000; i++) {
    stats_json_string(&w, i % 100 == 7 ? longer.c_str() : "name");
    want += std::string(i ? ", " : "") + "\"" + (i % 100 == 7 ? longer : "name") + "\"";
  }
  stats_json_end_array(&w);
  fclose(f);
  EXPECT_EQ(std::string(buf, len), want + "]\n");
  free(buf);
}

TEST(StatsJson, RejectsOverlongUtf8) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_json_write_escaped(f, "\xc0\xaf");  // overlong '/'
  fclose(f);
  EXPECT_EQ(std::string(buf, len), "\"\\ufffd\\ufffd\"");
  free(buf);
}

TEST(StatsJson, DoublesRoundTripShortestAndNonFiniteIsNull) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_json w;
  stats_json_init(&w, f);
  stats_json_begin_array(&w, true);
  stats_json_double(&w, 0.1);
  stats_json_double(&w, 1.0 / 3.0);
  stats_json_double(&w, NAN);
  stats_json_double(&w, INFINITY);
  stats_json_end_array(&w);
  EXPECT_TRUE(stats_json_ok(&w));
  fclose(f);
  std::string out(buf, len);
  free(buf);
  json_reader::Value v = json_reader::parse(out);
  EXPECT_EQ(v[0].text, "0.1");
  EXPECT_EQ(v[1].number, 1.0 / 3.0);
  EXPECT_EQ(v[2].kind, json_reader::Value::Null);
  EXPECT_EQ(v[3].kind, json_reader::Value::Null);
}

// A block kept under a key: zeroed, the same one for every call with the key, another for another
// key, and a shard's own (what a block resolved through a shard stays that shard's).
TEST(Stats, SharedBlocksAreOnePerKeyAndPerShard) {
  Sink k;
  auto *a = static_cast<uint64_t *>(stats_shared(k.s, "cache.group:L1D", 4 * sizeof(uint64_t)));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a[0] | a[1] | a[2] | a[3], 0u);
  a[3] = 42;
  EXPECT_EQ(stats_shared(k.s, "cache.group:L1D", 4 * sizeof(uint64_t)), a);
  auto *b = static_cast<uint64_t *>(stats_shared(k.s, "cache.group:L2", 4 * sizeof(uint64_t)));
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b, a);
  EXPECT_EQ(b[3], 0u);
  bool deferred = false;
  stats *shard = stats_shard_create(k.s, &deferred);
  ASSERT_NE(shard, nullptr);
  void *own = stats_shared(shard, "cache.group:L1D", 4 * sizeof(uint64_t));
  ASSERT_NE(own, nullptr);
  EXPECT_NE(own, static_cast<void *>(a));
  EXPECT_EQ(stats_shared(shard, "cache.group:L1D", 4 * sizeof(uint64_t)), own);
  EXPECT_EQ(stats_shared(nullptr, "x", 8), nullptr);
}

TEST(Stats, SumTotalsMatchingInstanceCountersWhenRead) {
  Sink k;
  stats_sum(k.s, "L1D_total_cache_accesses", "requests", "all cores", "L1D[*].access");
  stats_sum(k.s, "L1D_total_cache_misses", "requests", "all cores", "L1D[*].miss");
  stats_ratio(k.s, "L1D_total_cache_miss_rate", "", "L1D_total_cache_misses",
              "L1D_total_cache_accesses");
  uint64_t *a0 = stats_counter(k.s, "L1D[0].access", "requests", "");
  uint64_t *m0 = stats_counter(k.s, "L1D[0].miss", "requests", "");
  stats_counter(k.s, "L1D[].access", "requests", "");      // empty instance: not matched
  stats_counter(k.s, "L1Dx[0].access", "requests", "");    // other prefix: not matched
  *a0 += 10;
  *m0 += 1;
  stats_kernel_begin(k.s, "k", 1);
  uint64_t *a1 = stats_counter(k.s, "L1D[1].access", "requests", "");  // registered later
  uint64_t *m1 = stats_counter(k.s, "L1D[1].miss", "requests", "");
  *a1 += 30;
  *m1 += 3;
  *a0 += 10;
  stats_kernel_end(k.s);
  EXPECT_EQ(stats_get(k.s, "L1D_total_cache_accesses", nullptr), 50u);
  EXPECT_EQ(stats_kernel_get(k.s, 0, "L1D_total_cache_accesses", nullptr), 40u);
  EXPECT_DOUBLE_EQ(stats_get_ratio(k.s, "L1D_total_cache_miss_rate", nullptr), 4.0 / 50.0);
  EXPECT_DOUBLE_EQ(stats_kernel_get_ratio(k.s, 0, "L1D_total_cache_miss_rate", nullptr),
                   3.0 / 40.0);
  std::string tot = capture(stats_print_totals, k.s);
  EXPECT_EQ(text_value(tot, "L1D_total_cache_accesses"), "50");
  EXPECT_EQ(text_value(tot, "L1D_total_cache_miss_rate"), "0.0800");
  json_reader::Value doc = json_reader::parse(json_of(k.s));
  EXPECT_EQ(doc["totals"]["counters"]["L1D_total_cache_accesses"].u64(), 50u);
  EXPECT_EQ(doc["kernels"][0]["counters"]["L1D_total_cache_misses"].u64(), 3u);
  EXPECT_EQ(doc["metadata"]["sums"][0]["pattern"].text, "L1D[*].access");
}

// A program may set a locale with ',' as decimal point; the JSON must stay valid.
TEST(StatsJson, NumbersUseADotWhateverTheProgramsLocale) {
  const char *old = setlocale(LC_NUMERIC, nullptr);
  std::string saved = old ? old : "C";
  if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
    GTEST_SKIP() << "no locale with a ',' decimal point installed";
  Sink k;
  *stats_counter(k.s, "a", "x", "") = 1;
  *stats_counter(k.s, "b", "x", "") = 3;
  stats_ratio(k.s, "r", "", "a", "b");
  std::string json = json_of(k.s);
  std::string text = capture(stats_print_totals, k.s);
  setlocale(LC_NUMERIC, saved.c_str());
  json_reader::Value doc = json_reader::parse(json);
  EXPECT_DOUBLE_EQ(doc["totals"]["ratios"]["r"].number, 1.0 / 3.0);
  EXPECT_EQ(text_value(text, "r"), "0.3333");
}

// ---- per-instruction profile (PTX source-line statistics) -----------------------------------

namespace {

// A program of 5 instructions: PTX lines 10, 11, 11, 12, 20 of "k.ptx"; instructions 0-2 come from
// k.cu:3, instruction 3 from k.cu:4, instruction 4 has no .loc.
stats_code *five_insn_program(stats *s, const char *ptx = "k.ptx") {
  const stats_code_loc locs[5] = {{10, 1, 3}, {11, 1, 3}, {11, 1, 3}, {12, 1, 4}, {20, 0, 0}};
  const char *files[2] = {"", "k.cu"};
  return stats_code_register(s, ptx, locs, 5, files, 2);
}

void add(stats_code *c, uint32_t insn, uint64_t warp, uint64_t thread, uint64_t stall = 0) {
  const uint64_t v[STATS_CODE_COLUMNS] = {warp, thread, stall};
  stats_code_add(c, insn, v);
}

std::string code_text(const stats *s, uint32_t kernel) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stats_write_code_lines(s, kernel, f);
  fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}

}  // namespace

// Instructions fold to their PTX line (11 holds two) and to their source line (k.cu:3 holds
// three); per kernel only that kernel's rows count, totals hold both kernels.
TEST(StatsCode, RowsFoldToPtxLinesAndSourceLinesPerKernelAndInTotal) {
  Sink k;
  stats_code *c = five_insn_program(k.s);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(stats_code_count(k.s), 1u);
  stats_kernel_begin(k.s, "first", 1);
  add(c, 0, 1, 32);
  add(c, 1, 2, 64);
  add(c, 2, 2, 40, 7);
  stats_kernel_end(k.s);
  stats_kernel_begin(k.s, "second", 2);
  add(c, 1, 1, 32);
  add(c, 3, 4, 128);
  stats_kernel_end(k.s);
  // Kernel 0: line 11 = insns 1 + 2 → warp 4, thread 104, stall 7.
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 0, "k.ptx", 11, STATS_CODE_WARP_INSN), 4u);
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 0, "k.ptx", 11, STATS_CODE_THREAD_INSN), 104u);
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 0, "k.ptx", 11, STATS_CODE_STALL_CYCLES), 7u);
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 0, "k.ptx", 12, STATS_CODE_WARP_INSN), 0u);
  // Kernel 1: line 11 = 1 warp, line 12 = 4.
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 1, "k.ptx", 11, STATS_CODE_WARP_INSN), 1u);
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 1, "k.ptx", 12, STATS_CODE_THREAD_INSN), 128u);
  // Totals: line 11 = 4 + 1; k.cu:3 = 1 + 2 + 2 + 1 warps, k.cu:4 = 4.
  EXPECT_EQ(stats_code_line_get(k.s, "k.ptx", 11, STATS_CODE_WARP_INSN), 5u);
  EXPECT_EQ(stats_code_source_line_get(k.s, "k.cu", 3, STATS_CODE_WARP_INSN), 6u);
  EXPECT_EQ(stats_code_source_line_get(k.s, "k.cu", 3, STATS_CODE_THREAD_INSN), 168u);
  EXPECT_EQ(stats_code_source_line_get(k.s, "k.cu", 4, STATS_CODE_WARP_INSN), 4u);
}

// stats_code_lines gives the same folded lines as the text and JSON, for reports.
TEST(StatsCode, LinesCanBeListedPerKernelAndInTotal) {
  Sink k;
  stats_code *c = five_insn_program(k.s);
  stats_kernel_begin(k.s, "first", 1);
  add(c, 1, 2, 64);
  add(c, 2, 2, 40, 7);
  add(c, 3, 1, 32);
  stats_kernel_end(k.s);
  struct line {
    std::string file, src;
    uint32_t line;
    uint64_t warp, stall;
  };
  auto list = [&](uint32_t kernel, int by_source) {
    std::vector<line> v;
    stats_code_lines(k.s, kernel, by_source,
                     [](void *ctx, const stats_code_line *l) {
                       static_cast<std::vector<line> *>(ctx)->push_back(
                           {l->file, l->src_file ? std::string(l->src_file) + ":" + std::to_string(l->src_line) : "",
                            l->line, l->v[STATS_CODE_WARP_INSN], l->v[STATS_CODE_STALL_CYCLES]});
                     },
                     &v);
    return v;
  };
  std::vector<line> ptx = list(0, 0);
  ASSERT_EQ(ptx.size(), 2u);  // line 11 (insns 1 and 2) and line 12 (insn 3)
  EXPECT_EQ(ptx[0].file, "k.ptx");
  EXPECT_EQ(ptx[0].line, 11u);
  EXPECT_EQ(ptx[0].warp, 4u);
  EXPECT_EQ(ptx[0].stall, 7u);
  EXPECT_EQ(ptx[0].src, "k.cu:3");
  EXPECT_EQ(list(UINT32_MAX, 0).size(), 2u);
  std::vector<line> src = list(0, 1);
  ASSERT_FALSE(src.empty());
  EXPECT_EQ(src[0].file, "k.cu");
  EXPECT_EQ(src[0].src, "");
  EXPECT_TRUE(list(5, 0).empty());  // no such kernel
}

TEST(StatsCode, TextListsExecutedLinesInFileOrderWithTheirSourcePlaceTabSeparated) {
  Sink k;
  stats_code *c = five_insn_program(k.s);
  stats_kernel_begin(k.s, "_Z1kv", 3);
  add(c, 4, 1, 1);
  add(c, 2, 2, 64, 5);
  add(c, 0, 1, 32);
  stats_kernel_end(k.s);
  EXPECT_EQ(code_text(k.s, 0),
            "# kernel _Z1kv launch 3\n"
            "# ptx_file:line\tsource_file:line\twarp_insn\tthread_insn\tstall_cycles\n"
            "k.ptx:10\tk.cu:3\t1\t32\t0\n"
            "k.ptx:11\tk.cu:3\t2\t64\t5\n"
            "k.ptx:20\t-\t1\t1\t0\n"
            "# kernel _Z1kv launch 3, by source line\n"
            "# source_file:line\twarp_insn\tthread_insn\tstall_cycles\n"
            "k.cu:3\t3\t96\t5\n");
  EXPECT_NE(code_text(k.s, UINT32_MAX).find("# totals\n"), std::string::npos);
}

TEST(StatsCode, SameFileFromTwoRegistrationsFoldsTogether) {
  Sink k;
  stats_code *a = five_insn_program(k.s), *b = five_insn_program(k.s);
  add(a, 0, 1, 1);
  add(b, 0, 2, 2);
  EXPECT_EQ(stats_code_line_get(k.s, "k.ptx", 10, STATS_CODE_WARP_INSN), 3u);
  stats_code *other = five_insn_program(k.s, "other.ptx");
  add(other, 0, 5, 5);
  EXPECT_EQ(stats_code_line_get(k.s, "k.ptx", 10, STATS_CODE_WARP_INSN), 3u);
  EXPECT_EQ(stats_code_line_get(k.s, "other.ptx", 10, STATS_CODE_WARP_INSN), 5u);
}

TEST(StatsCode, JsonHasPtxAndSourceLinesPerKernelAndInTotals) {
  Sink k;
  stats_counter(k.s, "gpu_sim_insn", "insn", "");
  stats_code *c = five_insn_program(k.s);
  stats_kernel_begin(k.s, "k", 1);
  add(c, 3, 2, 33, 9);
  add(c, 4, 1, 1);
  stats_kernel_end(k.s);
  json_reader::Value doc = json_reader::parse(json_of(k.s));
  const auto &lines = doc["kernels"][0]["ptx_lines"];
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["file"].text, "k.ptx");
  EXPECT_EQ(lines[0]["line"].u64(), 12u);
  EXPECT_EQ(lines[0]["source_file"].text, "k.cu");
  EXPECT_EQ(lines[0]["source_line"].u64(), 4u);
  EXPECT_EQ(lines[0]["warp_insn"].u64(), 2u);
  EXPECT_EQ(lines[0]["thread_insn"].u64(), 33u);
  EXPECT_EQ(lines[0]["stall_cycles"].u64(), 9u);
  EXPECT_EQ(lines[1]["source_file"].kind, json_reader::Value::Null);
  const auto &src = doc["totals"]["source_lines"];
  ASSERT_EQ(src.size(), 1u);
  EXPECT_EQ(src[0]["file"].text, "k.cu");
  EXPECT_EQ(src[0]["line"].u64(), 4u);
  EXPECT_EQ(src[0]["warp_insn"].u64(), 2u);
}

TEST(StatsCode, JsonHasNoProfileKeysWhileNoProgramIsRegistered) {
  Sink k;
  stats_counter(k.s, "gpu_sim_insn", "insn", "");
  stats_kernel_begin(k.s, "k", 1);
  stats_kernel_end(k.s);
  json_reader::Value doc = json_reader::parse(json_of(k.s));
  EXPECT_FALSE(doc["kernels"][0].has("ptx_lines"));
  EXPECT_FALSE(doc["totals"].has("source_lines"));
}

// Rows added outside any kernel (a launch torn down by a reset) count in the totals only.
TEST(StatsCode, RowsOutsideKernelsCountInTotalsOnly) {
  Sink k;
  stats_code *c = five_insn_program(k.s);
  add(c, 0, 1, 1);
  stats_kernel_begin(k.s, "k", 1);
  add(c, 0, 2, 2);
  stats_kernel_end(k.s);
  add(c, 0, 4, 4);
  EXPECT_EQ(stats_code_kernel_line_get(k.s, 0, "k.ptx", 10, STATS_CODE_WARP_INSN), 2u);
  EXPECT_EQ(stats_code_line_get(k.s, "k.ptx", 10, STATS_CODE_WARP_INSN), 7u);
  add(c, 99, 1, 1);  // out of range: ignored
  EXPECT_EQ(stats_code_line_get(k.s, "k.ptx", 10, STATS_CODE_WARP_INSN), 7u);
}
