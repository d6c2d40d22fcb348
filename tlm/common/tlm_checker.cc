// tlm_checker — the base-protocol rules (see tlm_checker.h). Clause numbers are IEEE Std
// 1666-2011's.
#include "tlm_checker.h"

#include <sstream>

namespace simtvp {

using sc_core::sc_time;

namespace {

const char *command_name(tlm::tlm_command c) {
  switch (c) {
  case tlm::TLM_READ_COMMAND: return "read";
  case tlm::TLM_WRITE_COMMAND: return "write";
  case tlm::TLM_IGNORE_COMMAND: return "ignore";
  }
  return "bad command";
}

bool base_phase(const tlm::tlm_phase &p) {
  return p == tlm::BEGIN_REQ || p == tlm::END_REQ || p == tlm::BEGIN_RESP || p == tlm::END_RESP;
}

bool known_phase(const tlm::tlm_phase &p) { return p == tlm::UNINITIALIZED_PHASE || base_phase(p); }

std::string phase_name(const tlm::tlm_phase &p) {
  std::ostringstream s;
  s << p;
  return s.str();
}

uint64_t fnv1a(const unsigned char *p, unsigned int n) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned int i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

bool in_method_process() {
  sc_core::sc_process_handle h = sc_core::sc_get_current_process_handle();
  return h.valid() && h.proc_kind() == sc_core::SC_METHOD_PROC_;
}

}  // namespace

tlm_protocol_monitor::tlm_protocol_monitor(std::string hop_name) : name_(std::move(hop_name)) {}

size_t tlm_protocol_monitor::open_transactions() const {
  size_t n = 0;
  for (const auto &kv : txns_)
    if (kv.second.nb) n++;
  return n;
}

void tlm_protocol_monitor::violation(const tlm::tlm_generic_payload *gp, const char *rule, const std::string &what) {
  std::ostringstream s;
  s << name_ << ": " << what;
  if (gp)
    s << " (" << command_name(gp->get_command()) << " 0x" << std::hex << gp->get_address() << std::dec << ", "
      << gp->get_data_length() << " bytes)";
  s << " [IEEE 1666-2011 " << rule << "]";
  tlm_violation v{name_, rule, s.str(), sc_core::sc_time_stamp()};
  violations_.push_back(v);
  if (handler_)
    handler_(violations_.back());
  else
    SC_REPORT_ERROR("simtvp/tlm_checker", v.text.c_str());
}

// ---- generic payload ------------------------------------------------------------------------------

// A transaction begins (b_transport, BEGIN_REQ): the initiator must have set every attribute
// (14.8) and left the target's ones at their initial values.
void tlm_protocol_monitor::begin(tlm::tlm_generic_payload &gp, txn &t, const char *where) {
  begun_++;
  const std::string at = std::string(" in ") + where;
  if (gp.get_gp_option() != tlm::TLM_MIN_PAYLOAD)
    violation(&gp, "14.8 g", "gp_option is not TLM_MIN_PAYLOAD on a transport call" + at);
  tlm::tlm_command cmd = gp.get_command();
  if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND && cmd != tlm::TLM_IGNORE_COMMAND)
    violation(&gp, "14.10", "command attribute is not a tlm_command" + at);
  if (cmd != tlm::TLM_IGNORE_COMMAND && !gp.get_data_ptr())
    violation(&gp, "14.11 e", "data pointer is null" + at);
  if (cmd != tlm::TLM_IGNORE_COMMAND && gp.get_data_length() == 0)
    violation(&gp, "14.12 d", "data length is 0" + at);
  if (gp.get_byte_enable_ptr()) {
    if (gp.get_byte_enable_length() == 0)
      violation(&gp, "14.14 f", "byte enable pointer set with a byte enable length of 0" + at);
    for (unsigned int i = 0; i < gp.get_byte_enable_length(); i++) {
      unsigned char b = gp.get_byte_enable_ptr()[i];
      if (b != TLM_BYTE_ENABLED && b != TLM_BYTE_DISABLED) {
        violation(&gp, "14.14", "byte enable element " + std::to_string(i) + " is neither 0x00 nor 0xff" + at);
        break;
      }
    }
  }
  if (gp.get_streaming_width() == 0) violation(&gp, "14.15 f", "streaming width is 0" + at);
  if (gp.is_dmi_allowed()) violation(&gp, "14.16", "DMI allowed hint already set by the initiator" + at);
  if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    violation(&gp, "14.17 e", "response status is not TLM_INCOMPLETE_RESPONSE" + at);

