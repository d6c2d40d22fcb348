// Tests of models/config: the option registry (every type, GPGPU-Sim file syntax, overrides,
// unknown and malformed options with their file:line, includes, aliases, not-modelled options),
// the composite-value checks (cache strings, both DRAM timing forms, clocks, address mapping),
// gpu_config (every configs/*.config loads cleanly, derived values, fidelity overrides) and the
// generated reference docs/configuration.md.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "config.h"
#include "gpu_config.h"

namespace {

const std::string kSource = SIMTVP_SOURCE_DIR;
const std::string kFixtures = kSource + "/tests/config/fixtures";

struct Messages {
  std::vector<std::pair<simtvp_severity, std::string>> all;
  static void emit(void *ctx, simtvp_severity s, const char *m) {
    static_cast<Messages *>(ctx)->all.emplace_back(s, m);
  }
  simtvp_msg_port port() { return simtvp_msg_port{this, &Messages::emit}; }
  size_t count(simtvp_severity s) const {
    size_t n = 0;
    for (const auto &m : all) n += m.first == s;
    return n;
  }
  std::string text() const {
    std::string t;
    for (const auto &m : all) t += m.second + "\n";
    return t;
  }
};

// A block with one option of every type.
struct TestBlock {
  int32_t i;
  uint32_t u;
  uint64_t u64;
  bool b;
  double d;
  char s[16];
  int32_t e;
  char path[64];
};

const config_enum_value kColors[] = {{"red", 1}, {"green", 2}, {nullptr, 0}};

const config_option kTestOptions[] = {
    CONFIG_OPT(TestBlock, i, CONFIG_INT, "-t_int", "-3", "", "an int"),
    CONFIG_OPT(TestBlock, u, CONFIG_UINT, "-t_uint", "7", "cycles", "a uint"),
    CONFIG_OPT(TestBlock, u64, CONFIG_UINT64, "-t_u64", "0x10", "bytes", "a uint64"),
    CONFIG_OPT(TestBlock, b, CONFIG_BOOL, "-t_bool", "1", "", "a bool"),
    CONFIG_OPT(TestBlock, d, CONFIG_DOUBLE, "-t_double", "2.5", "MHz", "a double"),
    CONFIG_OPT_X(TestBlock, s, CONFIG_STRING, "-t_string", "abc", "", "a string", nullptr, nullptr,
                 "-t_old_string -t_older_string", 0),
    CONFIG_OPT_X(TestBlock, path, CONFIG_STRING, "-t_path", "", "", "a path", nullptr, nullptr,
                 nullptr, CONFIG_PATH),
    CONFIG_OPT_X(TestBlock, e, CONFIG_ENUM, "-t_enum", "green", "", "an enum", kColors, nullptr,
                 nullptr, 0),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-t_ignored", "0", "accepted, not modelled"),
};
const config_block kTestBlock = {"test", "Test block", "", kTestOptions,
                                 sizeof kTestOptions / sizeof kTestOptions[0]};

struct Registry {
  Messages msgs;
  simtvp_msg_port port = msgs.port();
  config_registry *r = config_registry_create(&port);
  TestBlock block{};
  simtvp_diag diag{};
  Registry() {
    simtvp_diag_clear(&diag);
    EXPECT_EQ(config_registry_add(r, &kTestBlock, &block, &diag), SIMTVP_OK) << diag.message;
  }
  ~Registry() { config_registry_destroy(r); }
  simtvp_status load(const std::string &text, const char *origin = "test.config") {
    simtvp_diag_clear(&diag);
    return config_registry_load_text(r, text.c_str(), origin, "/base", &diag);
  }
};

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string dump_of(const config_registry *r) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  config_registry_dump(r, f);
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

std::vector<std::string> config_files() {
  std::vector<std::string> files;
  DIR *d = opendir((kSource + "/configs").c_str());
  if (!d) return files;
  while (dirent *e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 7 && n.compare(n.size() - 7, 7, ".config") == 0)
      files.push_back(kSource + "/configs/" + n);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

struct Gpu {
  Messages msgs;
  simtvp_msg_port port = msgs.port();
  config_registry *r = config_registry_create(&port);
  std::unique_ptr<gpu_config> cfg{new gpu_config()};
  simtvp_diag diag{};
  Gpu() {
    simtvp_diag_clear(&diag);
    EXPECT_EQ(gpu_config_register(r, cfg.get(), &diag), SIMTVP_OK) << diag.message;
  }
  ~Gpu() { config_registry_destroy(r); }
  simtvp_status load_file(const std::string &path) {
    return config_registry_load_file(r, path.c_str(), &diag);
  }
  simtvp_status load(const std::string &text) {
    return config_registry_load_text(r, text.c_str(), "gpu.config", nullptr, &diag);
  }
  simtvp_status finalize() { return gpu_config_finalize(cfg.get(), r, &diag); }
};

}  // namespace

// ---- registry: types, syntax, precedence --------------------------------------------------

TEST(ConfigRegistry, DefaultsAreStoredWhenABlockRegisters) {
  Registry t;
  EXPECT_EQ(t.block.i, -3);
  EXPECT_EQ(t.block.u, 7u);
  EXPECT_EQ(t.block.u64, 16u);
  EXPECT_TRUE(t.block.b);
  EXPECT_DOUBLE_EQ(t.block.d, 2.5);
  EXPECT_STREQ(t.block.s, "abc");
  EXPECT_EQ(t.block.e, 2);
  EXPECT_STREQ(config_registry_value(t.r, "-t_uint"), "7");
}

TEST(ConfigRegistry, ParsesEveryTypeFromAFile) {
  Registry t;
  ASSERT_EQ(t.load("-t_int -42\n-t_uint 4000000000\n-t_u64 0xFFFFFFFFFFFF\n-t_bool off\n"
                   "-t_double 1e3\n-t_string /x/y\n-t_enum red\n"),
            SIMTVP_OK)
      << t.diag.message;
  EXPECT_EQ(t.block.i, -42);
  EXPECT_EQ(t.block.u, 4000000000u);
  EXPECT_EQ(t.block.u64, 0xFFFFFFFFFFFFull);
  EXPECT_FALSE(t.block.b);
  EXPECT_DOUBLE_EQ(t.block.d, 1000.0);
  EXPECT_STREQ(t.block.s, "/x/y");
  EXPECT_EQ(t.block.e, 1);
}

TEST(ConfigRegistry, EnumAcceptsItsNumberAsWellAsItsName) {
  Registry t;
  ASSERT_EQ(t.load("-t_enum 2"), SIMTVP_OK);
  EXPECT_EQ(t.block.e, 2);
}

TEST(ConfigRegistry, BooleansAcceptCommonSpellings) {
  Registry t;
  for (const char *v : {"1", "true", "YES", "on"}) {
    t.block.b = false;
    ASSERT_EQ(t.load(std::string("-t_bool ") + v), SIMTVP_OK) << v;
    EXPECT_TRUE(t.block.b) << v;
  }
  for (const char *v : {"0", "false", "no", "Off"}) {
    t.block.b = true;
    ASSERT_EQ(t.load(std::string("-t_bool ") + v), SIMTVP_OK) << v;
    EXPECT_FALSE(t.block.b) << v;
  }
}

TEST(ConfigRegistry, LaterSettingWins) {
  Registry t;
  ASSERT_EQ(t.load("-t_uint 1\n-t_uint 2\n"), SIMTVP_OK);
  EXPECT_EQ(t.block.u, 2u);
  const char *file = nullptr;
  uint32_t line = 0;
  bool set = false;
  ASSERT_TRUE(config_registry_origin(t.r, "-t_uint", &file, &line, &set));
  EXPECT_STREQ(file, "test.config");
  EXPECT_EQ(line, 2u);
  EXPECT_TRUE(set);
}

TEST(ConfigRegistry, CommandLineOverridesTheFiles) {
  Registry t;
  ASSERT_EQ(t.load("-t_uint 1\n-t_int 5\n"), SIMTVP_OK);
  const char *argv[] = {"-t_uint", "9", "-t_string", "x y"};
  ASSERT_EQ(config_registry_parse_args(t.r, 4, argv, &t.diag), SIMTVP_OK) << t.diag.message;
  EXPECT_EQ(t.block.u, 9u);
  EXPECT_EQ(t.block.i, 5);
  EXPECT_STREQ(t.block.s, "x y");
}

TEST(ConfigRegistry, SeveralPairsMayShareALineAndCommentsEndIt) {
  Registry t;
  ASSERT_EQ(t.load("-t_uint 3 -t_int 4   # -t_bool 0\n-t_double 9.5# glued comment\n"),
            SIMTVP_OK)
      << t.diag.message;
  EXPECT_EQ(t.block.u, 3u);
  EXPECT_EQ(t.block.i, 4);
  EXPECT_TRUE(t.block.b);
  EXPECT_DOUBLE_EQ(t.block.d, 9.5);
}

TEST(ConfigRegistry, QuotedValueContinuesAcrossLinesWithoutTheLineBreak) {
  Registry t;
  ASSERT_EQ(t.load("-t_string \"ab:\n   cd\"\n-t_uint 8\n"), SIMTVP_OK) << t.diag.message;
  EXPECT_STREQ(t.block.s, "ab:cd");
  const char *file;
  uint32_t line;
  config_registry_origin(t.r, "-t_uint", &file, &line, nullptr);
  EXPECT_EQ(line, 3u);  // line counting continues through the quoted value
}

TEST(ConfigRegistry, QuotedValueKeepsInnerSpacesAndHashes) {
  Registry t;
  ASSERT_EQ(t.load("-t_string \"a b # c\""), SIMTVP_OK) << t.diag.message;
  EXPECT_STREQ(t.block.s, "a b # c");
}

TEST(ConfigRegistry, EmptyQuotedValueIsAnEmptyString) {
  Registry t;
  ASSERT_EQ(t.load("-t_string \"\""), SIMTVP_OK) << t.diag.message;
  EXPECT_STREQ(t.block.s, "");
}

TEST(ConfigRegistry, NegativeNumbersAreValuesNotOptionNames) {
  Registry t;
  ASSERT_EQ(t.load("-t_int -1\n-t_ignored -1\n"), SIMTVP_OK) << t.diag.message;
  EXPECT_EQ(t.block.i, -1);
}

TEST(ConfigRegistry, AliasesSetTheSameOption) {
  Registry t;
  ASSERT_EQ(t.load("-t_old_string one\n-t_older_string two\n"), SIMTVP_OK);
  EXPECT_STREQ(t.block.s, "two");
  EXPECT_STREQ(config_registry_value(t.r, "-t_string"), "two");
  EXPECT_STREQ(config_registry_value(t.r, "-t_old_string"), "two");
}

TEST(ConfigRegistry, PathOptionFromAFileIsRelativeToThatFile) {
  Registry t;
  ASSERT_EQ(t.load("-t_path x.icnt"), SIMTVP_OK);
  EXPECT_STREQ(t.block.path, "/base/x.icnt");
  ASSERT_EQ(t.load("-t_path /abs.icnt"), SIMTVP_OK);
  EXPECT_STREQ(t.block.path, "/abs.icnt");
  const char *argv[] = {"-t_path", "rel.icnt"};
  ASSERT_EQ(config_registry_parse_args(t.r, 2, argv, &t.diag), SIMTVP_OK);
  EXPECT_STREQ(t.block.path, "rel.icnt");  // command-line paths stay relative to the working dir
}

// ---- registry: problems and where they are ------------------------------------------------

TEST(ConfigRegistry, UnknownOptionIsAWarningNamingItAndItsFileLine) {
  Registry t;
  ASSERT_EQ(t.load("-t_uint 1\n\n-no_such_option 5\n-t_int 2\n", "my.config"), SIMTVP_OK);
  EXPECT_EQ(t.block.i, 2);  // loading went on
  EXPECT_EQ(config_registry_unknown_count(t.r), 1u);
  ASSERT_EQ(t.msgs.count(SIMTVP_WARNING), 1u);
  EXPECT_NE(t.msgs.text().find("my.config:3: unknown option -no_such_option"), std::string::npos)
      << t.msgs.text();
}

TEST(ConfigRegistry, UnknownOptionIsAnErrorInStrictMode) {
  Registry t;
  config_registry_set_strict(t.r, true);
  ASSERT_EQ(t.load("-t_uint 1\n-no_such_option 5\n", "my.config"), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(t.diag.option, "-no_such_option");
  EXPECT_STREQ(t.diag.file, "my.config");
  EXPECT_EQ(t.diag.line, 2u);
  EXPECT_TRUE(t.diag.where & SIMTVP_WHERE_FILE);
  EXPECT_NE(std::string(t.diag.message).find("my.config:2: unknown option -no_such_option"),
            std::string::npos)
      << t.diag.message;
}

TEST(ConfigRegistry, MisspeltOptionGetsTheNearestNameAsASuggestion) {
  Registry t;
  ASSERT_EQ(t.load("-t_uintt 1\n-T_INT 2\n-t_nit 3\n-completely_different 4\n", "my.config"), SIMTVP_OK);
  ASSERT_EQ(t.msgs.count(SIMTVP_WARNING), 4u) << t.msgs.text();
  EXPECT_EQ(t.msgs.all[0].second, "my.config:1: unknown option -t_uintt (ignored); did you mean -t_uint?");
  EXPECT_EQ(t.msgs.all[1].second, "my.config:2: unknown option -T_INT (ignored); did you mean -t_int?");
  EXPECT_EQ(t.msgs.all[2].second, "my.config:3: unknown option -t_nit (ignored); did you mean -t_int?");
  EXPECT_EQ(t.msgs.all[3].second, "my.config:4: unknown option -completely_different (ignored)");
  config_registry_set_strict(t.r, true);
  ASSERT_EQ(t.load("-t_bol 1\n", "my.config"), SIMTVP_ERR_CONFIG);
  EXPECT_NE(std::string(t.diag.message).find("unknown option -t_bol; did you mean -t_bool?"), std::string::npos)
      << t.diag.message;
}

TEST(ConfigRegistry, SuggestionsOnTheRealOptionTable) {
  config_registry *r = config_registry_create(nullptr);
  auto cfg = std::make_unique<gpu_config>();
  simtvp_diag diag;
  ASSERT_EQ(gpu_config_register(r, cfg.get(), &diag), SIMTVP_OK);
  EXPECT_STREQ(config_registry_suggest(r, "-gpgpu_n_clusterz"), "-gpgpu_n_clusters");
  EXPECT_STREQ(config_registry_suggest(r, "-gpgpu_n_cores_per_clutser"), "-gpgpu_n_cores_per_cluster");
  EXPECT_EQ(config_registry_suggest(r, "-xyz"), nullptr);
  config_registry_destroy(r);
  EXPECT_EQ(config_edit_distance("abcd", "abdc", 5), 1u);   // one swap of neighbours
  EXPECT_EQ(config_edit_distance("kitten", "sitting", 5), 3u);
  EXPECT_EQ(config_edit_distance("kitten", "sitting", 2), 3u);  // limit + 1 once beyond the limit
}

TEST(ConfigRegistry, MalformedValueIsAnErrorNamingOptionValueAndPlace) {
  struct Case {
    const char *text;
    const char *option;
  } cases[] = {
      {"-t_uint abc", "-t_uint"},      {"-t_uint -1", "-t_uint"},
      {"-t_uint 4294967296", "-t_uint"}, {"-t_int 3000000000", "-t_int"},
      {"-t_u64 12x", "-t_u64"},        {"-t_bool maybe", "-t_bool"},
      {"-t_double 1.5.2", "-t_double"}, {"-t_double nan", "-t_double"},
      {"-t_enum blue", "-t_enum"},     {"-t_string 0123456789abcdef0", "-t_string"},
      {"-t_ignored x", "-t_ignored"},
  };
  for (const Case &c : cases) {
    Registry t;
    ASSERT_EQ(t.load(std::string("# first line\n") + c.text, "bad.config"), SIMTVP_ERR_PARSE)
        << c.text;
    EXPECT_STREQ(t.diag.option, c.option) << c.text;
    EXPECT_STREQ(t.diag.file, "bad.config");
    EXPECT_EQ(t.diag.line, 2u);
    std::string value = strchr(c.text, ' ') + 1;
    std::string msg = t.diag.message;
    EXPECT_NE(msg.find("bad.config:2"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.option), std::string::npos) << msg;
    EXPECT_NE(msg.find(value), std::string::npos) << msg;
  }
}

TEST(ConfigRegistry, EnumErrorListsTheAcceptedNames) {
  Registry t;
  ASSERT_EQ(t.load("-t_enum blue"), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::string(t.diag.message).find("red (1), green (2)"), std::string::npos)
      << t.diag.message;
}

TEST(ConfigRegistry, OptionWithoutValueOnItsLineIsAnError) {
  Registry t;
  ASSERT_EQ(t.load("-t_uint\n-t_int 3\n", "v.config"), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(t.diag.option, "-t_uint");
  EXPECT_EQ(t.diag.line, 1u);
  EXPECT_NE(std::string(t.diag.message).find("missing value"), std::string::npos);
}

TEST(ConfigRegistry, TextThatIsNotAnOptionNameIsAnError) {
  Registry t;
  ASSERT_EQ(t.load("-t_uint 1 2\n"), SIMTVP_ERR_PARSE);
  EXPECT_EQ(t.diag.line, 1u);
  EXPECT_NE(std::string(t.diag.message).find("expected an option name"), std::string::npos);
}

TEST(ConfigRegistry, UnterminatedQuoteIsAnErrorAtItsStart) {
  Registry t;
  ASSERT_EQ(t.load("\n-t_string \"abc\n-t_uint 2\n"), SIMTVP_ERR_PARSE);
  EXPECT_EQ(t.diag.line, 2u);
  EXPECT_NE(std::string(t.diag.message).find("unterminated"), std::string::npos);
}

TEST(ConfigRegistry, CommandLineProblemsNameTheArgument) {
  Registry t;
  const char *missing[] = {"-t_uint"};
  EXPECT_EQ(config_registry_parse_args(t.r, 1, missing, &t.diag), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(t.diag.option, "-t_uint");
  const char *bad[] = {"-t_int", "1", "-t_uint", "x"};
  EXPECT_EQ(config_registry_parse_args(t.r, 4, bad, &t.diag), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::string(t.diag.message).find("command line argument 2"), std::string::npos)
      << t.diag.message;
}

TEST(ConfigRegistry, NotModelledOptionIsReportedOnceAndNotStored) {
  Registry t;
  ASSERT_EQ(t.load("-t_ignored 1\n-t_ignored 2\n"), SIMTVP_OK);
  EXPECT_EQ(t.msgs.count(SIMTVP_INFO), 1u);
  EXPECT_EQ(t.msgs.count(SIMTVP_WARNING), 0u);
  EXPECT_EQ(config_registry_not_modelled_count(t.r), 1u);
  EXPECT_NE(t.msgs.text().find("-t_ignored is accepted"), std::string::npos);
  EXPECT_STREQ(config_registry_value(t.r, "-t_ignored"), "2");
}

TEST(ConfigRegistry, DuplicateOptionNamesAreRejectedAtRegistration) {
  Registry t;
  TestBlock other{};
  EXPECT_EQ(config_registry_add(t.r, &kTestBlock, &other, &t.diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(t.diag.option, "-t_int");
}

TEST(ConfigRegistry, ABadDefaultIsReportedAtRegistration) {
  static const config_option bad[] = {
      CONFIG_OPT(TestBlock, u, CONFIG_UINT, "-bad_default", "seven", "", ""),
  };
  static const config_block blk = {"bad", "Bad", "", bad, 1};
  config_registry *r = config_registry_create(nullptr);
  TestBlock b{};
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(config_registry_add(r, &blk, &b, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-bad_default");
  config_registry_destroy(r);
}

TEST(ConfigRegistry, IncludesResolveRelativeToTheIncludingFile) {
  Gpu g;
  ASSERT_EQ(g.load_file(kFixtures + "/include_outer.config"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.cfg->core.n_clusters, 7u);  // the include overrode the outer file's earlier line
  EXPECT_EQ(g.cfg->mem.n_channels, 5u);   // and the outer file's later line overrode the include
  EXPECT_EQ(std::string(g.cfg->icnt.config_file), kFixtures + "/sub/net.icnt");
  const char *file = nullptr;
  uint32_t line = 0;
  ASSERT_TRUE(config_registry_origin(g.r, "-gpgpu_n_clusters", &file, &line, nullptr));
  EXPECT_EQ(std::string(file), kFixtures + "/sub/include_inner.config");
  EXPECT_EQ(line, 2u);
}

TEST(ConfigRegistry, IncludeCycleStopsWithAnError) {
  Gpu g;
  EXPECT_EQ(g.load_file(kFixtures + "/include_cycle.config"), SIMTVP_ERR_CONFIG);
  EXPECT_NE(std::string(g.diag.message).find("nested more than"), std::string::npos)
      << g.diag.message;
}

TEST(ConfigRegistry, MissingFileIsAnIoErrorNamingIt) {
  Gpu g;
  EXPECT_EQ(g.load_file("/nonexistent/x.config"), SIMTVP_ERR_IO);
  EXPECT_NE(std::string(g.diag.message).find("/nonexistent/x.config"), std::string::npos);
}

// ---- composite value checks ---------------------------------------------------------------

TEST(ConfigChecks, CacheStringsOfPublicConfigsAreAccepted) {
  char why[256];
  for (const char *s :
       {"none", "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", "N:32:128:4,L:L:m:N:H,S:64:8,8",
        "64:64:2,L:R:f:N,A:2:32,4", "N:16:128:24,L:R:m:N:L,T:128:4,128:2",
        "S:1:128:512,L:L:m:N:L,A:256:8,16:0,32", "32:128:4,L:L:m:N:H,A:32:8,8"})
    EXPECT_TRUE(config_check_cache(s, why, sizeof why)) << s << ": " << why;
}

TEST(ConfigChecks, MalformedCacheStringsAreRejectedWithAReason) {
  char why[256];
  for (const char *s : {"", "nonee", "S:4:128,L:T:m:L:L,A:512:8,16", "S:4:128:64,L:T:m:L:L,A:512:8",
                        "S:4:128:x,L:T:m:L:L,A:512:8,16", "S:4:128:64,LL:T:m:L,A:512:8,16",
                        "S:4:128:64,L:T:m:L:L,A:512,16", "S:4:128:64,L:T:m:L:L,A:512:8,16:0:1",
                        "S:4:128:64,L:T:m:L:L,A:512:8,16,x", "S:4:128:64,,A:512:8,16"}) {
    why[0] = '\0';
    EXPECT_FALSE(config_check_cache(s, why, sizeof why)) << s;
    EXPECT_NE(why[0], '\0') << s;
  }
}

TEST(ConfigChecks, DramTimingOrderedAndNamedFormsGiveTheSameTiming) {
  gpu_dram_timing a, b;
  char why[256];
  ASSERT_TRUE(gpu_config_parse_dram_timing("16:2:6:12:28:12:40:12:4:5:12:4:3:2", &a, why,
                                           sizeof why))
      << why;
  ASSERT_TRUE(gpu_config_parse_dram_timing(
      "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2",
      &b, why, sizeof why))
      << why;
  EXPECT_EQ(0, memcmp(&a, &b, sizeof a));
  EXPECT_EQ(a.nbk, 16u);
  EXPECT_EQ(a.tRCD, 12u);
  EXPECT_EQ(a.CL, 12u);
  EXPECT_EQ(a.nbkgrp, 4u);
  EXPECT_EQ(a.tRTPL, 2u);
  // Named keys in any order; the 11-field ordered form leaves bank groups off.
  ASSERT_TRUE(gpu_config_parse_dram_timing(
      "RTPL=2:CCDL=3:nbkgrp=4:WR=12:CDLR=5:WL=4:CL=12:RC=40:RP=12:RAS=28:RCD=12:RRD=6:CCD=2:nbk=16",
      &b, why, sizeof why));
  EXPECT_EQ(0, memcmp(&a, &b, sizeof a));
  ASSERT_TRUE(gpu_config_parse_dram_timing("4:2:8:12:21:13:34:9:4:5:13", &b, why, sizeof why));
  EXPECT_EQ(b.nbkgrp, 1u);
  EXPECT_EQ(b.tCCDL, 0u);
}

TEST(ConfigChecks, MalformedDramTimingIsRejectedWithAReason) {
  char why[256];
  struct {
    const char *text, *reason;
  } cases[] = {
      {"16:2:6", "11 to 14"},
      {"16:2:6:12:28:12:40:12:4:5:12:4:3:2:9", "11 to 14"},
      {"nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5", "WR is missing"},
      {"nbk=16:XYZ=2", "unknown key 'XYZ'"},
      {"nbk=16:nbk=8", "given twice"},
      {"nbk=16:CCD=x", "CCD needs a number"},
      {"nbk=16:CCD", "not <key>=<cycles>"},
      {"nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=3",
       "multiple of nbkgrp"},
  };
  for (const auto &c : cases) {
    why[0] = '\0';
    EXPECT_FALSE(gpu_config_parse_dram_timing(c.text, nullptr, why, sizeof why)) << c.text;
    EXPECT_NE(std::string(why).find(c.reason), std::string::npos) << c.text << ": " << why;
  }
}

TEST(ConfigChecks, ClockDomainsNeedFourPositiveFrequencies) {
  char why[256];
  EXPECT_TRUE(config_check_clock_domains("1132.0:1132.0:1132.0:850.0", why, sizeof why));
  EXPECT_TRUE(config_check_clock_domains("1132:1132:1132:3500.5", why, sizeof why));
  EXPECT_FALSE(config_check_clock_domains("1132:1132:1132", why, sizeof why));
  EXPECT_FALSE(config_check_clock_domains("1132:1132:0:850", why, sizeof why));
  EXPECT_FALSE(config_check_clock_domains("1:2:3:4:5", why, sizeof why));
}

TEST(ConfigChecks, AddressMappingTakesDramidAndAMaskOfKnownLetters) {
  char why[256];
  EXPECT_TRUE(config_check_addr_mapping(
      "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS", why,
      sizeof why));
  EXPECT_TRUE(config_check_addr_mapping("", why, sizeof why));
  EXPECT_FALSE(config_check_addr_mapping("dramid@x;0000", why, sizeof why));
  EXPECT_FALSE(config_check_addr_mapping("dramid@8;0000XRRR", why, sizeof why));
  EXPECT_FALSE(config_check_addr_mapping(std::string(65, 'R').c_str(), why, sizeof why));
  EXPECT_FALSE(config_check_addr_mapping(std::string(63, 'R').c_str(), why, sizeof why));
  EXPECT_TRUE(config_check_addr_mapping(("\"" + std::string(60, 'r') + "ddss\"").c_str(), why, sizeof why));
  EXPECT_FALSE(config_check_addr_mapping(("dramid@8;" + std::string(62, 'R') + "DS").c_str(), why, sizeof why));
  EXPECT_NE(std::string(why).find("dramid"), std::string::npos) << why;
}

// The one parser of -gpgpu_mem_addr_mapping (models/dram and models/mempart read it through it):
// bit 63 first, '.' and white space skipped, lower case read as upper case.
TEST(ConfigChecks, AddressMappingParserGivesTheFieldOfEveryAddressBit) {
  char why[256];
  config_addr_mapping m;
  ASSERT_TRUE(config_addr_mapping_parse(
      "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS", &m, why,
      sizeof why)) << why;
  EXPECT_TRUE(m.by_division);
  EXPECT_EQ(m.dramid_bit, 8u);
  const char *expect_low = "SSSSSCCCBCCCBBBR";  // bits 0..15
  for (int i = 0; i < 16; i++) EXPECT_EQ(m.field[i], expect_low[i]) << "bit " << i;
  EXPECT_EQ(m.field[27], 'R');
  EXPECT_EQ(m.field[28], '0');
  EXPECT_EQ(m.field[63], '0');
  ASSERT_TRUE(config_addr_mapping_parse(" 0000000000000000 00000000000000000000000000000000rrbbccddcccsssss ", &m,
                                        why, sizeof why)) << why;
  EXPECT_FALSE(m.by_division);
  EXPECT_EQ(m.field[5], 'C');
  EXPECT_EQ(m.field[8], 'D');
  EXPECT_EQ(m.field[15], 'R');
  EXPECT_FALSE(config_addr_mapping_parse("dramid@64;0", &m, why, sizeof why));
  EXPECT_NE(std::string(why).find("below 64"), std::string::npos) << why;
}

// ---- gpu_config ---------------------------------------------------------------------------

TEST(GpuConfig, EveryShippedConfigLoadsCleanlyInStrictMode) {
  std::vector<std::string> files = config_files();
  ASSERT_GE(files.size(), 5u);
  for (const std::string &f : files) {
    Gpu g;
    config_registry_set_strict(g.r, true);
    ASSERT_EQ(g.load_file(f), SIMTVP_OK) << f << ": " << g.diag.message;
    ASSERT_EQ(g.finalize(), SIMTVP_OK) << f << ": " << g.diag.message;
    EXPECT_EQ(config_registry_unknown_count(g.r), 0u) << f;
    EXPECT_EQ(g.msgs.count(SIMTVP_WARNING), 0u) << f << ":\n" << g.msgs.text();
    // Every shipped config names its public source and says whether it has been correlated
    // (and against what).
    std::string text = slurp(f);
    EXPECT_TRUE(text.find("not yet correlated") != std::string::npos ||
                text.find("Status: correlated against") != std::string::npos)
        << f;
    EXPECT_TRUE(text.find("Source:") != std::string::npos || text.find("-config ") != std::string::npos)
        << f;
  }
}

TEST(GpuConfig, AGpgpuSim4ConfigWithOldSpellingsLoadsWithNoUnknownOption) {
  Gpu g;
  ASSERT_EQ(g.load_file(kFixtures + "/gpgpusim4_style.config"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(config_registry_unknown_count(g.r), 0u) << g.msgs.text();
  // Each not-modelled option is noted once, as information.
  EXPECT_EQ(g.msgs.count(SIMTVP_WARNING), 0u);
  EXPECT_GE(config_registry_not_modelled_count(g.r), 8u);
  EXPECT_NE(g.msgs.text().find("-power_simulation_enabled is accepted"), std::string::npos);
  // -enable_ptx_file_line_stats is modelled (the per-PTX-line profile) and turned on by the file.
  EXPECT_TRUE(g.cfg->output.ptx_line_stats);
  EXPECT_STREQ(g.cfg->output.ptx_line_stats_file, "gpgpu_inst_stats.txt");
  // Old spellings reached the current options.
  EXPECT_EQ(g.cfg->mem.rop_latency, 120u);
  EXPECT_EQ(g.cfg->core.l1d_latency, 28u);
  EXPECT_TRUE(g.cfg->core.adaptive_cache_config);
  EXPECT_TRUE(g.cfg->core.sub_core_model);
  EXPECT_EQ(g.cfg->dram.dual_bus_interface, 1u);
  EXPECT_EQ(g.cfg->mem.partition_indexing, 4);
  // The multi-line quoted timing is stored as one string.
  EXPECT_STREQ(g.cfg->dram.timing,
               "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:"
               "CCDL=2:RTPL=3");
  EXPECT_EQ(g.cfg->dram.data_command_freq_ratio, 2u);  // value before a trailing comment
}

TEST(GpuConfig, QV100DerivedValues) {
  Gpu g;
  ASSERT_EQ(g.load_file(kSource + "/configs/SM7_QV100.config"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  const gpu_config_derived &d = g.cfg->derived;
  EXPECT_EQ(d.n_cores, 80u);
  EXPECT_EQ(d.warp_size, 32u);
  EXPECT_EQ(d.max_threads_per_core, 2048u);
  EXPECT_EQ(d.max_warps_per_core, 64u);
  EXPECT_EQ(d.n_sub_partitions, 64u);
  EXPECT_DOUBLE_EQ(d.core_mhz, 1132.0);
  EXPECT_DOUBLE_EQ(d.dram_mhz, 850.0);
  EXPECT_EQ(d.scheduler, GPU_SCHED_GTO);
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_EX_WB], 8u);
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_OC_EX_TENSOR], 4u);
  EXPECT_EQ(d.latency_int[GPU_OP_MAD], 5u);
  EXPECT_EQ(d.latency_int[GPU_OP_SHFL], 32u);  // not in the file: GPGPU-Sim's default
  EXPECT_EQ(d.initiation_dp[GPU_OP_DIV], 130u);
  EXPECT_EQ(d.latency_sfu, 100u);
  EXPECT_EQ(d.latency_tensor, 64u);
  EXPECT_EQ(d.queue_l2_to_dram, 64u);
  EXPECT_EQ(d.simt_model_of_core[79], GPU_FIDELITY_CA);
  gpu_dram_timing t;
  char why[256];
  ASSERT_TRUE(gpu_config_parse_dram_timing(g.cfg->dram.timing, &t, why, sizeof why)) << why;
  EXPECT_EQ(t.tRCD, 12u);
  EXPECT_EQ(t.WL, 2u);
  // The interconnect file is found beside the config.
  EXPECT_EQ(std::string(g.cfg->icnt.config_file), kSource + "/configs/config_volta_islip.icnt");
}

// L2 bytes of a configuration: sets x line x ways of -gpgpu_cache:dl2 ("S:<sets>:<line>:<ways>,...")
// per sub-partition, times the sub-partitions.
static uint64_t l2_bytes(const gpu_config &c) {
  unsigned sets = 0, line = 0, ways = 0;
  char kind = 0;
  EXPECT_EQ(sscanf(c.mem.l2, "%c:%u:%u:%u", &kind, &sets, &line, &ways), 4) << c.mem.l2;
  return (uint64_t)sets * line * ways * c.derived.n_sub_partitions;
}

// Peak DRAM bandwidth in GB/s: channels x bus bytes x transfers per command clock x clock.
static double dram_gbs(const gpu_config &c) {
  return c.mem.n_channels * c.dram.bus_width * c.dram.data_command_freq_ratio * c.derived.dram_mhz / 1000.0;
}

// A100 SXM4 40 GB (configs/SM80_A100.config): the whitepaper's figures.
TEST(GpuConfig, A100ConfigHasThePublishedFigures) {
  Gpu g;
  ASSERT_EQ(g.load_file(kSource + "/configs/SM80_A100.config"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  const gpu_config &c = *g.cfg;
  EXPECT_EQ(c.sim.cc_major, 8u);
  EXPECT_EQ(c.sim.cc_minor, 0u);
  EXPECT_EQ(c.derived.n_cores, 108u);
  EXPECT_DOUBLE_EQ(c.derived.core_mhz, 1410.0);
  EXPECT_EQ(c.derived.max_warps_per_core, 64u);
  EXPECT_EQ(c.core.registers_per_core, 65536u);
  EXPECT_EQ(c.core.max_ctas_per_core, 32u);
  EXPECT_EQ(c.core.shmem_size, 164u * 1024);
  EXPECT_EQ(c.core.shmem_per_cta, 48u * 1024);
  EXPECT_EQ(c.mem.n_channels, 40u);
  EXPECT_EQ(c.derived.n_sub_partitions, 160u);
  // 160 slices x 128 sets x 128 B x 16 ways = 40 MiB
  EXPECT_EQ(l2_bytes(c), 40ull << 20);
  // 40 channels x 16 B x 2 x 1215 MHz = 1555.2 GB/s (whitepaper: 1555 GB/s)
  EXPECT_NEAR(dram_gbs(c), 1555.2, 0.01);
  EXPECT_EQ(c.host.device_memory_mb, 40960u);
}

// H100 SXM5 80 GB (configs/SM90_H100.config): the whitepaper's figures.
TEST(GpuConfig, H100ConfigHasThePublishedFigures) {
  Gpu g;
  ASSERT_EQ(g.load_file(kSource + "/configs/SM90_H100.config"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  const gpu_config &c = *g.cfg;
  EXPECT_EQ(c.sim.cc_major, 9u);
  EXPECT_EQ(c.sim.cc_minor, 0u);
  EXPECT_EQ(c.derived.n_cores, 132u);
  EXPECT_DOUBLE_EQ(c.derived.core_mhz, 1980.0);
  EXPECT_EQ(c.derived.max_warps_per_core, 64u);
  EXPECT_EQ(c.core.registers_per_core, 65536u);
  EXPECT_EQ(c.core.max_ctas_per_core, 32u);
  EXPECT_EQ(c.core.shmem_size, 228u * 1024);
  EXPECT_EQ(c.core.shmem_per_cta, 48u * 1024);
  EXPECT_EQ(c.mem.n_channels, 40u);
  EXPECT_EQ(c.derived.n_sub_partitions, 80u);
  // 80 slices x 256 sets x 128 B x 20 ways = 50 MiB
  EXPECT_EQ(l2_bytes(c), 50ull << 20);
  // 40 channels x 16 B x 2 x 2619 MHz = 3352.3 GB/s (whitepaper: 3.35 TB/s)
  EXPECT_NEAR(dram_gbs(c), 3352.32, 0.01);
  EXPECT_EQ(c.host.device_memory_mb, 81920u);
}

// Every option of the A100 and H100 configurations names its source: a [GS]/[WP]/[PG] tag in the
// comment block above it (or "simtvp:" for simtvp's own options), so correlation work can tell a
// published figure from a simulator's choice.
TEST(GpuConfig, A100AndH100OptionsEachCiteTheirSource) {
  for (const char *name : {"SM80_A100.config", "SM90_H100.config"}) {
    std::istringstream in(slurp(kSource + "/configs/" + name));
    std::string line, block;
    int options = 0;
    bool in_quote = false;
    while (std::getline(in, line)) {
      if (in_quote) {  // continuation of a quoted value
        in_quote = std::count(line.begin(), line.end(), '"') % 2 == 0;
        continue;
      }
      if (line.empty()) {
        block.clear();
        continue;
      }
      if (line[0] == '#') {
        block += line + "\n";
        continue;
      }
      options++;
      in_quote = std::count(line.begin(), line.end(), '"') % 2 == 1;
      bool cited = block.find("[GS]") != std::string::npos || block.find("[WP]") != std::string::npos ||
                   block.find("[PG]") != std::string::npos || block.find("simtvp:") != std::string::npos;
      EXPECT_TRUE(cited) << name << ": no source for `" << line << "`";
    }
    EXPECT_GE(options, 80) << name;
  }
}

TEST(GpuConfig, Fermi3xNineFieldPipelineWidthsMapToTheirPipelines) {
  Gpu g;
  ASSERT_EQ(g.load_file(kSource + "/configs/SM2_GTX480.config"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  const gpu_config_derived &d = g.cfg->derived;
  // 2,0,1,1,2,0,1,1,2 = ID_OC_SP,ID_OC_DP,ID_OC_SFU,ID_OC_MEM,OC_EX_SP,OC_EX_DP,OC_EX_SFU,...
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_ID_OC_SP], 2u);
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_ID_OC_INT], 0u);
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_ID_OC_SFU], 1u);
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_OC_EX_MEM], 1u);
  EXPECT_EQ(d.pipeline_width[GPU_PIPE_EX_WB], 2u);
  EXPECT_EQ(d.n_cores, 15u);
  EXPECT_EQ(d.max_warps_per_core, 48u);
  EXPECT_DOUBLE_EQ(d.core_mhz, 700.0);
}

TEST(GpuConfig, DefaultConfigIsAReducedRtx2060) {
  Gpu g;
  ASSERT_EQ(g.load_file(kSource + "/configs/default.config"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.cfg->derived.n_cores, 8u);
  EXPECT_EQ(g.cfg->mem.n_channels, 3u);
  EXPECT_EQ(g.cfg->sim.cc_major, 7u);  // nvcc 13's oldest target, compute_75
  EXPECT_EQ(g.cfg->sim.cc_minor, 5u);
  EXPECT_EQ(g.cfg->derived.max_warps_per_core, 32u);
  EXPECT_EQ(g.cfg->icnt.network_mode, 2);
  EXPECT_EQ(g.cfg->mem.partition_indexing, 0);
  EXPECT_STREQ(g.cfg->core.l1d, "S:1:128:512,L:L:m:N:L,A:256:8,16:0,32");
}

TEST(GpuConfig, FidelityOverridesApplyPerCoreAndPerChannel) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_n_clusters 8 -gpgpu_n_cores_per_cluster 2\n"
                   "-simt_model at\n-simt_model_override 0-3:ca,15:func\n"
                   "-gpgpu_n_mem 4 -dram_model ca -dram_model_override 1-2:at\n"),
            SIMTVP_OK)
      << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  const gpu_config_derived &d = g.cfg->derived;
  EXPECT_EQ(d.n_cores, 16u);
  for (int i = 0; i < 4; i++) EXPECT_EQ(d.simt_model_of_core[i], GPU_FIDELITY_CA) << i;
  for (int i = 4; i < 15; i++) EXPECT_EQ(d.simt_model_of_core[i], GPU_FIDELITY_AT) << i;
  EXPECT_EQ(d.simt_model_of_core[15], GPU_FIDELITY_FUNC);
  EXPECT_EQ(d.dram_model_of_channel[0], GPU_FIDELITY_CA);
  EXPECT_EQ(d.dram_model_of_channel[1], GPU_FIDELITY_AT);
  EXPECT_EQ(d.dram_model_of_channel[2], GPU_FIDELITY_AT);
  EXPECT_EQ(d.dram_model_of_channel[3], GPU_FIDELITY_CA);
}

TEST(GpuConfig, IntervalCoresAreChosenLikeTheOtherModelsAndNamedInTheMap) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_n_clusters 4 -gpgpu_n_cores_per_cluster 2\n"
                   "-simt_model interval\n-simt_model_override 0-1:ca\n"),
            SIMTVP_OK)
      << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  const gpu_config_derived &d = g.cfg->derived;
  for (int i = 0; i < 2; i++) EXPECT_EQ(d.simt_model_of_core[i], GPU_FIDELITY_CA) << i;
  for (int i = 2; i < 8; i++) EXPECT_EQ(d.simt_model_of_core[i], GPU_FIDELITY_INTERVAL) << i;
  char map[256];
  gpu_config_fidelity_map(g.cfg.get(), map, sizeof map);
  EXPECT_EQ(std::string(map).substr(0, 25), "simt=0-1:ca,2-7:interval ") << map;
  Gpu h;
  ASSERT_EQ(h.load("-simt_model ca -simt_model_override 3:interval\n"), SIMTVP_OK) << h.diag.message;
}

TEST(GpuConfig, OverrideBeyondTheCoreCountIsAnErrorAtItsFileLine) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_n_clusters 4 -gpgpu_n_cores_per_cluster 1\n"
                   "-simt_model_override 2-9:ca\n"),
            SIMTVP_OK);
  ASSERT_EQ(g.finalize(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(g.diag.option, "-simt_model_override");
  EXPECT_STREQ(g.diag.file, "gpu.config");
  EXPECT_EQ(g.diag.line, 2u);
  EXPECT_NE(std::string(g.diag.message).find("index 9 is out of range"), std::string::npos)
      << g.diag.message;
}

TEST(GpuConfig, NegativeLaunchLatencyIsAnErrorAtItsFileLine) {
  for (const char *opt : {"-gpgpu_kernel_launch_latency", "-gpgpu_TB_launch_latency"}) {
    Gpu g;
    ASSERT_EQ(g.load(std::string("-gpgpu_n_clusters 4\n") + opt + " -5\n"), SIMTVP_OK);
    ASSERT_EQ(g.finalize(), SIMTVP_ERR_CONFIG) << opt;
    EXPECT_STREQ(g.diag.option, opt);
    EXPECT_STREQ(g.diag.file, "gpu.config");
    EXPECT_EQ(g.diag.line, 2u);
    EXPECT_NE(std::string(g.diag.message).find("must not be negative"), std::string::npos) << g.diag.message;
  }
}

TEST(GpuConfig, PtxLineStatisticsAreOffByDefaultAndNamedByTheirOptions) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_n_clusters 4\n"), SIMTVP_OK);
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  EXPECT_FALSE(g.cfg->output.ptx_line_stats);
  EXPECT_STREQ(g.cfg->output.ptx_line_stats_file, "gpgpu_inst_stats.txt");
  Gpu h;
  ASSERT_EQ(h.load("-enable_ptx_file_line_stats 1\n-ptx_line_stats_filename lines.txt\n"), SIMTVP_OK);
  ASSERT_EQ(h.finalize(), SIMTVP_OK) << h.diag.message;
  EXPECT_TRUE(h.cfg->output.ptx_line_stats);
  EXPECT_STREQ(h.cfg->output.ptx_line_stats_file, "lines.txt");
  Gpu e;
  ASSERT_EQ(e.load("-enable_ptx_file_line_stats 1\n-ptx_line_stats_filename \"\"\n"), SIMTVP_OK);
  ASSERT_EQ(e.finalize(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(e.diag.option, "-ptx_line_stats_filename");
}

TEST(GpuConfig, MalformedOverrideIsRejectedWhenSet) {
  Gpu g;
  EXPECT_EQ(g.load("-simt_model_override 0-3:fast\n"), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(g.diag.option, "-simt_model_override");
  EXPECT_NE(std::string(g.diag.message).find("not one of: func at ca interval"), std::string::npos)
      << g.diag.message;
  Gpu h;
  EXPECT_EQ(h.load("-dram_model_override 0:func\n"), SIMTVP_ERR_PARSE);  // DRAM has no func
}

TEST(GpuConfig, GpuNameLongerThanTheNameRegistersIsRejected) {
  Gpu g;
  EXPECT_EQ(g.load("-gpu_name \"simtvp QV100-class (Volta, 80 SMs) rev 2\"\n"), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(g.diag.option, "-gpu_name");
  EXPECT_NE(std::string(g.diag.message).find("at most 32"), std::string::npos) << g.diag.message;
  Gpu h;
  EXPECT_EQ(h.load("-gpu_name \"simtvp QV100-class (80 SMs)\"\n"), SIMTVP_OK) << h.diag.message;
}

TEST(GpuConfig, FunctionalSimModeMakesEveryCoreFunctional) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_ptx_sim_mode 1 -simt_model ca -simt_model_override 0:at\n"),
            SIMTVP_OK);
  ASSERT_EQ(g.finalize(), SIMTVP_OK) << g.diag.message;
  for (uint32_t i = 0; i < g.cfg->derived.n_cores; i++)
    EXPECT_EQ(g.cfg->derived.simt_model_of_core[i], GPU_FIDELITY_FUNC);
}

TEST(GpuConfig, SchedulerWithParametersIsParsed) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_scheduler two_level_active:6:0:1\n"), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.finalize(), SIMTVP_OK);
  EXPECT_EQ(g.cfg->derived.scheduler, GPU_SCHED_TWO_LEVEL_ACTIVE);
  EXPECT_EQ(g.cfg->derived.scheduler_params[0], 6u);
  EXPECT_EQ(g.cfg->derived.scheduler_params[2], 1u);
  Gpu h;
  EXPECT_EQ(h.load("-gpgpu_scheduler fifo\n"), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(h.diag.option, "-gpgpu_scheduler");
}

// docs/system-modes.md: discrete (default), unified, shared_llc and shared_va are built; a mode that is not
// is an unknown value, never a silent discrete run.
TEST(GpuConfig, SystemModeAcceptsTheBuiltModesOnly) {
  Gpu d;
  ASSERT_EQ(d.load(""), SIMTVP_OK);
  ASSERT_EQ(d.finalize(), SIMTVP_OK);
  EXPECT_EQ(d.cfg->system.mode, GPU_SYSTEM_DISCRETE);
  Gpu u;
  ASSERT_EQ(u.load("-system_mode unified\n"), SIMTVP_OK) << u.diag.message;
  ASSERT_EQ(u.finalize(), SIMTVP_OK);
  EXPECT_EQ(u.cfg->system.mode, GPU_SYSTEM_UNIFIED);
  EXPECT_TRUE(gpu_system_integrated(u.cfg->system.mode));
  Gpu l;
  ASSERT_EQ(l.load("-system_mode shared_llc\n"), SIMTVP_OK) << l.diag.message;
  ASSERT_EQ(l.finalize(), SIMTVP_OK);
  EXPECT_TRUE(gpu_system_integrated(l.cfg->system.mode));
  EXPECT_TRUE(gpu_system_shared(l.cfg->system.mode));
  EXPECT_FALSE(gpu_system_shared(u.cfg->system.mode));
  Gpu v;
  ASSERT_EQ(v.load("-system_mode shared_va\n"), SIMTVP_OK) << v.diag.message;
  ASSERT_EQ(v.finalize(), SIMTVP_OK);
  EXPECT_EQ(v.cfg->system.mode, GPU_SYSTEM_SHARED_VA);
  EXPECT_TRUE(gpu_system_shared(v.cfg->system.mode));
  for (const char *m : {"integrated", "coherent"}) {
    Gpu g;
    EXPECT_EQ(g.load(std::string("-system_mode ") + m + "\n"), SIMTVP_ERR_PARSE) << m;
    EXPECT_STREQ(g.diag.option, "-system_mode") << m;
  }
  Gpu b;
  ASSERT_EQ(b.load("-sysmem_interleave_bytes 96\n"), SIMTVP_OK);
  EXPECT_EQ(b.finalize(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(b.diag.option, "-sysmem_interleave_bytes");
  Gpu c;
  ASSERT_EQ(c.load("-coherence_message_ns -1\n"), SIMTVP_OK);
  EXPECT_EQ(c.finalize(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(c.diag.option, "-coherence_message_ns");
}

TEST(GpuConfig, MalformedCompositeValuesAreErrorsAtTheirFileLine) {
  struct {
    const char *line, *option;
  } cases[] = {
      {"-gpgpu_shader_core_pipeline 1000:32", "-gpgpu_shader_core_pipeline"},
      {"-gpgpu_clock_domains 700:700:700", "-gpgpu_clock_domains"},
      {"-gpgpu_cache:dl1 S:4:128:64", "-gpgpu_cache:dl1"},
      {"-gpgpu_dram_timing_opt nbk=16:CCD=2", "-gpgpu_dram_timing_opt"},
      {"-gpgpu_dram_partition_queues 8:8:8", "-gpgpu_dram_partition_queues"},
      {"-gpgpu_pipeline_widths 1,1,1", "-gpgpu_pipeline_widths"},
      {"-ptx_opcode_latency_int 1,2,3,4,5,6,7", "-ptx_opcode_latency_int"},
      {"-dram_write_queue_size 16:28:32", "-dram_write_queue_size"},
      {"-gpgpu_mem_addr_mapping dramid@8;RRRRXXXX", "-gpgpu_mem_addr_mapping"},
      {"-gpgpu_dram_scheduler 2", "-gpgpu_dram_scheduler"},
      {"-network_mode mesh", "-network_mode"},
      {"-gpgpu_fence_latency 2,8,668", "-gpgpu_fence_latency"},
      {"-gpgpu_fence_latency 2,8,x,1428", "-gpgpu_fence_latency"},
  };
  for (const auto &c : cases) {
    Gpu g;
    ASSERT_EQ(g.load(std::string("-gpgpu_n_clusters 2\n") + c.line + "\n"), SIMTVP_ERR_PARSE)
        << c.line;
    EXPECT_STREQ(g.diag.option, c.option) << c.line;
    EXPECT_EQ(g.diag.line, 2u) << c.line;
  }
}

TEST(GpuConfig, InconsistentCountsAreErrors) {
  Gpu g;
  ASSERT_EQ(g.load("-gpgpu_n_clusters 0\n"), SIMTVP_OK);
  EXPECT_EQ(g.finalize(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(g.diag.option, "-gpgpu_n_clusters");
  EXPECT_EQ(g.diag.line, 1u);
  Gpu h;
  ASSERT_EQ(h.load("-gpgpu_n_mem 300\n"), SIMTVP_OK);
  EXPECT_EQ(h.finalize(), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(h.diag.option, "-gpgpu_n_mem");
}

TEST(GpuConfig, DumpLoadsBackToTheSameConfiguration) {
  Gpu a;
  ASSERT_EQ(a.load_file(kSource + "/configs/SM75_RTX2060.config"), SIMTVP_OK) << a.diag.message;
  ASSERT_EQ(a.finalize(), SIMTVP_OK);
  std::string dumped = dump_of(a.r);
  Gpu b;
  ASSERT_EQ(b.load(dumped), SIMTVP_OK) << b.diag.message;
  ASSERT_EQ(b.finalize(), SIMTVP_OK) << b.diag.message;
  EXPECT_EQ(0, memcmp(a.cfg.get(), b.cfg.get(), sizeof(gpu_config)));
}

TEST(GpuConfig, LoadingIsDeterministic) {
  Gpu a, b;
  ASSERT_EQ(a.load_file(kSource + "/configs/default.config"), SIMTVP_OK);
  ASSERT_EQ(b.load_file(kSource + "/configs/default.config"), SIMTVP_OK);
  EXPECT_EQ(dump_of(a.r), dump_of(b.r));
}

// ---- generated reference ------------------------------------------------------------------

TEST(ConfigDocs, ConfigurationReferenceMatchesTheOptionTables) {
  Gpu g;
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  config_registry_write_markdown(g.r, f);
  fclose(f);
  std::string generated(buf, len);
  free(buf);
  std::string committed = slurp(kSource + "/docs/configuration.md");
  EXPECT_TRUE(generated == committed)
      << "docs/configuration.md is out of date: regenerate it with\n"
         "  cmake --build <build> --target simtvp_config_docs";
}

TEST(ConfigDocs, EveryOptionIsDocumentedWithTypeDefaultAndDescription) {
  Gpu g;
  size_t n = config_registry_count(g.r);
  ASSERT_GT(n, 200u);
  std::string committed = slurp(kSource + "/docs/configuration.md");
  for (size_t i = 0; i < n; i++) {
    const config_block *blk = nullptr;
    const config_option *o = config_registry_option(g.r, i, &blk);
    ASSERT_NE(o, nullptr);
    EXPECT_NE(blk, nullptr);
    EXPECT_TRUE(o->description && *o->description) << o->name;
    EXPECT_NE(committed.find(std::string("| `") + o->name + "` |"), std::string::npos) << o->name;
  }
}

TEST(ConfigRegistry, DecimalPointIsADotWhateverTheProgramsLocale) {
  const char *old = setlocale(LC_NUMERIC, nullptr);
  std::string saved = old ? old : "C";
  if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
    GTEST_SKIP() << "no locale with a ',' decimal point installed";
  Gpu g;
  simtvp_status st = g.load("-gpgpu_clock_domains 1132.5:1132.0:1132.0:850.25\n-host_clock_mhz 2.5\n");
  simtvp_status fin = st == SIMTVP_OK ? g.finalize() : st;
  setlocale(LC_NUMERIC, saved.c_str());
  ASSERT_EQ(st, SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(fin, SIMTVP_OK) << g.diag.message;
  EXPECT_DOUBLE_EQ(g.cfg->derived.core_mhz, 1132.5);
  EXPECT_DOUBLE_EQ(g.cfg->derived.dram_mhz, 850.25);
  EXPECT_DOUBLE_EQ(g.cfg->host.host_clock_mhz, 2.5);
}

namespace {
std::string spec_words(const char *spec, std::string *why = nullptr) {
  const char *w[GPU_FIDELITY_SPEC_WORDS];
  uint32_t n = 0;
  char text[512] = "";
  if (!gpu_fidelity_spec_options(spec, w, &n, text, sizeof text)) {
    if (why) *why = text;
    return "error";
  }
  std::string out;
  for (uint32_t i = 0; i < n; i++) out += (i ? " " : "") + std::string(w[i]);
  return out;
}
}  // namespace

TEST(GpuFidelitySpec, NamedAssignmentsSelectEveryBlocksModel) {
  EXPECT_EQ(spec_words("ca"), "-simt_model ca -icnt_model ca -mempart_model ca -dram_model ca");
  EXPECT_EQ(spec_words("at"), "-simt_model at -icnt_model at -mempart_model at -dram_model at");
  EXPECT_EQ(spec_words("at-cores"), "-simt_model at -icnt_model ca -mempart_model ca -dram_model ca");
  EXPECT_EQ(spec_words("at-mem"), "-simt_model ca -icnt_model at -mempart_model at -dram_model at");
  EXPECT_EQ(spec_words("func"), "-simt_model func");
  EXPECT_EQ(spec_words("at-sampled"),
            "-simt_model at -icnt_model at -mempart_model at -dram_model at -at_sample " GPU_FIDELITY_SAMPLED);
}

TEST(GpuFidelitySpec, BlockItemsChangeTheAllCaAssignment) {
  EXPECT_EQ(spec_words("simt=at,dram=at"), "-simt_model at -icnt_model ca -mempart_model ca -dram_model at");
  EXPECT_EQ(spec_words("mem=at"), "-simt_model ca -icnt_model at -mempart_model at -dram_model at");
  EXPECT_EQ(spec_words("mem=at,icnt=ca"), "-simt_model ca -icnt_model ca -mempart_model at -dram_model at");
  EXPECT_EQ(spec_words("simt=func,mem=at"), "-simt_model func");
  EXPECT_EQ(spec_words("simt=interval"), "-simt_model interval -icnt_model ca -mempart_model ca -dram_model ca");
}

TEST(GpuFidelitySpec, IntervalMeansIntervalCoresOnTheAtMemorySystem) {
  EXPECT_EQ(spec_words("interval"), "-simt_model interval -icnt_model at -mempart_model at -dram_model at");
  std::string why;
  EXPECT_EQ(spec_words("dram=interval", &why), "error"); /* only SIMT cores have an interval model */
  EXPECT_NE(why.find("interval for simt"), std::string::npos) << why;
}

TEST(GpuFidelitySpec, UnknownBlocksAndModelsAreNamed) {
  std::string why;
  for (const char *bad : {"", "fast", "simt=fast", "dram=func", "gpu=at", "simt", "simt=at,,dram=at"}) {
    why.clear();
    EXPECT_EQ(spec_words(bad, &why), "error") << bad;
    EXPECT_NE(why.find("expected"), std::string::npos) << bad << ": " << why;
  }
  spec_words("simt=at,l2=ca", &why);
  EXPECT_NE(why.find("'l2=ca'"), std::string::npos) << why;
}

TEST(GpuFidelityMap, SaysEachBlockInstancesModelWithRangesWhenTheyDiffer) {
  gpu_config cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.derived.n_cores = 8;
  cfg.mem.n_channels = 3;
  cfg.fidelity.simt_model = GPU_FIDELITY_CA;
  cfg.fidelity.icnt_model = GPU_FIDELITY_AT;
  for (int i = 0; i < 8; i++) cfg.derived.simt_model_of_core[i] = i < 4 ? GPU_FIDELITY_AT : GPU_FIDELITY_CA;
  cfg.derived.simt_model_of_core[7] = GPU_FIDELITY_FUNC;
  for (int c = 0; c < 3; c++) {
    cfg.derived.mempart_model_of_channel[c] = GPU_FIDELITY_CA;
    cfg.derived.dram_model_of_channel[c] = c == 1 ? GPU_FIDELITY_CA : GPU_FIDELITY_AT;
  }
  char text[256];
  size_t need = gpu_config_fidelity_map(&cfg, text, sizeof text);
  EXPECT_STREQ(text, "simt=0-3:at,4-6:ca,7:func icnt=at mempart=ca dram=0:at,1:ca,2:at");
  EXPECT_EQ(need, std::strlen(text));
  char small[10];
  EXPECT_EQ(gpu_config_fidelity_map(&cfg, small, sizeof small), need) << "the length it needed";
  EXPECT_EQ(std::strlen(small), sizeof small - 1);
  // sampled AT cores are part of the map; without an AT core the option changes nothing
  cfg.derived.at_sample_detail = 4000;
  cfg.derived.at_sample_period = 12000;
  gpu_config_fidelity_map(&cfg, text, sizeof text);
  EXPECT_STREQ(text, "simt=0-3:at,4-6:ca,7:func icnt=at mempart=ca dram=0:at,1:ca,2:at at_sample=4000,12000");
  for (int i = 0; i < 8; i++) cfg.derived.simt_model_of_core[i] = GPU_FIDELITY_CA;
  gpu_config_fidelity_map(&cfg, text, sizeof text);
  EXPECT_STREQ(text, "simt=ca icnt=at mempart=ca dram=0:at,1:ca,2:at");
}
