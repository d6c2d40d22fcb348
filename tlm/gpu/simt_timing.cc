// simt_timing — the SystemC shell of the timing SIMT side (simt_timing.h): builds the clusters,
// the memory system and the core clock's driver, binds them, and forwards between them and the
// model core (models/gpuctl/gpu_simt_timing), which decides. The deadlock dump collects the
// clusters' and the memory system's own dumps.
#include "simt_timing.h"

#include <string>

namespace simtvp {

// ---- construction -------------------------------------------------------------------------------

simt_timing::simt_timing(sc_core::sc_module_name name, const simt_env &env)
    : sc_core::sc_module(name), env_(env), g_(*env.config) {
  simtvp_diag_clear(&diag_);
  status_ = build(&diag_);
}

simt_timing::~simt_timing() {
  // The memory system may still hold requests of the clusters' pools: it goes first; the clusters'
  // cores use the model core's launches and program decodes.
  mem_.reset();
  clusters_.clear();
  gpu_simt_timing_destroy(side_);
}

bool simt_timing::ok(simtvp_diag *diag) const {
  if (status_ == SIMTVP_OK) return true;
  if (diag) *diag = diag_;
  return false;
}

gpu_simt_timing_ports simt_timing::model_ports() {
  gpu_simt_timing_ports p{};
  p.ctx = this;
  p.now = [](void *ctx) { return static_cast<simt_timing *>(ctx)->core_cycle(); };
  p.cta_done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r) {
    static_cast<simt_timing *>(ctx)->env_.cta_done(sm, slot, *r);
  };
  p.abort_kernel = [](void *ctx, uint32_t slot, const gpu_cta_result *why) {
    auto *s = static_cast<simt_timing *>(ctx);
    if (s->env_.abort_kernel) s->env_.abort_kernel(slot, *why);
  };
  p.launch_cta = [](void *ctx, uint32_t cluster, uint32_t sm, const simt_kernel *k, const uint32_t cta[3]) {
    static_cast<simt_timing *>(ctx)->clusters_.at(cluster)->launch_cta(sm, k, cta);
  };
  p.rebuild_clusters = [](void *ctx) {
    auto *s = static_cast<simt_timing *>(ctx);
    for (auto &cl : s->clusters_) {
      if (cl->idle()) continue;
      simtvp_diag d;
      simtvp_diag_clear(&d);
      if (cl->rebuild(&d) != SIMTVP_OK) simtvp_msg(&s->env_.messages, SIMTVP_ERROR, "%s", d.message);
    }
  };
  p.flush_l1 = [](void *ctx, uint64_t now) {
    for (auto &cl : static_cast<simt_timing *>(ctx)->clusters_) {
      simt_cluster *m = cl->model();
      if (!m) continue;
      for (uint32_t i = 0; i < simt_cluster_core_count(m); i++) simt_core_flush_l1(simt_cluster_core(m, i), now);
      cl->poke();
    }
  };
  p.replay = [](void *ctx, bool cancel, uint64_t now) {
    for (auto &cl : static_cast<simt_timing *>(ctx)->clusters_) {
      simt_cluster *m = cl->model();
      if (!m) continue;
      for (uint32_t i = 0; i < simt_cluster_core_count(m); i++) simt_core_replay(simt_cluster_core(m, i), cancel, now);
      cl->poke();
    }
  };
  // Replayable faults a cluster's warps found in a parallel tick are recorded with the MMU in
  // the serial phase after it (the fault buffer's order is a one-thread run's).
  p.serially = [](void *, void (*fn)(void *, const void *, size_t, uint64_t), void *fn_ctx, const void *data,
                  size_t bytes, uint64_t arg) {
    if (clocked *b = clocked::current_parallel()) b->serially(fn, fn_ctx, data, bytes, arg);
    else fn(fn_ctx, data, bytes, arg);
  };
  p.flush_l2 = [](void *ctx) {
    mem_system &mem = *static_cast<simt_timing *>(ctx)->mem_;
    uint64_t l2_now = mem.l2_driver().current_cycle();
    for (uint32_t ch = 0; ch < mem.channels(); ch++) {
      mempart_flush_l2(mem.partition(ch).model(), l2_now);
      mem.partition(ch).wake_at(l2_now + 1);
    }
  };
  p.invalidate_l2 = [](void *ctx) {
    mem_system &mem = *static_cast<simt_timing *>(ctx)->mem_;
    for (uint32_t ch = 0; ch < mem.channels(); ch++) mempart_invalidate_l2(mem.partition(ch).model());
  };
  p.wake = [](void *ctx, uint64_t cycle) { static_cast<simt_timing *>(ctx)->supervisor_.wake_at(cycle); };
  p.dump = [](void *ctx, simtvp_severity severity) { static_cast<simt_timing *>(ctx)->dump_state(severity); };
  p.messages = env_.messages;
  return p;
}

