// gpu_payload — what a TLM-2.0 generic payload carries between GPU-internal blocks.
//
// Timing models move mem_req records (addresses, sizes, masks; never data — DESIGN.md §3), so an
// internal transaction is a generic payload with command TLM_IGNORE_COMMAND, the request's address
// and size, no data pointer, and a gpu_ext extension that points at the mem_req and copies the
// facts the generic payload has no field for (access kind, SM/warp/cluster, sector mask, reply
// flag) so generic TLM tools (tracers, checkers) can show them without knowing mem_req.
//
// payload_pool is the memory manager: payloads are recycled through a free list with their
// extension already attached, so a transaction costs no allocation once the pool is warm (the pool
// grows only when every payload is in use). The sender acquires a payload per transaction; the
// base protocol's reference counting returns it (acquire/release, tlm_mm_interface::free).
#ifndef SIMTVP_TLM_GPU_PAYLOAD_H
#define SIMTVP_TLM_GPU_PAYLOAD_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>

extern "C" {
#include "mem_req.h"
}

namespace simtvp {

struct gpu_ext : tlm::tlm_extension<gpu_ext> {
  mem_req *req = nullptr;     // the request itself (ownership travels with the transaction)
  uint8_t kind = 0;           // mem_access_kind
  bool is_write = false;
  bool is_reply = false;
  bool needs_reply = false;
  uint8_t sector_mask = 0;
  uint16_t sm = UINT16_MAX, cluster = UINT16_MAX, warp = UINT16_MAX;
  uint16_t src_node = 0, dst_node = 0;
  // Timed transport (b_transport between approximately-timed blocks, docs/tlm.md "Timed
  // transport"): set by the target when it keeps the request and its reply comes later on the
  // ordinary path instead of in the returned delay.
  bool deferred = false;

  // Points at r and copies its descriptive fields.
  void set(mem_req *r);
  tlm::tlm_extension_base *clone() const override;
  void copy_from(const tlm::tlm_extension_base &other) override;
};

// The mem_req of an internal transaction, or nullptr when the payload has no gpu_ext.
mem_req *gpu_req_of(const tlm::tlm_generic_payload &gp);

class payload_pool : public tlm::tlm_mm_interface {
 public:
  payload_pool() = default;
  ~payload_pool() override;
  payload_pool(const payload_pool &) = delete;
  payload_pool &operator=(const payload_pool &) = delete;

  // A payload describing r with one reference held by the caller (release() it when the
  // transaction is over; the last release returns it here).
  tlm::tlm_generic_payload *acquire(mem_req *r);
  void free(tlm::tlm_generic_payload *gp) override;

  size_t allocated() const { return all_.size(); } // payloads ever created (high-water mark)
  size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<tlm::tlm_generic_payload *> all_;
  std::vector<tlm::tlm_generic_payload *> free_;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_GPU_PAYLOAD_H
