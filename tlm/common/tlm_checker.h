// tlm_checker — a TLM-2.0 base-protocol checker (IEEE Std 1666-2011 clauses 11, 14 and 15): the
// generic payload's attributes and their modifiability, the nb_transport phase sequence and its
// return values, the request and response exclusion rules, timing annotations, memory management,
// DMI descriptors and debug transport. docs/platform.md "Protocol checks".
//
// Two ways to use it:
//   - tlm_protocol_checker<BUSWIDTH>: a module bound in line between an initiator (or interconnect)
//     and a target: initiator.socket -> checker.target_socket, checker.initiator_socket ->
//     target.socket. It forwards every call both ways unchanged and checks it on the way.
//   - tlm_protocol_monitor: the checking engine alone, for a component that owns one end of a hop
//     and calls the hooks around every interface call itself (the GPU-internal link ends do, see
//     link.h check_links()).
//
// A violation goes to the handler (default: SC_REPORT_ERROR with message type
// "simtvp/tlm_checker", which stops the simulation with an exception under SystemC's default
// actions, so a test fails) and is kept in violations(). Each text names the hop, the
// transaction (command, address, length) and the clause: "gpu.bar0_check: BEGIN_REQ while the
// request phase of another transaction is open (request exclusion rule) [IEEE 1666-2011 15.2.6 e]".
//
// One monitor per hop, no state shared between monitors or with anything else: any number of
// checked hops and of simulations' worth of GPUs in one process.
#ifndef SIMTVP_TLM_CHECKER_H
#define SIMTVP_TLM_CHECKER_H

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

namespace simtvp {

struct tlm_violation {
  std::string hop;      // the checker's name
  std::string rule;     // IEEE 1666-2011 clause, e.g. "15.2.6 e"
  std::string text;     // the whole message
  sc_core::sc_time time;
};

class tlm_protocol_monitor {
 public:
  explicit tlm_protocol_monitor(std::string hop_name);
  tlm_protocol_monitor(const tlm_protocol_monitor &) = delete;
  tlm_protocol_monitor &operator=(const tlm_protocol_monitor &) = delete;

  const std::string &name() const { return name_; }
  // Where violations go (besides violations()); empty = SC_REPORT_ERROR.
  void set_handler(std::function<void(const tlm_violation &)> handler) { handler_ = std::move(handler); }
  // For a hop whose targets never wait in b_transport (by their own contract): b_transport from a
  // method process is then no violation (IEEE 1666-2011 11.1.1.4 b keeps it to threads because a
  // target may wait).
  void allow_b_transport_from_methods(bool allow) { b_from_methods_ = allow; }
  const std::vector<tlm_violation> &violations() const { return violations_; }
  uint64_t calls() const { return calls_; }        // interface calls checked
  uint64_t transactions() const { return begun_; } // transactions begun (b_transport or BEGIN_REQ)
  // Transactions begun with nb_transport and not yet finished.
  size_t open_transactions() const;

  // Hooks: call the first before the interface call and the second after it returns, with the
  // same objects. phase_sent is the phase as it was passed in.
  void fw_call(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &phase, const sc_core::sc_time &delay);
  void fw_return(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &phase_sent, const tlm::tlm_phase &phase,
                 const sc_core::sc_time &delay, tlm::tlm_sync_enum status);
  void bw_call(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &phase, const sc_core::sc_time &delay);
  void bw_return(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &phase_sent, const tlm::tlm_phase &phase,
                 const sc_core::sc_time &delay, tlm::tlm_sync_enum status);
  void b_call(tlm::tlm_generic_payload &gp, const sc_core::sc_time &delay);
  void b_return(tlm::tlm_generic_payload &gp, const sc_core::sc_time &delay);
  void dmi_call(tlm::tlm_generic_payload &gp, const tlm::tlm_dmi &dmi);
  void dmi_return(tlm::tlm_generic_payload &gp, const tlm::tlm_dmi &dmi, bool granted);
  void dbg_call(tlm::tlm_generic_payload &gp);
  void dbg_return(tlm::tlm_generic_payload &gp, unsigned int count);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);

