// link — message and request/response link ends (link.h).
#include "link.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace simtvp {

using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_ZERO_TIME;

// ---- link_end ------------------------------------------------------------------------------------

link_end::link_end(clocked &owner, uint32_t id, std::string name)
    : owner_(owner), id_(id), name_(std::move(name)) {}

void link_end::trace(const char *event, const mem_req *r) const {
  if (!trace_) return;
  std::ostream &os = *trace_;
  os << sc_time_stamp() << ' ' << name_ << ' ' << event;
  if (r) {
    os << " req=" << r->id << " 0x" << std::hex << r->addr << std::dec << ' '
       << mem_access_kind_name(static_cast<mem_access_kind>(r->kind)) << (r->is_reply ? " reply" : "");
  }
  os << '\n';
}

void link_end::activity(const sc_time &t) {
  clocked *cur = clocked::current_parallel();
  if (cur && cur != &owner_) {  // the other end's parallel tick: our owner's worklist and driver later
    cur->serially(&link_end::deferred_activity, this, &t, sizeof t, 0);
    return;
  }
  owner_.link_activity(id_);
  owner_.wake_after(t);
}

void link_end::deferred_activity(void *self, const void *t, size_t, uint64_t) {
  sc_time at;
  std::memcpy(static_cast<void *>(&at), t, sizeof at);
  static_cast<link_end *>(self)->activity(at);
}

bool link_end::direct_with(const link_end *peer) const {
  return peer && !trace_ && !peer->trace_ && !monitor_ && !peer->monitor_ && owner_.driver() &&
         peer->owner_.driver() && peer->owner_.driver() != owner_.driver();
}

void link_end::error(const std::string &what) const {
  std::string msg = name_ + ": " + what;
  SC_REPORT_ERROR("simtvp/link", msg.c_str());
}

void link_end::enable_protocol_checks(std::function<void(const tlm_violation &)> handler) {
  if (!monitor_) monitor_ = std::make_unique<tlm_protocol_monitor>(name_);
  monitor_->set_handler(std::move(handler));
  // Timed transport is called from the domain drivers' method processes: its receivers compute at
  // once and never wait (timed_target), so the rule that keeps b_transport to threads (a target
  // may wait) does not apply to it.
  monitor_->allow_b_transport_from_methods(true);
}

tlm::tlm_sync_enum link_end::call_fw(tlm::tlm_initiator_socket<> &socket, tlm::tlm_generic_payload &gp,
                                     tlm::tlm_phase &phase, sc_time &t) {
  if (!monitor_) return socket->nb_transport_fw(gp, phase, t);
  const tlm::tlm_phase sent = phase;
  monitor_->fw_call(gp, phase, t);
  tlm::tlm_sync_enum s = socket->nb_transport_fw(gp, phase, t);
  monitor_->fw_return(gp, sent, phase, t, s);
  return s;
}

// ---- check_links ---------------------------------------------------------------------------------

size_t link_checks::violations() const {
  size_t n = 0;
  for (const tlm_protocol_monitor *m : monitors) n += m->violations().size();
  return n;
}

uint64_t link_checks::transactions() const {
  uint64_t n = 0;
  for (const tlm_protocol_monitor *m : monitors) n += m->transactions();
  return n;
}

size_t link_checks::open_transactions() const {
  size_t n = 0;
  for (const tlm_protocol_monitor *m : monitors) n += m->open_transactions();
  return n;
}

namespace {
void find_links(sc_core::sc_object &o, const std::function<void(const tlm_violation &)> &handler, link_checks &out) {
  if (auto *s = dynamic_cast<link_out_socket *>(&o)) {
    s->end().enable_protocol_checks(handler);
    out.monitors.push_back(s->end().protocol_monitor());
  }
  for (sc_core::sc_object *child : o.get_child_objects()) find_links(*child, handler, out);
}
}  // namespace

link_checks check_links(sc_core::sc_object &root, std::function<void(const tlm_violation &)> handler) {
  link_checks out;
  find_links(root, handler, out);
  return out;
}

