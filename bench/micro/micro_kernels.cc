// micro_kernels — see micro_kernels.h.
#include "micro_kernels.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <map>

#include "stats.h"

extern "C" {
#include "config.h"
}

namespace micro {

namespace {

std::string repeat(const std::string &line, uint32_t n) {
  std::string s;
  for (uint32_t i = 0; i < n; i++) s += "  " + line + "\n";
  return s;
}

// The loop of a timed chain. `step` is the dependent instruction (its destination is also its
// source), `use` an instruction that reads the chain's register: the second %clock64 read comes
// after it, so it cannot issue before the last step's result is written back (the clock read
// itself has no source register and would otherwise issue as soon as the last step issued). The
// loop counter is bumped at the top and tested after a few steps, so its latency hides behind the
// chain; the branch at the bottom is the only per-iteration overhead, and its refetch also hides
// behind the latency of the chain (one step per cycle at best).
//
// Registers used: %r1 iterations, %r2 passes, %r3 pass, %r4 iteration, %rd2 out, %rd3..%rd7.
// out[pass] = %clock64 delta of that pass.
std::string timed_passes(const std::string &step, uint32_t unroll, const std::string &use) {
  const uint32_t before_test = 4;
  std::string s;
  s += "  mov.u32 %r3, 0;\n";
  s += "PASS:\n";
  s += "  mov.u32 %r4, 0;\n";
  s += "  mov.u64 %rd3, %clock64;\n";
  s += "ITER:\n";
  s += "  add.s32 %r4, %r4, 1;\n";
  s += repeat(step, before_test);
  s += "  setp.lt.u32 %p1, %r4, %r1;\n";
  s += repeat(step, unroll - before_test);
  s += "  @%p1 bra ITER;\n";
  s += "  " + use + "\n";
  s += "  mov.u64 %rd4, %clock64;\n";
  s += "  sub.s64 %rd5, %rd4, %rd3;\n";
  s += "  mul.wide.u32 %rd6, %r3, 8;\n";
  s += "  add.s64 %rd7, %rd2, %rd6;\n";
  s += "  st.global.u64 [%rd7], %rd5;\n";
  s += "  add.s32 %r3, %r3, 1;\n";
  s += "  setp.lt.u32 %p2, %r3, %r2;\n";
  s += "  @%p2 bra PASS;\n";
  return s;
}

const char kRegs[] =
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<48>;\n"
    "  .reg .f32 %f<32>;\n"
    "  .reg .f64 %fd<8>;\n"
    "  .reg .b64 %rd<16>;\n";

// A pointer chase over device addresses with `op` ("ld.global.u64" …): %rd1 is the pointer.
std::string chase_kernel(const char *name, const std::string &step) {
  std::string s = std::string(".visible .entry ") + name +
                  "(.param .u64 start, .param .u32 iters, .param .u32 passes, .param .u64 out)\n{\n";
  s += kRegs;
  s += "  ld.param.u64 %rd1, [start];\n";
  s += "  ld.param.u32 %r1, [iters];\n";
  s += "  ld.param.u32 %r2, [passes];\n";
  s += "  ld.param.u64 %rd2, [out];\n";
  s += timed_passes(step, kChaseUnroll, "mov.b64 %rd8, %rd1;");
  s += "  st.global.u64 [%rd2+64], %rd8;\n";
  s += "  ret;\n}\n\n";
  return s;
}

std::string alu_kernel(const alu_class &c) {
  // Operand values keep every chain finite: x*0.99998+2^-7 converges, sqrt converges to 1.
  std::string s = std::string(".visible .entry alu_") + c.name +
                  "(.param .u64 out, .param .u32 iters, .param .u32 passes)\n{\n";
  s += kRegs;
  s += "  ld.param.u64 %rd2, [out];\n";
  s += "  ld.param.u32 %r1, [iters];\n";
  s += "  ld.param.u32 %r2, [passes];\n";
  s += "  mov.u32 %r10, 1;\n  mov.u32 %r11, 3;\n  mov.u32 %r12, 5;\n";
  s += "  mov.f32 %f1, 0f3F800000;\n  mov.f32 %f2, 0f3F7FFEB0;\n  mov.f32 %f3, 0f3C000000;\n";
  s += "  mov.f64 %fd1, 0d3FF0000000000000;\n  mov.f64 %fd2, 0d3FEFFFD60E94EE39;\n"
       "  mov.f64 %fd3, 0d3F80000000000000;\n";
  std::string insn = c.insn;
  std::string use, keep;
  if (insn.find("%fd1") != std::string::npos) {
    use = "mov.b64 %rd8, %fd1;";
    keep = "  st.global.f64 [%rd2+64], %fd1;\n";
  } else if (insn.find("%f1") != std::string::npos) {
    use = "mov.b32 %r13, %f1;";
    keep = "  st.global.f32 [%rd2+64], %f1;\n";
  } else {
    use = "mov.u32 %r13, %r10;";
    keep = "  st.global.u32 [%rd2+64], %r10;\n";
  }
  s += timed_passes(insn, kAluUnroll, use);
  s += keep;
  s += "  ret;\n}\n\n";
  return s;
}

// Streaming reads: each thread keeps four float4 loads in flight (i, i+G, i+2G, i+3G; G = the
// grid's threads); n4 (float4 elements) must be a multiple of 4G. `reps` passes over the buffer.
// Thread 0 of each CTA records `timer` (%clock64 or %globaltimer) when the CTA starts and after a
// barrier at its end: clk[2 ctaid] and clk[2 ctaid + 1] (u64), so the host can time the grid
// without the kernel's launch latency (max end - min start, one wave of CTAs). stream_ca/stream_cg
// read %clock64 (simtvp's SMs share one core clock); stream_ca_gt/stream_cg_gt read %globaltimer,
// which real GPUs keep common to all SMs while their %clock64 counters are not synchronised
// (bench/hwcorr times whole-GPU bandwidth on hardware with these).
std::string stream_kernel(const char *flavour, const char *timer, const char *suffix) {
  std::string m;
  std::string ld = std::string("ld.global") + (flavour[1] == 'g' ? ".cg" : "") + ".v4.f32";
  m += std::string(".visible .entry stream_") + flavour + suffix +
       "(.param .u64 in, .param .u64 out, .param .u64 clk, .param .u32 n4, .param .u32 reps)\n{\n";
  m += kRegs;
  m += "  mov.u64 %rd11, " + std::string(timer) + ";\n"
       "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
       "  ld.param.u32 %r2, [n4];\n  ld.param.u32 %r1, [reps];\n"
       "  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mov.u32 %r5, %tid.x;\n"
       "  mad.lo.s32 %r6, %r3, %r4, %r5;\n  mov.u32 %r7, %nctaid.x;\n  mul.lo.s32 %r7, %r7, %r4;\n"
       "  mul.wide.u32 %rd10, %r7, 16;\n  shl.b32 %r8, %r7, 2;\n"
       "  mov.f32 %f20, 0f00000000;\n  mov.u32 %r9, 0;\n"
       "REP:\n"
       "  mov.u32 %r10, %r6;\n  mul.wide.u32 %rd3, %r6, 16;\n  add.s64 %rd4, %rd1, %rd3;\n"
       "LOOP:\n";
  m += "  " + ld + " {%f1, %f2, %f3, %f4}, [%rd4];\n  add.s64 %rd5, %rd4, %rd10;\n";
  m += "  " + ld + " {%f5, %f6, %f7, %f8}, [%rd5];\n  add.s64 %rd6, %rd5, %rd10;\n";
  m += "  " + ld + " {%f9, %f10, %f11, %f12}, [%rd6];\n  add.s64 %rd7, %rd6, %rd10;\n";
  m += "  " + ld + " {%f13, %f14, %f15, %f16}, [%rd7];\n  add.s64 %rd4, %rd7, %rd10;\n";
  m += "  add.s32 %r10, %r10, %r8;\n  setp.lt.u32 %p1, %r10, %r2;\n"
       "  add.f32 %f20, %f20, %f1;\n  add.f32 %f20, %f20, %f5;\n"
       "  add.f32 %f20, %f20, %f9;\n  add.f32 %f20, %f20, %f13;\n"
       "  @%p1 bra LOOP;\n"
       "  add.s32 %r9, %r9, 1;\n  setp.lt.u32 %p2, %r9, %r1;\n  @%p2 bra REP;\n"
       "  mul.wide.u32 %rd8, %r6, 4;\n  add.s64 %rd9, %rd2, %rd8;\n  st.global.f32 [%rd9], %f20;\n"
       "  bar.sync 0;\n  mov.u64 %rd12, " + std::string(timer) + ";\n"
       "  setp.ne.u32 %p3, %r5, 0;\n  @%p3 bra DONE;\n"
       "  ld.param.u64 %rd13, [clk];\n  mul.wide.u32 %rd14, %r3, 16;\n  add.s64 %rd13, %rd13, %rd14;\n"
       "  st.global.v2.u64 [%rd13], {%rd11, %rd12};\n"
       "DONE:\n"
       "  ret;\n}\n\n";
  return m;
}

std::string build_module() {
  std::string m =
      "// simtvp bench/micro: PTX microbenchmarks (generated by micro_kernels.cc)\n"
      ".version 7.0\n.target sm_70\n.address_size 64\n\n"
      ".const .align 8 .u64 cchain[2048];\n\n";
  m += chase_kernel("chase_ca", "ld.global.u64 %rd1, [%rd1];");
  m += chase_kernel("chase_cg", "ld.global.cg.u64 %rd1, [%rd1];");
  m += chase_kernel("chase_atom", "atom.global.exch.b64 %rd1, [%rd1], %rd1;");
  m += chase_kernel("chase_const", "ld.const.u64 %rd1, [%rd1];");
  m += ".visible .entry const_addr(.param .u64 out)\n{\n  .reg .b64 %rd<4>;\n"
       "  ld.param.u64 %rd2, [out];\n  mov.u64 %rd1, cchain;\n  st.global.u64 [%rd2], %rd1;\n  ret;\n}\n\n";

  // Shared-memory chase: thread 0 builds the circular list word[i] = base + ((i+1) % n) * stride.
  m += ".visible .entry chase_shared(.param .u32 n, .param .u32 stride, .param .u32 iters,\n"
       "                             .param .u32 passes, .param .u64 out)\n{\n";
  m += kRegs;
  m += "  .shared .align 8 .b8 schain[16384];\n"
       "  ld.param.u32 %r5, [n];\n  ld.param.u32 %r6, [stride];\n"
       "  ld.param.u32 %r1, [iters];\n  ld.param.u32 %r2, [passes];\n  ld.param.u64 %rd2, [out];\n"
       "  mov.u32 %r7, schain;\n  mov.u32 %r8, 0;\n"
       "BUILD:\n"
       "  add.s32 %r9, %r8, 1;\n  rem.u32 %r9, %r9, %r5;\n  mad.lo.s32 %r9, %r9, %r6, %r7;\n"
       "  mad.lo.s32 %r14, %r8, %r6, %r7;\n  st.shared.u32 [%r14], %r9;\n"
       "  add.s32 %r8, %r8, 1;\n  setp.lt.u32 %p3, %r8, %r5;\n  @%p3 bra BUILD;\n"
       "  mov.u32 %r15, %r7;\n";
  m += timed_passes("ld.shared.u32 %r15, [%r15];", kChaseUnroll, "mov.u32 %r13, %r15;");
  m += "  st.global.u32 [%rd2+64], %r13;\n  ret;\n}\n\n";

  for (const alu_class &c : alu_classes()) m += alu_kernel(c);

  for (const char *flavour : {"ca", "cg"}) m += stream_kernel(flavour, "%clock64", "");
  // Shared-memory bandwidth: lane l of every warp reads word l of 16 rows of 128 bytes (one
  // conflict-free phase per instruction), 16 loads into distinct registers per iteration, each
  // value folded into %r3 inside the loop. The rows are 0 or 2048 bytes on, chosen by the
  // iteration and by the values read so far (the buffer is zeroed first), so ptxas can neither
  // hoist nor drop the loads: with invariant addresses and only the last iteration's values used
  // it did both (an H100 "read" 2093 B/clk/SM). Thread 0 records the %clock64 delta between two
  // barriers: out[ctaid] (u64); %r3 goes to out[128 + tid] (u32).
  m += ".visible .entry smem_bw(.param .u64 out, .param .u32 iters)\n{\n";
  m += kRegs;
  m += "  .shared .align 16 .b8 sbuf[4096];\n"
       "  ld.param.u64 %rd2, [out];\n  ld.param.u32 %r1, [iters];\n"
       "  mov.u32 %r5, %tid.x;\n  and.b32 %r6, %r5, 31;\n  mov.u32 %r7, sbuf;\n"
       "  mad.lo.s32 %r7, %r6, 4, %r7;\n  mov.u32 %r4, 0;\n  mov.u32 %r3, 0;\n"
       "  mov.u32 %r11, %r5;\n  mov.u32 %r13, sbuf;\n  mov.u32 %r14, %ntid.x;\n"
       "ZLOOP:\n"
       "  setp.ge.u32 %p3, %r11, 1024;\n  @%p3 bra ZDONE;\n  shl.b32 %r12, %r11, 2;\n"
       "  add.s32 %r12, %r12, %r13;\n  st.shared.u32 [%r12], %r4;\n  add.s32 %r11, %r11, %r14;\n"
       "  bra ZLOOP;\n"
       "ZDONE:\n"
       "  bar.sync 0;\n  mov.u64 %rd3, %clock64;\n"
       "SLOOP:\n"
       "  and.b32 %r10, %r4, 1;\n  shl.b32 %r10, %r10, 11;\n  and.b32 %r12, %r3, 2048;\n"
       "  xor.b32 %r10, %r10, %r12;\n  add.s32 %r9, %r7, %r10;\n";
  for (int k = 0; k < 16; k++)
    m += "  ld.shared.u32 %r" + std::to_string(20 + k) + ", [%r9+" + std::to_string(k * 128) + "];\n";
  for (int k = 0; k < 16; k++) m += "  xor.b32 %r3, %r3, %r" + std::to_string(20 + k) + ";\n";
  m += "  add.s32 %r4, %r4, 1;\n  setp.lt.u32 %p1, %r4, %r1;\n  @%p1 bra SLOOP;\n";
  m += "  bar.sync 0;\n  mov.u64 %rd4, %clock64;\n  sub.s64 %rd5, %rd4, %rd3;\n"
       "  setp.ne.u32 %p2, %r5, 0;\n  mov.u32 %r8, %ctaid.x;\n  mul.wide.u32 %rd6, %r8, 8;\n"
       "  add.s64 %rd7, %rd2, %rd6;\n  @!%p2 st.global.u64 [%rd7], %rd5;\n"
       "  mul.wide.u32 %rd8, %r5, 4;\n  add.s64 %rd9, %rd2, %rd8;\n  st.global.u32 [%rd9+512], %r3;\n"
       "  ret;\n}\n\n";

  // L1D bandwidth: CTA c reads its own window of n4 float4 (in + c * n4 * 16) once to warm the
  // L1D, then `iters` times between two barriers; thread 0 records the delta in out[ctaid].
  m += ".visible .entry l1_bw(.param .u64 in, .param .u64 out, .param .u32 n4, .param .u32 iters)\n{\n";
  m += kRegs;
  m += "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
       "  ld.param.u32 %r2, [n4];\n  ld.param.u32 %r1, [iters];\n"
       "  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mov.u32 %r5, %tid.x;\n"
       "  mul.wide.u32 %rd3, %r3, %r2;\n  shl.b64 %rd3, %rd3, 4;\n  add.s64 %rd1, %rd1, %rd3;\n"
       "  mul.wide.u32 %rd10, %r4, 16;\n  mov.f32 %f20, 0f00000000;\n"
       "  mov.u32 %r9, 0;\n  mov.u32 %r11, 0;\n"
       "WARM:\n"
       "  mov.u32 %r10, %r5;\n  mul.wide.u32 %rd4, %r5, 16;\n  add.s64 %rd4, %rd1, %rd4;\n"
       "WLOOP:\n"
       "  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];\n  add.f32 %f20, %f20, %f1;\n"
       "  add.s64 %rd4, %rd4, %rd10;\n  add.s32 %r10, %r10, %r4;\n  setp.lt.u32 %p1, %r10, %r2;\n"
       "  @%p1 bra WLOOP;\n"
       "  setp.eq.u32 %p3, %r11, 0;\n  add.s32 %r11, %r11, 1;\n"
       "  @!%p3 bra COUNT;\n"
       "  bar.sync 0;\n  mov.u64 %rd13, %clock64;\n  bra WARM;\n"
       "COUNT:\n"
       "  add.s32 %r9, %r9, 1;\n  setp.lt.u32 %p2, %r9, %r1;\n  @%p2 bra WARM;\n"
       "  bar.sync 0;\n  mov.u64 %rd14, %clock64;\n  sub.s64 %rd5, %rd14, %rd13;\n"
       "  setp.ne.u32 %p2, %r5, 0;\n  mul.wide.u32 %rd6, %r3, 8;\n  add.s64 %rd7, %rd2, %rd6;\n"
       "  @!%p2 st.global.u64 [%rd7], %rd5;\n"
       "  mul.wide.u32 %rd8, %r5, 4;\n  add.s64 %rd9, %rd2, %rd8;\n  st.global.f32 [%rd9+512], %f20;\n"
       "  ret;\n}\n\n";

  m += ".visible .entry empty()\n{\n  ret;\n}\n";
  // Appended last, so the kernels above keep their place (and instruction addresses) in the module.
  for (const char *flavour : {"ca", "cg"}) m += "\n" + stream_kernel(flavour, "%globaltimer", "_gt");
  for (const alu_class &c : fence_classes()) m += "\n" + alu_kernel(c);
  return m;
}

template <class F>
simtvp_status host_call(simtvp_host *h, F &&f, simtvp_diag *diag) {
  return simtvp_host_call(h, [](void *ctx) { (*static_cast<F *>(ctx))(); }, &f, diag);
}

}  // namespace

const std::vector<alu_class> &alu_classes() {
  static const std::vector<alu_class> classes = {
      {"iadd", "add.s32 %r10, %r10, %r11;", "int32 add (add.s32)"},
      // ptxas folds a chain of adds of one value into a multiply (an H100 "ran" iadd at 0.51
      // cycles); an add and an xor cannot be folded: cycles per pair
      {"iaddxor", "add.s32 %r10, %r10, %r11;\n  xor.b32 %r10, %r10, %r12;", "int32 add + xor pair"},
      {"imad", "mad.lo.s32 %r10, %r10, %r11, %r12;", "int32 multiply-add (mad.lo.s32)"},
      {"fadd", "add.f32 %f1, %f1, %f3;", "fp32 add (add.f32)"},
      {"ffma", "fma.rn.f32 %f1, %f1, %f2, %f3;", "fp32 fma (fma.rn.f32)"},
      {"dfma", "fma.rn.f64 %fd1, %fd1, %fd2, %fd3;", "fp64 fma (fma.rn.f64)"},
      {"sfu", "sqrt.approx.f32 %f1, %f1;", "SFU (sqrt.approx.f32)"},
  };
  return classes;
}

const std::vector<alu_class> &fence_classes() {
  // A store, then the fence, then an add the next store depends on: one thread, so every fence
  // orders exactly one store (what it costs beyond `st` is the fence's price at its scope).
  static const std::vector<alu_class> classes = {
      {"st", "st.global.u32 [%rd2+64], %r10;\n  add.s32 %r10, %r10, %r11;", "store + add (no fence)"},
      {"st_membar_cta", "st.global.u32 [%rd2+64], %r10;\n  membar.cta;\n  add.s32 %r10, %r10, %r11;",
       "store + membar.cta + add"},
      {"st_membar_gl", "st.global.u32 [%rd2+64], %r10;\n  membar.gl;\n  add.s32 %r10, %r10, %r11;",
       "store + membar.gl + add"},
      {"st_membar_sys", "st.global.u32 [%rd2+64], %r10;\n  membar.sys;\n  add.s32 %r10, %r10, %r11;",
       "store + membar.sys + add"},
      {"st_fence_gpu", "st.global.u32 [%rd2+64], %r10;\n  fence.acq_rel.gpu;\n  add.s32 %r10, %r10, %r11;",
       "store + fence.acq_rel.gpu + add"},
      {"st_syncwarp", "st.global.u32 [%rd2+64], %r10;\n  bar.warp.sync -1;\n  add.s32 %r10, %r10, %r11;",
       "store + bar.warp.sync + add"},
      // the fences alone (nothing to order): what a fence costs whatever is in flight
      {"membar_cta", "membar.cta;\n  add.s32 %r10, %r10, %r11;", "membar.cta + add"},
      {"membar_gl", "membar.gl;\n  add.s32 %r10, %r10, %r11;", "membar.gl + add"},
      {"membar_sys", "membar.sys;\n  add.s32 %r10, %r10, %r11;", "membar.sys + add"},
      // a load, then the fence: does a fence wait for loads in flight too?
      {"ld_membar_gl", "ld.volatile.global.u32 %r12, [%rd2+64];\n  membar.gl;\n  add.s32 %r10, %r10, %r11;",
       "load + membar.gl + add"},
  };
  return classes;
}

const std::string &micro_module() {
  static const std::string m = build_module();
  return m;
}

// ---- session --------------------------------------------------------------------------------

bool session::load() {
  if (mod_) return true;
  simtvp_diag dg;
  simtvp_diag_clear(&dg);
  const std::string &m = micro_module();
  if (drv_module_load_ptx(d_, m.data(), m.size(), "micro.ptx", &mod_, &dg) != SIMTVP_OK) {
    fail(std::string("loading the benchmark module: ") + dg.message);
    mod_ = nullptr;
    return false;
  }
  return true;
}

uint64_t session::alloc(uint64_t bytes) {
  simtvp_diag dg;
  simtvp_diag_clear(&dg);
  uint64_t p = 0;
  if (drv_mem_alloc(d_, bytes, &p, &dg) != SIMTVP_OK) fail(std::string("cudaMalloc: ") + dg.message);
  return p;
}

void session::write(uint64_t dptr, const void *src, uint64_t bytes) {
  simtvp_diag dg;
  simtvp_diag_clear(&dg);
  if (drv_memcpy(d_, nullptr, drv_device_ptr(dptr), drv_host_ptr(src), bytes, &dg) != SIMTVP_OK)
    fail(std::string("copy to the device: ") + dg.message);
}

void session::read(void *dst, uint64_t dptr, uint64_t bytes) {
  simtvp_diag dg;
  simtvp_diag_clear(&dg);
  if (drv_memcpy(d_, nullptr, drv_host_ptr(dst), drv_device_ptr(dptr), bytes, &dg) != SIMTVP_OK ||
      drv_sync(d_, &dg) != SIMTVP_OK)
    fail(std::string("copy from the device: ") + dg.message);
}

uint64_t session::global(const char *name) {
  simtvp_diag dg;
  simtvp_diag_clear(&dg);
  uint64_t p = 0, n = 0;
  if (!load()) return 0;
  if (drv_module_global(mod_, name, &p, &n, &dg) != SIMTVP_OK) fail(dg.message);
  return p;
}

uint64_t session::launch(const char *name, std::vector<const void *> args, uint32_t grid, uint32_t block) {
  if (!load()) return 0;
  drv_function *f = drv_module_function(mod_, name);
  if (!f) {
    fail(std::string("no kernel ") + name);
    return 0;
  }
  simtvp_diag dg;
  simtvp_diag_clear(&dg);
  uint8_t params[512];
  uint32_t used = 0;
  if (drv_function_pack_params(f, const_cast<void *const *>(reinterpret_cast<const void *const *>(args.data())),
                               params, sizeof params, &used, &dg) != SIMTVP_OK) {
    fail(std::string(name) + ": " + dg.message);
    return 0;
  }
  stats *st = simtvp_host_stats(h_);
  int found = 0;
  uint64_t c0 = stats_get(st, "gpu_sim_cycle", &found);
  const uint32_t g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
  if (drv_launch(d_, nullptr, f, g, b, 0, params, used, &dg) != SIMTVP_OK || drv_sync(d_, &dg) != SIMTVP_OK) {
    simtvp_diag fault;
    std::string why = dg.message;
    if (simtvp_host_last_fault(h_, &fault)) why += std::string(" (") + fault.message + ")";
    fail(std::string(name) + ": " + why);
    return 0;
  }
  return stats_get(st, "gpu_sim_cycle", &found) - c0;
}

// ---- run in a child ------------------------------------------------------------------------------

values run(const std::string &config, const std::vector<std::string> &overrides,
           const std::function<void(session &, std::vector<double> &)> &body) {
  values out;
  int fds[2];
  if (pipe(fds) != 0) {
    out.error = "pipe failed";
    return out;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    out.error = "fork failed";
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    for (const char *v : {"SIMTVP_CONFIG", "SIMTVP_OUTDIR", "SIMTVP_OPTIONS", "SIMTVP_STRICT", "SIMTVP_QUIET"})
      unsetenv(v);
    std::vector<const char *> argv;
    for (const std::string &s : overrides) argv.push_back(s.c_str());
    simtvp_host_options o{};
    o.config_path = config.empty() ? nullptr : config.c_str();
    o.overrides = argv.data();
    o.n_overrides = static_cast<int>(argv.size());
    o.quiet = true;
    simtvp_diag dg;
    simtvp_diag_clear(&dg);
    std::string error;
    std::vector<double> v;
    simtvp_host *h = simtvp_host_open(&o, &dg);
    drv *d = nullptr;
    if (!h || simtvp_host_driver(h, &d, &dg) != SIMTVP_OK) {
      error = std::string("opening the platform: ") + dg.message;
    } else {
      session s(h, d);
      simtvp_status st = host_call(h, [&] { body(s, v); }, &dg);
      if (st != SIMTVP_OK) s.fail(std::string("the simulation stopped: ") + dg.message);
      error = s.error();
    }
    // [error length][error][count][values]
    std::string msg;
    uint64_t n = error.size();
    msg.append(reinterpret_cast<const char *>(&n), 8);
    msg += error;
    n = v.size();
    msg.append(reinterpret_cast<const char *>(&n), 8);
    msg.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(double));
    const char *p = msg.data();
    size_t left = msg.size();
    while (left) {
      ssize_t k = write(fds[1], p, left);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) _exit(4);
      p += k;
      left -= static_cast<size_t>(k);
    }
    close(fds[1]);
    // The platform is not closed: the summary and statistics files are not wanted, and the
    // process ends here.
    _exit(0);
  }
  close(fds[1]);
  std::string data;
  char buf[4096];
  for (;;) {
    ssize_t k = read(fds[0], buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    data.append(buf, static_cast<size_t>(k));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  uint64_t n = 0;
  size_t at = 0;
  if (data.size() < 8) {
    out.error = "the run died (status " + std::to_string(status) + ")";
    return out;
  }
  std::memcpy(&n, data.data(), 8);
  at = 8;
  out.error = data.substr(at, n);
  at += n;
  if (at + 8 > data.size()) {
    out.error = "short message from the run";
    return out;
  }
  std::memcpy(&n, data.data() + at, 8);
  at += 8;
  out.v.resize(n);
  if (at + n * sizeof(double) > data.size()) {
    out.error = "short message from the run";
    return out;
  }
  std::memcpy(out.v.data(), data.data() + at, n * sizeof(double));
  out.ok = out.error.empty();
  return out;
}

// ---- measurements -------------------------------------------------------------------------------

namespace {

// Runs a chase kernel from `start` and returns the %clock64 deltas of every pass.
std::vector<uint64_t> chase_run(session &s, const char *kernel, uint64_t start, uint32_t loads, uint32_t passes) {
  std::vector<uint64_t> deltas(kMaxPasses + 1, 0);
  if (passes == 0 || passes > kMaxPasses || loads % kChaseUnroll != 0 || loads == 0) {
    s.fail("chase: passes must be 1..8 and loads a multiple of 16");
    return deltas;
  }
  uint64_t out = s.alloc(sizeof(uint64_t) * (kMaxPasses + 1));
  uint32_t iters = loads / kChaseUnroll;
  s.launch(kernel, {&start, &iters, &passes, &out}, 1, 1);
  s.read(deltas.data(), out, sizeof(uint64_t) * (kMaxPasses + 1));
  return deltas;
}

}  // namespace

uint64_t grid_span(session &s, uint64_t clk, uint32_t grid) {
  std::vector<uint64_t> c(2 * static_cast<size_t>(grid), 0);
  s.read(c.data(), clk, c.size() * 8);
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t i = 0; i < grid; i++) {
    lo = std::min(lo, c[2 * i]);
    hi = std::max(hi, c[2 * i + 1]);
  }
  return hi > lo ? hi - lo : 0;
}

