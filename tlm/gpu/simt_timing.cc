// simt_timing — the timing SIMT side (simt_timing.h): assembly, the dispatcher's port, CTA
// completions, simulation control and the deadlock dump. GPU behaviour lives in the model cores
// (models/simt, models/mempart, models/dram, models/icnt) and in gpu_simctl.c.
#include "simt_timing.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace simtvp {

namespace {

constexpr uint64_t kGiB = 1ull << 30;

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

// ---- construction -------------------------------------------------------------------------------

simt_timing::simt_timing(sc_core::sc_module_name name, const simt_env &env)
    : sc_core::sc_module(name), env_(env), g_(*env.config) {
  simtvp_diag_clear(&diag_);
  simtvp_diag_clear(&fault_);
  status_ = build(&diag_);
}

simt_timing::~simt_timing() {
  // The memory system may still hold requests of the clusters' pools: it goes first.
  mem_.reset();
  clusters_.clear();
  gpu_simctl_destroy(ctl_);
  gpu_launcher_destroy(launcher_);
  if (engine_) func_destroy(engine_);
  if (own_stats_) stats_destroy(own_stats_);
}

bool simt_timing::ok(simtvp_diag *diag) const {
  if (status_ == SIMTVP_OK) return true;
  if (diag) *diag = diag_;
  return false;
}

uint64_t simt_timing::core_cycle() const { return core_drv_->current_cycle(); }

gpu_mem_port simt_timing::store_port() const {
  return gpu_mem_port{env_.mem,
                      [](void *ctx, uint64_t a, void *dst, uint64_t n) {
                        return devmem_read(static_cast<::devmem *>(ctx), a, dst, n, nullptr) == SIMTVP_OK;
                      },
                      [](void *ctx, uint64_t a, const void *src, uint64_t n) {
                        return devmem_write(static_cast<::devmem *>(ctx), a, src, n, nullptr) == SIMTVP_OK;
                      }};
}

simtvp_status simt_timing::build(simtvp_diag *diag) {
  const gpu_config_derived &d = g_.derived;
  const gpu_params &p = *env_.params;
  n_cores_ = d.n_cores;
  cores_per_cluster_ = g_.core.n_cores_per_cluster ? g_.core.n_cores_per_cluster : 1;
  st_ = env_.st;
  if (!st_) {  // the cores' counters drive simulation control: keep a private sink
    own_stats_ = stats_create();
    if (!own_stats_) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "%s: out of host memory", name());
    st_ = own_stats_;
  }

  // Parallel simulation (-sim_threads): one pool for every clock domain's parallel phases.
  const uint32_t threads = g_.fidelity.sim_threads ? g_.fidelity.sim_threads : 1;
  if (threads > 1) workers_ = std::make_unique<worker_pool>(threads);