  snapshot &s = t.init;
  s.command = cmd;
  s.data = gp.get_data_ptr();
  s.length = gp.get_data_length();
  s.byte_enable = gp.get_byte_enable_ptr();
  s.byte_enable_length = gp.get_byte_enable_length();
  s.streaming_width = gp.get_streaming_width();
  s.write_data_hash = cmd == tlm::TLM_WRITE_COMMAND && s.data ? fnv1a(s.data, s.length) : 0;
  s.byte_enable_hash = s.byte_enable ? fnv1a(s.byte_enable, s.byte_enable_length) : 0;
}

// Only the data array of a read, the response status and the DMI hint may change during a
// transaction's lifetime (the address may be rewritten by an interconnect on its way) (14.7).
void tlm_protocol_monitor::check_unchanged(const tlm::tlm_generic_payload &gp, const txn &t, const char *where) {
  const snapshot &s = t.init;
  const std::string at = std::string(", seen in ") + where;
  if (gp.get_command() != s.command) violation(&gp, "14.7", "command attribute modified" + at);
  if (gp.get_data_ptr() != s.data) violation(&gp, "14.7", "data pointer modified" + at);
  if (gp.get_data_length() != s.length) violation(&gp, "14.7", "data length modified" + at);
  if (gp.get_byte_enable_ptr() != s.byte_enable) violation(&gp, "14.7", "byte enable pointer modified" + at);
  if (gp.get_byte_enable_length() != s.byte_enable_length)
    violation(&gp, "14.7", "byte enable length modified" + at);
  if (gp.get_streaming_width() != s.streaming_width) violation(&gp, "14.7", "streaming width modified" + at);
  if (s.command == tlm::TLM_WRITE_COMMAND && s.data && gp.get_data_ptr() == s.data &&
      gp.get_data_length() == s.length && fnv1a(s.data, s.length) != s.write_data_hash)
    violation(&gp, "14.7", "data array of a write modified" + at);
  if (s.byte_enable && gp.get_byte_enable_ptr() == s.byte_enable &&
      gp.get_byte_enable_length() == s.byte_enable_length &&
      fnv1a(s.byte_enable, s.byte_enable_length) != s.byte_enable_hash)
    violation(&gp, "14.7", "byte enable array modified" + at);
}

// The target must have set the response status by the time the response comes (14.17).
void tlm_protocol_monitor::check_response(const tlm::tlm_generic_payload &gp, const char *where) {
  if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation(&gp, "14.17 f", std::string("response status still TLM_INCOMPLETE_RESPONSE at ") + where);
}

// Each call or return of one transaction's nb_transport sequence happens no earlier than the one
// before it (15.2.7 c).
void tlm_protocol_monitor::check_time(const tlm::tlm_generic_payload &gp, txn &t, const sc_time &delay,
                                      const char *where) {
  sc_time at = sc_core::sc_time_stamp() + delay;
  if (at < t.last)
    violation(&gp, "15.2.7 c",
              std::string("timing annotation decreases in ") + where + ": " + at.to_string() + " after " +
                  t.last.to_string());
  t.last = at;
}

void tlm_protocol_monitor::end(tlm::tlm_generic_payload &gp) {
  if (request_open_ == &gp) request_open_ = nullptr;
  if (response_open_ == &gp) response_open_ = nullptr;
  auto it = txns_.find(&gp);
  if (it == txns_.end()) return;
  it->second.nb = false;
  it->second.phase = tlm::UNINITIALIZED_PHASE;
  if (!it->second.b_calls) txns_.erase(it);
}