uint64_t chase_global_cycles(session &s, const char *kernel, uint32_t n, uint32_t stride, uint32_t loads,
                             uint32_t passes) {
  if (!s.load()) return 0;
  uint64_t buf = s.alloc(static_cast<uint64_t>(n) * stride + 256);
  buf = (buf + 127) & ~uint64_t(127);
  std::vector<uint8_t> host(static_cast<size_t>(n) * stride, 0);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t next = buf + static_cast<uint64_t>((i + 1) % n) * stride;
    std::memcpy(&host[static_cast<size_t>(i) * stride], &next, 8);
  }
  s.write(buf, host.data(), host.size());
  std::vector<uint64_t> d = chase_run(s, kernel, buf, loads, passes);
  return passes ? d[passes - 1] : 0;
}

double chase_global(session &s, const char *kernel, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes) {
  return static_cast<double>(chase_global_cycles(s, kernel, n, stride, loads, passes)) / loads;
}

std::vector<double> chase_list(session &s, const char *kernel, uint64_t buffer, uint64_t bytes,
                               const std::vector<uint64_t> &addrs, uint32_t loads, uint32_t passes) {
  std::vector<double> per(passes, 0.0);
  if (addrs.empty() || loads == 0 || loads % kChaseUnroll != 0 || passes == 0 || passes > kMaxPasses) {
    s.fail("chase_list: loads per pass a multiple of 16, 1..8 passes");
    return per;
  }
  // One copy of the whole buffer with every element's next pointer in place.
  std::vector<uint8_t> host(bytes, 0);
  for (size_t i = 0; i < addrs.size(); i++) {
    if (addrs[i] < buffer || addrs[i] + 8 > buffer + bytes) {
      s.fail("chase_list: an address outside the buffer");
      return per;
    }
    uint64_t next = addrs[(i + 1) % addrs.size()];
    std::memcpy(&host[addrs[i] - buffer], &next, 8);
  }
  s.write(buffer, host.data(), bytes);
  std::vector<uint64_t> d = chase_run(s, kernel, addrs[0], loads, passes);
  for (uint32_t p = 0; p < passes; p++) per[p] = static_cast<double>(d[p]) / loads;
  return per;
}