  // Functional engine: the cores execute through its per-warp interface. %clock64 is the core's
  // cycle, %globaltimer the simulated time. Its SMs count apart (sm_threads) with any thread count,
  // so the func.* statistics are the same for every -sim_threads; device printf output and
  // warnings from a parallel tick go out in the serial phase, in a one-thread run's order.
  func_ports fp{};
  fp.ctx = this;
  fp.clock = [](void *ctx, uint32_t) { return static_cast<simt_timing *>(ctx)->core_cycle(); };
  fp.globaltimer = [](void *) {
    return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9);
  };
  fp.print = [](void *ctx, const char *text, size_t len) {
    auto *s = static_cast<simt_timing *>(ctx);
    if (!s->env_.func.print) return;
    if (clocked *b = clocked::current_parallel())
      b->serially([](void *c, const void *t, size_t n, uint64_t) {
        auto *side = static_cast<simt_timing *>(c);
        side->env_.func.print(side->env_.func.ctx, static_cast<const char *>(t), n);
      }, s, text, len);
    else
      s->env_.func.print(s->env_.func.ctx, text, len);
  };
  func_messages_.set_target(env_.func.messages.emit ? env_.func.messages : env_.messages);
  fp.messages = func_messages_.port();
  func_config fc = p.func;
  fc.sm_threads = true;
  engine_ = func_create(&fc, &fp, env_.mem, st_, diag);
  if (!engine_) return diag ? diag->status : SIMTVP_ERR_CONFIG;
  gpu_launcher_attach attach{nullptr, simt_program_build, simt_program_free};
  launcher_ = gpu_launcher_create(engine_, store_port(), &attach, diag);
  if (!launcher_) return diag ? diag->status : SIMTVP_ERR_NOMEM;

  // Clock domains: the core's here, interconnect/L2/DRAM in the memory system.
  core_drv_ = std::make_unique<domain_driver>("core_clock", clock_domain("core", d.core_mhz));

  // The memory system. Partition indexings the address decoder does not model fall back to the
  // hashing that is (the shipped QV100 file asks for 4, random).
  mem_cfg_ = std::make_unique<gpu_config>(g_);
  int32_t &indexing = mem_cfg_->mem.partition_indexing;
  if (indexing >= 3 && indexing <= 5) {
    static const char *const names[] = {"pae", "random", "custom"};
    simtvp_msg(&env_.messages, SIMTVP_WARNING,
               "-gpgpu_memory_partition_indexing %d (%s) is not modelled by the memory system: using 2 (ipoly "
               "hashing), which also spreads strided traffic over the channels",
               indexing, names[indexing - 3]);
    indexing = 2;
  }
  mem_system_config mc;
  simtvp_status st = mem_system_config_from_gpu(*mem_cfg_, st_, &env_.messages, &mc, diag);
  if (st != SIMTVP_OK) return st;
  mc.workers = workers_.get();
  mem_ = std::make_unique<mem_system>("mem", mc);
  if (!mem_->ok(diag)) return diag ? diag->status : SIMTVP_ERR_CONFIG;

  // Cores: per-core fidelity from the configuration; local memory above the heap.
  local_region_bytes_ = static_cast<uint64_t>(d.max_threads_per_core) * kLocalBytesPerThread;
  local_base_ = align_up(p.heap_base + p.heap_bytes + (64u << 10), kGiB);
  if (local_base_ + n_cores_ * local_region_bytes_ > FUNC_WINDOW_LO) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG,
                    "-device_memory_mb: device memory (%" PRIu64 " MiB) leaves no room for the SIMT cores' "
                    "local memory (%u cores x %" PRIu64 " MiB) below the generic-address windows at 0x%llx",
                    g_.host.device_memory_mb, n_cores_, local_region_bytes_ >> 20, (unsigned long long)FUNC_WINDOW_LO);
    simtvp_diag_at_option(diag, "-device_memory_mb");
    return SIMTVP_ERR_CONFIG;
  }
  core_cfgs_.resize(n_cores_);
  bool at_warned = false;
  for (uint32_t sm = 0; sm < n_cores_; sm++) {
    simt_core_config &cc = core_cfgs_[sm];
    st = simt_core_config_from_gpu(&g_, sm, &cc, diag);
    if (st != SIMTVP_OK) return st;
#ifndef SIMTVP_HAVE_SIMT_AT
    if (cc.model == GPU_FIDELITY_AT) {
      if (!at_warned)
        simtvp_msg(&env_.messages, SIMTVP_WARNING,
                   "-simt_model at: the approximately timed SIMT core is not built yet; the cores asked "
                   "to be AT run cycle-accurate (ca)");
      at_warned = true;
      cc.model = GPU_FIDELITY_CA;
    }
#endif
    (void)at_warned;
    cc.stats = st_;
    cc.ldst.local_base = local_base(sm);
  }

  // Clusters, bound to the interconnect.
  simt_cluster_shell_ports sp;
  sp.ctx = this;
  sp.cta_done = &simt_timing::on_cta_done;
  sp.ticked = &simt_timing::on_ticked;
  sp.messages.ctx = this;
  sp.messages.emit = &simt_timing::on_message;
  sp.fault = &simt_timing::on_fault;
  const uint32_t n_clusters = g_.core.n_clusters;
  for (uint32_t c = 0; c < n_clusters; c++) {
    simt_cluster_config cc;
    cc.cluster = c;
    cc.n_clusters = n_clusters;
    cc.n_cores = cores_per_cluster_;
    cc.cores = &core_cfgs_[c * cores_per_cluster_];
    cc.ejection_buffer = g_.core.cluster_ejection_buffer;
    cc.addrmap = mem_->addrmap();
    cc.stats = st_;
    clusters_.push_back(std::make_unique<simt_cluster_shell>(("cluster_" + std::to_string(c)).c_str(),
                                                             *core_drv_, cc, sp, workers_ != nullptr));
    if (!clusters_.back()->ok(diag)) return diag ? diag->status : SIMTVP_ERR_CONFIG;
    bind(clusters_.back()->to_icnt, mem_->cluster_in(c));
    bind(mem_->cluster_out(c), clusters_.back()->from_icnt);
  }

  // Simulation control, ticked after the clusters in the core domain.
  gpu_simctl_config sc{};
  sc.max_cycle = g_.sim.max_cycle;
  sc.max_insn = g_.sim.max_insn;
  sc.max_cta = g_.sim.max_cta;
  sc.deadlock_detect = g_.sim.deadlock_detect;
  sc.deadlock_cycles = g_.sim.deadlock_cycles;
  sc.n_cores = n_cores_;
  sc.max_warps = d.max_warps_per_core;
  sc.insn = stats_counter(st_, "gpu_sim_insn", "insn", "thread instructions executed (active lanes)");
  sc.st = st_;
  st = gpu_simctl_create(&sc, &ctl_, diag);
  if (st != SIMTVP_OK) return st;
  supervisor_.side = this;
  core_drv_->add(supervisor_);
  if (workers_) {
    core_drv_->set_workers(workers_.get());
    // Deferred statistics registrations and the watched counters (gpu_sim_insn for simulation
    // control) are brought up to date after every parallel phase, before the supervisor ticks.
    core_drv_->on_parallel_phase_end([](void *st) { stats_shards_sync(static_cast<stats *>(st)); }, st_);
  }

  uint32_t n_slots = p.ctl.caps.max_concurrent_kernels ? p.ctl.caps.max_concurrent_kernels : 1;
  slots_.assign(n_slots, slot_state{});
  resident_.assign(static_cast<size_t>(n_cores_) * n_slots, 0);
  return SIMTVP_OK;
}