namespace detail {

// ---- rx_queue ------------------------------------------------------------------------------------

rx_queue::rx_queue(uint32_t capacity) : items_(capacity ? capacity : 1) {}

void rx_queue::push(const item &it) {
  items_[(head_ + len_) % items_.size()] = it;
  len_++;
}

const rx_queue::item *rx_queue::ready(const sc_time &now) const {
  if (!len_) return nullptr;
  const item &h = items_[head_];
  return h.arrival < now ? &h : nullptr;
}

rx_queue::item rx_queue::pop() {
  item it = items_[head_];
  head_ = (head_ + 1) % items_.size();
  len_--;
  return it;
}

// ---- open_map ------------------------------------------------------------------------------------

open_map::open_map() : e_(64, entry{nullptr, nullptr}) {}

size_t open_map::slot_of(const mem_req *r) const {
  uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(r) >> 4) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h >> 20) & (e_.size() - 1);
}

void open_map::grow() {
  std::vector<entry> old;
  old.swap(e_);
  e_.assign(old.size() * 2, entry{nullptr, nullptr});
  n_ = 0;
  for (const entry &x : old)
    if (x.key) put(x.key, x.gp);
}

void open_map::put(const mem_req *r, tlm::tlm_generic_payload *gp) {
  if ((n_ + 1) * 2 > e_.size()) grow();
  size_t i = slot_of(r);
  while (e_[i].key && e_[i].key != r) i = (i + 1) & (e_.size() - 1);
  if (!e_[i].key) n_++;
  e_[i] = {r, gp};
}

tlm::tlm_generic_payload *open_map::take(const mem_req *r) {
  size_t mask = e_.size() - 1, i = slot_of(r);
  while (e_[i].key && e_[i].key != r) i = (i + 1) & mask;
  if (!e_[i].key) return nullptr;
  tlm::tlm_generic_payload *gp = e_[i].gp;
  // Backward-shift deletion keeps every probe chain unbroken without tombstones.
  size_t hole = i;
  for (size_t j = (i + 1) & mask; e_[j].key; j = (j + 1) & mask) {
    size_t home = slot_of(e_[j].key);
    bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      e_[hole] = e_[j];
      hole = j;
    }
  }
  e_[hole] = {nullptr, nullptr};
  n_--;
  return gp;
}

}  // namespace detail

// ---- msg_out -------------------------------------------------------------------------------------

msg_out::msg_out(const char *name, clocked &owner, uint32_t id, payload_pool &pool)
    : link_end(owner, id, name), socket(name, *this), pool_(pool) {
  socket.bind(*this);
  name_ = socket.name(); // hierarchical: messages name the place
}

bool msg_out::send(mem_req *r) {
  const sc_time now = sc_time_stamp();
  if (!tx_.can_send(now)) {
    tx_.refused = true;
    n_.busy++;
    return false;
  }
  n_.transfers++;
  tx_.awaiting_end = true;
  if (owner_.deferring() && !direct_with(peer_)) {  // the transfer waits for the serial phase
    owner_.serially(&msg_out::deferred_transfer, this, nullptr, 0, reinterpret_cast<uintptr_t>(r));
    return true;
  }
  transfer(r);
  return true;
}

void msg_out::deferred_transfer(void *self, const void *, size_t, uint64_t r) {
  static_cast<msg_out *>(self)->transfer(reinterpret_cast<mem_req *>(static_cast<uintptr_t>(r)));
}

