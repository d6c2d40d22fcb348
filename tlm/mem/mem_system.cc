// mem_system — the memory system assembled from its shells (mem_system.h).
#include "mem_system.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

namespace simtvp {

namespace {

simtvp_status config_error(simtvp_diag *diag, simtvp_status st, const char *option,
                           const std::string &why) {
  return simtvp_diag_option_error(diag, st, option, "%s", why.c_str());
}

uint32_t ns_to_cycles(double ns, double mhz) {
  return static_cast<uint32_t>(std::llround(ns * mhz / 1000.0));
}

}  // namespace

simtvp_status mem_system_config_from_gpu(const gpu_config &g, stats *st, const simtvp_msg_port *msg,
                                         mem_system_config *cfg, simtvp_diag *diag) {
  const gpu_config_derived &d = g.derived;
  *cfg = mem_system_config{};
  if (!(d.icnt_mhz > 0) || !(d.l2_mhz > 0) || !(d.dram_mhz > 0))
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_clock_domains",
                        "interconnect, L2 and DRAM clocks must be positive");
  cfg->icnt_mhz = d.icnt_mhz;
  cfg->l2_mhz = d.l2_mhz;
  cfg->dram_mhz = d.dram_mhz;
  cfg->n_clusters = g.core.n_clusters;
  cfg->n_channels = g.mem.n_channels;
  cfg->n_sub = g.mem.sub_partitions_per_channel;
  cfg->st = st;

  // Interconnect.
  icnt_config_default(&cfg->icnt);
  switch (g.icnt.network_mode) {
    case 1:
      simtvp_msg(msg, SIMTVP_WARNING,
                 "-network_mode 1 (intersim, %s) is not modelled: using the built-in crossbar "
                 "(-network_mode 2) with -icnt_subnets %u, -icnt_flit_size %u, -icnt_in_buffer_limit %u, "
                 "-icnt_out_buffer_limit %u, -icnt_arbiter_algo %u; the network file is not read",
                 g.icnt.config_file[0] ? g.icnt.config_file : "no -inter_config_file", g.icnt.subnets,
                 g.icnt.flit_size, g.icnt.in_buffer_limit, g.icnt.out_buffer_limit, g.icnt.arbiter_algo);
      cfg->icnt.topology = ICNT_XBAR;
      break;
    case 2: cfg->icnt.topology = ICNT_XBAR; break;
    case 3: cfg->icnt.topology = ICNT_PERFECT; break;
    case 4:
      cfg->icnt.topology = ICNT_FIXED;
      cfg->icnt.hop_latency = g.icnt.hop_latency;
      break;
    default:
      return config_error(diag, SIMTVP_ERR_UNSUPPORTED, "-network_mode",
                          "supported values are 1 (as 2), 2 (crossbar), 3 (perfect), 4 (fixed)");
  }
  cfg->icnt.subnets = g.icnt.subnets;
  cfg->icnt.flit_size = g.icnt.flit_size;
  cfg->icnt.in_buffer_limit = g.icnt.in_buffer_limit;
  cfg->icnt.out_buffer_limit = g.icnt.out_buffer_limit;
  cfg->icnt.arbiter = g.icnt.arbiter_algo ? ICNT_ARB_ISLIP : ICNT_ARB_RR;
  cfg->icnt.timed = g.fidelity.icnt_model == GPU_FIDELITY_AT;
  cfg->icnt.stats = st;

  // Partitions.
  mempart_config_default(&cfg->partition);
  simtvp_status s = mempart_config_from_gpu(&g, 0, &cfg->partition, diag);
  if (s != SIMTVP_OK) return s;
  cfg->partition.stats = st;
  if (msg) cfg->partition.msg = *msg;
  cfg->mempart_model.clear();
  for (uint32_t ch = 0; ch < cfg->n_channels; ch++)
    cfg->mempart_model.push_back(d.mempart_model_of_channel[ch] == GPU_FIDELITY_AT ? "at" : "ca");

