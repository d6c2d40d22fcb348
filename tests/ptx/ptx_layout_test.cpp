// Layout and resources: module segments, initialisers and relocations, dynamic shared memory,
// per-function frames, and regs_per_thread from liveness (max simultaneously live 32-bit
// registers, 64-bit counting 2, predicates not counted, plus 2 of overhead; see docs/ptx.md).
#include "ptx_test_util.h"

using namespace ptxtest;

TEST(PtxLayout, ModuleGlobalsAndConstantsAreLaidOutInDeclarationOrder) {
  // gtab[16] @0, gptr (align 8) @16, fps[2] (u64) @24, $str[10] @40: 50 bytes; cf[12] @0 of .const
  auto r = parse(read_fixture("features.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  struct {
    const char *name;
    uint64_t off, size;
    ptx_space space;
  } want[] = {{"gtab", 0, 16, PTX_SPACE_GLOBAL}, {"gptr", 16, 8, PTX_SPACE_GLOBAL},
              {"fps", 24, 16, PTX_SPACE_GLOBAL}, {"$str", 40, 10, PTX_SPACE_GLOBAL},
              {"cf", 0, 12, PTX_SPACE_CONST}};
  for (auto &w : want) {
    const ptx_symbol *s = sym(m, w.name);
    ASSERT_TRUE(s) << w.name;
    EXPECT_EQ(s->offset, w.off) << w.name;
    EXPECT_EQ(s->size, w.size) << w.name;
    EXPECT_EQ(s->space, w.space) << w.name;
    EXPECT_EQ(s->function, PTX_NONE);
  }
  EXPECT_EQ(m->global_segment_bytes, 50u);
  EXPECT_EQ(m->const_segment_bytes, 12u);
}

TEST(PtxLayout, ManagedGlobalsGetWholePagesOfTheirOwnAfterTheOtherGlobals) {
  // a (4 bytes) @0, c[10] (u32) @4: 44 bytes of ordinary globals; then m1 (4 bytes, .managed) on
  // the page at 4096, m2[1500] (6000 bytes, .managed) on the two pages at 8192: 16384 bytes
  auto r = parse(".version 9.0\n.target sm_75\n.address_size 64\n"
                 ".global .align 4 .u32 a = 1;\n"
                 ".global .attribute(.managed) .align 4 .u32 m1 = 5;\n"
                 ".global .u32 c[10];\n"
                 ".global .attribute(.managed) .align 4 .u32 m2[1500];\n");
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(sym(m, "a")->offset, 0u);
  EXPECT_EQ(sym(m, "c")->offset, 4u);
  EXPECT_EQ(sym(m, "m1")->offset, 4096u);
  EXPECT_EQ(sym(m, "m2")->offset, 8192u);
  EXPECT_FALSE(sym(m, "a")->flags & PTX_SYM_MANAGED);
  EXPECT_TRUE(sym(m, "m1")->flags & PTX_SYM_MANAGED);
  EXPECT_TRUE(sym(m, "m1")->flags & PTX_SYM_HAS_INIT);
  EXPECT_TRUE(sym(m, "m2")->flags & PTX_SYM_MANAGED);
  EXPECT_EQ(m->global_segment_bytes, 16384u);
}

TEST(PtxLayout, InitialisersAreLittleEndianAndZeroFilled) {
  auto r = parse(read_fixture("features.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_symbol *gtab = sym(m, "gtab");
  ASSERT_TRUE(gtab->flags & PTX_SYM_HAS_INIT);
  const uint8_t *g = m->init_data + gtab->init_offset;
  uint32_t v[4];
  memcpy(v, g, 16); // {1,0,0,0, 2,0,0,0, 3,0,0,0, 4} — the last three bytes are zero-filled
  EXPECT_EQ(v[0], 1u);
  EXPECT_EQ(v[2], 3u);
  EXPECT_EQ(v[3], 4u);
  const ptx_symbol *cf = sym(m, "cf");
  float f[3];
  memcpy(f, m->init_data + cf->init_offset, 12);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 2.5f);
  EXPECT_EQ(f[2], -3.0f);
  const ptx_symbol *str = sym(m, "$str");
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(m->init_data + str->init_offset)), "hi %d %f\n");

  auto r2 = parse(".version 9.0\n.target sm_75\n.address_size 64\n"
                  ".global .align 4 .f32 x[3] = {1.5, 0f40000000, -2};\n"
                  ".global .f64 y = 0.25;\n.const .u16 z[] = {1, 0xffff};\n"
                  ".global .v2 .u32 w[2] = {{1, 2}, {3, 4}};\n.global .b32 q = (1 << 3) | 1;\n"
                  ".global .f16 h = 1.0;\n");
  ASSERT_TRUE(r2->m) << r2->diag.message;
  m = r2->m.get();
  memcpy(f, m->init_data + sym(m, "x")->init_offset, 12);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], 2.0f);
  EXPECT_EQ(f[2], -2.0f);
  double d;
  memcpy(&d, m->init_data + sym(m, "y")->init_offset, 8);
  EXPECT_EQ(d, 0.25);
  EXPECT_EQ(sym(m, "z")->size, 4u);
  EXPECT_EQ(sym(m, "z")->space, PTX_SPACE_CONST);
  const ptx_symbol *w = sym(m, "w");
  EXPECT_EQ(w->size, 16u);
  EXPECT_EQ(w->align, 8u);
  uint32_t wv[4];
  memcpy(wv, m->init_data + w->init_offset, 16);
  EXPECT_EQ(wv[3], 4u);
  uint32_t q;
  memcpy(&q, m->init_data + sym(m, "q")->init_offset, 4);
  EXPECT_EQ(q, 9u);
  uint16_t h;
  memcpy(&h, m->init_data + sym(m, "h")->init_offset, 2);
  EXPECT_EQ(h, 0x3c00u);
}

