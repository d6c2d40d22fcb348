// Program image: what the driver writes is what the GPU side reads back.
#include <gtest/gtest.h>

#include <vector>

#include <functional>
#include <string>

#include "devmem.h"
#include "func.h"
#include "gpu_image.h"
#include "ptx.h"
#include "test_module.h"

namespace {

TEST(GpuImage, RoundTripRebuildsTheModule) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0x1000, 0x2000, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image *img = nullptr;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  ASSERT_EQ(gpu_image_load_bytes(buf.data(), n, 0x5000, &img, &d), SIMTVP_OK) << d.message;
  const ptx_module *m = img->module;
  EXPECT_EQ(img->header.magic, GPU_IMAGE_MAGIC);
  EXPECT_EQ(img->header.global_base, 0x1000u);
  EXPECT_EQ(img->header.const_base, 0x2000u);
  EXPECT_EQ(img->header.n_functions, 2u);
  EXPECT_STREQ(m->source_name, "test_module.ptx");
  ASSERT_EQ(m->n_functions, 2u);
  EXPECT_STREQ(m->functions[1].name, "kern");
  EXPECT_EQ(m->functions[1].res.shared_bytes, 1024u);
  ASSERT_EQ(m->n_symbols, 6u);
  EXPECT_STREQ(m->symbols[4].name, "cvals");
  ASSERT_EQ(m->n_insns, 5u);
  EXPECT_EQ(m->insns[3].ptx_line, 13u);
  EXPECT_EQ(0, memcmp(m->insns, t.m.insns, 5 * sizeof(ptx_insn)));
  EXPECT_STREQ(m->reg_names[1], "%rd2");
  EXPECT_STREQ(m->files[1], "kern.cu");
  EXPECT_EQ(m->init_data_size, t.m.init_data_size);
  EXPECT_EQ(0, memcmp(m->init_data, t.m.init_data, t.m.init_data_size));
  EXPECT_EQ(m->n_relocs, 2u);
  EXPECT_TRUE(m->relocs[1].is_function);
  EXPECT_EQ(m->global_segment_bytes, 32u);
  EXPECT_EQ(m->param_list[1], 1u);
  gpu_image_free(img);
}

// The blocks' successor lists travel with the image (models/func's register-frame and
// zero-on-first-read analyses walk the CFG): a loop's back edge and brx.idx's three targets.
TEST(GpuImage, SuccessorListsTravelWithTheImage) {
  const std::string ptx =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry k(.param .u32 n)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n"
      "  ld.param.u32 %r1, [n];\n  mov.u32 %r2, 0;\nL:\n  add.u32 %r2, %r2, 1;\n"
      "  setp.lt.u32 %p1, %r2, %r1;\n  @%p1 bra L;\n  and.b32 %r3, %r2, 1;\n"
      "  ts: .branchtargets A, B, C;\n  brx.idx %r3, ts;\nA:\n  add.u32 %r2, %r2, 1;\n  bra J;\n"
      "B:\n  add.u32 %r2, %r2, 2;\n  bra J;\nC:\n  add.u32 %r2, %r2, 3;\nJ:\n  ret;\n}\n";
  simtvp_diag d;
  simtvp_diag_clear(&d);
  ptx_module *src = ptx_parse(ptx.data(), ptx.size(), "cfg.ptx", nullptr, &d);
  ASSERT_NE(src, nullptr) << d.message;
  ASSERT_GT(src->n_succ_list, 0u);
  uint64_t n = gpu_image_size(src);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(src, 0x1000, 0x2000, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image *img = nullptr;
  ASSERT_EQ(gpu_image_load_bytes(buf.data(), n, 0x5000, &img, &d), SIMTVP_OK) << d.message;
  const ptx_module *m = img->module;
  ASSERT_EQ(m->n_blocks, src->n_blocks);
  ASSERT_EQ(m->n_succ_list, src->n_succ_list);
  bool back_edge = false, three_way = false;
  for (uint32_t b = 0; b < m->n_blocks; b++) {
    const ptx_block &x = m->blocks[b], &y = src->blocks[b];
    ASSERT_EQ(x.n_succ, y.n_succ) << "block " << b;
    for (uint32_t s = 0; s < x.n_succ; s++) {
      EXPECT_EQ(m->succ_list[x.first_succ + s], src->succ_list[y.first_succ + s]) << "block " << b;
      back_edge |= m->succ_list[x.first_succ + s] == b;
    }
    three_way |= x.n_succ == 3;
  }
  EXPECT_TRUE(back_edge) << "the loop's block is its own successor";
  EXPECT_TRUE(three_way) << "brx.idx's block has its three targets";
  gpu_image_free(img);
  ptx_module_destroy(src);
}

TEST(GpuImage, CodeSlotsSit16BytesApartAndNameTheirInstruction) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image_header h;
  memcpy(&h, buf.data(), sizeof h);
  EXPECT_EQ(h.insn_stride, 16u);
  EXPECT_EQ(h.insn_offset % 16, 0u);
  gpu_image_code_slot s;
  memcpy(&s, buf.data() + h.insn_offset + 3 * 16, sizeof s);
  EXPECT_EQ(s.pc, 3u);
  EXPECT_EQ(s.opcode, 4u);
  EXPECT_EQ(s.function, 1u);
  // Function 1 starts at instruction 2: its address is code_base + 2 * 16.
  EXPECT_EQ(gpu_image_function_addr(0x10000, &h, &t.m, 1), 0x10000 + h.insn_offset + 32);
}