// ---- nb_transport -------------------------------------------------------------------------------

void tlm_protocol_monitor::target_phase(tlm::tlm_generic_payload &gp, txn &t, const tlm::tlm_phase &phase,
                                        const char *where) {
  if (phase == tlm::END_REQ) {
    if (t.phase != tlm::BEGIN_REQ)
      violation(&gp, "15.2.4", "END_REQ out of sequence (after " + phase_name(t.phase) + ") in " + where);
    if (request_open_ == &gp) request_open_ = nullptr;
    t.phase = tlm::END_REQ;
  } else if (phase == tlm::BEGIN_RESP) {
    if (t.phase != tlm::BEGIN_REQ && t.phase != tlm::END_REQ)
      violation(&gp, "15.2.4", "BEGIN_RESP out of sequence (after " + phase_name(t.phase) + ") in " + where);
    if (request_open_ == &gp) request_open_ = nullptr;  // BEGIN_RESP implies END_REQ
    if (response_open_ && response_open_ != &gp)
      violation(&gp, "15.2.6 f",
                std::string("BEGIN_RESP while the response phase of another transaction is open (response "
                            "exclusion rule) in ") +
                    where);
    response_open_ = &gp;
    check_response(gp, "BEGIN_RESP");
    t.phase = tlm::BEGIN_RESP;
  } else if (base_phase(phase) || phase == tlm::UNINITIALIZED_PHASE) {
    violation(&gp, "15.2.3 c", phase_name(phase) + " sent from target to initiator in " + where);
  }
}

void tlm_protocol_monitor::initiator_end_resp(tlm::tlm_generic_payload &gp, txn &t, const char *where) {
  if (t.phase != tlm::BEGIN_RESP)
    violation(&gp, "15.2.4", "END_RESP out of sequence (after " + phase_name(t.phase) + ") in " + where);
  if (response_open_ == &gp) response_open_ = nullptr;
  t.phase = tlm::END_RESP;
}

void tlm_protocol_monitor::fw_call(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &phase, const sc_time &delay) {
  calls_++;
  if (!gp.has_mm()) violation(&gp, "14.5 i", "transaction without a memory manager passed to nb_transport_fw");
  else if (gp.get_ref_count() == 0)
    violation(&gp, "14.5 t", "transaction with a reference count of 0 passed to nb_transport_fw");
  if (phase == tlm::END_RESP) {
    auto it = txns_.find(&gp);
    if (it == txns_.end() || !it->second.nb) {
      violation(&gp, "15.2.4", "END_RESP for a transaction with no open phase sequence on this hop");
      return;
    }
    initiator_end_resp(gp, it->second, "nb_transport_fw");
    check_time(gp, it->second, delay, "nb_transport_fw END_RESP");
    return;
  }
  if (phase != tlm::BEGIN_REQ) {
    if (known_phase(phase)) violation(&gp, "15.2.3 c", phase_name(phase) + " sent on the forward path");
    return;  // other phases: ignorable phases of an extended protocol, not checked here
  }
  txn &t = txns_[&gp];
  if (t.nb)
    violation(&gp, "15.2.4",
              "BEGIN_REQ for a transaction whose phase sequence on this hop is still open (at " +
                  phase_name(t.phase) + ")");
  if (t.b_calls) violation(&gp, "15.2.10 c", "nb_transport_fw during a b_transport call of the same transaction");
  if (request_open_)
    violation(&gp, "15.2.6 e",
              "BEGIN_REQ while the request phase of another transaction is open (request exclusion rule)");
  begin(gp, t, "nb_transport_fw BEGIN_REQ");
  t.nb = true;
  t.phase = tlm::BEGIN_REQ;
  t.last = sc_core::sc_time_stamp() + delay;
  request_open_ = &gp;
}

