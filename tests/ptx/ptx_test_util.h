// Helpers shared by the PTX front-end tests: parse text or a fixture, collect warnings, look up
// functions, symbols and instructions by what they are.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ptx.h"

namespace ptxtest {

inline std::string fixture_path(const std::string &name) {
  return std::string(SIMTVP_SOURCE_DIR) + "/tests/ptx/fixtures/" + name;
}

inline std::string read_fixture(const std::string &name) {
  std::ifstream f(fixture_path(name), std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ModuleDeleter {
  void operator()(ptx_module *m) const { ptx_module_destroy(m); }
};
using Module = std::unique_ptr<ptx_module, ModuleDeleter>;

struct Parse {
  Module m;
  simtvp_diag diag{};
  std::vector<std::string> warnings;
};

inline void collect(void *ctx, simtvp_severity, const char *msg) {
  static_cast<std::vector<std::string> *>(ctx)->push_back(msg);
}

inline std::unique_ptr<Parse> parse(const std::string &text, const char *name = "test.ptx") {
  auto r = std::make_unique<Parse>();
  simtvp_msg_port port{&r->warnings, collect};
  r->m.reset(ptx_parse(text.data(), text.size(), name, &port, &r->diag));
  return r;
}

// A module header and one kernel body around `body`.
inline std::string kernel(const std::string &decls_and_body, const std::string &params = "") {
  return ".version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry k(" + params + ")\n{\n" +
         decls_and_body + "\n}\n";
}

inline const ptx_function *fn(const ptx_module *m, const char *name) {
  uint32_t i = ptx_find_function(m, name);
  return i == PTX_NONE ? nullptr : &m->functions[i];
}

inline const ptx_symbol *sym(const ptx_module *m, const char *name) {
  uint32_t i = ptx_find_symbol(m, name);
  return i == PTX_NONE ? nullptr : &m->symbols[i];
}

inline std::string format(const ptx_module *m, const ptx_insn &in) {
  char buf[512];
  ptx_insn_format(m, &in, buf, sizeof buf);
  return buf;
}

// The n-th instruction (0-based) of function f with the given opcode.
inline const ptx_insn *find_insn(const ptx_module *m, const ptx_function *f, ptx_opcode op, int nth = 0) {
  for (uint32_t i = f->first_insn; i < f->first_insn + f->n_insns; i++)
    if (m->insns[i].opcode == op && nth-- == 0) return &m->insns[i];
  return nullptr;
}

// The first instruction of function f for which pred(insn) holds.
template <class Pred>
inline const ptx_insn *find_where(const ptx_module *m, const ptx_function *f, Pred pred) {
  for (uint32_t i = f->first_insn; i < f->first_insn + f->n_insns; i++)
    if (pred(m->insns[i])) return &m->insns[i];
  return nullptr;
}

inline const ptx_operand &pool(const ptx_module *m, const ptx_operand &o, uint32_t k) {
  return m->opnd_pool[o.index + k];
}

inline std::string reg_name(const ptx_module *m, const ptx_function *f, const ptx_operand &o) {
  return m->reg_names[f->first_reg_name[o.rclass] + o.index];
}

}  // namespace ptxtest