// The transfer proper (BEGIN_REQ and what the receiver answers); the end is already marked busy.
void msg_out::transfer(mem_req *r) {
  const sc_time now = sc_time_stamp();
  tlm::tlm_generic_payload *gp = pool_.acquire(r);
  trace("BEGIN_REQ", r);
  open_ = gp;
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  tlm::tlm_sync_enum st = call_fw(socket, *gp, ph, d);
  if (st == tlm::TLM_COMPLETED) { // taken at once: the transfer is over
    tx_.end(now + d);
    open_ = nullptr;
    gp->release();
  } else if (st == tlm::TLM_UPDATED) {
    if (ph == tlm::END_REQ) {
      tx_.end(now + d); // the response (BEGIN_RESP) comes on the backward path
    } else if (ph == tlm::BEGIN_RESP) {
      tx_.end(now + d);
      ph = tlm::END_RESP;
      d = SC_ZERO_TIME;
      call_fw(socket, *gp, ph, d);
      open_ = nullptr;
      gp->release();
    } else {
      error("unexpected phase returned to BEGIN_REQ");
    }
  }
}

bool msg_out::take_ready() {
  if (tx_.refused && tx_.can_send(sc_time_stamp())) {
    tx_.refused = false;
    return true;
  }
  return false;
}

tlm::tlm_sync_enum msg_out::nb_transport_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph,
                                            sc_time &t) {
  return checked_bw(gp, ph, t, [&] { return backward(gp, ph, t); });
}

tlm::tlm_sync_enum msg_out::backward(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_time &t) {
  const sc_time at = sc_time_stamp() + t;
  if (ph == tlm::END_REQ) {
    if (&gp == open_ && tx_.awaiting_end) tx_.end(at);
    trace("END_REQ", gpu_req_of(gp));
    if (tx_.refused) activity(at);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) { // the transfer is over (implies END_REQ if it was still open)
    if (&gp == open_ && tx_.awaiting_end) {
      tx_.end(at);
      if (tx_.refused) activity(at);
    }
    if (&gp == open_) open_ = nullptr;
    trace("BEGIN_RESP", gpu_req_of(gp));
    gp.release();
    return tlm::TLM_COMPLETED;
  }
  error("unexpected phase on the backward path of a message link");
  return tlm::TLM_COMPLETED;
}

// ---- msg_in --------------------------------------------------------------------------------------

msg_in::msg_in(const char *name, clocked &owner, uint32_t id, uint32_t capacity)
    : link_end(owner, id, name), socket(name), rx_(capacity) {
  socket.bind(*this);
  name_ = socket.name(); // hierarchical: messages name the place
}

mem_req *msg_in::peek() const {
  const detail::rx_queue::item *it = rx_.ready(sc_time_stamp());
  return it ? it->req : nullptr;
}

void msg_in::pop() {
  if (rx_.empty()) return;
  rx_.pop();
  if (!rx_.has_withheld || !rx_.has_room()) return;
  // Admit the withheld transfer now: END_REQ, then the response that completes it (the sender's
  // side in the serial phase when this is a parallel tick).
  const sc_time now = sc_time_stamp();
  detail::rx_queue::item w = rx_.withheld;
  rx_.has_withheld = false;
  tlm::tlm_generic_payload *gp = w.gp;
  w.gp = nullptr;
  w.arrival = std::max(w.arrival, now);
  rx_.push(w);
  if (owner_.deferring()) {
    owner_.serially(&msg_in::deferred_admit, this, &w.arrival, sizeof w.arrival, reinterpret_cast<uintptr_t>(gp));
    return;
  }
  admit(gp, w.arrival);
}

void msg_in::deferred_admit(void *self, const void *arrival, size_t, uint64_t gp) {
  sc_time at;
  std::memcpy(static_cast<void *>(&at), arrival, sizeof at);
  static_cast<msg_in *>(self)->admit(reinterpret_cast<tlm::tlm_generic_payload *>(static_cast<uintptr_t>(gp)), at);
}

void msg_in::admit(tlm::tlm_generic_payload *gp, const sc_time &arrival) {
  trace("END_REQ", gpu_req_of(*gp));
  tlm::tlm_phase ph = tlm::END_REQ;
  sc_time d = SC_ZERO_TIME;
  socket->nb_transport_bw(*gp, ph, d);
  gp->set_response_status(tlm::TLM_OK_RESPONSE);
  ph = tlm::BEGIN_RESP;
  d = SC_ZERO_TIME;
  socket->nb_transport_bw(*gp, ph, d); // the sender completes it (or sends END_RESP)
  gp->release();
  activity(arrival);
}

