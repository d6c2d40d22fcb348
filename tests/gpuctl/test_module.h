// A small ptx_module built by hand (no parser needed): a .func, a kernel with two parameters,
// initialised .global and .const variables, a pointer to a global and a function pointer.
#ifndef SIMTVP_TEST_MODULE_H
#define SIMTVP_TEST_MODULE_H

#include <cstring>
#include <vector>

#include "ptx.h"

struct TestModule {
  std::vector<ptx_function> functions;
  std::vector<ptx_symbol> symbols;
  std::vector<ptx_insn> insns;
  std::vector<ptx_block> blocks;
  std::vector<uint32_t> param_list;
  std::vector<const char *> reg_names{"%r1", "%rd2"};
  std::vector<const char *> files{"", "kern.cu"};
  std::vector<uint8_t> init;
  std::vector<ptx_reloc> relocs;
  ptx_module m{};

  TestModule() {
    ptx_function helper{}, kern{};
    helper.name = "helper";
    helper.first_insn = 0;
    helper.n_insns = 2;
    helper.first_block = 0;
    helper.n_blocks = 1;
    kern.name = "kern";
    kern.flags = PTX_FN_ENTRY | PTX_FN_VISIBLE;
    kern.first_insn = 2;
    kern.n_insns = 3;
    kern.first_block = 1;
    kern.n_blocks = 1;
    kern.first_param = 0;
    kern.n_params = 2;
    kern.res.regs_per_thread = 20;
    kern.res.shared_bytes = 1024;
    kern.res.local_bytes = 16;
    kern.res.param_bytes = 12;
    functions = {helper, kern};
    auto sym = [](const char *n, uint8_t space, uint16_t flags, uint64_t size, uint64_t off, uint32_t fn,
                  uint64_t init_off) {
      ptx_symbol s{};
      s.name = n;
      s.space = space;
      s.flags = flags;
      s.size = size;
      s.offset = off;
      s.function = fn;
      s.init_offset = init_off;
      s.align = 8;
      return s;
    };
    symbols = {
        sym("kern_param_0", PTX_SPACE_PARAM, PTX_SYM_ENTRY_PARAM, 8, 0, 1, 0),
        sym("kern_param_1", PTX_SPACE_PARAM, PTX_SYM_ENTRY_PARAM, 4, 8, 1, 0),
        sym("gtable", PTX_SPACE_GLOBAL, PTX_SYM_HAS_INIT, 16, 0, PTX_NONE, 0),
        sym("gptr", PTX_SPACE_GLOBAL, PTX_SYM_HAS_INIT, 8, 16, PTX_NONE, 24),
        sym("cvals", PTX_SPACE_CONST, PTX_SYM_HAS_INIT, 8, 0, PTX_NONE, 16),
        sym("fptr", PTX_SPACE_GLOBAL, PTX_SYM_HAS_INIT, 8, 24, PTX_NONE, 24),
    };
    for (int i = 0; i < 16; i++) init.push_back((uint8_t)(0xA0 + i));  // gtable
    for (int i = 0; i < 8; i++) init.push_back((uint8_t)(0xC0 + i));   // cvals
    for (int i = 0; i < 8; i++) init.push_back(0);                      // pointers (patched)
    ptx_reloc r1{}, r2{};
    r1.symbol = 3;
    r1.target = 2;
    r1.bytes = 8;
    r1.addend = 4;  // &gtable + 4
    r2.symbol = 5;
    r2.target = 0;
    r2.is_function = true;
    r2.bytes = 8;  // &helper
    relocs = {r1, r2};
    for (uint32_t i = 0; i < 5; i++) {
      ptx_insn in{};
      in.opcode = (uint16_t)(i + 1);
      in.function = i < 2 ? 0 : 1;
      in.block = i < 2 ? 0 : 1;
      in.ptx_line = 10 + i;
      in.guard = PTX_NONE;
      in.reconverge = PTX_NONE;
      insns.push_back(in);
    }
    ptx_block b0{}, b1{};
    b0.first_insn = 0;
    b0.n_insns = 2;
    b0.succ[0] = b0.succ[1] = b0.ipdom = PTX_NONE;
    b1 = b0;
    b1.first_insn = 2;
    b1.n_insns = 3;
    blocks = {b0, b1};
    param_list = {0, 1};
    m.source_name = "test_module.ptx";
    m.version_major = 8;
    m.version_minor = 5;
    m.target_sm = 75;
    m.address_size = 64;
    m.functions = functions.data();
    m.n_functions = (uint32_t)functions.size();
    m.symbols = symbols.data();
    m.n_symbols = (uint32_t)symbols.size();
    m.insns = insns.data();
    m.n_insns = (uint32_t)insns.size();
    m.blocks = blocks.data();
    m.n_blocks = (uint32_t)blocks.size();
    m.param_list = param_list.data();
    m.n_param_list = (uint32_t)param_list.size();
    m.reg_names = reg_names.data();
    m.n_reg_names = (uint32_t)reg_names.size();
    m.init_data = init.data();
    m.init_data_size = init.size();
    m.relocs = relocs.data();
    m.n_relocs = (uint32_t)relocs.size();
    m.files = files.data();
    m.n_files = (uint32_t)files.size();
    m.global_segment_bytes = 32;
    m.const_segment_bytes = 8;
  }
  TestModule(const TestModule &) = delete;
  TestModule &operator=(const TestModule &) = delete;
};

#endif  // SIMTVP_TEST_MODULE_H