  // The hub: a discrete GPU reaches system memory over its host link (-host_sysmem_latency_ns,
  // -host_bus_bandwidth_gbs); an integrated one (every other -system_mode) over its port onto the
  // SoC fabric (-soc_fabric_*), and all of its DRAM traffic goes that way. Converted to L2 cycles.
  const bool integrated = gpu_system_integrated(g.system.mode);
  const double link_ns = integrated ? g.system.fabric_latency_ns : g.host.sysmem_latency_ns;
  const double link_gbs = integrated ? g.system.fabric_bandwidth_gbs : g.host.bus_bandwidth_gbs;
  const char *bw_option = integrated ? "-soc_fabric_bandwidth_gbs" : "-host_bus_bandwidth_gbs";
  cfg->integrated = integrated;
  cfg->hub = hub_config{};
  cfg->hub.name = "hub";
  cfg->hub.latency = ns_to_cycles(link_ns, d.l2_mhz);
  if (!(link_gbs > 0)) return config_error(diag, SIMTVP_ERR_CONFIG, bw_option, "the bandwidth must be positive");
  cfg->hub.bytes_per_kcycle = static_cast<uint64_t>(std::llround(link_gbs * 1e6 / d.l2_mhz));
  if (!cfg->hub.bytes_per_kcycle) cfg->hub.bytes_per_kcycle = 1;
  if (!g.system.hub_max_outstanding)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-hub_max_outstanding", "the hub must hold at least one request");
  cfg->hub.max_outstanding = g.system.hub_max_outstanding;
  cfg->hub.stats = st;
  // In the shared modes the L2 slices cache host memory too (kept coherent by the system's
  // directory); otherwise host memory goes around them.
  cfg->partition.sysmem_in_l2 = g.system.mode == GPU_SYSTEM_SHARED_LLC || g.system.mode == GPU_SYSTEM_SHARED_VA;

  // Address mapping.
  cfg->addr_mapping = g.mem.addr_mapping;
  s = dram_partition_indexing_from_option(g.mem.partition_indexing, msg, &cfg->indexing, diag);
  if (s != SIMTVP_OK) return s;

  // DRAM channels.
  dram_config &dc = cfg->dram;
  dram_config_default(&dc);
  s = dram_timing_parse(g.dram.timing, &dc.timing, diag);
  if (s != SIMTVP_OK) return s;
  dc.bus_width_bytes = g.dram.bus_width;
  dc.burst_length = g.dram.burst_length;
  dc.data_command_freq_ratio = g.dram.data_command_freq_ratio;
  dc.chips_per_channel = g.mem.chips_per_channel;
  dc.dual_bus = g.dram.dual_bus_interface != 0;
  dc.bank_indexing = g.dram.bank_indexing;
  dc.bank_group_indexing = g.dram.bankgroup_indexing;
  dc.scheduler = g.dram.scheduler ? DRAM_SCHED_FRFCFS : DRAM_SCHED_FIFO;
  dc.sched_queue_size = static_cast<uint32_t>(g.dram.sched_queue_size);
  dc.return_queue_size = static_cast<uint32_t>(g.dram.return_queue_size);
  dc.separate_write_queue = g.dram.separate_write_queue;
  dc.write_queue_size = d.write_queue_size;
  dc.write_high_watermark = d.write_queue_high;
  dc.write_low_watermark = d.write_queue_low;
  if (g.dram.refresh) {
    dc.tREFI = ns_to_cycles(g.dram.trefi_ns, d.dram_mhz);
    dc.tRFC = ns_to_cycles(g.dram.trfc_ns, d.dram_mhz);
  }
  dc.stats = st;
  cfg->dram_model.clear();
  for (uint32_t ch = 0; ch < cfg->n_channels; ch++)
    cfg->dram_model.push_back(d.dram_model_of_channel[ch] == GPU_FIDELITY_AT ? "at" : "ca");
  dc.model = cfg->dram_model.empty() ? "ca" : cfg->dram_model[0].c_str();

  // Check the address map and the channel configuration now, with a diag, rather than when the
  // modules are built.
  dram_addrmap_config mc = {cfg->addr_mapping.c_str(), cfg->n_channels, cfg->n_sub, cfg->indexing};
  dram_addrmap *map = nullptr;
  s = dram_addrmap_create(&mc, &map, diag);
  if (s != SIMTVP_OK) return s;
  dc.addrmap = map;
  s = dram_config_check(&dc, diag);
  dc.addrmap = nullptr;
  // The interconnect and a partition as the mem_system builds them, so their own checks (node
  // counts, buffers, flit size, L2 geometry, queue sizes) fail here with a diag, not later.
  if (s == SIMTVP_OK) {
    icnt_config ic = cfg->icnt;
    ic.n_shader_nodes = cfg->n_clusters;
    ic.n_mem_nodes = cfg->n_channels * cfg->n_sub;
    ic.stats = nullptr;
    ic.ports = {};
    icnt *net = nullptr;
    s = icnt_create(&ic, &net, diag);
    if (net) icnt_destroy(net);
  }
  if (s == SIMTVP_OK) {
    mempart_config pc = cfg->partition;
    pc.model = cfg->mempart_model.empty() ? pc.model : cfg->mempart_model[0].c_str();
    pc.partition = 0;
    pc.n_sub = cfg->n_sub;
    pc.addr_mapping = cfg->addr_mapping.c_str();
    pc.n_channels = cfg->n_channels;
    pc.addrmap = map;
    pc.stats = nullptr;
    pc.ports.ctx = nullptr;
    pc.ports.reply = [](void *, uint32_t, mem_req *, uint64_t) { return false; };
    pc.ports.dram = [](void *, mem_req *, uint64_t) { return false; };
    mempart *mp = nullptr;
    s = mempart_create(&pc, &mp, diag);
    if (mp) mempart_destroy(mp);
  }
  dram_addrmap_destroy(map);
  return s;
}