TEST(GpuImage, CorruptImageIsRejectedNotMisread) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image *img = nullptr;
  simtvp_diag d;
  std::vector<uint8_t> bad = buf;
  bad[0] ^= 0xFF;  // magic
  EXPECT_EQ(gpu_image_load_bytes(bad.data(), n, 0x7000, &img, &d), SIMTVP_ERR_PARSE);
  EXPECT_EQ(d.address, 0x7000u);
  EXPECT_EQ(img, nullptr);
  EXPECT_EQ(gpu_image_load_bytes(buf.data(), n / 2, 0, &img, &d), SIMTVP_ERR_PARSE) << "truncated";
  bad = buf;
  gpu_image_header h;
  memcpy(&h, bad.data(), sizeof h);
  uint32_t huge = 0x7FFFFFFF;  // layout: sizeof_function field
  memcpy(bad.data() + h.layout_offset, &huge, 4);
  EXPECT_EQ(gpu_image_load_bytes(bad.data(), n, 0, &img, &d), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::string(d.message).find("record sizes"), std::string::npos) << d.message;
}

// ---- a buggy driver's images (issue 14): every index, count, range and alignment is checked ----

// Builds the image of t (after edit changed it) and loads it; returns the load status, d the diag.
simtvp_status load_edited(TestModule &t, const std::function<void(TestModule &)> &edit, simtvp_diag &d) {
  edit(t);
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  EXPECT_EQ(gpu_image_build(&t.m, 0x1000, 0x2000, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image *img = nullptr;
  simtvp_diag_clear(&d);
  simtvp_status st = gpu_image_load_bytes(buf.data(), n, 0x9000, &img, &d);
  EXPECT_EQ(st == SIMTVP_OK, img != nullptr);
  gpu_image_free(img);
  return st;
}

void expect_refused(const std::function<void(TestModule &)> &edit, const char *says) {
  TestModule t;
  simtvp_diag d;
  EXPECT_EQ(load_edited(t, edit, d), SIMTVP_ERR_PARSE) << says;
  EXPECT_NE(std::string(d.message).find(says), std::string::npos) << d.message;
  EXPECT_NE(std::string(d.message).find("program image at 0x9000"), std::string::npos) << d.message;
  EXPECT_EQ(d.address, 0x9000u);
}

TEST(GpuImage, FunctionRangesOutsideTheModuleAreRefused) {
  expect_refused([](TestModule &t) { t.functions[1].n_insns = 4; }, "function 1: instructions [2, +4)");
  expect_refused([](TestModule &t) { t.functions[0].first_block = 7; }, "function 0: blocks");
  // the parameter count that made layout_function ask for 12 GB
  expect_refused([](TestModule &t) { t.functions[1].n_params = 0x7FFFFFFF; }, "function 1: parameters");
  expect_refused([](TestModule &t) { t.functions[0].n_regs[PTX_RC_B32] = 1u << 30; }, "registers of class 1");
}

TEST(GpuImage, InstructionsOutsideTheirFunctionAreRefused) {
  expect_refused([](TestModule &t) { t.insns[3].function = 0; }, "instruction 3 lies outside its function 0");
  expect_refused([](TestModule &t) { t.insns[1].function = 9; }, "instruction 1 belongs to function 9");
  expect_refused([](TestModule &t) { t.insns[0].opcode = PTX_OP_COUNT; }, "instruction 0: a field is out of range");
  expect_refused([](TestModule &t) { t.insns[2].block = 2; }, "instruction 2: block 2 of 2");
  expect_refused([](TestModule &t) { t.insns[4].reconverge = 0; }, "reconverges at instruction 0");
}

TEST(GpuImage, OperandIndicesAreCheckedAgainstWhatTheyName) {
  expect_refused(
      [](TestModule &t) {
        t.functions[1].n_regs[PTX_RC_B32] = 4;
        t.insns[2].ops[0].kind = PTX_OPND_REG;
        t.insns[2].ops[0].rclass = PTX_RC_B32;
        t.insns[2].ops[0].index = 4;
      },
      "operand 0 names register 4 of class 1, its function has 4");
  expect_refused(
      [](TestModule &t) {
        t.insns[2].ops[1].kind = PTX_OPND_LABEL;
        t.insns[2].ops[1].index = 0;  // the other function's first instruction
      },
      "branches to instruction 0, outside its function [2, 5)");
  expect_refused(
      [](TestModule &t) {
        t.insns[2].ops[5].kind = PTX_OPND_SYMBOL;  // past nops: checked as well
        t.insns[2].ops[5].index = 6;
      },
      "operand 5 names symbol 6 of 6");
  expect_refused(
      [](TestModule &t) {
        t.insns[2].ops[0].kind = PTX_OPND_VEC;
        t.insns[2].ops[0].index = 0;
        t.insns[2].ops[0].count = 3;
      },
      "lists 3 operands at 0, the pool holds 0");
  expect_refused([](TestModule &t) { t.insns[2].guard = 0; }, "guard predicate 0, its function has 0");
}

TEST(GpuImage, SymbolsParametersAndRelocationsAreChecked) {
  expect_refused([](TestModule &t) { t.param_list[1] = 6; }, "parameter list entry 1 names symbol 6 of 6");
  expect_refused([](TestModule &t) { t.symbols[2].size = 40; }, "symbol 2: initialiser");
  expect_refused([](TestModule &t) { t.symbols[3].offset = 30; }, "symbol 3: [30, +8) outside its 32-byte segment");
  expect_refused([](TestModule &t) { t.symbols[0].function = 5; }, "symbol 0: a field is out of range");
  expect_refused([](TestModule &t) { t.relocs[0].offset = 4; }, "relocation 0");
  expect_refused([](TestModule &t) { t.relocs[1].target = 2; }, "relocation 1");
  expect_refused([](TestModule &t) { t.blocks[1].ipdom = 5; }, "block 1");
}

TEST(GpuImage, MisalignedSectionIsRefused) {
  // A section moved off its 16-byte alignment would be read as misaligned records (UBSan's
  // report in models/ptx/ptx_names.c before the check).
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image_header h;
  memcpy(&h, buf.data(), sizeof h);
  // layout: 6 record sizes, 4 version fields (u32), 3 segment sizes and source_name (u64), then
  // the sections {offset, count}: insns first.
  const size_t insns_offset = h.layout_offset + 10 * 4 + 4 * 8;
  uint64_t off;
  memcpy(&off, buf.data() + insns_offset, 8);
  off += 4;
  memcpy(buf.data() + insns_offset, &off, 8);
  gpu_image *img = nullptr;
  simtvp_diag d;
  EXPECT_EQ(gpu_image_load_bytes(buf.data(), n, 0, &img, &d), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::string(d.message).find("misaligned"), std::string::npos) << d.message;
}

// Every single-byte corruption of an image either loads into a module the functional engine can
// take (or refuse with a message) or is refused with a message: never a crash, never a silent one.
TEST(GpuImage, EveryByteCorruptionIsRefusedOrLoadsSafely) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> good(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0x1000, 0x2000, good.data(), n, nullptr), SIMTVP_OK);
  devmem *mem = devmem_create();
  func_config cfg{};
  func_engine *e = func_create(&cfg, nullptr, mem, nullptr, nullptr);
  ASSERT_NE(e, nullptr);
  size_t loaded = 0, refused = 0;
  for (uint64_t i = 0; i < n; i++) {
    for (uint8_t v : {(uint8_t)(good[i] ^ 0x80), (uint8_t)0xFF}) {
      std::vector<uint8_t> bad = good;
      if (bad[i] == v) continue;
      bad[i] = v;
      gpu_image *img = nullptr;
      simtvp_diag d;
      simtvp_diag_clear(&d);
      if (gpu_image_load_bytes(bad.data(), n, 0, &img, &d) != SIMTVP_OK) {
        ASSERT_NE(d.message[0], 0) << "byte " << i;
        refused++;
        continue;
      }
      loaded++;
      func_placement pl{};
      func_program *p = nullptr;
      simtvp_diag_clear(&d);
      if (func_program_load(e, img->module, &pl, &p, &d) == SIMTVP_OK) func_program_destroy(p);
      else ASSERT_NE(d.message[0], 0) << "byte " << i;
      gpu_image_free(img);
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(loaded, 0u);
  func_destroy(e);
  devmem_destroy(mem);
}

// The fuzz finding tests/fuzz/regressions/image/param_bytes_4GiB: a consistent image whose kernel
// claims ~4 GiB of parameters. The image is well formed; the functional engine refuses the kernel
// at load (the launch would copy that much), naming the function.
TEST(GpuImage, KernelWithGigabytesOfParametersIsRefusedAtLoad) {
  for (int which = 0; which < 2; which++) {
    TestModule t;
    if (which == 0) t.functions[1].res.param_bytes = 0xFFFFFFF0u;  // the declared size
    else t.symbols[1].size = 0xFFFFFFF0u;                              // one parameter's size
    uint64_t n = gpu_image_size(&t.m);
    std::vector<uint8_t> buf(n);
    ASSERT_EQ(gpu_image_build(&t.m, 0x1000, 0x2000, buf.data(), n, nullptr), SIMTVP_OK);
    gpu_image *img = nullptr;
    simtvp_diag d;
    simtvp_diag_clear(&d);
    ASSERT_EQ(gpu_image_load_bytes(buf.data(), n, 0, &img, &d), SIMTVP_OK) << d.message;
    devmem *mem = devmem_create();
    func_config cfg{};
    func_engine *e = func_create(&cfg, nullptr, mem, nullptr, nullptr);
    func_placement pl{};
    func_program *p = nullptr;
    simtvp_diag_clear(&d);
    EXPECT_EQ(func_program_load(e, img->module, &pl, &p, &d), SIMTVP_ERR_LIMIT) << which;
    EXPECT_NE(std::string(d.message).find("function kern needs"), std::string::npos) << d.message;
    EXPECT_NE(std::string(d.message).find("bytes of kernel parameters, more than the 1048576"), std::string::npos)
        << d.message;
    func_destroy(e);
    devmem_destroy(mem);
    gpu_image_free(img);
  }
}

// The fuzz finding tests/fuzz/regressions/image/pred_read_as_u64: an image's add.u64 whose source
// is a predicate register (a 4-byte lane mask), which the engine read as 8-byte rows (misaligned,
// and past the register). The parser never emits one; the loader refuses it, naming the place.
TEST(GpuImage, PredicateReadAsA64BitSourceIsRefusedAtLoad) {
  const char ptx[] =
      ".version 8.5\n.target sm_75\n.address_size 64\n"
      ".visible .entry k(.param .u64 p)\n{\n"
      "  .reg .pred %p<2>;\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<3>;\n"
      "  ld.param.u64 %rd1, [p];\n"
      "  add.u64 %rd2, %rd1, %rd1;\n"
      "  st.global.u64 [%rd1], %rd2;\n  ret;\n}\n";
  {
    const uint8_t narrow = PTX_RC_PRED;
    simtvp_diag d;
    simtvp_diag_clear(&d);
    ptx_module *m = ptx_parse(ptx, sizeof ptx - 1, "k.ptx", nullptr, &d);
    ASSERT_NE(m, nullptr) << d.message;
    ptx_insn *add = nullptr;
    for (uint32_t i = 0; i < m->n_insns; i++)
      if (m->insns[i].ptx_line == 10) add = const_cast<ptx_insn *>(&m->insns[i]);
    ASSERT_NE(add, nullptr);
    ASSERT_EQ(add->ops[2].kind, PTX_OPND_REG);
    add->ops[2].rclass = narrow;  // what a corrupted image holds; index 0 exists in both classes
    add->ops[2].index = 1;  // %p1: its mask sits at a 4 (mod 8) offset
    devmem *mem = devmem_create();
    func_config cfg{};
    func_engine *e = func_create(&cfg, nullptr, mem, nullptr, nullptr);
    func_placement pl{};
    func_program *p = nullptr;
    simtvp_diag_clear(&d);
    EXPECT_EQ(func_program_load(e, m, &pl, &p, &d), SIMTVP_ERR_UNSUPPORTED) << (int)narrow;
    EXPECT_NE(std::string(d.message).find("k.ptx:10:"), std::string::npos) << d.message;
    EXPECT_NE(std::string(d.message).find("a predicate register as a 64-bit source"), std::string::npos)
        << d.message;
    if (p) func_program_destroy(p);
    func_destroy(e);
    devmem_destroy(mem);
    ptx_module_destroy(m);
  }
}

TEST(GpuImage, TooSmallBufferIsAnArgumentError) {
  TestModule t;
  std::vector<uint8_t> buf(64);
  EXPECT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), buf.size(), nullptr), SIMTVP_ERR_ARG);
}

}  // namespace
