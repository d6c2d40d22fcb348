// simt_func — the functional SIMT side: models/func through gpu_simt_func (models/gpuctl). A CTA
// runs to completion inside launch_cta and is reported done at once, so kernels take no GPU time
// beyond the control side's (command processor, dispatcher, copies). Fastest path, no timing.
// While host memory is mapped into the GPU, a CTA that runs longer than -func_step_insns warp
// instructions yields and resumes that many core cycles later (gpu_simt_func_set_step): a method
// of this shell wakes it, so a kernel that waits for the host lets simulated time advance.
#include "simt_subsystem.h"

#include <sysc/kernel/sc_dynamic_processes.h>

#include "gpu_params.h"
#include "gpu_simt_func.h"

namespace simtvp {
namespace {

class simt_func final : public simt_subsystem {
 public:
  simt_func(const simt_env &env, simtvp_diag *diag) : env_(env) {
    side_ = create(diag);
    // Resumes CTAs that yielded (models/gpuctl gpu_simt_func_resume) at the cycle they asked for.
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&resume_ev_);
    sc_core::sc_spawn([this]() { resume(); }, sc_core::sc_gen_unique_name("func_resume"), &o);
    if (env.st) {
      thread_insn_ = stats_counter(env.st, "func.thread_insn", "insn",
                                   "thread instructions executed (active lanes of each warp instruction)");
      gpu_sim_insn_ = stats_counter(env.st, "gpu_sim_insn", "insn", "thread instructions executed");
    }
    inner_ = side_ ? gpu_simt_func_port(side_) : gpu_simt_port{};
  }
  ~simt_func() override { gpu_simt_func_destroy(side_); }
  bool ok() const { return side_ != nullptr; }

  gpu_simt_port port() override {
    gpu_simt_port p = inner_;
    p.ctx = this;
    p.kernel_begin = [](void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
      auto *s = static_cast<simt_func *>(ctx);
      return s->inner_.kernel_begin(s->inner_.ctx, k, why);
    };
    // The engine adds a launch's instruction counts to func.thread_insn as CTAs finish (and what
    // is left when the launch is destroyed at kernel_end): what it adds inside these calls is
    // this kernel's, counted as gpu_sim_insn.
    p.launch_cta = [](void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
      auto *s = static_cast<simt_func *>(ctx);
      uint64_t before = s->thread_insn_ ? *s->thread_insn_ : 0;
      s->inner_.launch_cta(s->inner_.ctx, k, sm, cta);
      if (s->thread_insn_) *s->gpu_sim_insn_ += *s->thread_insn_ - before;
    };
    p.kernel_end = [](void *ctx, const gpu_kernel *k) {
      // (a kernel ends once its CTAs have, yielded ones included)
      auto *s = static_cast<simt_func *>(ctx);
      uint64_t before = s->thread_insn_ ? *s->thread_insn_ : 0;
      s->inner_.kernel_end(s->inner_.ctx, k);
      if (s->thread_insn_) *s->gpu_sim_insn_ += *s->thread_insn_ - before;
    };
    p.mmu_attach = [](void *ctx, const gpu_mmu_port *mmu) {
      auto *s = static_cast<simt_func *>(ctx);
      s->mmu_ = *mmu;
      s->have_mmu_ = true;
      if (s->inner_.mmu_attach) s->inner_.mmu_attach(s->inner_.ctx, mmu);
    };
    p.mmu_invalidate = [](void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t now) {
      auto *s = static_cast<simt_func *>(ctx);
      if (s->inner_.mmu_invalidate) s->inner_.mmu_invalidate(s->inner_.ctx, pdb, va, bytes, now);
    };
    p.mmu_replay = [](void *ctx, bool cancel, uint64_t now) {
      auto *s = static_cast<simt_func *>(ctx);
      uint64_t before = s->thread_insn_ ? *s->thread_insn_ : 0;
      if (s->inner_.mmu_replay) s->inner_.mmu_replay(s->inner_.ctx, cancel, now);
      if (s->thread_insn_) *s->gpu_sim_insn_ += *s->thread_insn_ - before;
    };
    return p;
  }
  // Nothing is in flight between calls, but launches of kernels the dispatcher forgot would stay:
  // start over with a fresh engine (decoded programs are rebuilt on the next kernel_begin).
  void reset() override {
    gpu_simt_func_destroy(side_);
    side_ = create(nullptr);
    inner_ = side_ ? gpu_simt_func_port(side_) : gpu_simt_port{};
    if (side_ && have_mmu_ && inner_.mmu_attach) inner_.mmu_attach(inner_.ctx, &mmu_);
  }
  bool idle() const override { return !side_ || !gpu_simt_func_busy(side_); }
  const char *model_name() const override { return "func"; }
  const simtvp_diag &last_fault() const override { return *gpu_simt_func_last_fault(side_); }