 private:
  // What the initiator set when the transaction began: attributes no one else may change (14.7).
  struct snapshot {
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    unsigned char *data = nullptr;
    unsigned int length = 0;
    unsigned char *byte_enable = nullptr;
    unsigned int byte_enable_length = 0;
    unsigned int streaming_width = 0;
    uint64_t write_data_hash = 0;  // FNV-1a of the data array of a write
    uint64_t byte_enable_hash = 0;
  };
  struct txn {
    tlm::tlm_phase phase = tlm::UNINITIALIZED_PHASE;  // last base-protocol phase on this hop
    bool nb = false;                                   // an nb_transport sequence is open
    unsigned b_calls = 0;                              // b_transport calls in progress
    sc_core::sc_time last;                             // sc_time_stamp() + delay of the last call
    snapshot init;
  };

  void violation(const tlm::tlm_generic_payload *gp, const char *rule, const std::string &what);
  void begin(tlm::tlm_generic_payload &gp, txn &t, const char *where);
  void check_unchanged(const tlm::tlm_generic_payload &gp, const txn &t, const char *where);
  void check_response(const tlm::tlm_generic_payload &gp, const char *where);
  void check_time(const tlm::tlm_generic_payload &gp, txn &t, const sc_core::sc_time &delay, const char *where);
  void end(tlm::tlm_generic_payload &gp);
  // Target-to-initiator phases (END_REQ, BEGIN_RESP), whether they came on the backward path or
  // as the return of a forward call.
  void target_phase(tlm::tlm_generic_payload &gp, txn &t, const tlm::tlm_phase &phase, const char *where);
  void initiator_end_resp(tlm::tlm_generic_payload &gp, txn &t, const char *where);

  std::string name_;
  std::function<void(const tlm_violation &)> handler_;
  std::vector<tlm_violation> violations_;
  std::unordered_map<const tlm::tlm_generic_payload *, txn> txns_;
  const tlm::tlm_generic_payload *request_open_ = nullptr;   // BEGIN_REQ sent, END_REQ not yet
  const tlm::tlm_generic_payload *response_open_ = nullptr;  // BEGIN_RESP sent, END_RESP not yet
  uint64_t calls_ = 0, begun_ = 0;
  bool b_from_methods_ = false;
  sc_dt::uint64 dmi_address_ = 0;                 // the DMI request in progress
  tlm::tlm_command dmi_command_ = tlm::TLM_IGNORE_COMMAND;
  sc_core::sc_time dbg_time_;                      // the debug call in progress
  unsigned int dbg_length_ = 0;
};

// The checker as a module bound in line on one hop.
template <unsigned int BUSWIDTH = 32>
class tlm_protocol_checker : public sc_core::sc_module,
                             public tlm::tlm_fw_transport_if<>,
                             public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<BUSWIDTH> target_socket;        // the initiator side binds here
  tlm::tlm_initiator_socket<BUSWIDTH> initiator_socket;  // bind to the target

  explicit tlm_protocol_checker(sc_core::sc_module_name n)
      : sc_module(n), target_socket("target_socket"), initiator_socket("initiator_socket"), monitor_(name()) {
    target_socket.bind(*this);
    initiator_socket.bind(*this);
  }
  tlm_protocol_monitor &monitor() { return monitor_; }
  const tlm_protocol_monitor &monitor() const { return monitor_; }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                     sc_core::sc_time &delay) override {
    const tlm::tlm_phase sent = phase;
    monitor_.fw_call(gp, phase, delay);
    tlm::tlm_sync_enum s = initiator_socket->nb_transport_fw(gp, phase, delay);
    monitor_.fw_return(gp, sent, phase, delay, s);
    return s;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                     sc_core::sc_time &delay) override {
    const tlm::tlm_phase sent = phase;
    monitor_.bw_call(gp, phase, delay);
    tlm::tlm_sync_enum s = target_socket->nb_transport_bw(gp, phase, delay);
    monitor_.bw_return(gp, sent, phase, delay, s);
    return s;
  }
  void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay) override {
    monitor_.b_call(gp, delay);
    initiator_socket->b_transport(gp, delay);
    monitor_.b_return(gp, delay);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi) override {
    monitor_.dmi_call(gp, dmi);
    bool granted = initiator_socket->get_direct_mem_ptr(gp, dmi);
    monitor_.dmi_return(gp, dmi, granted);
    return granted;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload &gp) override {
    monitor_.dbg_call(gp);
    unsigned int n = initiator_socket->transport_dbg(gp);
    monitor_.dbg_return(gp, n);
    return n;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
    monitor_.invalidate(start, end);
    target_socket->invalidate_direct_mem_ptr(start, end);
  }

 private:
  tlm_protocol_monitor monitor_;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_CHECKER_H