// The aperture of an address: system memory where the store maps it externally, with its bus
// address, by which requests are routed (deterministic where the virtual address is the host's
// and moves between runs). An address of a page mapped remotely is looked up where the
// functional engine's translation put it.
mem_aperture_port simt_timing::aperture_port() {
  mem_aperture_port ap;
  ap.ctx = this;
  ap.of = nullptr;
  ap.of_bus = [](void *ctx, uint64_t addr, uint64_t *bus) -> uint8_t {
    auto *t = static_cast<simt_timing *>(ctx);
    // No page of the store lies on the bus and no system IOMMU: every address is video memory,
    // as the lookups below would find (~50 host instructions an access of an interval core).
    if (!t->env_.sysmem.aperture_of && !devmem_has_external(t->env_.mem)) return MEM_APERTURE_VIDMEM;
    uint8_t a = DEVMEM_APERTURE_VIDMEM;
    if (t->env_.physical) addr = t->env_.physical(addr);
    if (devmem_bus_addr(t->env_.mem, addr, bus, &a)) {
      if (a == DEVMEM_APERTURE_SYSMEM) return MEM_APERTURE_SYSMEM;
      *bus = 0;
      return MEM_APERTURE_VIDMEM;
    }
    // and the pages the system IOMMU translates (shared_va)
    if (!t->env_.sysmem.aperture_of || devmem_page(t->env_.mem, addr >> DEVMEM_PAGE_BITS))
      return MEM_APERTURE_VIDMEM;
    uint8_t r = t->env_.sysmem.aperture_of(addr, bus);
    if (r != MEM_APERTURE_SYSMEM) *bus = 0;
    return r;
  };
  return ap;
}

