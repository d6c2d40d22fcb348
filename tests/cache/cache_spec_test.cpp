// GPGPU-Sim cache configuration strings: every field, both the 4.x and the 3.x forms, and a diag
// naming the field for each malformed or inconsistent string.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "cache.h"
}

namespace {

cache_spec parse_ok(const char *text) {
  cache_spec s{};
  simtvp_diag d{};
  EXPECT_EQ(SIMTVP_OK, cache_spec_parse(text, nullptr, &s, &d)) << text << ": " << d.message;
  return s;
}

// Parses a bad string; returns the diag.
simtvp_diag parse_bad(const char *text, simtvp_status expect, const char *option = nullptr) {
  cache_spec s{};
  simtvp_diag d{};
  EXPECT_EQ(expect, cache_spec_parse(text, option, &s, &d)) << text << " → " << d.message;
  return d;
}

}  // namespace

TEST(CacheSpec, ParsesVoltaL1dString) {
  // Volta L1D: sectored, 4 sets x 128 B x 64 ways = 32 KB, LRU, write-through, on miss,
  // lazy fetch-on-read, linear index; 512 MSHRs merging 8, miss queue 16, no result FIFO, 32 B port.
  cache_spec s = parse_ok("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32");
  EXPECT_FALSE(s.disabled);
  EXPECT_EQ(CACHE_TYPE_SECTOR, s.type);
  EXPECT_EQ(4u, s.n_sets);
  EXPECT_EQ(128u, s.line_bytes);
  EXPECT_EQ(64u, s.assoc);
  EXPECT_EQ(CACHE_REPL_LRU, s.replacement);
  EXPECT_EQ(CACHE_WP_WRITE_THROUGH, s.write_policy);
  EXPECT_EQ(CACHE_ALLOC_ON_MISS, s.alloc_policy);
  EXPECT_EQ(CACHE_WA_LAZY_FETCH_ON_READ, s.write_alloc);
  EXPECT_EQ(CACHE_INDEX_LINEAR, s.set_index);
  EXPECT_EQ(CACHE_MSHR_ASSOC, s.mshr_type);
  EXPECT_EQ(512u, s.mshr_entries);
  EXPECT_EQ(8u, s.mshr_max_merge);
  EXPECT_EQ(16u, s.miss_queue_entries);
  EXPECT_EQ(0u, s.result_fifo_entries);
  EXPECT_EQ(32u, s.data_port_bytes);
  EXPECT_EQ(32u * 1024u, cache_spec_capacity(&s));
}

TEST(CacheSpec, ParsesFermiL1dString) {
  // Fermi 48 KB L1D: 64 sets x 128 B x 6 ways, local write-back / global write-through,
  // no write-allocate, Fermi hash; 128 MSHRs merging 8, miss queue 8; port defaults to the line.
  cache_spec s = parse_ok("N:64:128:6,L:L:m:N:H,A:128:8,8");
  EXPECT_EQ(CACHE_TYPE_NORMAL, s.type);
  EXPECT_EQ(64u, s.n_sets);
  EXPECT_EQ(6u, s.assoc);
  EXPECT_EQ(CACHE_WP_LOCAL_WB_GLOBAL_WT, s.write_policy);
  EXPECT_EQ(CACHE_WA_NO_WRITE_ALLOCATE, s.write_alloc);
  EXPECT_EQ(CACHE_INDEX_FERMI_HASH, s.set_index);
  EXPECT_EQ(128u, s.mshr_entries);
  EXPECT_EQ(8u, s.miss_queue_entries);
  EXPECT_EQ(0u, s.data_port_bytes);
  EXPECT_EQ(48u * 1024u, cache_spec_capacity(&s));
}