double chase_const(session &s, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes, bool warm_l2) {
  if (!s.load()) return 0;
  if (stride % 8 != 0 || static_cast<uint64_t>(n) * stride > 2048 * 8) {
    s.fail("chase_const: the chain must fit cchain (16 KB) with 8-byte aligned elements");
    return 0;
  }
  uint64_t out = s.alloc(64);
  s.launch("const_addr", {&out}, 1, 1);
  uint64_t kaddr = 0;
  s.read(&kaddr, out, 8);
  std::vector<uint64_t> chain(2048, 0);
  for (uint32_t i = 0; i < n; i++) chain[i * stride / 8] = kaddr + static_cast<uint64_t>((i + 1) % n) * stride;
  s.write(s.global("cchain"), chain.data(), chain.size() * 8);
  if (warm_l2) {
    // Every sector of cchain into the L2: one warp streams the 16 KB with ld.global.cg (the
    // constant bank lives at the same device addresses).
    uint64_t scratch = s.alloc(32 * 4), clk = s.alloc(16);
    uint32_t n4 = 2048 * 8 / 16, reps = 1;
    s.launch("stream_cg", {&kaddr, &scratch, &clk, &n4, &reps}, 1, 32);
  }
  std::vector<uint64_t> d = chase_run(s, "chase_const", kaddr, loads, passes);
  return static_cast<double>(d[passes - 1]) / loads;
}

