// gpu_payload — the GPU payload extension and the payload memory manager (gpu_payload.h).
#include "gpu_payload.h"

namespace simtvp {

void gpu_ext::set(mem_req *r) {
  req = r;
  kind = r->kind;
  is_write = r->is_write;
  is_reply = r->is_reply;
  needs_reply = r->needs_reply;
  sector_mask = r->sector_mask;
  sm = r->sm;
  cluster = r->cluster;
  warp = r->warp;
  src_node = r->src_node;
  dst_node = r->dst_node;
}

tlm::tlm_extension_base *gpu_ext::clone() const { return new gpu_ext(*this); }

void gpu_ext::copy_from(const tlm::tlm_extension_base &other) {
  *this = static_cast<const gpu_ext &>(other);
}

mem_req *gpu_req_of(const tlm::tlm_generic_payload &gp) {
  gpu_ext *e = gp.get_extension<gpu_ext>();
  return e ? e->req : nullptr;
}

payload_pool::~payload_pool() {
  if (in_use())
    SC_REPORT_WARNING("simtvp/payload_pool",
                      "destroyed while payloads are still in use (a transaction never completed)");
  // Payloads still in use are leaked rather than freed under a holder's feet.
  for (tlm::tlm_generic_payload *gp : free_) delete gp; // deletes its extension too
}

tlm::tlm_generic_payload *payload_pool::acquire(mem_req *r) {
  tlm::tlm_generic_payload *gp;
  if (!free_.empty()) {
    gp = free_.back();
    free_.pop_back();
  } else {
    gp = new tlm::tlm_generic_payload();
    gp->set_mm(this);
    gp->set_extension(new gpu_ext());
    all_.push_back(gp);
    free_.reserve(all_.size()); // free() never allocates
  }
  gp->get_extension<gpu_ext>()->set(r);
  gp->set_command(tlm::TLM_IGNORE_COMMAND); // timing only: the data moved functionally
  gp->set_address(r->addr);
  gp->set_data_ptr(nullptr);
  gp->set_data_length(r->size);
  gp->set_streaming_width(r->size);
  gp->set_byte_enable_ptr(nullptr);
  gp->set_byte_enable_length(0);
  gp->set_dmi_allowed(false);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  gp->acquire();
  return gp;
}

void payload_pool::free(tlm::tlm_generic_payload *gp) {
  gp->get_extension<gpu_ext>()->req = nullptr;
  free_.push_back(gp);
}

}  // namespace simtvp
