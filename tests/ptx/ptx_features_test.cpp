// Decoding of the less common instruction families, on nvcc fixtures (texture.cu, wmma.cu,
// warp.cu, async_sm80.cu, griddep_sm90.cu) and the hand-written PTX 6.5 fixture (older forms).
#include <fstream>
#include <sstream>

#include "ptx_test_util.h"

using namespace ptxtest;

TEST(PtxFeatures, TextureOperandsSplitHandleAndCoordinates) {
  auto r = parse(read_fixture("texture.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *k = &m->functions[0];
  const ptx_insn *t1 = find_insn(m, k, PTX_OP_TEX, 0); // tex.1d.v4.f32.f32 {…}, [%rd2, {%f2}]
  ASSERT_TRUE(t1);
  EXPECT_EQ(t1->geom, PTX_GEOM_1D);
  EXPECT_EQ(t1->vec, 4u);
  EXPECT_EQ(t1->type, PTX_TYPE_F32);
  EXPECT_EQ(t1->type2, PTX_TYPE_F32);
  ASSERT_EQ(t1->nops, 3u);
  EXPECT_EQ(t1->ops[0].kind, PTX_OPND_VEC);
  EXPECT_EQ(t1->ops[1].kind, PTX_OPND_ADDR);
  EXPECT_EQ(t1->ops[1].rclass, PTX_RC_B64); // texture object in a 64-bit register
  EXPECT_EQ(t1->ops[2].kind, PTX_OPND_VEC);
  EXPECT_EQ(t1->ops[2].count, 1u);
  const ptx_insn *lvl = find_where(m, k, [](const ptx_insn &i) { return i.mods & PTX_MOD_LEVEL; });
  ASSERT_TRUE(lvl);
  EXPECT_EQ(lvl->nops, 4u); // lod operand after the coordinates
  const ptx_insn *a2d = find_where(m, k, [](const ptx_insn &i) { return i.geom == PTX_GEOM_A2D; });
  ASSERT_TRUE(a2d);
  EXPECT_EQ(a2d->ops[2].count, 4u);
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.geom == PTX_GEOM_CUBE; }));
  const ptx_insn *g = find_insn(m, k, PTX_OP_TLD4);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->sub_op, 'g');
  const ptx_insn *suld = find_insn(m, k, PTX_OP_SULD);
  ASSERT_TRUE(suld);
  EXPECT_EQ(suld->sub_op, PTX_SURF_TRAP);
  EXPECT_FALSE(suld->mods & PTX_MOD_FORMATTED);
  EXPECT_EQ(suld->type, PTX_TYPE_B8);
  EXPECT_EQ(suld->ops[1].kind, PTX_OPND_ADDR);
  EXPECT_EQ(suld->ops[2].count, 2u);
  const ptx_insn *sust = find_insn(m, k, PTX_OP_SUST);
  ASSERT_TRUE(sust);
  EXPECT_FALSE(ptx_insn_has_dest(sust));
  EXPECT_EQ(sust->ops[0].kind, PTX_OPND_ADDR);
  EXPECT_EQ(sust->ops[1].kind, PTX_OPND_VEC);
  EXPECT_EQ(sust->ops[2].kind, PTX_OPND_VEC);
}