std::unique_ptr<simt_subsystem> make_simt_timing(sc_core::sc_module_name name, const simt_env &env,
                                                 simtvp_diag *diag) {
  auto s = std::make_unique<simt_timing>(name, env);
  if (!s->ok(diag)) return nullptr;
  return s;
}

// ---- faults and messages --------------------------------------------------------------------------

void simt_timing::on_message(void *ctx, simtvp_severity severity, const char *text) {
  auto *s = static_cast<simt_timing *>(ctx);
  simtvp_msg(&s->env_.messages, severity, "%s", text);
}

// A core's structured report (fault or barrier deadlock), kept for the kernel's first failing
// CTA; it arrives before that CTA's completion.
void simt_timing::on_fault(void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report, uint64_t cycle) {
  (void)sm, (void)cycle;
  auto *s = static_cast<simt_timing *>(ctx);
  if (slot >= s->slots_.size()) return;
  slot_state &ss = s->slots_[slot];
  if (ss.have_report || ss.fault_recorded) return;
  ss.have_report = true;
  ss.report = *report;
}

void simt_timing::set_fault(simtvp_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  simtvp_diag_clear(&fault_);
  simtvp_diag_vset(&fault_, st, fmt, ap);
  va_end(ap);
}

// The first failing CTA of a kernel: the core's fault report (kernel, CTA, thread, PC, PTX line)
// with the CTA's status and address.
void simt_timing::record_fault(uint32_t slot, const gpu_cta_result &r) {
  slot_state &s = slots_[slot];
  if (s.fault_recorded) return;
  s.fault_recorded = true;
  if (s.have_report) {
    fault_ = s.report;
    fault_.status = r.status;
  } else {
    set_fault(r.status, "kernel %s: a CTA ended with %s (pc %" PRIu64 ")", s.sk.name ? s.sk.name : "?",
              simtvp_status_name(r.status), r.pc);
    simtvp_diag_at_pc(&fault_, r.pc);
  }
  if (r.status == SIMTVP_ERR_FAULT && !(fault_.where & SIMTVP_WHERE_ADDRESS))
    simtvp_diag_at_address(&fault_, r.fault_addr);
}

// ---- the dispatcher's port ------------------------------------------------------------------------

gpu_simt_port simt_timing::port() {
  gpu_simt_port p;
  p.ctx = this;
  p.kernel_begin = &simt_timing::kernel_begin;
  p.launch_cta = &simt_timing::launch_cta;
  p.kernel_end = &simt_timing::kernel_end;
  return p;
}

