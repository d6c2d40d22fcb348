// link — the ends of the TLM-2.0 links between GPU-internal blocks: AT base protocol
// (nb_transport, BEGIN_REQ / END_REQ / BEGIN_RESP / END_RESP) with real back-pressure, carrying
// mem_req records in gpu_payload transactions. A shell owns link ends; each end owns one socket.
//
// Two kinds of link (docs/tlm.md "Links"):
//   message  (msg_out → msg_in)  one transaction per hop carries one request one way (core →
//            interconnect → partition, partition → interconnect → core). The receiver ends the
//            transaction at once when it has room (returns TLM_COMPLETED to BEGIN_REQ); when its
//            inbox is full it returns TLM_ACCEPTED and withholds END_REQ until room appears, then
//            sends END_REQ and BEGIN_RESP, to which the sender answers TLM_COMPLETED.
//   request  (req_out → req_in)  a request and its response in one transaction (partition ↔
//            DRAM). END_REQ is withheld while the target's inbox is full; the response comes as
//            BEGIN_RESP whenever the target finishes (any order), and END_RESP is withheld while
//            the initiator's response inbox is full.
//
// Timing rules that make a run independent of process order (docs/tlm.md "Timing rules"):
//   - an item that arrives at time t is handed to the receiving model at the first edge of its
//     domain strictly after t (peek() shows only items that arrived before the current time);
//   - a sender may send again on a link at the first of its edges strictly after the END_REQ (or
//     END_RESP) of its previous transfer: at most one transfer per link per edge.
// The owner is woken (clocked::wake_after) whenever something arrives or a withheld phase ends;
// after a refused send, retry_next_edge() tells the owner to ask for the next edge itself.
//
// In a parallel tick (clocked::deferring(), domain_driver::set_workers) a send or a response goes
// to the other end at once when that end's block belongs to another clock domain (whose driver
// is not running) and nobody traces or checks the link: the call touches only the two ends, and
// the receiver's wake-up (its owner's worklist and driver) waits for the serial phase. Otherwise,
// and for the phases that release the other end's payloads (a withheld END_REQ/END_RESP admitted
// by a pop), the end changes only its own state at once — a send is accepted or refused as it
// would be, a popped item leaves the inbox — and the phases that reach the other end are sent in
// the serial phase, at the same simulated time, in the block's call order.
//
// The inbox holds `capacity` items (default 1): one item of buffering on the wire, in front of the
// receiving model's own queues. With it a link moves one item per edge when nothing is full.
#ifndef SIMTVP_TLM_LINK_H
#define SIMTVP_TLM_LINK_H

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "domain_driver.h"
#include "gpu_payload.h"
#include "tlm_checker.h"

namespace simtvp {

struct link_counters {
  uint64_t transfers = 0; // items that crossed the link
  uint64_t withheld = 0;  // transfers whose END_REQ / END_RESP was withheld (receiver full)
  uint64_t busy = 0;      // sends refused because the link was still busy
};

// What every link end has: a name, its owner, per-end counters and optional text tracing.
class link_end {
 public:
  link_end(clocked &owner, uint32_t id, std::string name);
  virtual ~link_end() = default;
  const std::string &name() const { return name_; }
  uint32_t id() const { return id_; }
  const link_counters &counters() const { return n_; }
  // Every phase on this end is written to os ("<time> <name> <event> req=<id> 0x<addr> <kind>");
  // nullptr turns it off.
  void set_trace(std::ostream *os) { trace_ = os; }
  // Base-protocol checks of this end's hop (tlm_checker.h); the sending end of a link sees every
  // call on it, so check_links() enables them there. handler: as tlm_protocol_monitor's.
  void enable_protocol_checks(std::function<void(const tlm_violation &)> handler = {});
  const tlm_protocol_monitor *protocol_monitor() const { return monitor_.get(); }