TEST(PtxFeatures, WmmaFragmentsShapesAndTypes) {
  auto r = parse(read_fixture("wmma.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *f16 = fn(m, "_Z8wmma_f16PK6__halfS1_Pf");
  const ptx_insn *la = find_insn(m, f16, PTX_OP_WMMA_LOAD, 0);
  ASSERT_TRUE(la);
  EXPECT_EQ(la->sub_op, 'a');
  EXPECT_EQ(la->geom, PTX_WMMA_M16N16K16);
  EXPECT_TRUE(la->mods & PTX_MOD_ROW);
  EXPECT_TRUE(la->mods & PTX_MOD_SYNC);
  EXPECT_TRUE(la->mods & PTX_MOD_ALIGNED);
  EXPECT_EQ(la->space, PTX_SPACE_GLOBAL);
  EXPECT_EQ(la->type, PTX_TYPE_F16);
  EXPECT_EQ(la->ops[0].count, 8u);
  EXPECT_EQ(la->nops, 3u);
  const ptx_insn *lb = find_insn(m, f16, PTX_OP_WMMA_LOAD, 1);
  EXPECT_EQ(lb->sub_op, 'b');
  EXPECT_FALSE(lb->mods & PTX_MOD_ROW); // .col
  const ptx_insn *mma = find_insn(m, f16, PTX_OP_WMMA_MMA);
  ASSERT_TRUE(mma);
  EXPECT_EQ(mma->type, PTX_TYPE_F32);  // D
  EXPECT_EQ(mma->type2, PTX_TYPE_F32); // C
  EXPECT_EQ(mma->type3, PTX_TYPE_F16); // A
  EXPECT_EQ(mma->type4, PTX_TYPE_F16); // B
  EXPECT_TRUE(mma->mods & PTX_MOD_ROW_A);
  EXPECT_FALSE(mma->mods & PTX_MOD_ROW_B);
  EXPECT_EQ(mma->nops, 4u);
  const ptx_insn *st = find_insn(m, f16, PTX_OP_WMMA_STORE);
  EXPECT_EQ(st->sub_op, 'd');
  EXPECT_FALSE(ptx_insn_has_dest(st));
  const ptx_function *u8 = fn(m, "_Z7wmma_u8PKhS0_Pi");
  const ptx_insn *imma = find_insn(m, u8, PTX_OP_WMMA_MMA);
  EXPECT_EQ(imma->type, PTX_TYPE_S32);
  EXPECT_EQ(imma->type2, PTX_TYPE_S32);
  EXPECT_EQ(imma->type3, PTX_TYPE_U8);
  EXPECT_EQ(imma->type4, PTX_TYPE_U8);
  EXPECT_EQ(find_insn(m, u8, PTX_OP_WMMA_LOAD)->space, PTX_SPACE_SHARED);
}

TEST(PtxFeatures, WarpVoteShuffleMatchAndAtomics) {
  auto r = parse(read_fixture("warp.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *w = &m->functions[0];
  const ptx_insn *ballot = find_where(m, w, [](const ptx_insn &i) { return i.opcode == PTX_OP_VOTE && i.sub_op == PTX_VOTE_BALLOT; });
  ASSERT_TRUE(ballot);
  EXPECT_EQ(ballot->nops, 3u);
  EXPECT_EQ(ballot->type, PTX_TYPE_B32);
  const ptx_insn *ma = find_where(m, w, [](const ptx_insn &i) { return i.opcode == PTX_OP_MATCH && i.sub_op == PTX_MATCH_ALL; });
  ASSERT_TRUE(ma);
  EXPECT_TRUE(ma->ops[0].flags & PTX_OPND_PAIR);
  EXPECT_TRUE(find_insn(m, w, PTX_OP_ACTIVEMASK));
  EXPECT_TRUE(find_insn(m, w, PTX_OP_BAR_WARP_SYNC));
  int modes = 0;
  for (int mode : {PTX_SHFL_UP, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX})
    modes += !!find_where(m, w, [&](const ptx_insn &i) { return i.opcode == PTX_OP_SHFL && i.sub_op == mode; });
  EXPECT_EQ(modes, 4);
  const ptx_function *a = fn(m, "_Z7atomicsPiPyPfPd");
  ASSERT_TRUE(a);
  int ops = 0;
  for (int op = PTX_ATOM_AND; op <= PTX_ATOM_MAX; op++)
    ops += !!find_where(m, a, [&](const ptx_insn &i) { return i.opcode == PTX_OP_ATOM && i.sub_op == op; });
  EXPECT_EQ(ops, 10);
  const ptx_insn *fadd = find_where(m, a, [](const ptx_insn &i) { return i.opcode == PTX_OP_ATOM && i.type == PTX_TYPE_F64; });
  ASSERT_TRUE(fadd);
  EXPECT_EQ(fadd->sub_op, PTX_ATOM_ADD);
  const ptx_insn *cnt = find_where(m, a, [](const ptx_insn &i) { return i.opcode == PTX_OP_BAR && i.sub_op == PTX_BAR_RED_POPC; });
  ASSERT_TRUE(cnt);
  EXPECT_EQ(cnt->ops[0].kind, PTX_OPND_REG);
  EXPECT_TRUE(find_where(m, a, [](const ptx_insn &i) { return i.opcode == PTX_OP_MEMBAR && i.scope == PTX_SCOPE_SYS; }) ||
              find_where(m, a, [](const ptx_insn &i) { return i.opcode == PTX_OP_FENCE && i.scope == PTX_SCOPE_SYS; }));
}

TEST(PtxFeatures, AsyncCopyAndMbarrierDecode) {
  auto r = parse(read_fixture("async_sm80.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(m->target_sm, 80u);
  const ptx_function *k = &m->functions[0];
  const ptx_insn *cp = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_CP_ASYNC && i.sub_op == PTX_CP_ASYNC_COPY; });
  ASSERT_TRUE(cp);
  EXPECT_EQ(cp->space, PTX_SPACE_SHARED);
  EXPECT_EQ(cp->cache_op, PTX_CACHE_CA);
  EXPECT_EQ(cp->ops[0].kind, PTX_OPND_ADDR);
  EXPECT_EQ(cp->ops[1].kind, PTX_OPND_ADDR);
  EXPECT_EQ(cp->ops[2].value, 4);
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_CP_ASYNC && i.sub_op == PTX_CP_ASYNC_COMMIT_GROUP; }));
  const ptx_insn *wait = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_CP_ASYNC && i.sub_op == PTX_CP_ASYNC_WAIT_GROUP; });
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait->ops[0].kind, PTX_OPND_IMM);
  const ptx_insn *init = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MBARRIER && i.sub_op == PTX_MBAR_INIT; });
  ASSERT_TRUE(init);
  EXPECT_FALSE(ptx_insn_has_dest(init));
  EXPECT_EQ(init->type, PTX_TYPE_B64);
  const ptx_insn *arrive = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MBARRIER && i.sub_op == PTX_MBAR_ARRIVE; });
  ASSERT_TRUE(arrive);
  EXPECT_TRUE(ptx_insn_has_dest(arrive));
  const ptx_insn *tw = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MBARRIER && i.sub_op == PTX_MBAR_TEST_WAIT; });
  ASSERT_TRUE(tw);
  EXPECT_EQ(tw->ops[0].rclass, PTX_RC_PRED);
  const ptx_function *rd = fn(m, "_Z12reduce_reduxPiPKiP13__nv_bfloat16");
  const ptx_insn *redux = find_insn(m, rd, PTX_OP_REDUX);
  ASSERT_TRUE(redux);
  EXPECT_EQ(redux->sub_op, PTX_REDUX_ADD);
  EXPECT_TRUE(find_where(m, rd, [](const ptx_insn &i) { return i.opcode == PTX_OP_FMA && i.type == PTX_TYPE_BF16; }));
}