bool simt_timing::kernel_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
  auto *s = static_cast<simt_timing *>(ctx);
  const uint64_t now = s->core_cycle();
  gpu_simctl_stop stop;
  if (!gpu_simctl_may_start(s->ctl_, &stop) && stop != GPU_SIMCTL_MAX_CTA) {
    const char *opt = gpu_simctl_stop_option(stop);
    s->set_fault(SIMTVP_ERR_LIMIT, "%s: the simulation limit was reached earlier; the timing GPU runs no more kernels "
                                   "(launch %" PRIu64 " refused)", opt, k->launch_uid);
    simtvp_diag_at_option(&s->fault_, opt);
    simtvp_msg(&s->env_.messages, SIMTVP_ERROR, "%s", s->fault_.message);
    why->status = SIMTVP_ERR_LIMIT;
    why->fault_addr = 0;
    why->pc = 0;
    return false;
  }
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (!gpu_launcher_begin(s->launcher_, k, why, &d)) {
    s->fault_ = d;
    simtvp_msg(&s->env_.messages, SIMTVP_ERROR, "%s", d.message);
    return false;
  }
  if (k->slot >= s->slots_.size()) s->slots_.resize(k->slot + 1);  // never: slots come from caps
  if (s->resident_.size() < static_cast<size_t>(s->n_cores_) * s->slots_.size())
    s->resident_.resize(static_cast<size_t>(s->n_cores_) * s->slots_.size(), 0);
  slot_state &ss = s->slots_[k->slot];
  ss = slot_state{};
  ss.active = true;
  ss.k = *k;
  const ptx_module *m = gpu_launcher_module(s->launcher_, k->slot);
  ss.sk.slot = k->slot;
  ss.sk.launch_uid = k->launch_uid;
  ss.sk.name = m && k->desc.entry < m->n_functions ? m->functions[k->desc.entry].name : "?";
  ss.sk.launch = gpu_launcher_launch(s->launcher_, k->slot);
  ss.sk.program = static_cast<const simt_program *>(gpu_launcher_attachment(s->launcher_, k->slot));
  uint32_t ws = s->g_.derived.warp_size ? s->g_.derived.warp_size : 32;
  ss.warps = (k->threads_per_cta + ws - 1) / ws;
  uint64_t local = static_cast<uint64_t>(k->desc.local_bytes) + s->env_.params->func.stack_bytes;
  if (local > kLocalBytesPerThread && !s->local_warned_) {
    s->local_warned_ = true;
    simtvp_msg(&s->env_.messages, SIMTVP_WARNING,
               "kernel %s: %" PRIu64 " bytes of local memory per thread (frame + -gpgpu_stack_size_limit) exceed "
               "the %" PRIu64 " KiB reserved per thread slot; its local accesses alias the next core's region in "
               "the caches (timing only, results are unaffected)",
               ss.sk.name, local, kLocalBytesPerThread >> 10);
  }
  gpu_simctl_kernel_begin(s->ctl_, now);
  s->wake_supervisor();
  return true;
}

void simt_timing::report(uint32_t sm, uint32_t slot, const gpu_cta_result &r) {
  if (r.status != SIMTVP_OK) record_fault(slot, r);
  env_.cta_done(sm, slot, r);
}

void simt_timing::launch_cta(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
  auto *s = static_cast<simt_timing *>(ctx);
  slot_state &ss = s->slots_[k->slot];
  if (sm >= s->n_cores_ || !ss.active) {
    gpu_cta_result r = {SIMTVP_ERR_STATE, 0, 0};
    s->env_.cta_done(sm, k->slot, r);
    return;
  }
  if (ss.aborted) {  // the kernel was stopped: its remaining CTAs end at once
    gpu_cta_result r = {ss.abort_status, 0, 0};
    s->report(sm, k->slot, r);
    return;
  }
  gpu_simctl_stop why;
  if (!gpu_simctl_may_start(s->ctl_, &why)) {
    if (!ss.limit_reported) {
      ss.limit_reported = true;
      const char *opt = gpu_simctl_stop_option(why);
      s->set_fault(SIMTVP_ERR_LIMIT,
                   "%s: %" PRIu64 " CTAs have started, the limit; kernel %s: CTA (%u,%u,%u) and the rest are not run",
                   opt, gpu_simctl_ctas_started(s->ctl_), ss.sk.name, cta[0], cta[1], cta[2]);
      simtvp_diag_at_option(&s->fault_, opt);
      ss.fault_recorded = true;
      simtvp_msg(&s->env_.messages, SIMTVP_ERROR, "%s", s->fault_.message);
    }
    gpu_cta_result r = {SIMTVP_ERR_LIMIT, 0, 0};
    s->report(sm, k->slot, r);
    return;
  }
  s->resident_[static_cast<size_t>(sm) * s->slots_.size() + k->slot]++;
  s->resident_total_++;
  gpu_simctl_cta_start(s->ctl_, sm, ss.warps, s->core_cycle());
  s->wake_supervisor();  // the first resident CTA opens the deadlock window
  s->shell_of(sm).launch_cta(sm, &ss.sk, cta);
}