 protected:
  void trace(const char *event, const mem_req *r) const;
  // Tells the owner, wakes it after t (from another block's parallel tick: in its serial phase).
  void activity(const sc_core::sc_time &t);
  static void deferred_activity(void *self, const void *t, size_t, uint64_t);
  // A call into `peer` may be made from this end's parallel tick (see the file comment).
  bool direct_with(const link_end *peer) const;
  void error(const std::string &what) const;
  // nb_transport calls and backward-path handling through the monitor when checks are on.
  tlm::tlm_sync_enum call_fw(tlm::tlm_initiator_socket<> &socket, tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                             sc_core::sc_time &t);
  template <class F>
  tlm::tlm_sync_enum checked_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase, sc_core::sc_time &t, F handle) {
    if (!monitor_) return handle();
    const tlm::tlm_phase sent = phase;
    monitor_->bw_call(gp, phase, t);
    tlm::tlm_sync_enum s = handle();
    monitor_->bw_return(gp, sent, phase, t, s);
    return s;
  }

  clocked &owner_;
  uint32_t id_;
  std::string name_;
  std::ostream *trace_ = nullptr;
  link_counters n_;
  std::unique_ptr<tlm_protocol_monitor> monitor_;
};

// The initiator socket of a sending link end (msg_out, req_out): knows its end, so that checks
// can be attached to every link under a module (check_links).
class link_out_socket : public tlm::tlm_initiator_socket<> {
 public:
  link_out_socket(const char *name, link_end &end) : tlm::tlm_initiator_socket<>(name), end_(end) {}
  link_end &end() const { return end_; }
  const char *kind() const override { return "simtvp::link_out_socket"; }

 private:
  link_end &end_;
};

namespace detail {

// The receiving half: accepted items in arrival order, plus at most one whose acceptance phase
// is withheld.
class rx_queue {
 public:
  struct item {
    mem_req *req = nullptr;
    tlm::tlm_generic_payload *gp = nullptr;
    sc_core::sc_time arrival;
  };
  explicit rx_queue(uint32_t capacity);
  bool has_room() const { return len_ < items_.size(); }
  bool empty() const { return len_ == 0; }
  uint32_t size() const { return len_; }
  void push(const item &it);
  const item *ready(const sc_core::sc_time &now) const; // the head if it arrived before now
  const mem_req *front() const { return len_ ? items_[head_].req : nullptr; }
  item pop();
  bool has_withheld = false;
  item withheld;

 private:
  std::vector<item> items_;
  uint32_t head_ = 0, len_ = 0;
};

// The sending half: waiting for the end of the phase it began.
struct tx_state {
  bool awaiting_end = false;
  bool ended = false;         // end_time is valid
  sc_core::sc_time end_time;  // when the last transfer's END_REQ / END_RESP happened
  bool refused = false;       // a send was refused since the link was last free
  bool can_send(const sc_core::sc_time &now) const {
    return !awaiting_end && (!ended || end_time < now);
  }
  void end(const sc_core::sc_time &t) {
    awaiting_end = false;
    ended = true;
    end_time = t;
  }
};

// mem_req* → payload, open addressing, grows (rarely) to the number of open transactions.
class open_map {
 public:
  open_map();
  void put(const mem_req *r, tlm::tlm_generic_payload *gp);
  tlm::tlm_generic_payload *take(const mem_req *r); // nullptr when absent
  size_t size() const { return n_; }

 private:
  struct entry {
    const mem_req *key;
    tlm::tlm_generic_payload *gp;
  };
  size_t slot_of(const mem_req *r) const;
  void grow();
  std::vector<entry> e_;
  size_t n_ = 0;
};

}  // namespace detail

// ---- timed transport -----------------------------------------------------------------------------
// Between approximately-timed blocks a message link also carries b_transport (TLM-2.0 loosely-timed
// style, docs/tlm.md "Timed transport"): the sender hands the item over at sc_time_stamp() + delay
// and the receiving block computes at once when the transaction is complete, returned in delay —
// no event, no phase, no wait. A receiver that cannot complete it (its own next hop is event
// driven) keeps the request and says so; the reply then comes back on the ordinary links.
// When neither end is traced or protocol-checked, msg_out::transport calls the receiver's
// timed_target directly (the direct timed path): no payload, no extension, no socket dispatch.