TEST(PtxLayout, AddressInitialisersBecomeRelocations) {
  auto r = parse(read_fixture("features.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  uint32_t gptr = ptx_find_symbol(m, "gptr"), fps = ptx_find_symbol(m, "fps");
  ASSERT_EQ(m->n_relocs, 3u);
  EXPECT_EQ(m->relocs[0].symbol, gptr); // generic(gtab)+8
  EXPECT_EQ(m->relocs[0].target, ptx_find_symbol(m, "gtab"));
  EXPECT_TRUE(m->relocs[0].generic);
  EXPECT_FALSE(m->relocs[0].is_function);
  EXPECT_EQ(m->relocs[0].addend, 8);
  EXPECT_EQ(m->relocs[0].bytes, 8u);
  EXPECT_EQ(m->relocs[1].symbol, fps); // {_Z2f1i, _Z2f2i}
  EXPECT_TRUE(m->relocs[1].is_function);
  EXPECT_EQ(m->relocs[1].target, ptx_find_function(m, "_Z2f1i"));
  EXPECT_EQ(m->relocs[2].offset, 8u);
  EXPECT_EQ(m->relocs[2].target, ptx_find_function(m, "_Z2f2i"));
}

TEST(PtxLayout, ByteMaskInitialisersFormOneAddress) {
  // PTX 7.1+: a .b8 array spells an address byte by byte as 0xFF(sym), 0xFF00(sym) …
  std::string bytes;
  for (int k = 0; k < 8; k++) bytes += ", 0xFF" + std::string(2 * k, '0') + "(generic(t)+4)";
  auto r = parse(".version 9.0\n.target sm_75\n.address_size 64\n.global .u32 t[4];\n"
                 ".global .align 8 .b8 s[16] = {1, 0, 0, 0, 0, 0, 0, 0" + bytes + "};\n");
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  ASSERT_EQ(m->n_relocs, 1u);
  EXPECT_EQ(m->relocs[0].offset, 8u);
  EXPECT_EQ(m->relocs[0].bytes, 8u);
  EXPECT_EQ(m->relocs[0].addend, 4);
  EXPECT_TRUE(m->relocs[0].generic);
  EXPECT_EQ(m->init_data[sym(m, "s")->init_offset], 1u);
}

TEST(PtxLayout, ExternSharedIsDynamicWithSizeZero) {
  auto r = parse(read_fixture("features.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_symbol *dyn = sym(r->m.get(), "dyn");
  ASSERT_TRUE(dyn);
  EXPECT_EQ(dyn->space, PTX_SPACE_SHARED);
  EXPECT_TRUE(dyn->flags & PTX_SYM_EXTERN);
  EXPECT_EQ(dyn->size, 0u);
  EXPECT_EQ(dyn->align, 16u);
}

TEST(PtxLayout, KernelSharedAndLocalFrames) {
  auto r = parse(read_fixture("features.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *k = fn(m, "_Z1kPfPKfi1S");
  EXPECT_EQ(k->res.shared_bytes, 512u);
  EXPECT_EQ(k->res.local_bytes, 16u);
  const ptx_symbol *sm = sym(m, "_ZZ1kPfPKfi1SE2sm");
  ASSERT_TRUE(sm);
  EXPECT_EQ(sm->function, static_cast<uint32_t>(k - m->functions));
  EXPECT_EQ(sm->offset, 0u);
  const ptx_symbol *depot = sym(m, "__local_depot3");
  EXPECT_EQ(depot->space, PTX_SPACE_LOCAL);
  EXPECT_EQ(depot->offset, 0u);
}

TEST(PtxLayout, KernelSharedFollowsTheModuleSegmentOnlyWhenItUsesIt) {
  std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n.shared .align 8 .b8 common[24];\n"
                     ".func helper()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, common;\nret;\n}\n"
                     ".entry uses()\n{\n.shared .align 4 .b8 mine[8];\n.reg .b32 %r<2>;\nmov.u32 %r1, mine;\n"
                     "call.uni helper;\nret;\n}\n"
                     ".entry alone()\n{\n.shared .align 4 .b8 mine2[12];\n.reg .b32 %r<2>;\nmov.u32 %r1, mine2;\n"
                     "ret;\n}\n";
  auto r = parse(text);
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(m->shared_segment_bytes, 24u);
  EXPECT_EQ(sym(m, "common")->offset, 0u);
  EXPECT_EQ(sym(m, "mine")->offset, 24u); // after the segment its callee uses
  EXPECT_EQ(fn(m, "uses")->res.shared_bytes, 32u);
  EXPECT_EQ(sym(m, "mine2")->offset, 0u); // this kernel never touches the module segment
  EXPECT_EQ(fn(m, "alone")->res.shared_bytes, 12u);
}

TEST(PtxLayout, FunctionParametersAndReturnsHaveTheirOwnFrames) {
  auto r = parse(".version 9.0\n.target sm_75\n.address_size 64\n"
                 ".func (.param .b64 r0, .param .b32 r1) f(.param .b8 a, .param .align 16 .b8 s[20], .param .f64 d)\n"
                 "{\nret;\n}\n");
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *f = fn(m, "f");
  ASSERT_EQ(f->n_params, 3u);
  ASSERT_EQ(f->n_rets, 2u);
  EXPECT_EQ(m->symbols[m->param_list[f->first_param + 1]].offset, 16u);
  EXPECT_EQ(m->symbols[m->param_list[f->first_param + 2]].offset, 40u);
  EXPECT_EQ(f->res.param_bytes, 48u);
  EXPECT_EQ(m->symbols[m->param_list[f->first_ret + 1]].offset, 8u);
}

// ---- resources -------------------------------------------------------------------------------

TEST(PtxResources, RegsPerThreadIsTheLivenessMaximumPlusOverhead) {
  // live after each instruction: {r1} {r1,r2} {r1,r2,rd1}=1+1+2=4 {r3,rd1}=3 {} -> max 4, +2 = 6
  auto r = parse(kernel(".reg .b32 %r<5>;\n.reg .b64 %rd<3>;\nmov.u32 %r1, 1;\nmov.u32 %r2, 2;\n"
                        "mov.u64 %rd1, 3;\nadd.s32 %r3, %r1, %r2;\nst.global.u32 [%rd1], %r3;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(r->m->functions[0].res.regs_per_thread, 6u);
}

TEST(PtxResources, DeadDestinationsStillNeedARegister) {
  // mov r1 is never read, but at that point r1 occupies a register: max 1, +2 = 3
  auto r = parse(kernel(".reg .b32 %r<5>;\nmov.u32 %r1, 1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(r->m->functions[0].res.regs_per_thread, 3u);
}

TEST(PtxResources, PredicatesAreNotCounted) {
  auto r = parse(kernel(".reg .pred %p<9>;\n.reg .b32 %r<3>;\nsetp.eq.s32 %p1, %r1, 0;\nsetp.eq.s32 %p2, %r1, 1;\n"
                        "setp.eq.s32 %p3, %r1, 2;\nand.pred %p4, %p1, %p2;\nand.pred %p5, %p4, %p3;\n"
                        "@%p5 ret;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(r->m->functions[0].res.regs_per_thread, 3u); // only %r1 live: 1 + 2
}

TEST(PtxResources, LoopCarriedValuesStayLive) {
  // %rd1 (2) and %r1 (1) live around the loop, %r2 (1) inside: 4, +2 = 6
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\nmov.u64 %rd1, 0;\n"
                        "mov.u32 %r1, 0;\nL:\nld.global.u32 %r2, [%rd1];\nadd.s32 %r1, %r1, %r2;\n"
                        "setp.lt.s32 %p1, %r1, 100;\n@%p1 bra L;\nst.global.u32 [%rd1], %r1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(r->m->functions[0].res.regs_per_thread, 6u);
}

TEST(PtxResources, GuardedWritesDoNotEndALiveRange) {
  // @p mov r1 may not happen, so r1 from before stays live across it: {r1,r2} then {r1} -> 2 + 2
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, 5;\nmov.u32 %r2, 6;\n"
                        "setp.eq.s32 %p1, %r2, 0;\n@%p1 mov.u32 %r1, 7;\nst.global.u32 [0], %r1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(r->m->functions[0].res.regs_per_thread, 4u);
}

TEST(PtxResources, MaxnregCapsTheEstimate) {
  std::string decl = ".reg .b64 %rd<20>;\n", body;
  for (int i = 1; i < 20; i++) body += "mov.u64 %rd" + std::to_string(i) + ", " + std::to_string(i) + ";\n";
  for (int i = 1; i < 20; i++) body += "st.global.u64 [0], %rd" + std::to_string(i) + ";\n";
  auto r = parse(".version 9.0\n.target sm_75\n.address_size 64\n.entry k() .maxnreg 16\n{\n" + decl + body +
                 "ret;\n}\n.entry k2()\n{\n" + decl + body + "ret;\n}\n");
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(fn(r->m.get(), "k")->res.regs_per_thread, 16u);
  EXPECT_EQ(fn(r->m.get(), "k2")->res.regs_per_thread, 19u * 2 + 2);
}

TEST(PtxResources, VecaddNeedsAFewRegisters) {
  auto r = parse(read_fixture("vecadd.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  uint32_t regs = r->m->functions[0].res.regs_per_thread;
  EXPECT_GE(regs, 8u); // ptxas -v reports 10 for this kernel on sm_75
  EXPECT_LE(regs, 16u);
}

TEST(PtxLayout, ModuleSharedUseIsFollowedThroughCallChainsAndIndirectCalls) {
  // leaf uses the module segment; mid calls leaf; viaptr is reached only through a function
  // pointer (address taken by mov), so every kernel with an indirect call may reach it.
  std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n.shared .align 4 .b8 seg[40];\n"
                     ".func leaf()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, seg;\nret;\n}\n"
                     ".func mid()\n{\ncall.uni leaf;\nret;\n}\n"
                     ".func viaptr()\n{\ncall.uni mid;\nret;\n}\n"
                     ".entry direct()\n{\n.shared .align 8 .b8 a[8];\n.reg .b32 %r<2>;\nmov.u32 %r1, a;\n"
                     "call.uni mid;\nret;\n}\n"
                     ".entry indirect()\n{\n.shared .align 8 .b8 b[8];\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
                     "mov.u32 %r1, b;\nmov.u64 %rd1, viaptr;\n{\nproto: .callprototype _ ();\ncall %rd1, (), proto;\n}\n"
                     "ret;\n}\n"
                     ".entry none()\n{\n.shared .align 8 .b8 c[8];\n.reg .b32 %r<2>;\nmov.u32 %r1, c;\nret;\n}\n";
  auto r = parse(text);
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(sym(m, "a")->offset, 40u);
  EXPECT_EQ(fn(m, "direct")->res.shared_bytes, 48u);
  EXPECT_EQ(sym(m, "b")->offset, 40u);
  EXPECT_EQ(sym(m, "c")->offset, 0u);
  EXPECT_EQ(fn(m, "none")->res.shared_bytes, 8u);
}
