// DramTiming / DramConfig — the -gpgpu_dram_timing_opt parser in both forms, malformed strings
// (each must name the option and the field), derived turnarounds and the per-channel model choice.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "dram.h"
}

namespace {

simtvp_status Parse(const char *text, dram_timing *t, simtvp_diag *d) {
  simtvp_diag_clear(d);
  return dram_timing_parse(text, t, d);
}

void ExpectManualExample(const dram_timing &t) {
  EXPECT_EQ(t.nbk, 16u);
  EXPECT_EQ(t.tCCD, 2u);
  EXPECT_EQ(t.tRRD, 6u);
  EXPECT_EQ(t.tRCD, 12u);
  EXPECT_EQ(t.tRAS, 28u);
  EXPECT_EQ(t.tRP, 12u);
  EXPECT_EQ(t.tRC, 40u);
  EXPECT_EQ(t.CL, 12u);
  EXPECT_EQ(t.WL, 4u);
  EXPECT_EQ(t.tCDLR, 5u);
  EXPECT_EQ(t.tWR, 12u);
}

// Expects a parse error whose message names the option and `field`.
void ExpectError(const char *text, const char *field) {
  dram_timing t;
  simtvp_diag d;
  EXPECT_EQ(Parse(text, &t, &d), SIMTVP_ERR_PARSE) << text;
  std::string msg = d.message;
  EXPECT_NE(msg.find("-gpgpu_dram_timing_opt"), std::string::npos) << msg;
  EXPECT_STREQ(d.option, "-gpgpu_dram_timing_opt");
  if (field) {
    EXPECT_NE(msg.find(std::string("'") + field + "'"), std::string::npos) << msg;
  }
}

}  // namespace

TEST(DramTiming, NamedFormParses) {
  dram_timing t;
  simtvp_diag d;
  ASSERT_EQ(Parse("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:"
                  "nbkgrp=1:CCDL=0:RTPL=0",
                  &t, &d),
            SIMTVP_OK)
      << d.message;
  ExpectManualExample(t);
  EXPECT_EQ(t.nbkgrp, 1u);
  EXPECT_EQ(t.tCCDL, 0u);
  EXPECT_EQ(t.tRTPL, 0u);
}

TEST(DramTiming, NamedFormToleratesQuotesNewlinesAndAnyOrder) {
  dram_timing t;
  simtvp_diag d;
  // As written in the TITAN V gpgpusim.config: quoted, split over two lines, spaces after ':'.
  ASSERT_EQ(Parse("\"nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:\n"
                  "                        CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3\"",
                  &t, &d),
            SIMTVP_OK)
      << d.message;
  EXPECT_EQ(t.nbkgrp, 4u);
  EXPECT_EQ(t.tCCDL, 2u);
  EXPECT_EQ(t.tRTPL, 3u);
  EXPECT_EQ(t.WL, 2u);
  ASSERT_EQ(Parse("tRCD=12:nbk=16:tCCD=2:RRD=6:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12", &t, &d),
            SIMTVP_OK)
      << d.message;
  ExpectManualExample(t);
  EXPECT_EQ(t.nbkgrp, 1u);  // bank groups default off
}

TEST(DramTiming, OrderedFormParses) {
  dram_timing t;
  simtvp_diag d;
  ASSERT_EQ(Parse("16:2:6:12:28:12:40:12:4:5:12:4:3:2", &t, &d), SIMTVP_OK) << d.message;
  ExpectManualExample(t);
  EXPECT_EQ(t.nbkgrp, 4u);
  EXPECT_EQ(t.tCCDL, 3u);
  EXPECT_EQ(t.tRTPL, 2u);
  // The legacy 11-field form leaves bank groups off.
  ASSERT_EQ(Parse("16:2:6:12:28:12:40:12:4:5:12", &t, &d), SIMTVP_OK) << d.message;
  ExpectManualExample(t);
  EXPECT_EQ(t.nbkgrp, 1u);
  EXPECT_EQ(t.tCCDL, 0u);
}

TEST(DramTiming, BothFormsAgree) {
  dram_timing a, b;
  simtvp_diag d;
  ASSERT_EQ(Parse("16:2:6:12:28:12:40:12:4:5:12:1:0:0", &a, &d), SIMTVP_OK);
  ASSERT_EQ(Parse("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:"
                  "CCDL=0:RTPL=0",
                  &b, &d),
            SIMTVP_OK);
  EXPECT_EQ(0, memcmp(&a, &b, sizeof a));
}