TEST(CacheSpec, ParsesL2SliceString) {
  cache_spec s = parse_ok("S:32:128:24,L:B:m:L:P,A:192:4,32:0,32");
  EXPECT_EQ(CACHE_TYPE_SECTOR, s.type);
  EXPECT_EQ(CACHE_WP_WRITE_BACK, s.write_policy);
  EXPECT_EQ(CACHE_WA_LAZY_FETCH_ON_READ, s.write_alloc);
  EXPECT_EQ(CACHE_INDEX_IPOLY, s.set_index);
  EXPECT_EQ(192u, s.mshr_entries);
  EXPECT_EQ(4u, s.mshr_max_merge);
  EXPECT_EQ(32u, s.miss_queue_entries);
}

TEST(CacheSpec, ParsesTextureStringWithFifoSizes) {
  // Texture: fragment FIFO 128, request FIFO 4, reorder buffer 128, result FIFO 2.
  cache_spec s = parse_ok("N:4:128:24,L:R:m:N:L,T:128:4,128:2");
  EXPECT_EQ(CACHE_WP_READ_ONLY, s.write_policy);
  EXPECT_EQ(CACHE_MSHR_SECTOR_TEX_FIFO, s.mshr_type);
  EXPECT_EQ(128u, s.mshr_entries);
  EXPECT_EQ(4u, s.mshr_max_merge);
  EXPECT_EQ(128u, s.miss_queue_entries);
  EXPECT_EQ(2u, s.result_fifo_entries);
  EXPECT_EQ(CACHE_MSHR_TEX_FIFO, parse_ok("N:4:128:24,L:R:m:N:L,F:128:4,128:2").mshr_type);
}

TEST(CacheSpec, ParsesLegacy3xStringWithoutTypeOrSetIndex) {
  cache_spec s = parse_ok("32:128:4,L:L:m:N,A:32:8,8");
  EXPECT_EQ(CACHE_TYPE_NORMAL, s.type);
  EXPECT_EQ(32u, s.n_sets);
  EXPECT_EQ(CACHE_INDEX_LINEAR, s.set_index);
  EXPECT_EQ(8u, s.miss_queue_entries);
}

TEST(CacheSpec, NoneDisablesTheCache) {
  EXPECT_TRUE(parse_ok("none").disabled);
  EXPECT_TRUE(parse_ok("  none\n").disabled);
  cache_spec none = parse_ok("none");
  EXPECT_EQ(0u, cache_spec_capacity(&none));
}

TEST(CacheSpec, EveryLetterOfEveryFieldParses) {
  EXPECT_EQ(CACHE_REPL_FIFO, parse_ok("N:4:128:4,F:R:m:N:L,A:8:4,4").replacement);
  const struct { char c; cache_write_policy p; } wp[] = {{'R', CACHE_WP_READ_ONLY},
                                                          {'B', CACHE_WP_WRITE_BACK},
                                                          {'T', CACHE_WP_WRITE_THROUGH},
                                                          {'E', CACHE_WP_WRITE_EVICT},
                                                          {'L', CACHE_WP_LOCAL_WB_GLOBAL_WT}};
  for (auto &w : wp) {
    std::string s = std::string("N:4:128:4,L:") + w.c + ":m:N:L,A:8:4,4";
    EXPECT_EQ(w.p, parse_ok(s.c_str()).write_policy) << s;
  }
  EXPECT_EQ(CACHE_ALLOC_ON_FILL, parse_ok("N:4:128:4,L:R:f:N:L,A:8:4,4").alloc_policy);
  EXPECT_EQ(CACHE_ALLOC_STREAMING, parse_ok("N:4:128:4,L:T:s:N:L,A:8:4,4").alloc_policy);
  EXPECT_EQ(CACHE_WA_WRITE_ALLOCATE, parse_ok("N:4:128:4,L:B:m:W:L,A:8:4,4").write_alloc);
  EXPECT_EQ(CACHE_WA_FETCH_ON_WRITE, parse_ok("N:4:128:4,L:B:m:F:L,A:8:4,4").write_alloc);
  EXPECT_EQ(CACHE_INDEX_FERMI_HASH, parse_ok("N:32:128:4,L:R:m:N:H,A:8:4,4").set_index);
  EXPECT_EQ(CACHE_INDEX_IPOLY, parse_ok("N:32:128:4,L:R:m:N:P,A:8:4,4").set_index);
  EXPECT_EQ(CACHE_INDEX_XOR, parse_ok("N:32:128:4,L:R:m:N:X,A:8:4,4").set_index);
  EXPECT_EQ(CACHE_MSHR_SECTOR_ASSOC, parse_ok("N:8:128:4,L:R:f:N:L,S:2:48,4").mshr_type);
}