void simt_timing::kernel_end(void *ctx, const gpu_kernel *k) {
  auto *s = static_cast<simt_timing *>(ctx);
  const uint64_t now = s->core_cycle();
  if (s->g_.core.flush_l1_per_kernel) {
    for (auto &cl : s->clusters_) {
      simt_cluster *m = cl->model();
      if (!m) continue;
      for (uint32_t i = 0; i < simt_cluster_core_count(m); i++) simt_core_flush_l1(simt_cluster_core(m, i), now);
      cl->poke();
    }
  }
  if (s->g_.mem.flush_l2_per_kernel) {
    uint64_t l2_now = s->mem_->l2_driver().current_cycle();
    for (uint32_t ch = 0; ch < s->mem_->channels(); ch++) {
      mempart_flush_l2(s->mem_->partition(ch).model(), l2_now);
      s->mem_->partition(ch).wake_at(l2_now + 1);
    }
  }
  gpu_simctl_kernel_end(s->ctl_, now);
  gpu_launcher_end(s->launcher_, k);
  if (k->slot < s->slots_.size()) s->slots_[k->slot].active = false;
}

// ---- the clusters' ports --------------------------------------------------------------------------

void simt_timing::on_cta_done(void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t cycle) {
  auto *s = static_cast<simt_timing *>(ctx);
  size_t i = static_cast<size_t>(sm) * s->slots_.size() + slot;
  if (sm < s->n_cores_ && slot < s->slots_.size() && s->resident_[i]) {
    s->resident_[i]--;
    s->resident_total_--;
    gpu_simctl_cta_end(s->ctl_, sm, s->slots_[slot].warps, cycle);
  }
  s->report(sm, slot, *r);
}

void simt_timing::on_ticked(void *ctx, uint64_t cycle) {
  auto *s = static_cast<simt_timing *>(ctx);
  if (s->pending_stop_ != GPU_SIMCTL_RUN) return;
  gpu_simctl_stop why = gpu_simctl_check(s->ctl_, cycle);
  if (why == GPU_SIMCTL_RUN) return;
  s->pending_stop_ = why;  // carried out by the supervisor at the next edge, after every cluster
  s->supervisor_.wake_at(cycle + 1);
}

// ---- simulation control -----------------------------------------------------------------------------

void simt_timing::supervisor_clock::tick(uint64_t c) {
  cycle = c;
  side->supervise(c);
}

uint64_t simt_timing::supervisor_clock::next_tick() const {
  if (side->pending_stop_ != GPU_SIMCTL_RUN) return cycle + 1;
  uint64_t t = gpu_simctl_next_check(side->ctl_);
  return t == GPU_SIMCTL_NEVER ? never : (t <= cycle ? cycle + 1 : t);
}

void simt_timing::wake_supervisor() {
  uint64_t t = gpu_simctl_next_check(ctl_);
  if (t != GPU_SIMCTL_NEVER) supervisor_.wake_at(t);
}

void simt_timing::supervise(uint64_t c) {
  if (pending_stop_ == GPU_SIMCTL_RUN) pending_stop_ = gpu_simctl_check(ctl_, c);
  if (pending_stop_ == GPU_SIMCTL_RUN) return;
  gpu_simctl_stop why = pending_stop_;
  pending_stop_ = GPU_SIMCTL_RUN;
  stop(why, c);
}