simtvp_status simt_timing::build(simtvp_diag *diag) {
  // The model core: functional engine (%clock64 the core cycle, %globaltimer the simulated
  // time), launcher, local-memory layout, per-core configurations.
  // Parallel simulation (-sim_threads, docs/timing.md §12): one pool for every clock domain's
  // parallel phases. Device printf, assertion text and the engine's warnings from a parallel tick
  // go out in the serial phase, in a one-thread run's order.
  // A debugger (simtvp --debug) is driven by one host thread and stops the simulation where it
  // stands: with one attached, the domains tick on this thread alone (the statistics are those of
  // any -sim_threads).
  const uint32_t threads = env_.func.debug.before ? 1 : g_.fidelity.sim_threads ? g_.fidelity.sim_threads : 1;
  if (threads > 1) workers_ = std::make_unique<worker_pool>(threads);
  gpu_simt_timing_config tc{};
  tc.gpu = &g_;
  tc.params = env_.params;
  tc.mem = env_.mem;
  tc.st = env_.st;
  tc.func.ctx = this;
  tc.func.clock = [](void *ctx, uint32_t) { return static_cast<simt_timing *>(ctx)->core_cycle(); };
  tc.func.globaltimer = [](void *) { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9); };
  tc.func.print = [](void *ctx, const char *text, size_t len) {
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
  tc.func.assertion = [](void *ctx, const char *text, size_t len) {
    auto *s = static_cast<simt_timing *>(ctx);
    auto emit = [](void *c, const void *t, size_t n, uint64_t) {
      auto *side = static_cast<simt_timing *>(c);
      if (side->env_.func.assertion)
        side->env_.func.assertion(side->env_.func.ctx, static_cast<const char *>(t), n);
      else if (side->env_.func.print)
        side->env_.func.print(side->env_.func.ctx, static_cast<const char *>(t), n);
    };
    if (clocked *b = clocked::current_parallel())
      b->serially(emit, s, text, len);
    else
      emit(s, text, len, 0);
  };
  func_messages_.set_target(env_.func.messages.emit ? env_.func.messages : env_.messages);
  tc.func.messages = func_messages_.port();
  tc.func.debug = env_.func.debug;
  tc.aperture = aperture_port();
  side_ = gpu_simt_timing_create(&tc, model_ports(), diag);
  if (!side_) return diag ? diag->status : SIMTVP_ERR_CONFIG;
  stats *st = gpu_simt_timing_stats(side_);

  // Clock domains: the core's here, interconnect/L2/DRAM in the memory system.
  core_drv_ = std::make_unique<domain_driver>("core_clock", clock_domain("core", g_.derived.core_mhz));

  // The memory system (its fallbacks are warned about through the messages).
  mem_system_config mc;
  simtvp_status status = mem_system_config_from_gpu(g_, st, &env_.messages, &mc, diag);
  if (status != SIMTVP_OK) return status;
  mc.sysmem = env_.sysmem;
  mc.workers = workers_.get();
  mem_ = std::make_unique<mem_system>("mem", mc);
  if (!mem_->ok(diag)) return diag ? diag->status : SIMTVP_ERR_CONFIG;

  // Clusters of the model core's per-core configurations, bound to the interconnect.
  simt_cluster_shell_ports sp;
  sp.ctx = this;
  sp.cta_done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t cycle) {
    gpu_simt_timing_cta_done(static_cast<simt_timing *>(ctx)->side_, sm, slot, r, cycle);
  };
  sp.ticked = [](void *ctx, uint64_t cycle) { gpu_simt_timing_ticked(static_cast<simt_timing *>(ctx)->side_, cycle); };
  sp.messages = env_.messages;
  sp.fault = [](void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report, uint64_t) {
    gpu_simt_timing_fault(static_cast<simt_timing *>(ctx)->side_, sm, slot, report);
  };
  const uint32_t n_clusters = gpu_simt_timing_clusters(side_);
  const uint32_t per_cluster = gpu_simt_timing_cores_per_cluster(side_);
  for (uint32_t c = 0; c < n_clusters; c++) {
    simt_cluster_config cc;
    cc.cluster = c;
    cc.n_clusters = n_clusters;
    cc.n_cores = per_cluster;
    cc.cores = gpu_simt_timing_core_configs(side_) + static_cast<size_t>(c) * per_cluster;
    cc.ejection_buffer = g_.core.cluster_ejection_buffer;
    cc.addrmap = mem_->addrmap();
    cc.aperture = aperture_port();
    cc.stats = st;
    clusters_.push_back(std::make_unique<simt_cluster_shell>(("cluster_" + std::to_string(c)).c_str(),
                                                             *core_drv_, cc, sp, workers_ != nullptr));
    if (!clusters_.back()->ok(diag)) return diag ? diag->status : SIMTVP_ERR_CONFIG;
    bind(clusters_.back()->to_icnt, mem_->cluster_in(c));
    bind(mem_->cluster_out(c), clusters_.back()->from_icnt);
  }

  // Simulation control, ticked after the clusters in the core domain.
  status = gpu_simt_timing_start(side_, diag);
  if (status != SIMTVP_OK) return status;
  supervisor_.side = this;
  core_drv_->add(supervisor_);
  if (workers_) {
    core_drv_->set_workers(workers_.get());
    // Deferred statistics registrations and the counters simulation control reads (gpu_sim_insn)
    // are brought up to date after every run of clusters, before their deferred notes and the
    // supervisor (tlm/common domain_driver::on_parallel_phase_end).
    core_drv_->on_parallel_phase_end([](void *s) { stats_shards_sync(static_cast<stats *>(s)); }, st);
  }
  return SIMTVP_OK;
}

std::unique_ptr<simt_subsystem> make_simt_timing(sc_core::sc_module_name name, const simt_env &env,
                                                 simtvp_diag *diag) {
  auto s = std::make_unique<simt_timing>(name, env);
  if (!s->ok(diag)) return nullptr;
  return s;
}

// ---- the supervisor -------------------------------------------------------------------------------

void simt_timing::supervisor_clock::tick(uint64_t c) {
  cycle = c;
  gpu_simt_timing_supervise(side->side_, c);
}

uint64_t simt_timing::supervisor_clock::next_tick() const {
  uint64_t t = gpu_simt_timing_next_check(side->side_, cycle);
  return t == GPU_SIMCTL_NEVER ? never : t;
}

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
  mem_->dump_lines(dump_line, &sink);
}

}  // namespace simtvp