TEST(CacheSpec, MalformedStringsNameTheField) {
  const struct { const char *text, *field; } cases[] = {
      {"", "type"},
      {"Q:4:128:64,L:T:m:L:L,A:512:8,16", "type"},
      {"S:x:128:64,L:T:m:L:L,A:512:8,16", "sets"},
      {"S:4:128", "associativity"},
      {"S:4:128:64;L:T:m:L:L,A:512:8,16", "replacement policy"},
      {"S:4:128:64,Z:T:m:L:L,A:512:8,16", "replacement policy"},
      {"S:4:128:64,L:Z:m:L:L,A:512:8,16", "write policy"},
      {"S:4:128:64,L:T:M:L:L,A:512:8,16", "allocation policy"},
      {"S:4:128:64,L:T:m:Q:L,A:512:8,16", "write-allocate policy"},
      {"S:4:128:64,L:T:m:L:Q,A:512:8,16", "set-index function"},
      {"S:4:128:64,L:T:m:L:LL,A:512:8,16", "set-index function"},
      {"S:4:128:64,L:T:m:L:L,B:512:8,16", "MSHR type"},
      {"S:4:128:64,L:T:m:L:L,A:-1:8,16", "MSHR entries"},
      {"S:4:128:64,L:T:m:L:L,A:512,16", "MSHR max merge"},
      {"S:4:128:64,L:T:m:L:L,A:512:8", "miss queue size"},
      {"S:4:128:64,L:T:m:L:L,A:512:8,16:", "result FIFO entries"},
      {"S:4:128:64,L:T:m:L:L,A:512:8,16:0,", "data port width"},
      {"S:4:128:64,L:T:m:L:L,A:512:8,16:0,32,7", "end"},
      {"S:4:128:64,L:T:m:L:L,A:512:8,16 x", "end"},
      {"S:4:128:64, L:T:m:L:L,A:512:8,16", "replacement policy"},
      {"S:4:99999999999:64,L:T:m:L:L,A:512:8,16", "line size"},
      {"N:4:128:24,L:R:m:N:L,T:128:4,128", "result FIFO entries"},  // texture needs its FIFO
  };
  for (auto &k : cases) {
    simtvp_diag d = parse_bad(k.text, SIMTVP_ERR_PARSE);
    EXPECT_NE(std::string::npos, std::string(d.message).find(std::string("'") + k.field + "'"))
        << k.text << " → " << d.message;
    EXPECT_NE(std::string::npos, std::string(d.message).find(k.text)) << d.message;
  }
}