void simt_timing::stop(gpu_simctl_stop why, uint64_t c) {
  const simtvp_status status = gpu_simctl_stop_status(why);
  const char *opt = gpu_simctl_stop_option(why);
  std::string kernels;
  for (const slot_state &s : slots_)
    if (s.active) kernels += std::string(kernels.empty() ? "" : ", ") + (s.sk.name ? s.sk.name : "?");
  uint64_t dropped = resident_total_;
  char what[512];
  switch (why) {
  case GPU_SIMCTL_MAX_CYCLE:
    std::snprintf(what, sizeof what, "-gpgpu_max_cycle %" PRIu64 " reached at core cycle %" PRIu64
                  " (%" PRIu64 " cycles with a kernel running)", g_.sim.max_cycle, c,
                  gpu_simctl_busy_cycles(ctl_, c));
    break;
  case GPU_SIMCTL_MAX_INSN: {
    int found = 0;
    std::snprintf(what, sizeof what, "-gpgpu_max_insn %" PRIu64 " reached at core cycle %" PRIu64 " (%" PRIu64
                  " thread instructions)", g_.sim.max_insn, c, stats_get(st_, "gpu_sim_insn", &found));
    break;
  }
  default:
    std::snprintf(what, sizeof what, "deadlock at core cycle %" PRIu64 ": no instruction executed and no CTA "
                  "finished for %" PRIu64 " cycles (-deadlock_cycles %" PRIu64 ")", c,
                  gpu_simctl_quiet_cycles(ctl_, c), g_.sim.deadlock_cycles);
    break;
  }
  if (why == GPU_SIMCTL_DEADLOCK) {
    simtvp_msg(&env_.messages, SIMTVP_ERROR, "%s; the state of every SIMT cluster and of the memory system follows",
               what);
    dump_state(SIMTVP_ERROR);
  }
  // Drop the resident CTAs: fresh model cores, every CTA reported with the stop's status.
  for (slot_state &s : slots_)
    if (s.active) {
      s.aborted = true;
      s.abort_status = status;
    }
  for (auto &cl : clusters_) {
    if (cl->idle()) continue;
    simtvp_diag d;
    simtvp_diag_clear(&d);
    if (cl->rebuild(&d) != SIMTVP_OK) simtvp_msg(&env_.messages, SIMTVP_ERROR, "%s", d.message);
  }
  set_fault(status, "%s: the timing GPU stopped kernel%s %s (%" PRIu64 " resident CTAs dropped)%s", what,
            kernels.find(',') != std::string::npos ? "s" : "", kernels.empty() ? "(none)" : kernels.c_str(), dropped,
            why == GPU_SIMCTL_DEADLOCK ? "" : "; later kernels are not run");
  simtvp_diag_at_option(&fault_, opt);
  simtvp_msg(&env_.messages, SIMTVP_ERROR, "%s", fault_.message);
  gpu_simctl_stopped(ctl_, why, c);
  for (slot_state &s : slots_) s.fault_recorded = s.fault_recorded || s.active;
  const size_t n_slots = slots_.size();
  for (uint32_t sm = 0; sm < n_cores_; sm++)
    for (uint32_t slot = 0; slot < n_slots; slot++) {
      uint32_t &n = resident_[static_cast<size_t>(sm) * n_slots + slot];
      while (n) {
        n--;
        resident_total_--;
        gpu_simctl_cta_end(ctl_, sm, slots_[slot].warps, c);
        gpu_cta_result r = {status, 0, 0};
        env_.cta_done(sm, slot, r);
      }
    }
  // The dispatcher issues none of the stopped kernels' remaining CTAs (nor those still inside
  // -gpgpu_TB_launch_latency) and ends them now, without waiting out -gpgpu_kernel_launch_latency.
  for (uint32_t slot = 0; slot < n_slots; slot++)
    if (slots_[slot].active && env_.abort_kernel) env_.abort_kernel(slot, gpu_cta_result{status, 0, 0});
}