void tlm_protocol_monitor::fw_return(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &sent,
                                     const tlm::tlm_phase &phase, const sc_time &delay, tlm::tlm_sync_enum status) {
  if (!base_phase(sent)) return;
  auto it = txns_.find(&gp);
  if (it == txns_.end() || !it->second.nb) return;
  txn &t = it->second;
  check_unchanged(gp, t, "the return from nb_transport_fw");
  switch (status) {
  case tlm::TLM_ACCEPTED:
    if (phase != sent)
      violation(&gp, "11.1.2.7", "nb_transport_fw returned TLM_ACCEPTED with the phase changed to " + phase_name(phase));
    break;
  case tlm::TLM_UPDATED:
    if (sent == tlm::BEGIN_REQ)
      target_phase(gp, t, phase, "the return from nb_transport_fw");
    else
      violation(&gp, "15.2.4", "nb_transport_fw returned TLM_UPDATED (" + phase_name(phase) + ") to " + phase_name(sent));
    check_time(gp, t, delay, "the return from nb_transport_fw");
    break;
  case tlm::TLM_COMPLETED:
    if (sent == tlm::BEGIN_REQ) check_response(gp, "TLM_COMPLETED returned to BEGIN_REQ");
    end(gp);
    break;
  }
}

void tlm_protocol_monitor::bw_call(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &phase, const sc_time &delay) {
  calls_++;
  if (!gp.has_mm()) violation(&gp, "14.5 i", "transaction without a memory manager passed to nb_transport_bw");
  else if (gp.get_ref_count() == 0)
    violation(&gp, "14.5 t", "transaction with a reference count of 0 passed to nb_transport_bw");
  if (!base_phase(phase) && phase != tlm::UNINITIALIZED_PHASE) return;  // ignorable phase
  auto it = txns_.find(&gp);
  if (it == txns_.end() || !it->second.nb) {
    violation(&gp, "15.2.4", phase_name(phase) + " on the backward path for a transaction with no open phase "
                                                 "sequence on this hop");
    return;
  }
  txn &t = it->second;
  if (phase == tlm::BEGIN_REQ || phase == tlm::END_RESP || phase == tlm::UNINITIALIZED_PHASE)
    violation(&gp, "15.2.3 c", phase_name(phase) + " sent on the backward path");
  else
    target_phase(gp, t, phase, "nb_transport_bw");
  check_time(gp, t, delay, "nb_transport_bw");
}

void tlm_protocol_monitor::bw_return(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &sent,
                                     const tlm::tlm_phase &phase, const sc_time &delay, tlm::tlm_sync_enum status) {
  if (!base_phase(sent)) return;
  auto it = txns_.find(&gp);
  if (it == txns_.end() || !it->second.nb) return;
  txn &t = it->second;
  check_unchanged(gp, t, "the return from nb_transport_bw");
  switch (status) {
  case tlm::TLM_ACCEPTED:
    if (phase != sent)
      violation(&gp, "11.1.2.7", "nb_transport_bw returned TLM_ACCEPTED with the phase changed to " + phase_name(phase));
    break;
  case tlm::TLM_UPDATED:
    if (sent == tlm::BEGIN_RESP && phase == tlm::END_RESP)
      initiator_end_resp(gp, t, "the return from nb_transport_bw");
    else
      violation(&gp, "15.2.4", "nb_transport_bw returned TLM_UPDATED (" + phase_name(phase) + ") to " + phase_name(sent));
    check_time(gp, t, delay, "the return from nb_transport_bw");
    break;
  case tlm::TLM_COMPLETED:
    end(gp);
    break;
  }
}

// ---- b_transport --------------------------------------------------------------------------------

void tlm_protocol_monitor::b_call(tlm::tlm_generic_payload &gp, const sc_time &) {
  calls_++;
  if (!b_from_methods_ && in_method_process())
    violation(&gp, "11.1.1.4 b", "b_transport called from a method process");
  if (gp.has_mm() && gp.get_ref_count() == 0)
    violation(&gp, "14.5 t", "transaction with a memory manager and a reference count of 0 passed to b_transport");
  txn &t = txns_[&gp];
  if (t.nb) violation(&gp, "15.2.10 c", "b_transport during an nb_transport phase sequence of the same transaction");
  if (!t.b_calls) begin(gp, t, "b_transport");
  t.b_calls++;
}