 private:
  gpu_simt_func *create(simtvp_diag *diag) {
    gpu_simt_func_ports ports{};
    ports.cta_done.ctx = this;
    ports.cta_done.done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r) {
      static_cast<simt_func *>(ctx)->env_.cta_done(sm, slot, *r);
    };
    ports.messages = env_.messages;
    // The control cycle at the current SystemC time (stall cycles of replayable faults).
    ports.cycle.ctx = this;
    ports.cycle.now = [](void *ctx) -> uint64_t {
      auto *s = static_cast<simt_func *>(ctx);
      uint64_t hz = s->env_.params ? s->env_.params->core_clock_hz : 0;
      if (!hz) return 0;
      return gpu_ps_to_cycles(now_ps(), hz);
    };
    ports.resume.ctx = this;
    ports.resume.at = [](void *ctx, uint64_t cycle) {
      auto *s = static_cast<simt_func *>(ctx);
      uint64_t hz = s->env_.params ? s->env_.params->core_clock_hz : 0;
      if (!hz) return;
      s->resume_cycle_ = cycle;
      uint64_t at = gpu_cycles_to_ps(cycle, hz);
      uint64_t now = now_ps();
      s->resume_ev_.cancel();
      s->resume_ev_.notify(sc_core::sc_time(static_cast<double>(at > now ? at - now : 0), sc_core::SC_PS));
    };
    gpu_simt_func *side = gpu_simt_func_create(&env_.params->func, &env_.func, env_.mem, env_.st, ports, diag);
    if (side && env_.config) gpu_simt_func_set_step(side, env_.config->fidelity.func_step_insns);
    return side;
  }

  // Simulated time now in picoseconds.
  static uint64_t now_ps() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5); }

  // The yielded CTAs due now run their next step; the thread instructions they execute are this
  // kernel's (gpu_sim_insn), as in launch_cta.
  void resume() {
    if (!side_) return;
    uint64_t before = thread_insn_ ? *thread_insn_ : 0;
    gpu_simt_func_resume(side_, resume_cycle_);
    if (thread_insn_) *gpu_sim_insn_ += *thread_insn_ - before;
    if (env_.wake) env_.wake();
  }
  sc_core::sc_event resume_ev_;
  uint64_t resume_cycle_ = 0;

  simt_env env_;
  gpu_simt_func *side_ = nullptr;
  gpu_simt_port inner_{};
  gpu_mmu_port mmu_{};     // the control side's MMU, re-attached to a side made by reset()
  bool have_mmu_ = false;
  uint64_t *thread_insn_ = nullptr, *gpu_sim_insn_ = nullptr;
};

}  // namespace

std::unique_ptr<simt_subsystem> make_simt_func(sc_core::sc_module_name, const simt_env &env,
                                               simtvp_diag *diag) {
  auto s = std::make_unique<simt_func>(env, diag);
  if (!s->ok()) return nullptr;
  return s;
}

}  // namespace simtvp