TEST(PtxFeatures, GridDependencyControlAndClusterRegisters) {
  auto r = parse(read_fixture("griddep_sm90.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  EXPECT_EQ(m->target_sm, 90u);
  const ptx_function *k = &m->functions[0];
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_GRIDDEPCONTROL && i.sub_op == PTX_GRIDDEP_WAIT; }));
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_GRIDDEPCONTROL && i.sub_op == PTX_GRIDDEP_LAUNCH_DEPENDENTS; }));
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.ops[1].kind == PTX_OPND_SREG && i.ops[1].index == PTX_SREG_CLUSTER_CTARANK; }));
}

TEST(PtxFeatures, LegacyPtx65FormsParse) {
  auto r = parse(read_fixture("legacy_ptx65.ptx"), "legacy_ptx65.ptx");
  ASSERT_TRUE(r->m) << r->diag.message;
  EXPECT_TRUE(r->warnings.empty()) << r->warnings[0];
  const ptx_module *m = r->m.get();
  EXPECT_EQ(m->version_major, 6u);
  EXPECT_EQ(m->version_minor, 5u);
  EXPECT_EQ(m->target_sm, 70u);
  const ptx_function *k = fn(m, "_Z6legacyPfS_i");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->maxntid[0], 256u);
  EXPECT_EQ(k->minnctapersm, 2u);
  const ptx_insn *ballot = find_insn(m, k, PTX_OP_VOTE, 0);
  EXPECT_EQ(ballot->sub_op, PTX_VOTE_BALLOT);
  EXPECT_FALSE(ballot->mods & PTX_MOD_SYNC);
  EXPECT_EQ(ballot->nops, 2u);
  const ptx_insn *shfl = find_insn(m, k, PTX_OP_SHFL, 0);
  EXPECT_FALSE(shfl->mods & PTX_MOD_SYNC);
  EXPECT_EQ(shfl->nops, 4u);
  EXPECT_TRUE(shfl->ops[0].flags & PTX_OPND_PAIR);
  const ptx_symbol *tex = sym(m, "tex_ref");
  ASSERT_TRUE(tex);
  EXPECT_TRUE(tex->flags & PTX_SYM_TEXREF);
  const ptx_insn *t = find_insn(m, k, PTX_OP_TEX, 0);
  EXPECT_EQ(t->ops[1].base_sym, ptx_find_symbol(m, "tex_ref"));
  EXPECT_EQ(t->ops[1].index, PTX_NONE);
  EXPECT_EQ(t->type2, PTX_TYPE_S32);
  const ptx_insn *txq = find_insn(m, k, PTX_OP_TXQ);
  EXPECT_EQ(txq->sub_op, PTX_TXQ_WIDTH);
  const ptx_insn *unpack = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MOV && i.ops[0].kind == PTX_OPND_VEC; });
  ASSERT_TRUE(unpack);
  EXPECT_EQ(unpack->ops[0].count, 2u);
  const ptx_insn *pack = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MOV && i.ops[1].kind == PTX_OPND_VEC; });
  ASSERT_TRUE(pack);
  EXPECT_EQ(find_insn(m, k, PTX_OP_MEMBAR)->scope, PTX_SCOPE_GPU); // membar.gl
  EXPECT_EQ(find_insn(m, k, PTX_OP_EXIT)->ptx_line, 118u);
  EXPECT_EQ(find_insn(m, k, PTX_OP_RET)->loc_line, 20u);
  EXPECT_EQ(m->global_segment_bytes, 4u); // texture references take no global memory
  EXPECT_EQ(k->res.shared_bytes, 128u);   // uses module_smem
}