void tlm_protocol_monitor::b_return(tlm::tlm_generic_payload &gp, const sc_time &) {
  auto it = txns_.find(&gp);
  if (it == txns_.end()) return;
  txn &t = it->second;
  check_response(gp, "the return from b_transport");
  check_unchanged(gp, t, "the return from b_transport");
  if (t.b_calls) t.b_calls--;
  if (!t.b_calls && !t.nb) txns_.erase(it);
}

// ---- DMI and debug ------------------------------------------------------------------------------

void tlm_protocol_monitor::dmi_call(tlm::tlm_generic_payload &gp, const tlm::tlm_dmi &dmi) {
  calls_++;
  if (gp.get_command() != tlm::TLM_READ_COMMAND && gp.get_command() != tlm::TLM_WRITE_COMMAND)
    violation(&gp, "11.2.5", "DMI request whose command is neither read nor write");
  if (dmi.get_dmi_ptr()) violation(&gp, "11.2.5 f", "DMI descriptor not initialised: DMI pointer set");
  if (!dmi.is_none_allowed()) violation(&gp, "11.2.5 a", "DMI descriptor not initialised: access granted");
  if (dmi.get_start_address() != 0 || dmi.get_end_address() != ~static_cast<sc_dt::uint64>(0))
    violation(&gp, "11.2.5 u", "DMI descriptor not initialised: address range set");
  if (dmi.get_read_latency() != sc_core::SC_ZERO_TIME || dmi.get_write_latency() != sc_core::SC_ZERO_TIME)
    violation(&gp, "11.2.5 ac", "DMI descriptor not initialised: latencies set");
  dmi_address_ = gp.get_address();
  dmi_command_ = gp.get_command();
}

void tlm_protocol_monitor::dmi_return(tlm::tlm_generic_payload &gp, const tlm::tlm_dmi &dmi, bool granted) {
  if (!granted) return;
  if (!dmi.get_dmi_ptr()) violation(&gp, "11.2.5", "DMI granted with a null DMI pointer");
  if (dmi.get_start_address() > dmi.get_end_address())
    violation(&gp, "11.2.5", "DMI granted with a start address above its end address");
  else if (dmi_address_ < dmi.get_start_address() || dmi_address_ > dmi.get_end_address())
    violation(&gp, "11.2.5", "DMI granted for a range that does not contain the requested address");
  if (dmi.is_none_allowed()) violation(&gp, "11.2.5", "DMI granted with no access allowed");
  else if ((dmi_command_ == tlm::TLM_READ_COMMAND && !dmi.is_read_allowed()) ||
           (dmi_command_ == tlm::TLM_WRITE_COMMAND && !dmi.is_write_allowed()))
    violation(&gp, "11.2.5", "DMI granted without the access that was requested");
}

void tlm_protocol_monitor::dbg_call(tlm::tlm_generic_payload &gp) {
  calls_++;
  if (gp.get_data_length() > 0 && !gp.get_data_ptr() && gp.get_command() != tlm::TLM_IGNORE_COMMAND)
    violation(&gp, "11.3.4 l", "debug transaction with a null data pointer");
  dbg_time_ = sc_core::sc_time_stamp();
  dbg_length_ = gp.get_data_length();
}

void tlm_protocol_monitor::dbg_return(tlm::tlm_generic_payload &gp, unsigned int count) {
  if (count > dbg_length_)
    violation(&gp, "11.3.4", "transport_dbg returned " + std::to_string(count) + " bytes for a " +
                                 std::to_string(dbg_length_) + "-byte transaction");
  if (sc_core::sc_time_stamp() != dbg_time_)
    violation(&gp, "11.3.4", "simulated time advanced inside transport_dbg");
}

void tlm_protocol_monitor::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  calls_++;
  if (start > end) violation(nullptr, "11.2.5", "invalidate_direct_mem_ptr with a start above its end");
}

}  // namespace simtvp