mem_system::mem_system(sc_core::sc_module_name name, const mem_system_config &cfg)
    : sc_core::sc_module(name), cfg_(cfg) {
  simtvp_diag_clear(&diag_);
  dram_addrmap_config mc = {cfg_.addr_mapping.c_str(), cfg_.n_channels, cfg_.n_sub,
                            cfg_.indexing};
  if (dram_addrmap_create(&mc, &map_, &diag_) != SIMTVP_OK) return;
  icnt_drv_ = std::make_unique<domain_driver>("icnt_clock", clock_domain("icnt", cfg_.icnt_mhz));
  l2_drv_ = std::make_unique<domain_driver>("l2_clock", clock_domain("l2", cfg_.l2_mhz));
  dram_drv_ = std::make_unique<domain_driver>("dram_clock", clock_domain("dram", cfg_.dram_mhz));
  const bool parallel = cfg_.workers != nullptr;
  if (parallel) {
    l2_drv_->set_workers(cfg_.workers);
    dram_drv_->set_workers(cfg_.workers);
    if (cfg_.st) {  // deferred statistics registrations and watched counters, after each phase
      l2_drv_->on_parallel_phase_end([](void *st) { stats_shards_sync(static_cast<stats *>(st)); }, cfg_.st);
      dram_drv_->on_parallel_phase_end([](void *st) { stats_shards_sync(static_cast<stats *>(st)); }, cfg_.st);
    }
  }

  icnt_config ic = cfg_.icnt;
  ic.n_shader_nodes = cfg_.n_clusters;
  ic.n_mem_nodes = cfg_.n_channels * cfg_.n_sub;
  if (!ic.stats) ic.stats = cfg_.st;
  icnt_ = std::make_unique<icnt_shell>("icnt", ic, *icnt_drv_);

  hub_config hc = cfg_.hub;
  hc.n_inputs = cfg_.n_channels;
  if (!hc.stats) hc.stats = cfg_.st;
  if (!hc.bytes_per_kcycle) hc.bytes_per_kcycle = 1ull << 50;  // not given: one cycle per request
  if (!hc.max_outstanding) hc.max_outstanding = 1;
  hub_ = std::make_unique<hub_shell>("hub", hc, *l2_drv_, cfg_.sysmem);

  for (uint32_t p = 0; p < cfg_.n_channels; p++) {
    mempart_config pc = cfg_.partition;
    pc.partition = p;
    pc.n_sub = cfg_.n_sub;
    pc.addr_mapping = cfg_.addr_mapping.c_str();
    pc.n_channels = cfg_.n_channels;
    pc.addrmap = map_;
    if (p < cfg_.mempart_model.size()) pc.model = cfg_.mempart_model[p].c_str();
    if (!pc.stats) pc.stats = cfg_.st;
    parts_.push_back(std::make_unique<mempart_shell>(("partition_" + std::to_string(p)).c_str(), pc, *l2_drv_,
                                                     parallel, !cfg_.integrated));
    for (uint32_t s = 0; s < cfg_.n_sub; s++) {
      uint32_t node = node_of(p * cfg_.n_sub + s);
      bind(icnt_->out(node), parts_[p]->from_icnt(s));
      bind(parts_[p]->to_icnt(s), icnt_->in(node));
    }
    if (cfg_.integrated) {  // the DRAM side is the system's memory, through the hub
      bind(parts_[p]->to_dram(), hub_->in(p));
      continue;
    }
    bind(parts_[p]->to_hub(), hub_->in(p));

    dram_config dc = cfg_.dram;
    dc.channel = p;
    dc.addrmap = map_;
    if (p < cfg_.dram_model.size()) dc.model = cfg_.dram_model[p].c_str();
    if (!dc.stats) dc.stats = cfg_.st;
    drams_.push_back(
        std::make_unique<dram_shell>(("dram_" + std::to_string(p)).c_str(), dc, *dram_drv_, parallel));
    bind(parts_[p]->to_dram(), drams_[p]->from_mempart());
  }
}

