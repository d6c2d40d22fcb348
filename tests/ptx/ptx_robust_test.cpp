// Robustness: deterministic truncations and mutations of valid fixtures. Every parse must return
// either a consistent module or a diag with a status and a message — never crash, never hang.
#include "ptx_test_util.h"

#include <cstdlib>

using namespace ptxtest;

namespace {

struct Rng { // xorshift64*: deterministic across platforms
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  uint32_t below(uint32_t n) { return n ? static_cast<uint32_t>(next() % n) : 0; }
};

// Checks that every index in the module points inside its table.
void check_module(const ptx_module *m) {
  char buf[256];
  for (uint32_t i = 0; i < m->n_insns; i++) {
    const ptx_insn &in = m->insns[i];
    ASSERT_LT(in.function, m->n_functions);
    ASSERT_LT(in.block, m->n_blocks);
    const ptx_function &f = m->functions[in.function];
    ASSERT_LE(in.nops, PTX_MAX_OPERANDS);
    if (in.guard != PTX_NONE) {
      ASSERT_LT(in.guard, f.n_regs[PTX_RC_PRED]);
    }
    if (in.reconverge != PTX_NONE) {
      ASSERT_LT(in.reconverge, m->n_insns);
    }
    for (uint32_t k = 0; k < in.nops; k++) {
      const ptx_operand &o = in.ops[k];
      switch (o.kind) {
      case PTX_OPND_REG: ASSERT_LT(o.index, f.n_regs[o.rclass]); break;
      case PTX_OPND_ADDR:
        if (o.index != PTX_NONE) {
      ASSERT_LT(o.index, f.n_regs[o.rclass]);
    }
        if (o.base_sym != PTX_NONE) {
      ASSERT_LT(o.base_sym, m->n_symbols);
    }
        break;
      case PTX_OPND_VEC:
      case PTX_OPND_LIST: ASSERT_LE(uint64_t(o.index) + o.count, m->n_opnd_pool); break;
      case PTX_OPND_LABEL: ASSERT_LT(o.index, m->n_insns); break;
      case PTX_OPND_FUNC:
      case PTX_OPND_PROTO: ASSERT_LT(o.index, m->n_functions); break;
      case PTX_OPND_SYMBOL: ASSERT_LT(o.index, m->n_symbols); break;
      case PTX_OPND_SREG: ASSERT_LT(o.index, uint32_t(PTX_SREG_COUNT)); break;
      default: break;
      }
      if (o.flags & PTX_OPND_PAIR) {
      ASSERT_LT(o.pair, f.n_regs[PTX_RC_PRED]);
    }
    }
    ptx_insn_format(m, &in, buf, sizeof buf);
  }
  for (uint32_t b = 0; b < m->n_blocks; b++) {
    const ptx_block &bl = m->blocks[b];
    ASSERT_LE(uint64_t(bl.first_insn) + bl.n_insns, m->n_insns);
    ASSERT_GT(bl.n_insns, 0u);
    ASSERT_LE(uint64_t(bl.first_succ) + bl.n_succ, m->n_succ_list);
    if (bl.ipdom != PTX_NONE) {
      ASSERT_LT(bl.ipdom, m->n_blocks);
    }
  }
  for (uint32_t s = 0; s < m->n_symbols; s++)
    if (m->symbols[s].flags & PTX_SYM_HAS_INIT) {
      ASSERT_LE(m->symbols[s].init_offset + m->symbols[s].size, m->init_data_size);
    }
  for (uint32_t r = 0; r < m->n_relocs; r++) ASSERT_LT(m->relocs[r].symbol, m->n_symbols);
}

void check_one(const std::string &text, const char *what, uint64_t iter) {
  auto r = parse(text, "mut.ptx");
  if (r->m) {
    EXPECT_EQ(r->diag.status, SIMTVP_OK);
    check_module(r->m.get());
  } else {
    ASSERT_NE(r->diag.status, SIMTVP_OK) << what << " #" << iter;
    ASSERT_NE(r->diag.message[0], '\0') << what << " #" << iter;
    if (r->diag.status == SIMTVP_ERR_PARSE) {
      ASSERT_TRUE(r->diag.where & SIMTVP_WHERE_FILE);
      ASSERT_GE(r->diag.line, 1u) << r->diag.message;
    }
  }
}

const char *const kFixtures[] = {"vecadd.ptx", "features.ptx", "control.ptx", "warp.ptx", "texture.ptx",
                                 "wmma.ptx", "async_sm80.ptx", "griddep_sm90.ptx", "legacy_ptx65.ptx", "runtime.ptx",
                                 "hand_sm90.ptx"};

}  // namespace