TEST(DramTiming, MalformedStringsNameTheField) {
  ExpectError("nbk=16:CCD=x:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12", "CCD");
  ExpectError("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:CL=12:WL=4:CDLR=5:WR=12", "RC");  // missing
  ExpectError("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:FOO=1", "FOO");
  ExpectError("nbk=16:CCD=2:CCD=3:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12", "CCD");
  ExpectError("nbk=16:CCD=2:RRD=6:RCD=:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12", "RCD");
  ExpectError("nbk=16:CCD=-2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12", "CCD");
  ExpectError("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=3",
              "nbkgrp");  // 3 does not divide 16
  ExpectError("16:2:6:1x:28:12:40:12:4:5:12", "RCD");  // 4th ordered field
  ExpectError("16:2:6:12:28:12:40:12:4:5", "WR");       // 10 fields: tWR missing
  ExpectError("0:2:6:12:28:12:40:12:4:5:12", "nbk");
  ExpectError("16:2:6:12:28:12:40:12:4:5:12:1:0:0:9", nullptr);  // 15 fields
  ExpectError("", nullptr);
  ExpectError("nbk=16:CCD=2:RRD", nullptr);  // key without '='
}

TEST(DramConfig, DerivedTurnaroundsFollowGpgpuSim) {
  dram_config cfg;
  dram_config_default(&cfg);
  dram_derived d;
  dram_derive(&cfg, &d);
  EXPECT_EQ(d.burst_cycles, 2u);  // BL 8 / ratio 4
  EXPECT_EQ(d.atom_bytes, 64u);   // 8 beats × 4 bytes × 2 chips
  EXPECT_EQ(d.tRTW, 12u);         // CL 12 + 2 + 2 - WL 4
  EXPECT_EQ(d.tWTR, 11u);         // WL 4 + 2 + tCDLR 5
  EXPECT_EQ(d.tWTP, 18u);         // WL 4 + 2 + tWR 12
  EXPECT_EQ(d.tRTP, 2u);
  // HBM (TITAN V): BL 2, ratio 2, 16-byte channel: one cycle per burst, 32-byte atoms.
  cfg.burst_length = 2;
  cfg.data_command_freq_ratio = 2;
  cfg.bus_width_bytes = 16;
  cfg.chips_per_channel = 1;
  dram_derive(&cfg, &d);
  EXPECT_EQ(d.burst_cycles, 1u);
  EXPECT_EQ(d.atom_bytes, 32u);
}

TEST(DramConfig, InconsistentConfigNamesTheOption) {
  dram_addrmap *map;
  dram_addrmap_config mc = {
      "00000000.00000000.00000000.00000000.RRRRRRRR.RRRRRRRR.BBBBCCCC.CCSSSSSS", 1, 1,
      DRAM_PART_LINEAR};
  ASSERT_EQ(dram_addrmap_create(&mc, &map, nullptr), SIMTVP_OK);
  dram_config cfg;
  dram_config_default(&cfg);
  cfg.addrmap = map;
  simtvp_diag d;
  EXPECT_EQ(dram_config_check(&cfg, &d), SIMTVP_OK);
  cfg.separate_write_queue = true;
  cfg.write_low_watermark = 30;  // above the high watermark 28
  EXPECT_EQ(dram_config_check(&cfg, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-dram_write_queue_size");
  dram_config_default(&cfg);
  cfg.addrmap = map;
  cfg.timing.nbk = 8;  // the map has 4 bank bits
  EXPECT_EQ(dram_config_check(&cfg, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-gpgpu_mem_addr_mapping");
  dram_config_default(&cfg);
  cfg.addrmap = map;
  cfg.tREFI = 100;
  cfg.tRFC = 100;
  EXPECT_EQ(dram_config_check(&cfg, &d), SIMTVP_ERR_CONFIG);
  dram_addrmap_destroy(map);
}

TEST(DramConfig, ModelIsChosenPerChannel) {
  const char *m;
  simtvp_diag d;
  ASSERT_EQ(dram_model_for_channel("at", 5, &m, &d), SIMTVP_OK);
  EXPECT_STREQ(m, "at");
  ASSERT_EQ(dram_model_for_channel(nullptr, 5, &m, &d), SIMTVP_OK);
  EXPECT_STREQ(m, "ca");
  const char *spec = "at;0-3=ca;7=ca";
  for (uint32_t ch = 0; ch < 10; ch++) {
    ASSERT_EQ(dram_model_for_channel(spec, ch, &m, &d), SIMTVP_OK);
    EXPECT_STREQ(m, (ch <= 3 || ch == 7) ? "ca" : "at") << ch;
  }
  EXPECT_EQ(dram_model_for_channel("xx", 0, &m, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-dram_model");
  EXPECT_EQ(dram_model_for_channel("at;3-1=ca", 0, &m, &d), SIMTVP_ERR_CONFIG);
  EXPECT_EQ(dram_model_for_channel("at;2=rtl", 0, &m, &d), SIMTVP_ERR_CONFIG);
}