// Implemented by the shell of a block that can time an item at once.
class timed_target {
 public:
  virtual ~timed_target() = default;
  // The item arrives on link `link_id` at sc_time_stamp() + delay. true: done, delay = when the
  // transaction completes (a request that needs a reply: when the reply, carried in the same
  // mem_req, is back at the sender's side of the link); false: the receiver keeps the request.
  virtual bool timed_transport(uint32_t link_id, mem_req *r, sc_core::sc_time &delay) = 0;
};

// ---- message links -------------------------------------------------------------------------------

class msg_in;

class msg_out : public link_end, public tlm::tlm_bw_transport_if<> {
 public:
  link_out_socket socket;
  msg_out(const char *name, clocked &owner, uint32_t id, payload_pool &pool);

  bool can_send() const { return tx_.can_send(sc_core::sc_time_stamp()); }
  // Sends r now. false: the link is busy, nothing sent (the owner keeps r and retries when
  // take_ready() says so).
  bool send(mem_req *r);
  // True once after a refused send, when the link can take the next transfer.
  bool take_ready();
  // A send was refused and the link will be free at the next edge (no wake will come for it).
  bool retry_next_edge() const { return tx_.refused && !tx_.awaiting_end; }
  // The last transfer's END_REQ has not come yet (it will wake the owner if a send was refused).
  bool awaiting() const { return tx_.awaiting_end; }
  // The receiving end takes timed transport (its block is approximately timed).
  bool timed() const;
  // Timed transport of r arriving at sc_time_stamp() + delay (timed() must hold): true, delay =
  // completion (see timed_target); false: the receiver kept r, its reply comes on the links.
  bool transport(mem_req *r, sc_core::sc_time &delay);
  // Timed transport whose answer the sender does not use: in a parallel tick it is made in the
  // serial phase (same time, same delay), otherwise at once.
  void post(mem_req *r, const sc_core::sc_time &delay);

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                     sc_core::sc_time &t) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void transfer(mem_req *r);
  static void deferred_transfer(void *self, const void *, size_t, uint64_t r);
  static void deferred_post(void *self, const void *delay, size_t, uint64_t r);
  tlm::tlm_sync_enum backward(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase, sc_core::sc_time &t);
  friend void bind(msg_out &from, msg_in &to);
  msg_in *peer_ = nullptr;
  payload_pool &pool_;
  detail::tx_state tx_;
  tlm::tlm_generic_payload *open_ = nullptr; // transaction whose END_REQ is awaited
};

class msg_in : public link_end, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> socket;
  msg_in(const char *name, clocked &owner, uint32_t id, uint32_t capacity = 1);

  // The oldest item that arrived before the current time, or nullptr.
  mem_req *peek() const;
  // Removes it (the model took it); a withheld transfer is admitted now (END_REQ sent).
  void pop();
  // The oldest item whatever its arrival time (for can-accept checks), or nullptr.
  const mem_req *front() const { return rx_.front(); }
  bool empty() const { return rx_.empty() && !rx_.has_withheld; }
  uint32_t size() const { return rx_.size() + (rx_.has_withheld ? 1u : 0u); }
  // Accept timed transport (b_transport), handled by t (nullptr: refuse it, the default).
  void set_timed(timed_target *t) { timed_ = t; }
  bool timed() const { return timed_ != nullptr; }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                     sc_core::sc_time &t) override;
  void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &t) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload &) override { return 0; }

 private:
  void admit(tlm::tlm_generic_payload *gp, const sc_core::sc_time &arrival);
  static void deferred_admit(void *self, const void *arrival, size_t, uint64_t gp);
  friend class msg_out; // its direct timed path calls timed_ itself
  detail::rx_queue rx_;
  timed_target *timed_ = nullptr;
};

// ---- request/response links -----------------------------------------------------------------------

class req_in;

class req_out : public link_end, public tlm::tlm_bw_transport_if<> {
 public:
  link_out_socket socket;
  req_out(const char *name, clocked &owner, uint32_t id, payload_pool &pool,
          uint32_t response_capacity = 1);