TEST(CacheSpec, InconsistentStringsAreConfigErrorsNamingTheField) {
  const struct { const char *text, *field; } cases[] = {
      {"N:0:128:4,L:R:m:N:L,A:8:4,4", "sets"},
      {"N:4:100:4,L:R:m:N:L,A:8:4,4", "line size"},
      {"N:4:128:0,L:R:m:N:L,A:8:4,4", "associativity"},
      {"S:4:64:4,L:R:m:N:L,A:8:4,4", "line size"},  // sectors need 128-byte lines
      {"N:4:128:4,L:R:m:N:L,A:0:4,4", "MSHR entries"},
      {"N:4:128:4,L:R:m:N:L,A:8:0,4", "MSHR max merge"},
      {"N:4:128:4,L:R:m:N:L,A:8:4,0", "miss queue size"},
      {"N:4:128:4,L:R:m:N:L,A:8:4,4:0,48", "data port width"},
      {"N:4:128:4,L:B:f:N:L,A:8:4,4", "allocation policy"},     // write-back + on fill
      {"N:4:128:4,L:B:s:N:L,A:8:4,4", "allocation policy"},     // write-back + streaming
      {"N:4:128:4,L:T:f:F:L,A:8:4,4", "write-allocate policy"}, // fetch-on-write + on fill
      {"N:4:128:4,L:T:s:L:L,A:8:4,4", "write-allocate policy"}, // lazy + streaming
      {"N:16:128:4,L:R:m:N:H,A:8:4,4", "set-index function"},   // Fermi hash: 32 or 64 sets
      {"N:24:128:4,L:R:m:N:P,A:8:4,4", "set-index function"},   // IPOLY: power of two
      {"N:24:128:4,L:R:m:N:X,A:8:4,4", "set-index function"},
  };
  for (auto &k : cases) {
    simtvp_diag d = parse_bad(k.text, SIMTVP_ERR_CONFIG);
    EXPECT_NE(std::string::npos, std::string(d.message).find(std::string("'") + k.field + "'"))
        << k.text << " → " << d.message;
  }
  // A linear index works for any number of sets.
  parse_ok("N:24:128:4,L:R:m:N:L,A:8:4,4");
}

TEST(CacheSpec, CustomSetIndexIsUnsupported) {
  simtvp_diag d = parse_bad("N:32:128:4,L:R:m:N:C,A:8:4,4", SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::string::npos, std::string(d.message).find("'set-index function'"));
}

TEST(CacheSpec, DiagNamesTheOptionAndColumn) {
  simtvp_diag d = parse_bad("S:4:128:64,L:Z:m:L:L,A:512:8,16", SIMTVP_ERR_PARSE, "-gpgpu_cache:dl1");
  EXPECT_TRUE(d.where & SIMTVP_WHERE_OPTION);
  EXPECT_STREQ("-gpgpu_cache:dl1", d.option);
  std::string m = d.message;
  EXPECT_NE(std::string::npos, m.find("-gpgpu_cache:dl1")) << m;
  EXPECT_NE(std::string::npos, m.find("column 14")) << m;  // the 'Z' is the 14th character
  EXPECT_NE(std::string::npos, m.find("found 'Z'")) << m;
}

TEST(CacheSpec, FormatGivesTheCanonicalStringBack) {
  const char *strings[] = {"S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", "N:4:128:24,L:R:m:N:L,T:128:4,128:2",
                           "N:64:128:6,L:L:m:N:H,A:128:8,8:0,0", "none"};
  for (const char *s : strings) {
    cache_spec spec = parse_ok(s);
    char buf[128];
    cache_spec_format(&spec, buf, sizeof buf);
    EXPECT_STREQ(s, buf);
  }
  char buf[128];
  cache_spec legacy = parse_ok("32:128:4,L:L:m:N,A:32:8,8");
  cache_spec_format(&legacy, buf, sizeof buf);
  EXPECT_STREQ("N:32:128:4,L:L:m:N:L,A:32:8,8:0,0", buf);
}

TEST(CacheSpec, CreateRejectsABadSpecWithADiag) {
  cache_config cfg{};
  cfg.spec = parse_ok("N:4:128:4,L:R:m:N:L,A:8:4,4");
  cfg.spec.mshr_entries = 0;
  cfg.name = "L1C[2]";
  cache *c = reinterpret_cast<cache *>(1);
  simtvp_diag d{};
  EXPECT_EQ(SIMTVP_ERR_CONFIG, cache_create(&cfg, &c, &d));
  EXPECT_EQ(nullptr, c);
  EXPECT_NE(std::string::npos, std::string(d.message).find("'MSHR entries'")) << d.message;
  EXPECT_NE(std::string::npos, std::string(d.message).find("L1C[2]")) << d.message;
}