TEST(PtxFeatures, DeviceRuntimeCallsWeakFunctionsAndVtables) {
  auto r = parse(read_fixture("runtime.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  for (const char *ext : {"malloc", "free", "vprintf", "__assertfail", "__cudaCDP2LaunchDeviceV2"}) {
    const ptx_function *f = fn(m, ext);
    ASSERT_TRUE(f) << ext;
    EXPECT_TRUE(f->flags & PTX_FN_DECL_ONLY) << ext;
  }
  const ptx_function *base = fn(m, "_ZN4Base1fEi");
  ASSERT_TRUE(base);
  EXPECT_TRUE(base->flags & PTX_FN_WEAK);
  const ptx_symbol *vt = sym(m, "_ZTV4Base");
  ASSERT_TRUE(vt);
  EXPECT_TRUE(vt->flags & PTX_SYM_WEAK);
  bool vt_reloc = false;
  for (uint32_t i = 0; i < m->n_relocs; i++)
    if (m->relocs[i].symbol == ptx_find_symbol(m, "_ZTV4Base") && m->relocs[i].is_function &&
        m->relocs[i].target == ptx_find_function(m, "_ZN4Base1fEi") && m->relocs[i].offset == 16)
      vt_reloc = true;
  EXPECT_TRUE(vt_reloc);
  const ptx_function *k = fn(m, "_Z14runtime_kernelPiP6__halfi");
  const ptx_insn *indirect = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_CALL && i.ops[1].kind == PTX_OPND_REG; });
  ASSERT_TRUE(indirect);
  EXPECT_EQ(indirect->ops[3].kind, PTX_OPND_PROTO);
  EXPECT_EQ(m->functions[indirect->ops[3].index].n_params, 2u);
  EXPECT_TRUE(find_insn(m, k, PTX_OP_DP4A));
  EXPECT_TRUE(find_insn(m, k, PTX_OP_VABSDIFF4));
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MUL && i.type == PTX_TYPE_F16X2; }));
  // the inline asm's `{ .reg .pred p; … }` block declares a predicate scoped to that block
  EXPECT_TRUE(find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_SELP && i.ops[3].rclass == PTX_RC_PRED; }));
}

