// CFG and post-dominator tests: every branch carries the first instruction of its block's
// immediate post-dominator (the SIMT reconvergence point), PTX_NONE when it only reconverges at
// function exit. Instruction numbers in the comments are module-wide indices.
#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

const ptx_insn &insn(const ptx_module *m, uint32_t i) { return m->insns[i]; }

// True when block `pd` post-dominates block `b` (walks the ipdom chain).
bool post_dominates(const ptx_module *m, uint32_t pd, uint32_t b) {
  for (uint32_t x = b, guard = 0; x != PTX_NONE && guard <= m->n_blocks; x = m->blocks[x].ipdom, guard++)
    if (x == pd) return true;
  return false;
}

}  // namespace

TEST(PtxCfg, StraightLineKernelIsOneBlockThatExits) {
  auto r = parse(kernel(".reg .b32 %r<3>;\nmov.u32 %r1, %tid.x;\nadd.s32 %r2, %r1, 1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_function &f = r->m->functions[0];
  ASSERT_EQ(f.n_blocks, 1u);
  const ptx_block &b = r->m->blocks[f.first_block];
  EXPECT_EQ(b.n_insns, 3u);
  EXPECT_TRUE(b.exits);
  EXPECT_EQ(b.n_succ, 0u);
  EXPECT_EQ(b.ipdom, PTX_NONE);
}

TEST(PtxCfg, IfElseReconvergesAtTheJoin) {
  // 0 mov, 1 setp, 2 @p bra ELSE, 3 add, 4 bra JOIN, 5 ELSE: add, 6 JOIN: ret
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n"
                        "@%p1 bra ELSE;\nadd.s32 %r2, %r1, 1;\nbra JOIN;\nELSE:\nadd.s32 %r2, %r1, 2;\nJOIN:\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  ASSERT_EQ(m->functions[0].n_blocks, 4u);
  EXPECT_EQ(insn(m, 2).ops[0].index, 5u);
  EXPECT_EQ(insn(m, 2).reconverge, 6u);
  EXPECT_EQ(insn(m, 4).reconverge, 6u);
  const ptx_block &b0 = m->blocks[0];
  EXPECT_EQ(b0.n_succ, 2u);
  EXPECT_EQ(b0.succ[0], 2u); // the taken target first, then the fall-through
  EXPECT_EQ(b0.succ[1], 1u);
  EXPECT_EQ(b0.ipdom, 3u);
  EXPECT_EQ(m->blocks[3].ipdom, PTX_NONE);
  for (uint32_t i = 0; i < m->n_insns; i++) EXPECT_EQ(m->insns[i].block, i < 3 ? 0u : i < 5 ? 1u : i < 6 ? 2u : 3u);
}

TEST(PtxCfg, NestedIfReconvergesAtTheInnerJoinFirst) {
  // 0 @p1 bra OUTER_ELSE | 1 @p2 bra INNER_ELSE | 2 add | 3 bra INNER_JOIN | 4 INNER_ELSE: add |
  // 5 INNER_JOIN: mul | 6 bra JOIN | 7 OUTER_ELSE: neg | 8 JOIN: ret
  auto r = parse(kernel(".reg .pred %p<3>;\n.reg .b32 %r<4>;\n@%p1 bra OUTER_ELSE;\n@%p2 bra INNER_ELSE;\n"
                        "add.s32 %r1, %r1, 1;\nbra INNER_JOIN;\nINNER_ELSE:\nadd.s32 %r1, %r1, 2;\n"
                        "INNER_JOIN:\nmul.lo.s32 %r1, %r1, 2;\nbra JOIN;\nOUTER_ELSE:\nneg.s32 %r1, %r1;\n"
                        "JOIN:\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(insn(m, 0).reconverge, 8u);
  EXPECT_EQ(insn(m, 1).reconverge, 5u);
  EXPECT_EQ(insn(m, 3).reconverge, 5u);
  EXPECT_EQ(insn(m, 6).reconverge, 8u);
}

TEST(PtxCfg, LoopBranchesReconvergeAfterTheLoop) {
  // 0 mov | 1 LOOP: add | 2 setp | 3 @p bra LOOP | 4 st-like add | 5 ret
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<4>;\nmov.u32 %r1, 0;\nLOOP:\nadd.s32 %r1, %r1, 1;\n"
                        "setp.lt.s32 %p1, %r1, 10;\n@%p1 bra LOOP;\nadd.s32 %r2, %r1, 1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(insn(m, 3).ops[0].index, 1u);
  EXPECT_EQ(insn(m, 3).reconverge, 4u);
  const ptx_block &loop = m->blocks[insn(m, 1).block];
  EXPECT_EQ(loop.n_succ, 2u);
  EXPECT_EQ(loop.succ[0], insn(m, 1).block); // back edge
}

TEST(PtxCfg, BreakAndContinueReconvergeAtTheLoopExit) {
  // 0 LOOP: setp | 1 @p1 bra NEXT (continue) | 2 setp | 3 @p2 bra DONE (break) | 4 add |
  // 5 NEXT: add | 6 setp | 7 @p3 bra LOOP | 8 DONE: ret
  auto r = parse(kernel(".reg .pred %p<4>;\n.reg .b32 %r<4>;\nLOOP:\nsetp.lt.s32 %p1, %r1, 0;\n@%p1 bra NEXT;\n"
                        "setp.eq.s32 %p2, %r1, 99;\n@%p2 bra DONE;\nadd.s32 %r2, %r2, %r1;\nNEXT:\n"
                        "add.s32 %r3, %r3, 1;\nsetp.lt.s32 %p3, %r3, 8;\n@%p3 bra LOOP;\nDONE:\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  // continue: the taken path meets the other at NEXT only if nothing can leave in between, but the
  // break below can, so the nearest common post-dominator of both paths is DONE
  EXPECT_EQ(insn(m, 1).reconverge, 8u);
  EXPECT_EQ(insn(m, 3).reconverge, 8u); // break: meets the loop's other exit at DONE
  EXPECT_EQ(m->blocks[insn(m, 3).block].ipdom, insn(m, 8).block);
  EXPECT_EQ(insn(m, 7).reconverge, 8u);
}

TEST(PtxCfg, ContinueWithoutBreakReconvergesAtTheLatch) {
  // 0 LOOP: setp | 1 @p1 bra NEXT | 2 add | 3 NEXT: add | 4 setp | 5 @p3 bra LOOP | 6 ret
  auto r = parse(kernel(".reg .pred %p<4>;\n.reg .b32 %r<4>;\nLOOP:\nsetp.lt.s32 %p1, %r1, 0;\n@%p1 bra NEXT;\n"
                        "add.s32 %r2, %r2, %r1;\nNEXT:\nadd.s32 %r3, %r3, 1;\nsetp.lt.s32 %p3, %r3, 8;\n"
                        "@%p3 bra LOOP;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_EQ(insn(r->m.get(), 1).reconverge, 3u);
  EXPECT_EQ(insn(r->m.get(), 5).reconverge, 6u);
}

TEST(PtxCfg, EarlyExitReconvergesOnlyAtFunctionExit) {
  // 0 setp | 1 @p bra L | 2 ret | 3 L: add | 4 ret
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<3>;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra L;\nret;\n"
                        "L:\nadd.s32 %r2, %r1, 1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(insn(m, 1).reconverge, PTX_NONE);
  EXPECT_TRUE(m->blocks[insn(m, 2).block].exits);
  EXPECT_TRUE(m->blocks[insn(m, 4).block].exits);
}

TEST(PtxCfg, GuardedReturnBothExitsAndFallsThrough) {
  // 0 @p ret | 1 add | 2 ret
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<3>;\n@%p1 ret;\nadd.s32 %r1, %r1, 1;\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_block &b0 = r->m->blocks[0];
  EXPECT_TRUE(b0.exits);
  EXPECT_EQ(b0.n_succ, 1u);
  EXPECT_EQ(b0.succ[0], 1u);
}

TEST(PtxCfg, InfiniteLoopHasNoPostDominator) {
  // 0 L: add | 1 @p bra L | 2 M: bra M   (never reaches an exit)
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<3>;\nL:\nadd.s32 %r1, %r1, 1;\n@%p1 bra L;\nM:\nbra M;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(insn(m, 1).reconverge, PTX_NONE);
  for (uint32_t b = 0; b < m->n_blocks; b++) EXPECT_EQ(m->blocks[b].ipdom, PTX_NONE);
}

TEST(PtxCfg, JumpTableBranchHasEveryTarget) {
  // 0 brx.idx | 1 A: add | 2 bra J | 3 B: add | 4 bra J | 5 C: add | 6 J: ret
  auto r = parse(kernel(".reg .b32 %r<3>;\nts: .branchtargets A, B, C;\nbrx.idx %r1, ts;\nA:\nadd.s32 %r2, %r2, 1;\n"
                        "bra J;\nB:\nadd.s32 %r2, %r2, 2;\nbra J;\nC:\nadd.s32 %r2, %r2, 3;\nJ:\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_insn &brx = insn(m, 0);
  ASSERT_EQ(brx.opcode, PTX_OP_BRX);
  ASSERT_EQ(brx.ops[1].kind, PTX_OPND_LIST);
  ASSERT_EQ(brx.ops[1].count, 3u);
  EXPECT_EQ(pool(m, brx.ops[1], 0).index, 1u);
  EXPECT_EQ(pool(m, brx.ops[1], 2).index, 5u);
  const ptx_block &b0 = m->blocks[0];
  EXPECT_EQ(b0.n_succ, 3u);
  EXPECT_EQ(m->succ_list[b0.first_succ + 2], insn(m, 5).block);
  EXPECT_EQ(brx.reconverge, 6u);
}

TEST(PtxCfg, FallingOffTheEndAddsAnImplicitReturn) {
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .b32 %r<3>;\n@%p1 bra END;\nadd.s32 %r1, %r1, 1;\nEND:"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  ASSERT_EQ(m->functions[0].n_insns, 3u);
  EXPECT_EQ(insn(m, 2).opcode, PTX_OP_RET);
  EXPECT_EQ(insn(m, 0).ops[0].index, 2u);
  EXPECT_EQ(insn(m, 0).reconverge, 2u);
  auto empty = parse(kernel(""));
  ASSERT_TRUE(empty->m) << empty->diag.message;
  EXPECT_EQ(empty->m->functions[0].n_insns, 1u);
  EXPECT_EQ(empty->m->insns[0].opcode, PTX_OP_RET);
}

TEST(PtxCfg, NvccBranchesReconvergeAtPostDominatorsOfTheirBlocks) {
  // For every conditional branch of the nvcc fixtures: the reconvergence block post-dominates the
  // branch's block and both of its successors, and is the nearest such block on the ipdom chain.
  for (const char *name : {"control.ptx", "features.ptx", "warp.ptx", "async_sm80.ptx"}) {
    auto r = parse(read_fixture(name), name);
    ASSERT_TRUE(r->m) << r->diag.message;
    const ptx_module *m = r->m.get();
    int branches = 0;
    for (uint32_t i = 0; i < m->n_insns; i++) {
      const ptx_insn &in = m->insns[i];
      if (in.opcode != PTX_OP_BRA || in.guard == PTX_NONE) continue;
      branches++;
      const ptx_block &b = m->blocks[in.block];
      ASSERT_EQ(b.first_insn + b.n_insns - 1, i) << name << " a branch ends its block";
      if (in.reconverge == PTX_NONE) {
        EXPECT_EQ(b.ipdom, PTX_NONE);
        continue;
      }
      uint32_t rb = m->insns[in.reconverge].block;
      EXPECT_EQ(m->blocks[rb].first_insn, in.reconverge);
      EXPECT_EQ(rb, b.ipdom);
      for (uint32_t s = 0; s < b.n_succ; s++)
        EXPECT_TRUE(post_dominates(m, rb, m->succ_list[b.first_succ + s])) << name << " insn " << i;
    }
    EXPECT_GT(branches, 0) << name;
  }
}

TEST(PtxCfg, ControlFixtureShapes) {
  auto r = parse(read_fixture("control.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  // early_exit: `if (in[t] == 0) return;` — the guarded branch skips to the shared ret block.
  const ptx_function *ee = fn(m, "_Z10early_exitPiPKi");
  ASSERT_TRUE(ee);
  const ptx_insn *bra = find_insn(m, ee, PTX_OP_BRA);
  ASSERT_TRUE(bra);
  EXPECT_EQ(m->insns[bra->reconverge].opcode, PTX_OP_RET);
  // fib is recursive: it calls itself
  const ptx_function *fib = fn(m, "_Z3fibi");
  ASSERT_TRUE(fib);
  const ptx_insn *call = find_insn(m, fib, PTX_OP_CALL);
  ASSERT_TRUE(call);
  EXPECT_EQ(&m->functions[call->ops[1].index], fib);
}