tlm::tlm_sync_enum msg_in::nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph,
                                           sc_time &t) {
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  if (ph != tlm::BEGIN_REQ) {
    error("unexpected phase on the forward path of a message link");
    return tlm::TLM_COMPLETED;
  }
  mem_req *r = gpu_req_of(gp);
  if (!r) {
    error("BEGIN_REQ without a GPU payload extension (gpu_ext with a mem_req)");
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  if (rx_.has_withheld) {
    error("BEGIN_REQ while the previous transfer's END_REQ is still withheld (base protocol)");
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  const sc_time at = sc_time_stamp() + t;
  if (rx_.has_room()) {
    rx_.push({r, nullptr, at});
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    trace("BEGIN_REQ", r);
    n_.transfers++;
    activity(at);
    return tlm::TLM_COMPLETED;
  }
  gp.acquire(); // held until admitted
  rx_.withheld = {r, &gp, at};
  rx_.has_withheld = true;
  trace("BEGIN_REQ (END_REQ withheld)", r);
  n_.transfers++;
  n_.withheld++;
  return tlm::TLM_ACCEPTED;
}

void msg_in::b_transport(tlm::tlm_generic_payload &gp, sc_time &t) {
  mem_req *r = gpu_req_of(gp);
  if (!timed_ || !r) {
    error(!r ? "b_transport without a GPU payload extension (gpu_ext with a mem_req)"
             : "b_transport on a link whose receiver is event driven (AT base protocol only)");
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  trace("TIMED", r);
  n_.transfers++;
  bool done = timed_->timed_transport(id_, r, t);
  gp.get_extension<gpu_ext>()->deferred = !done;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---- timed transport (msg_out) ---------------------------------------------------------------------

bool msg_out::timed() const { return peer_ && peer_->timed(); }

bool msg_out::transport(mem_req *r, sc_time &delay) {
  // Its answer is needed at once, so it cannot wait for the serial phase: a parallel tick uses
  // post() (the answer unused) or does not take part in parallel phases.
  assert(!owner_.deferring() && "msg_out::transport from a parallel tick (use post)");
  if (peer_ && peer_->timed_ && !monitor_ && !peer_->monitor_ && !trace_ && !peer_->trace_) {
    // The direct timed path (docs/tlm.md "Timed transport"): nobody checks or traces this hop, so
    // the item goes to the receiving shell by a plain call — the b_transport below without the
    // payload, its extension and the socket's dispatch; same arguments, same answer.
    n_.transfers++;
    peer_->n_.transfers++;
    return peer_->timed_->timed_transport(peer_->id_, r, delay);
  }
  tlm::tlm_generic_payload *gp = pool_.acquire(r);
  gpu_ext *ext = gp->get_extension<gpu_ext>();
  ext->deferred = false;
  trace("TIMED", r);
  n_.transfers++;
  if (monitor_) monitor_->b_call(*gp, delay);
  socket->b_transport(*gp, delay);
  if (monitor_) monitor_->b_return(*gp, delay);
  bool done = !ext->deferred && gp->is_response_ok();
  gp->release();
  return done;
}

void msg_out::post(mem_req *r, const sc_time &delay) {
  if (owner_.deferring()) {
    owner_.serially(&msg_out::deferred_post, this, &delay, sizeof delay, reinterpret_cast<uintptr_t>(r));
    return;
  }
  sc_time d = delay;
  transport(r, d);
}

void msg_out::deferred_post(void *self, const void *delay, size_t, uint64_t r) {
  sc_time d;
  std::memcpy(static_cast<void *>(&d), delay, sizeof d);
  static_cast<msg_out *>(self)->transport(reinterpret_cast<mem_req *>(static_cast<uintptr_t>(r)), d);
}

// ---- req_out -------------------------------------------------------------------------------------

req_out::req_out(const char *name, clocked &owner, uint32_t id, payload_pool &pool,
                 uint32_t response_capacity)
    : link_end(owner, id, name), socket(name, *this), pool_(pool), rx_(response_capacity) {
  socket.bind(*this);
  name_ = socket.name(); // hierarchical: messages name the place
}

bool req_out::send(mem_req *r) {
  const sc_time now = sc_time_stamp();
  if (!tx_.can_send(now)) {
    tx_.refused = true;
    n_.busy++;
    return false;
  }
  n_.transfers++;
  open_++;
  tx_.awaiting_end = true;
  if (owner_.deferring() && !direct_with(peer_)) {  // the transfer waits for the serial phase
    owner_.serially(&req_out::deferred_transfer, this, nullptr, 0, reinterpret_cast<uintptr_t>(r));
    return true;
  }
  transfer(r);
  return true;
}

void req_out::deferred_transfer(void *self, const void *, size_t, uint64_t r) {
  static_cast<req_out *>(self)->transfer(reinterpret_cast<mem_req *>(static_cast<uintptr_t>(r)));
}

void req_out::transfer(mem_req *r) {
  const sc_time now = sc_time_stamp();
  tlm::tlm_generic_payload *gp = pool_.acquire(r);
  trace("BEGIN_REQ", r);
  awaiting_ = gp;
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  tlm::tlm_sync_enum st = call_fw(socket, *gp, ph, d);
  if (st == tlm::TLM_UPDATED && ph == tlm::END_REQ) {
    tx_.end(now + d);
    awaiting_ = nullptr;
  } else if (st == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP) { // answered at once
    tx_.end(now + d);
    awaiting_ = nullptr;
    ph = tlm::END_RESP;
    d = SC_ZERO_TIME;
    call_fw(socket, *gp, ph, d);
    if (!take_response(*gp, now)) {
      error("an immediate response found the response inbox full");
      open_--;
      gp->release();
    }
  } else if (st == tlm::TLM_COMPLETED) {
    error("a request link's target completed a request without a response");
    tx_.end(now + d);
    awaiting_ = nullptr;
    open_--;
    gp->release();
  }
}

bool req_out::take_ready() {
  if (tx_.refused && tx_.can_send(sc_time_stamp())) {
    tx_.refused = false;
    return true;
  }
  return false;
}

mem_req *req_out::peek_response() const {
  const detail::rx_queue::item *it = rx_.ready(sc_time_stamp());
  return it ? it->req : nullptr;
}

// Takes a response into the inbox; releases the transaction. False when full (nothing changed).
bool req_out::take_response(tlm::tlm_generic_payload &gp, const sc_time &at) {
  if (!rx_.has_room()) return false;
  mem_req *r = gpu_req_of(gp);
  rx_.push({r, nullptr, at});
  trace("BEGIN_RESP", r);
  open_--;
  gp.release();
  activity(at);
  return true;
}

void req_out::pop_response() {
  if (rx_.empty()) return;
  rx_.pop();
  if (!rx_.has_withheld || !rx_.has_room()) return;
  const sc_time now = sc_time_stamp();
  detail::rx_queue::item w = rx_.withheld;
  rx_.has_withheld = false;
  tlm::tlm_generic_payload *gp = w.gp;
  w.gp = nullptr;
  w.arrival = std::max(w.arrival, now);
  rx_.push(w);
  open_--;
  if (owner_.deferring()) {
    owner_.serially(&req_out::deferred_admit, this, &w.arrival, sizeof w.arrival, reinterpret_cast<uintptr_t>(gp));
    return;
  }
  admit(gp, w.arrival);
}

void req_out::deferred_admit(void *self, const void *arrival, size_t, uint64_t gp) {
  sc_time at;
  std::memcpy(static_cast<void *>(&at), arrival, sizeof at);
  static_cast<req_out *>(self)->admit(reinterpret_cast<tlm::tlm_generic_payload *>(static_cast<uintptr_t>(gp)), at);
}

// The withheld response admitted: END_RESP to the target.
void req_out::admit(tlm::tlm_generic_payload *gp, const sc_time &arrival) {
  trace("END_RESP", gpu_req_of(*gp));
  tlm::tlm_phase ph = tlm::END_RESP;
  sc_time d = SC_ZERO_TIME;
  call_fw(socket, *gp, ph, d);
  gp->release();
  activity(arrival);
}

tlm::tlm_sync_enum req_out::nb_transport_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph,
                                            sc_time &t) {
  return checked_bw(gp, ph, t, [&] { return backward(gp, ph, t); });
}

tlm::tlm_sync_enum req_out::backward(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_time &t) {
  const sc_time at = sc_time_stamp() + t;
  if (ph == tlm::END_REQ) {
    if (&gp == awaiting_) {
      tx_.end(at);
      awaiting_ = nullptr;
      if (tx_.refused) activity(at);
    }
    trace("END_REQ", gpu_req_of(gp));
    return tlm::TLM_ACCEPTED;
  }
  if (ph != tlm::BEGIN_RESP) {
    error("unexpected phase on the backward path of a request link");
    return tlm::TLM_COMPLETED;
  }
  if (&gp == awaiting_) { // BEGIN_RESP implies END_REQ
    tx_.end(at);
    awaiting_ = nullptr;
    if (tx_.refused) activity(at);
  }
  if (take_response(gp, at)) return tlm::TLM_COMPLETED;
  if (rx_.has_withheld) {
    error("BEGIN_RESP while the previous END_RESP is still withheld (base protocol)");
    return tlm::TLM_COMPLETED;
  }
  rx_.withheld = {gpu_req_of(gp), &gp, at};
  rx_.has_withheld = true;
  trace("BEGIN_RESP (END_RESP withheld)", rx_.withheld.req);
  n_.withheld++;
  return tlm::TLM_ACCEPTED;
}

// ---- req_in --------------------------------------------------------------------------------------

req_in::req_in(const char *name, clocked &owner, uint32_t id, uint32_t capacity)
    : link_end(owner, id, name), socket(name), rx_(capacity) {
  socket.bind(*this);
  name_ = socket.name(); // hierarchical: messages name the place
}

mem_req *req_in::peek() const {
  const detail::rx_queue::item *it = rx_.ready(sc_time_stamp());
  return it ? it->req : nullptr;
}

void req_in::pop() {
  if (rx_.empty()) return;
  detail::rx_queue::item it = rx_.pop();
  open_.put(it.req, it.gp);
  if (!rx_.has_withheld || !rx_.has_room()) return;
  const sc_time now = sc_time_stamp();
  detail::rx_queue::item w = rx_.withheld;
  rx_.has_withheld = false;
  w.arrival = std::max(w.arrival, now);
  rx_.push(w);
  if (owner_.deferring()) {
    owner_.serially(&req_in::deferred_admit, this, &w.arrival, sizeof w.arrival, reinterpret_cast<uintptr_t>(w.gp));
    return;
  }
  admit(w.gp, w.arrival);
}

void req_in::deferred_admit(void *self, const void *arrival, size_t, uint64_t gp) {
  sc_time at;
  std::memcpy(static_cast<void *>(&at), arrival, sizeof at);
  static_cast<req_in *>(self)->admit(reinterpret_cast<tlm::tlm_generic_payload *>(static_cast<uintptr_t>(gp)), at);
}

// The withheld request admitted: END_REQ to the initiator.
void req_in::admit(tlm::tlm_generic_payload *gp, const sc_time &arrival) {
  trace("END_REQ", gpu_req_of(*gp));
  tlm::tlm_phase ph = tlm::END_REQ;
  sc_time d = SC_ZERO_TIME;
  socket->nb_transport_bw(*gp, ph, d);
  activity(arrival);
}

bool req_in::respond(mem_req *r) {
  const sc_time now = sc_time_stamp();
  if (!tx_.can_send(now)) {
    tx_.refused = true;
    n_.busy++;
    return false;
  }
  tlm::tlm_generic_payload *gp = open_.take(r);
  if (!gp) {
    if (owner_.deferring())
      owner_.serially(&req_in::deferred_unknown, this, nullptr, 0, r->id);
    else
      deferred_unknown(this, nullptr, 0, r->id);
    return true;
  }
  n_.transfers++;
  tx_.awaiting_end = true;
  if (owner_.deferring() && !direct_with(peer_)) {  // the response waits for the serial phase
    owner_.serially(&req_in::deferred_response, this, &gp, sizeof gp, reinterpret_cast<uintptr_t>(r));
    return true;
  }
  response(gp, r);
  return true;
}

void req_in::deferred_unknown(void *self, const void *, size_t, uint64_t id) {
  static_cast<req_in *>(self)->error("a response for a request this target does not hold (request " +
                                     std::to_string(id) + ")");
}

void req_in::deferred_response(void *self, const void *gp, size_t, uint64_t r) {
  tlm::tlm_generic_payload *p;
  std::memcpy(static_cast<void *>(&p), gp, sizeof p);
  static_cast<req_in *>(self)->response(p, reinterpret_cast<mem_req *>(static_cast<uintptr_t>(r)));
}

// BEGIN_RESP for r (the end is already marked busy).
void req_in::response(tlm::tlm_generic_payload *gp, mem_req *r) {
  const sc_time now = sc_time_stamp();
  gp->set_response_status(tlm::TLM_OK_RESPONSE);
  gpu_ext *e = gp->get_extension<gpu_ext>();
  if (e) e->set(r); // the model may have changed it (is_reply …)
  trace("BEGIN_RESP", r);
  responding_ = gp;
  tlm::tlm_phase ph = tlm::BEGIN_RESP;
  sc_time d = SC_ZERO_TIME;
  tlm::tlm_sync_enum st = socket->nb_transport_bw(*gp, ph, d);
  if (st == tlm::TLM_COMPLETED || (st == tlm::TLM_UPDATED && ph == tlm::END_RESP)) {
    tx_.end(now + d);
    responding_ = nullptr;
    gp->release();
  }
}

bool req_in::take_ready() {
  if (tx_.refused && tx_.can_send(sc_time_stamp())) {
    tx_.refused = false;
    return true;
  }
  return false;
}

tlm::tlm_sync_enum req_in::nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph,
                                           sc_time &t) {
  const sc_time at = sc_time_stamp() + t;
  if (ph == tlm::END_RESP) {
    if (&gp == responding_) {
      tx_.end(at);
      responding_ = nullptr;
      trace("END_RESP", gpu_req_of(gp));
      gp.release();
      if (tx_.refused) activity(at);
    }
    return tlm::TLM_COMPLETED;
  }
  if (ph != tlm::BEGIN_REQ) {
    error("unexpected phase on the forward path of a request link");
    return tlm::TLM_COMPLETED;
  }
  mem_req *r = gpu_req_of(gp);
  if (!r) {
    error("BEGIN_REQ without a GPU payload extension (gpu_ext with a mem_req)");
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  if (rx_.has_withheld) {
    error("BEGIN_REQ while the previous request's END_REQ is still withheld (base protocol)");
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  gp.acquire(); // held until the response has ended
  n_.transfers++;
  if (rx_.has_room()) {
    rx_.push({r, &gp, at});
    trace("BEGIN_REQ", r);
    activity(at);
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  rx_.withheld = {r, &gp, at};
  rx_.has_withheld = true;
  trace("BEGIN_REQ (END_REQ withheld)", r);
  n_.withheld++;
  return tlm::TLM_ACCEPTED;
}

void req_in::b_transport(tlm::tlm_generic_payload &gp, sc_time &) {
  error("GPU-internal links use nb_transport (AT base protocol), not b_transport");
  gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
}

}  // namespace simtvp