TEST(PtxFeatures, NewerSm90InstructionsDecode) {
  auto r = parse(read_fixture("hand_sm90.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *k = &m->functions[0];
  auto has = [&](auto pred) { return find_where(m, k, pred) != nullptr; };
  EXPECT_TRUE(has([](const ptx_insn &i) { return i.opcode == PTX_OP_CREATEPOLICY && i.sub_op == 1; }));
  const ptx_insn *ld = find_insn(m, k, PTX_OP_LD);
  EXPECT_TRUE(ld->mods & PTX_MOD_CACHE_HINT);
  EXPECT_EQ(ld->nops, 3u);
  EXPECT_TRUE(has([](const ptx_insn &i) { return i.opcode == PTX_OP_MAPA && i.space == PTX_SPACE_SHARED_CLUSTER; }));
  const ptx_insn *stm = find_insn(m, k, PTX_OP_STMATRIX);
  ASSERT_TRUE(stm);
  EXPECT_EQ(stm->vec, 4u);
  EXPECT_EQ(stm->geom, PTX_WMMA_M8N8);
  EXPECT_TRUE(stm->mods & PTX_MOD_TRANS);
  EXPECT_FALSE(ptx_insn_has_dest(stm));
  EXPECT_EQ(find_insn(m, k, PTX_OP_SETMAXNREG)->sub_op, 1);
  EXPECT_EQ(find_insn(m, k, PTX_OP_ISTYPEP)->sub_op, 1);
  const ptx_insn *red = find_insn(m, k, PTX_OP_CP_REDUCE_ASYNC_BULK);
  ASSERT_TRUE(red);
  EXPECT_EQ(red->sub_op, PTX_ATOM_ADD);
  EXPECT_EQ(red->space, PTX_SPACE_GLOBAL);
  EXPECT_TRUE(has([](const ptx_insn &i) { return i.opcode == PTX_OP_CP_ASYNC && i.sub_op == PTX_CP_ASYNC_BULK; }));
  const ptx_insn *tw = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MBARRIER && i.sub_op == PTX_MBAR_TRY_WAIT; });
  ASSERT_TRUE(tw);
  EXPECT_TRUE(tw->mods & PTX_MOD_PARITY);
  EXPECT_EQ(tw->space, PTX_SPACE_SHARED);
  const ptx_insn *ar = find_where(m, k, [](const ptx_insn &i) { return i.opcode == PTX_OP_MBARRIER && i.sub_op == PTX_MBAR_ARRIVE; });
  ASSERT_TRUE(ar);
  EXPECT_TRUE(ar->mods & PTX_MOD_EXPECT_TX);
  EXPECT_EQ(ar->ops[0].kind, PTX_OPND_SINK);
  EXPECT_EQ(ar->sem, PTX_SEM_RELEASE);
  EXPECT_TRUE(has([](const ptx_insn &i) { return i.opcode == PTX_OP_FENCE && i.sub_op == PTX_FENCE_PROXY_ASYNC; }));
  EXPECT_TRUE(has([](const ptx_insn &i) { return i.opcode == PTX_OP_FENCE && i.sub_op == PTX_FENCE_MBARRIER_INIT; }));
  EXPECT_TRUE(has([](const ptx_insn &i) { return i.opcode == PTX_OP_BARRIER && i.sub_op == PTX_BAR_WAIT && i.scope == PTX_SCOPE_CLUSTER; }));
  const ptx_insn *mma = find_insn(m, k, PTX_OP_MMA);
  EXPECT_EQ(mma->geom, PTX_WMMA_M16N8K16);
  EXPECT_EQ(mma->type3, PTX_TYPE_BF16);
  EXPECT_EQ(mma->type2, PTX_TYPE_F32);
  const ptx_insn *cvt = find_insn(m, k, PTX_OP_CVT);
  EXPECT_EQ(cvt->type, PTX_TYPE_E4M3X2);
  EXPECT_TRUE(cvt->mods & PTX_MOD_SATFINITE);
  EXPECT_EQ(cvt->nops, 3u);
}