double chase_shared(session &s, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes) {
  if (!s.load()) return 0;
  if (stride % 4 != 0 || static_cast<uint64_t>(n) * stride > 16384 || loads % kChaseUnroll || passes > kMaxPasses) {
    s.fail("chase_shared: the chain must fit 16 KB of shared memory");
    return 0;
  }
  uint64_t out = s.alloc(sizeof(uint64_t) * (kMaxPasses + 1));
  uint32_t iters = loads / kChaseUnroll;
  s.launch("chase_shared", {&n, &stride, &iters, &passes, &out}, 1, 1);
  std::vector<uint64_t> d(kMaxPasses + 1, 0);
  s.read(d.data(), out, sizeof(uint64_t) * (kMaxPasses + 1));
  return static_cast<double>(d[passes - 1]) / loads;
}

uint64_t alu_chain_cycles(session &s, const char *cls, uint32_t iters, uint32_t passes) {
  if (!s.load()) return 0;
  if (passes == 0 || passes > kMaxPasses) {
    s.fail("alu_chain: passes must be 1..8");
    return 0;
  }
  uint64_t out = s.alloc(sizeof(uint64_t) * (kMaxPasses + 1));
  std::string k = std::string("alu_") + cls;
  s.launch(k.c_str(), {&out, &iters, &passes}, 1, 1);
  std::vector<uint64_t> d(kMaxPasses + 1, 0);
  s.read(d.data(), out, sizeof(uint64_t) * (kMaxPasses + 1));
  return d[passes - 1];
}