bool mem_system::ok(simtvp_diag *diag) const {
  simtvp_status st = diag_.status;
  const char *what = diag_.message;
  if (st == SIMTVP_OK) {  // a block that refused its configuration (it reported it by name)
    bool built = map_ && icnt_ && icnt_->model() && parts_.size() == cfg_.n_channels && hub_ && hub_->model() &&
                 (cfg_.integrated || drams_.size() == cfg_.n_channels);
    for (const auto &p : parts_) built = built && p->model();
    for (const auto &d : drams_) built = built && d->model();
    if (built) return true;
    st = SIMTVP_ERR_CONFIG;
    what = "a block of the memory system refused its configuration (see the messages above)";
  }
  if (diag) {
    if (diag_.status != SIMTVP_OK)
      *diag = diag_;
    else
      simtvp_diag_set(diag, st, "%s: %s", name(), what);
  }
  return false;
}

mem_system::~mem_system() {
  // Shells go first (they may hold requests of the map's users), then the map.
  drams_.clear();
  hub_.reset();
  parts_.clear();
  icnt_.reset();
  if (map_) dram_addrmap_destroy(map_);
}

void mem_system::set_trace(std::ostream *os) {
  icnt_->set_trace(os);
  for (auto &p : parts_) p->set_trace(os);
  for (auto &d : drams_) d->set_trace(os);
  hub_->set_trace(os);
}

bool mem_system::idle() const {
  ::icnt *net = icnt_->model();
  if (icnt_next_event(net) != ICNT_NEVER) return false;
  for (uint32_t n = 0; n < icnt_->nodes(); n++)
    if (icnt_peek(net, n, UINT64_MAX - 1) || !icnt_->in(n).empty()) return false;
  for (uint32_t p = 0; p < cfg_.n_channels; p++) {
    mempart_shell &ps = *parts_[p];
    if (!mempart_is_idle(ps.model()) || ps.to_dram().open()) return false;
    if (ps.has_hub_link() && ps.to_hub().open()) return false;
    for (uint32_t s = 0; s < cfg_.n_sub; s++)
      if (!ps.from_icnt(s).empty()) return false;
    if (drams_.empty()) continue;
    dram_shell &ds = *drams_[p];
    if (dram_next_event(ds.model()) != DRAM_NEVER || ds.from_mempart().open()) return false;
  }
  if (hub_outstanding(hub_->model())) return false;
  for (uint32_t i = 0; i < hub_->inputs(); i++)
    if (hub_->in(i).front() || hub_->in(i).open()) return false;
  return true;
}

// ---- the deadlock dump -----------------------------------------------------------------------------

void mem_system::dump_lines(void (*line)(void *ctx, const char *text), void *ctx) {
  char buf[400];
  icnt_stats is;
  icnt_get_stats(icnt_->model(), &is);
  uint32_t held = 0;
  for (uint32_t n = 0; n < icnt_->nodes(); n++) held += icnt_->in(n).size();
  std::snprintf(buf, sizeof buf,
                "memory system at interconnect cycle %" PRIu64 ": %" PRIu64 " packets in the interconnect (%" PRIu64
                " injected, %" PRIu64 " ejected), %u waiting at its inputs; idle: %s",
                icnt_drv_->current_cycle(), is.packets_injected - is.packets_ejected, is.packets_injected,
                is.packets_ejected, held, idle() ? "yes" : "no");
  line(ctx, buf);
  for (uint32_t ch = 0; ch < cfg_.n_channels; ch++) {
    mempart_shell &ps = *parts_[ch];
    if (drams_.empty()) {
      std::snprintf(buf, sizeof buf, " partition %u (%s): %u requests at the hub (no DRAM of its own)", ch,
                    mempart_is_idle(ps.model()) ? "idle" : "busy", ps.to_dram().open());
    } else {
      dram_stats ds;
      dram_get_stats(drams_[ch]->model(), &ds);
      std::snprintf(buf, sizeof buf,
                    " partition %u (%s): %u requests at the DRAM controller (%s), %" PRIu64 " completed; "
                    "DRAM scheduler queue max %" PRIu64,
                    ch, mempart_is_idle(ps.model()) ? "idle" : "busy", ps.to_dram().open(),
                    dram_model_name(drams_[ch]->model()), ds.n_req, ds.mrqq_max);
    }
    line(ctx, buf);
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
      line(ctx, buf);
    }
  }
  if (uint32_t held = hub_outstanding(hub_->model())) {
    std::snprintf(buf, sizeof buf, " hub: %u requests on their way to or from system memory", held);
    line(ctx, buf);
  }
}

bool mem_system::invalidate_l2_line(uint64_t addr, uint64_t route_addr) {
  if (!map_) return false;
  dram_addr a;
  dram_addrmap_decode(map_, route_addr, &a);
  if (a.channel >= parts_.size()) return false;
  return mempart_invalidate_l2_line(parts_[a.channel]->model(), a.sub_partition % cfg_.n_sub, addr);
}

}  // namespace simtvp