// nvcc 13 output of fixtures/hopper_sm90.cu: cluster directives are kept on the function; bulk and
// tensor copies decode with their source space (geom), dimensions (vec) and the tensor-map operand
// split into [tensorMap] and {coordinates}; bulk groups have their own commit/wait.
TEST(PtxFeatures, ClustersBulkAndTensorCopiesDecode) {
  auto r = parse(read_fixture("hopper_sm90.ptx"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *dsm = fn(m, "_Z3dsmPi");
  ASSERT_TRUE(dsm);
  EXPECT_TRUE(dsm->flags & PTX_FN_EXPLICIT_CLUSTER);
  EXPECT_EQ(dsm->reqnctapercluster[0], 2u);
  EXPECT_EQ(dsm->reqnctapercluster[1], 1u);
  EXPECT_EQ(fn(m, "_Z4bulkPKiPi")->reqnctapercluster[0], 0u);
  const ptx_function *tma = fn(m, "_Z3tma14CUtensorMap_stPi");
  const ptx_insn *tc = find_where(m, tma, [](const ptx_insn &i) {
    return i.opcode == PTX_OP_CP_ASYNC && i.sub_op == PTX_CP_ASYNC_BULK_TENSOR;
  });
  ASSERT_TRUE(tc);
  EXPECT_EQ(tc->vec, 2u);
  EXPECT_EQ(tc->space, PTX_SPACE_SHARED_CLUSTER);
  EXPECT_EQ(tc->geom, PTX_SPACE_GLOBAL);
  EXPECT_TRUE(tc->mods & PTX_MOD_TENSOR);
  ASSERT_EQ(tc->nops, 4u);
  EXPECT_EQ(tc->ops[1].kind, PTX_OPND_ADDR);
  EXPECT_EQ(tc->ops[2].kind, PTX_OPND_VEC);
  EXPECT_EQ(tc->ops[2].count, 2u);
  EXPECT_EQ(tc->ops[3].kind, PTX_OPND_ADDR);
  EXPECT_EQ(format(m, *tc).rfind("cp.async.bulk.tensor.shared::cluster.global.2d", 0), 0u) << format(m, *tc);
  const ptx_function *bulk = fn(m, "_Z4bulkPKiPi");
  auto bulk_op = [&](uint8_t sub) {
    return find_where(m, bulk, [sub](const ptx_insn &i) { return i.opcode == PTX_OP_CP_ASYNC && i.sub_op == sub; });
  };
  const ptx_insn *g2s = bulk_op(PTX_CP_ASYNC_BULK);
  ASSERT_TRUE(g2s);
  EXPECT_EQ(g2s->geom, PTX_SPACE_GLOBAL);
  EXPECT_EQ(g2s->nops, 4u);
  EXPECT_TRUE(bulk_op(PTX_CP_ASYNC_BULK_COMMIT_GROUP));
  const ptx_insn *wg = bulk_op(PTX_CP_ASYNC_BULK_WAIT_GROUP);
  ASSERT_TRUE(wg);
  EXPECT_TRUE(wg->mods & PTX_MOD_READ);
  EXPECT_TRUE(find_where(m, bulk, [](const ptx_insn &i) { return i.opcode == PTX_OP_ELECT; }));
  EXPECT_TRUE(find_where(m, dsm, [](const ptx_insn &i) { return i.opcode == PTX_OP_MAPA; }));
}

// nvcc 13 output of tests/kernels/warpgroup_mma.cu (sm_90a): wgmma shapes m64nNkK as geom = K,
// vec = N / 8; 32 accumulators; descriptors or an A fragment; the trailing immediates in one VEC.
TEST(PtxFeatures, WarpgroupMmaDecodes) {
  std::ifstream f(std::string(SIMTVP_SOURCE_DIR) + "/tests/kernels/ptx/warpgroup_mma.ptx", std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  auto r = parse(ss.str());
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_module *m = r->m.get();
  const ptx_function *sw = fn(m, "_Z10gemm_sw128PK6__halfS1_Pfi");
  const ptx_insn *mma = find_where(m, sw, [](const ptx_insn &i) { return i.opcode == PTX_OP_WGMMA_MMA_ASYNC; });
  ASSERT_TRUE(mma);
  EXPECT_EQ(mma->geom, 16u);
  EXPECT_EQ(mma->vec, 8u);  // n64
  EXPECT_EQ(mma->type, PTX_TYPE_F32);
  EXPECT_EQ(mma->type2, PTX_TYPE_F16);
  EXPECT_EQ(mma->type3, PTX_TYPE_F16);
  ASSERT_EQ(mma->nops, 5u);
  EXPECT_EQ(mma->ops[0].kind, PTX_OPND_VEC);
  EXPECT_EQ(mma->ops[0].count, 32u);
  EXPECT_EQ(mma->ops[1].rclass, PTX_RC_B64);
  EXPECT_EQ(mma->ops[2].rclass, PTX_RC_B64);
  EXPECT_EQ(mma->ops[3].rclass, PTX_RC_PRED);
  EXPECT_EQ(mma->ops[4].kind, PTX_OPND_VEC);
  EXPECT_EQ(mma->ops[4].count, 4u);
  const ptx_function *il = fn(m, "_Z15gemm_interleavePK13__nv_bfloat16S1_Pfi");
  const ptx_insn *rega = find_where(m, il, [](const ptx_insn &i) { return i.opcode == PTX_OP_WGMMA_MMA_ASYNC; });
  ASSERT_TRUE(rega);
  EXPECT_EQ(rega->vec, 4u);  // n32
  EXPECT_EQ(rega->ops[1].kind, PTX_OPND_VEC);
  EXPECT_EQ(rega->ops[1].count, 4u);
  EXPECT_EQ(rega->ops[4].count, 3u);
  for (ptx_opcode op : {PTX_OP_WGMMA_FENCE, PTX_OP_WGMMA_COMMIT_GROUP, PTX_OP_WGMMA_WAIT_GROUP})
    EXPECT_TRUE(find_where(m, sw, [op](const ptx_insn &i) { return i.opcode == op; })) << ptx_opcode_name(op);
}

TEST(PtxFeatures, SparseTextureFetchHasAResidencyPredicate) {
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .f32 %f<9>;\n.reg .b64 %rd<2>;\n"
                        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f5, %f6}];\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  const ptx_insn &t = r->m->insns[0];
  EXPECT_EQ(t.ops[0].kind, PTX_OPND_VEC);
  EXPECT_TRUE(t.ops[0].flags & PTX_OPND_PAIR);
  EXPECT_EQ(t.ops[0].pair, 1u);
}