double alu_chain(session &s, const char *cls, uint32_t iters, uint32_t passes) {
  return static_cast<double>(alu_chain_cycles(s, cls, iters, passes)) / (static_cast<double>(iters) * kAluUnroll);
}

// ---- configuration and DRAM chains -------------------------------------------------------------

gpu_setup::~gpu_setup() { dram_addrmap_destroy(map); }

bool load_gpu(const std::string &config, const std::vector<std::string> &overrides, gpu_setup *out,
              std::string *error) {
  config_registry *r = config_registry_create(nullptr);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  std::string file = config.empty() ? std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config" : config;
  bool ok = r && gpu_config_register(r, &out->g, &d) == SIMTVP_OK &&
            config_registry_load_file(r, file.c_str(), &d) == SIMTVP_OK;
  if (ok && !overrides.empty()) {
    std::vector<const char *> argv;
    for (const std::string &o : overrides) argv.push_back(o.c_str());
    ok = config_registry_parse_args(r, static_cast<int>(argv.size()), argv.data(), &d) == SIMTVP_OK;
  }
  ok = ok && gpu_config_finalize(&out->g, r, &d) == SIMTVP_OK;
  config_registry_destroy(r);
  if (!ok) {
    *error = d.message;
    return false;
  }
  const int32_t idx = out->g.mem.partition_indexing;
  const dram_partition_indexing pi = idx == 0 ? DRAM_PART_LINEAR : idx == 1 ? DRAM_PART_XOR : DRAM_PART_IPOLY;
  dram_addrmap_config mc = {out->g.mem.addr_mapping, out->g.mem.n_channels, out->g.mem.sub_partitions_per_channel, pi};
  if (dram_addrmap_create(&mc, &out->map, &d) != SIMTVP_OK) {
    *error = d.message;
    return false;
  }
  return true;
}