TEST(PtxRobust, TruncatedFixturesReturnAModuleOrADiag) {
  int parses = 0;
  for (const char *name : kFixtures) {
    std::string text = read_fixture(name);
    ASSERT_FALSE(text.empty()) << name;
    size_t step = text.size() / 300 + 1;
    for (size_t n = 0; n <= text.size(); n += step, parses++) check_one(text.substr(0, n), name, n);
  }
  EXPECT_GT(parses, 2000);
}

TEST(PtxRobust, MutatedFixturesReturnAModuleOrADiag) {
  static const char kBytes[] = "{}()[];,.%@!|<>:+-_0123456789\"/*\n \t\xff\x01xXfFdD$eE";
  // SIMTVP_PTX_FUZZ_ITERS / SIMTVP_PTX_FUZZ_SEED run a longer or different sweep by hand
  const char *env_iters = getenv("SIMTVP_PTX_FUZZ_ITERS"), *env_seed = getenv("SIMTVP_PTX_FUZZ_SEED");
  const int iters = env_iters ? atoi(env_iters) : 600;
  Rng rng{env_seed ? strtoull(env_seed, nullptr, 0) : 0x9e3779b97f4a7c15ull};
  int parses = 0;
  for (const char *name : kFixtures) {
    const std::string orig = read_fixture(name);
    for (int it = 0; it < iters; it++, parses++) {
      std::string t = orig;
      int edits = 1 + static_cast<int>(rng.below(4));
      for (int e = 0; e < edits && !t.empty(); e++) {
        uint32_t pos = rng.below(static_cast<uint32_t>(t.size()));
        switch (rng.below(6)) {
        case 0: t[pos] = kBytes[rng.below(sizeof kBytes - 1)]; break;
        case 1: t.erase(pos, 1 + rng.below(24)); break;
        case 2: t.insert(pos, t.substr(rng.below(static_cast<uint32_t>(t.size())), 1 + rng.below(64))); break;
        case 3: t.insert(pos, 1, kBytes[rng.below(sizeof kBytes - 1)]); break;
        case 5: { // a number becomes an extreme one (sizes, counts, offsets, alignments)
          static const char *const kNums[] = {"0", "4294967295", "4294967296", "18446744073709551615",
                                              "9223372036854775808", "1099511627776", "16777217",
                                              "134217729", "65536", "-1", "0x7fffffff", "3"};
          size_t d = t.find_first_of("0123456789", pos);
          if (d != std::string::npos) {
            size_t e = t.find_first_not_of("0123456789", d);
            t.replace(d, (e == std::string::npos ? t.size() : e) - d, kNums[rng.below(12)]);
          }
          break;
        }
        case 4: { // swap two lines
          size_t a = t.find('\n', pos), b = t.find('\n', rng.below(static_cast<uint32_t>(t.size())));
          if (a != std::string::npos && b != std::string::npos && a != b) {
            size_t ae = t.find('\n', a + 1), be = t.find('\n', b + 1);
            if (ae != std::string::npos && be != std::string::npos) {
              std::string la = t.substr(a, ae - a), lb = t.substr(b, be - b);
              if (a < b && ae <= b) t = t.substr(0, a) + lb + t.substr(ae, b - ae) + la + t.substr(be);
            }
          }
          break;
        }
        }
      }
      check_one(t, name, static_cast<uint64_t>(it));
    }
  }
  EXPECT_GE(parses, 5000);
}

TEST(PtxRobust, RandomBytesReturnADiag) {
  Rng rng{42};
  for (int it = 0; it < 500; it++) {
    std::string t(1 + rng.below(400), '\0');
    for (char &c : t) c = static_cast<char>(rng.below(256));
    check_one(t, "random", static_cast<uint64_t>(it));
  }
}