  // Requests (as msg_out).
  bool can_send() const { return tx_.can_send(sc_core::sc_time_stamp()); }
  bool send(mem_req *r);
  bool take_ready();
  bool retry_next_edge() const { return tx_.refused && !tx_.awaiting_end; }
  bool awaiting() const { return tx_.awaiting_end; }
  // Responses: the oldest that arrived before the current time; pop() takes it (a withheld
  // response is admitted: END_RESP sent).
  mem_req *peek_response() const;
  void pop_response();
  const mem_req *front_response() const { return rx_.front(); }
  // Transactions sent and not yet answered.
  uint32_t open() const { return open_; }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                     sc_core::sc_time &t) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  tlm::tlm_sync_enum backward(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase, sc_core::sc_time &t);
  bool take_response(tlm::tlm_generic_payload &gp, const sc_core::sc_time &at);
  void transfer(mem_req *r);
  static void deferred_transfer(void *self, const void *, size_t, uint64_t r);
  void admit(tlm::tlm_generic_payload *gp, const sc_core::sc_time &arrival);
  static void deferred_admit(void *self, const void *arrival, size_t, uint64_t gp);
  payload_pool &pool_;
  detail::tx_state tx_;
  detail::rx_queue rx_;
  uint32_t open_ = 0;
  tlm::tlm_generic_payload *awaiting_ = nullptr; // transaction whose END_REQ is awaited
  friend void bind(req_out &from, req_in &to);
  req_in *peer_ = nullptr;
};

class req_in : public link_end, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> socket;
  req_in(const char *name, clocked &owner, uint32_t id, uint32_t capacity = 1);

  // Requests (as msg_in); a popped request stays open until respond().
  mem_req *peek() const;
  void pop();
  const mem_req *front() const { return rx_.front(); }
  // Responses: at most one BEGIN_RESP in flight (the base protocol's rule).
  bool can_respond() const { return tx_.can_send(sc_core::sc_time_stamp()); }
  // Sends the response for r (a request popped earlier). false: busy, nothing sent.
  bool respond(mem_req *r);
  bool take_ready();
  bool retry_next_edge() const { return tx_.refused && !tx_.awaiting_end; }
  // Requests popped and not yet answered.
  size_t open() const { return open_.size(); }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                     sc_core::sc_time &t) override;
  void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &t) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload &) override { return 0; }

 private:
  void admit(tlm::tlm_generic_payload *gp, const sc_core::sc_time &arrival);
  static void deferred_admit(void *self, const void *arrival, size_t, uint64_t gp);
  void response(tlm::tlm_generic_payload *gp, mem_req *r);
  static void deferred_response(void *self, const void *gp, size_t, uint64_t r);
  static void deferred_unknown(void *self, const void *, size_t, uint64_t id);
  detail::rx_queue rx_;
  detail::tx_state tx_;
  detail::open_map open_;
  tlm::tlm_generic_payload *responding_ = nullptr; // BEGIN_RESP sent, END_RESP awaited
  friend void bind(req_out &from, req_in &to);
  req_out *peer_ = nullptr;
};

// Binds a sending end to a receiving end.
inline void bind(msg_out &from, msg_in &to) {
  from.socket.bind(to.socket);
  from.peer_ = &to;
}
inline void bind(req_out &from, req_in &to) {
  from.socket.bind(to.socket);
  from.peer_ = &to;
  to.peer_ = &from;
}

// The links whose checks check_links() turned on.
struct link_checks {
  std::vector<const tlm_protocol_monitor *> monitors;
  size_t links() const { return monitors.size(); }
  size_t violations() const;     // over every link
  uint64_t transactions() const; // transactions begun, over every link
  size_t open_transactions() const;
};

// Turns on base-protocol checks (tlm_checker.h) on every GPU-internal link whose sending end lies
// under root in the module hierarchy (a gpu_top, a mem_system, a whole simulation's top module),
// after elaboration's construction and before or while the simulation runs. Every violation goes
// to handler (default: SC_REPORT_ERROR, which stops the simulation).
link_checks check_links(sc_core::sc_object &root, std::function<void(const tlm_violation &)> handler = {});

}  // namespace simtvp

#endif  // SIMTVP_TLM_LINK_H