double peak_dram_gbs(const gpu_config &g) {
  return g.mem.n_channels * g.mem.chips_per_channel * static_cast<double>(g.dram.bus_width) *
         g.dram.data_command_freq_ratio * g.derived.dram_mhz * 1e6 / 1e9;
}

namespace {

struct row_key {
  uint32_t channel, bank, row;
  bool operator<(const row_key &o) const {
    return channel != o.channel ? channel < o.channel : bank != o.bank ? bank < o.bank : row < o.row;
  }
};

// Sectors of [buf, buf + bytes) of channel 0, grouped by (bank, row), in address order.
std::map<row_key, std::vector<uint64_t>> rows_of(const dram_addrmap *map, uint64_t buf, uint64_t bytes) {
  std::map<row_key, std::vector<uint64_t>> m;
  for (uint64_t a = (buf + 31) & ~uint64_t(31); a + 32 <= buf + bytes; a += 32) {
    dram_addr d;
    dram_addrmap_decode(map, a, &d);
    if (d.channel == 0) m[{d.channel, d.bank, d.row}].push_back(a);
  }
  return m;
}

}  // namespace

std::vector<uint64_t> row_hit_chain(const dram_addrmap *map, uint64_t buf, uint64_t bytes, std::string *why) {
  for (auto &kv : rows_of(map, buf, bytes)) {
    if (kv.second.size() < 64) continue;
    std::vector<uint64_t> out;
    for (uint32_t i = 0; i < 64; i++) out.push_back(kv.second[(i * 37) % 64]);  // 37 is coprime with 64
    return out;
  }
  *why = "no DRAM row with 64 sectors in the buffer";
  return {};
}

std::vector<uint64_t> row_miss_chain(const dram_addrmap *map, uint64_t buf, uint64_t bytes, std::string *why) {
  auto m = rows_of(map, buf, bytes);
  const std::pair<const row_key, std::vector<uint64_t>> *first = nullptr;
  for (auto &kv : m) {
    if (kv.second.size() < 32) continue;
    if (!first) {
      first = &kv;
      continue;
    }
    if (kv.first.bank != first->first.bank) continue;
    std::vector<uint64_t> out;
    for (uint32_t i = 0; i < 32; i++) {
      out.push_back(first->second[(i * 7) % 32]);
      out.push_back(kv.second[(i * 7) % 32]);
    }
    return out;
  }
  *why = "no two rows of one bank with 32 sectors each in the buffer";
  return {};
}

}  // namespace micro