void simt_timing::reset() {
  const uint64_t now = core_cycle();
  for (auto &cl : clusters_)
    if (!cl->idle()) cl->rebuild(nullptr);
  for (slot_state &s : slots_) {
    if (s.active) gpu_launcher_end(launcher_, &s.k);
    s = slot_state{};
  }
  // Device memory reads as zero again and the driver starts over: forget the decoded images
  // (a new module may come at an old address with an old load_id).
  gpu_launcher_attach attach{nullptr, simt_program_build, simt_program_free};
  gpu_launcher *fresh = gpu_launcher_create(engine_, store_port(), &attach, nullptr);
  if (fresh) {
    gpu_launcher_destroy(launcher_);
    launcher_ = fresh;
  }
  std::fill(resident_.begin(), resident_.end(), 0u);
  resident_total_ = 0;
  pending_stop_ = GPU_SIMCTL_RUN;
  gpu_simctl_reset(ctl_, now);
  for (uint32_t ch = 0; ch < mem_->channels(); ch++) mempart_invalidate_l2(mem_->partition(ch).model());
}

bool simt_timing::idle() const { return resident_total_ == 0 && pending_stop_ == GPU_SIMCTL_RUN; }

// ---- dumps --------------------------------------------------------------------------------------------

namespace {
struct dump_sink {
  const simtvp_msg_port *port;
  simtvp_severity severity;
};
void dump_line(void *ctx, const char *text) {
  auto *d = static_cast<dump_sink *>(ctx);
  simtvp_msg(d->port, d->severity, "%s", text);
}
}  // namespace

void simt_timing::dump_state(simtvp_severity severity) {
  dump_sink sink{&env_.messages, severity};
  std::string idle;
  for (auto &cl : clusters_) {
    if (cl->idle() && cl->requests_in_flight() == 0) {
      idle += (idle.empty() ? "" : " ") + std::to_string(cl->cluster());
      continue;
    }
    cl->dump(dump_line, &sink);
  }
  if (!idle.empty()) simtvp_msg(&env_.messages, severity, "idle SIMT clusters (nothing resident): %s", idle.c_str());
  dump_memory(severity);
}

void simt_timing::dump_memory(simtvp_severity severity) {
  char buf[400];
  icnt_stats is;
  icnt_get_stats(mem_->icnt().model(), &is);
  uint32_t held = 0;
  for (uint32_t n = 0; n < mem_->icnt().nodes(); n++) held += mem_->icnt().in(n).size();
  std::snprintf(buf, sizeof buf,
                "memory system at interconnect cycle %" PRIu64 ": %" PRIu64 " packets in the interconnect (%" PRIu64
                " injected, %" PRIu64 " ejected), %u waiting at its inputs; idle: %s",
                mem_->icnt_driver().current_cycle(), is.packets_injected - is.packets_ejected, is.packets_injected,
                is.packets_ejected, held, mem_->idle() ? "yes" : "no");
  simtvp_msg(&env_.messages, severity, "%s", buf);
  for (uint32_t ch = 0; ch < mem_->channels(); ch++) {
    mempart_shell &ps = mem_->partition(ch);
    dram_stats ds;
    dram_get_stats(mem_->dram(ch).model(), &ds);
    std::snprintf(buf, sizeof buf,
                  " partition %u (%s): %u requests at the DRAM controller (%s), %" PRIu64 " completed; "
                  "DRAM scheduler queue max %" PRIu64,
                  ch, mempart_is_idle(ps.model()) ? "idle" : "busy", ps.to_dram().open(),
                  dram_model_name(mem_->dram(ch).model()), ds.n_req, ds.mrqq_max);
    simtvp_msg(&env_.messages, severity, "%s", buf);
    for (uint32_t sub = 0; sub < ps.sub_partitions(); sub++) {
      mempart_occupancy o;
      mempart_get_occupancy(ps.model(), sub, &o);
      if (!o.rop && !o.icnt_to_l2 && !o.l2_to_dram && !o.dram_to_l2 && !o.l2_to_icnt && ps.from_icnt(sub).empty())
        continue;
      std::snprintf(buf, sizeof buf,
                    "  sub-partition %u: ROP %u, icnt->L2 %u, L2->DRAM %u, DRAM->L2 %u, L2->icnt %u, "
                    "DRAM latency queue %u; %u waiting in its input link",
                    ch * ps.sub_partitions() + sub, o.rop, o.icnt_to_l2, o.l2_to_dram, o.dram_to_l2, o.l2_to_icnt,
                    o.dram_latency, ps.from_icnt(sub).size());
      simtvp_msg(&env_.messages, severity, "%s", buf);
    }
  }
}

}  // namespace simtvp
