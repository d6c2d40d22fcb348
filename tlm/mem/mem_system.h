// mem_system — the whole GPU memory system as one SystemC module: the interconnect shell, one
// memory-partition shell and one DRAM-controller shell per channel, their links, and the domain
// drivers of the interconnect, L2 and DRAM clock domains. Built from a gpu_config
// (mem_system_config_from_gpu) or from explicit block configurations (tests, benches).
//
// What the SIMT side binds: for every cluster c, its injection link (a msg_out) to cluster_in(c)
// and cluster_out(c) to its ejection link (a msg_in). A cluster sets req->dst_node to
// node_of(sub_partition) where sub_partition comes from addrmap() (dram_addrmap_decode); the
// reply comes back with dst_node = the cluster's node. The clusters' own domain driver (core
// clock) is the SIMT side's.
//
// Requests to system memory (zero-copy host memory; on an integrated GPU everything the partitions
// send toward DRAM) go from the partitions to one hub shell (hub()), which reaches the system
// through cfg.sysmem.
//
// Node numbering is the interconnect's: clusters 0 .. n_clusters-1, then the L2 sub-partitions
// (global index channel × n_sub + s).
#ifndef SIMTVP_TLM_MEM_MEM_SYSTEM_H
#define SIMTVP_TLM_MEM_MEM_SYSTEM_H

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "clock_domain.h"
#include "domain_driver.h"
#include "dram_shell.h"
#include "hub_shell.h"
#include "icnt_shell.h"
#include "mempart_shell.h"

extern "C" {
#include "dram_addrdec.h"
#include "gpu_config.h"
#include "stats.h"
}

namespace simtvp {

struct mem_system_config {
  double icnt_mhz = 0, l2_mhz = 0, dram_mhz = 0; // clock domains
  uint32_t n_clusters = 0;
  uint32_t n_channels = 0;
  uint32_t n_sub = 1;                 // sub-partitions per channel
  icnt_config icnt{};                 // node counts are filled in from the fields above
  mempart_config partition{};         // template: partition index, ports set per channel
  dram_config dram{};                 // template: channel, addrmap set per channel
  std::vector<std::string> dram_model; // per channel ("ca" / "at"); empty: dram.model for all
  std::vector<std::string> mempart_model; // per channel ("ca" / "at"); empty: partition.model for all
  std::string addr_mapping;           // -gpgpu_mem_addr_mapping
  dram_partition_indexing indexing = DRAM_PART_LINEAR;
  stats *st = nullptr;                // statistics sink for every block (may be null)
  // The hub: the path to system memory (docs/system-modes.md). n_inputs and ports are set when
  // the system is built; the latency and bandwidth are L2 cycles (bandwidth 0: one cycle per
  // request, max_outstanding 0: one).
  hub_config hub{};
  sysmem_port sysmem;                 // how the hub reaches the system; empty: identity, no bus
  // No DRAM of its own (-system_mode other than discrete): every partition's DRAM traffic goes to
  // the hub, and no DRAM controllers are built. Otherwise only system-memory requests do.
  bool integrated = false;
  // Parallel ticking of the partitions and DRAM channels on these threads (docs/tlm.md §3);
  // nullptr: one thread. The pool must outlive the memory system.
  worker_pool *workers = nullptr;
};

// Fills cfg from a finalized gpu_config: clocks, node counts, the crossbar (-network_mode 2; 3 =
// perfect, 4 = fixed; 1 (intersim) is not modelled and uses the crossbar, reported through msg),
// partitions (mempart_config_from_gpu), DRAM channels (timing, bus, scheduler, queues, refresh,
// -dram_model / -dram_model_override per channel), the address mapping and the partition indexing
// (dram_partition_indexing_from_option: 3-5 fall back to ipoly, reported through msg). Errors name
// the option.
// Everything the blocks would refuse when the mem_system is built (node counts, interconnect and
// partition parameters, DRAM timing, address map) is checked here, so a configuration that
// passes builds.
simtvp_status mem_system_config_from_gpu(const gpu_config &g, stats *st, const simtvp_msg_port *msg,
                                         mem_system_config *cfg, simtvp_diag *diag);

class mem_system : public sc_core::sc_module {
 public:
  // Errors in cfg (mem_system_config_from_gpu checks them first): ok() is false with the diag of
  // the block that refused it.
  mem_system(sc_core::sc_module_name name, const mem_system_config &cfg);
  ~mem_system() override;
  bool ok(simtvp_diag *diag = nullptr) const;

  msg_in &cluster_in(uint32_t cluster) { return icnt_->in(cluster); }
  msg_out &cluster_out(uint32_t cluster) { return icnt_->out(cluster); }
  uint32_t node_of(uint32_t sub_partition) const { return cfg_.n_clusters + sub_partition; }
  const dram_addrmap *addrmap() const { return map_; }
  // Drops the L2 line holding addr from its slice (a coherence invalidation); true when held.
  // route_addr: the address its requests were routed by (system memory's bus address).
  bool invalidate_l2_line(uint64_t addr, uint64_t route_addr);

  icnt_shell &icnt() { return *icnt_; }
  mempart_shell &partition(uint32_t channel) { return *parts_.at(channel); }
  // The DRAM controllers (none on an integrated GPU: has_dram() is false).
  bool has_dram() const { return !drams_.empty(); }
  dram_shell &dram(uint32_t channel) { return *drams_.at(channel); }
  hub_shell &hub() { return *hub_; }
  uint32_t channels() const { return cfg_.n_channels; }
  domain_driver &icnt_driver() { return *icnt_drv_; }
  domain_driver &l2_driver() { return *l2_drv_; }
  domain_driver &dram_driver() { return *dram_drv_; }
  void set_trace(std::ostream *os);
  // True when no request is held anywhere in the memory system.
  bool idle() const;
  // The state for a deadlock dump, one line per call: packets in the interconnect, per partition
  // the requests at the DRAM controller and the non-empty sub-partition queues.
  void dump_lines(void (*line)(void *ctx, const char *text), void *ctx);

 private:
  mem_system_config cfg_;
  simtvp_diag diag_;
  dram_addrmap *map_ = nullptr;
  std::unique_ptr<domain_driver> icnt_drv_, l2_drv_, dram_drv_;
  std::unique_ptr<icnt_shell> icnt_;
  std::vector<std::unique_ptr<mempart_shell>> parts_;
  std::vector<std::unique_ptr<dram_shell>> drams_;
  std::unique_ptr<hub_shell> hub_;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_MEM_MEM_SYSTEM_H
