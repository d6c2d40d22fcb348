// The TLM-2.0 base-protocol checker (tlm/common tlm_checker.h): compliant loosely- and
// approximately-timed traffic passes without a report; deliberately broken initiators and targets
// are caught, each violation naming its IEEE 1666-2011 clause; with the default handler a
// violation at the GPU's BAR0 stops the simulation, so a test fails. One simulation per process.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gpu_abi.h"
#include "gpu_config.h"
#include "gpu_testbench.h"
#include "gpu_top.h"
#include "tlm_checker.h"

int sc_main(int, char *[]) { return 0; }

// Under AddressSanitizer, LeakSanitizer's end-of-process scan crashes in its tracer ("Tracer caught
// signal 11") on this executable's memory map after the checker's simulations (2026-11-26, clang
// 14): leak checking is off here; the checker's and the GPU's allocations are leak-checked by the
// platform tests that run the same blocks.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
extern "C" const char *__lsan_default_options() { return "detect_leaks=0"; }
#endif
#endif

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;

// A payload memory manager that never frees (payloads live in the test).
struct keep_mm : tlm::tlm_mm_interface {
  void free(tlm::tlm_generic_payload *) override {}
};

// A target whose behaviour each test sets: by default a compliant 256-byte memory that answers
// b_transport, nb_transport_fw (END_REQ at once, BEGIN_RESP 10 ns later on the backward path),
// DMI and debug transport.
struct target : sc_core::sc_module {
  tlm_utils::simple_target_socket<target> socket{"socket"};
  unsigned char mem[256] = {};
  // Broken behaviours.
  bool leave_status_incomplete = false, scribble_on_writes = false, accepted_with_new_phase = false;
  bool dmi_wrong_range = false, dbg_too_many = false, nb_hold_end_req = false;
  std::vector<tlm::tlm_generic_payload *> pending;  // nb requests to answer

  SC_HAS_PROCESS(target);
  explicit target(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &target::b_transport);
    socket.register_nb_transport_fw(this, &target::nb_transport_fw);
    socket.register_get_direct_mem_ptr(this, &target::get_direct_mem_ptr);
    socket.register_transport_dbg(this, &target::transport_dbg);
  }
  void access(tlm::tlm_generic_payload &t) {
    unsigned n = t.get_data_length();
    uint64_t a = t.get_address();
    if (a + n > sizeof mem) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mem + a, n);
    if (t.is_write()) std::memcpy(mem + a, t.get_data_ptr(), n);
    if (t.is_write() && scribble_on_writes) t.get_data_ptr()[0] ^= 0xFF;
    if (!leave_status_incomplete) t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void b_transport(tlm::tlm_generic_payload &t, sc_time &delay) {
    access(t);
    delay += sc_time(5, SC_NS);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &t, tlm::tlm_phase &phase, sc_time &) {
    if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    access(t);
    pending.push_back(&t);
    if (accepted_with_new_phase) {
      phase = tlm::END_REQ;  // wrong: TLM_ACCEPTED must leave the phase alone
      return tlm::TLM_ACCEPTED;
    }
    if (nb_hold_end_req) return tlm::TLM_ACCEPTED;  // END_REQ later (respond())
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  // Sends BEGIN_RESP for the oldest pending request on the backward path.
  tlm::tlm_sync_enum respond(tlm::tlm_generic_payload &t, tlm::tlm_phase ph = tlm::BEGIN_RESP) {
    sc_time d = SC_ZERO_TIME;
    return socket->nb_transport_bw(t, ph, d);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &t, tlm::tlm_dmi &d) {
    d.set_dmi_ptr(mem);
    d.set_start_address(dmi_wrong_range ? 128 : 0);
    d.set_end_address(dmi_wrong_range ? 255 : sizeof mem - 1);
    d.allow_read_write();
    (void)t;
    return true;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload &t) {
    unsigned n = std::min<unsigned>(t.get_data_length(), sizeof mem);
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mem, n);
    return dbg_too_many ? t.get_data_length() + 4 : n;
  }
};

// An initiator whose thread runs the test's body; its socket goes through the checker to target.
struct bench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<bench> socket{"socket"};
  simtvp::tlm_protocol_checker<> checker{"checker"};
  target tgt{"tgt"};
  std::function<void(bench &)> body;
  std::function<void(bench &)> method_body;  // runs once in a method process at 1 ns
  std::vector<std::string> rules;             // clauses of the violations seen
  keep_mm mm;
  sc_core::sc_event got_resp;
  tlm::tlm_sync_enum bw_answer = tlm::TLM_COMPLETED;

  SC_HAS_PROCESS(bench);
  explicit bench(sc_core::sc_module_name n) : sc_module(n) {
    socket.bind(checker.target_socket);
    checker.initiator_socket.bind(tgt.socket);
    socket.register_nb_transport_bw(this, &bench::nb_transport_bw);
    checker.monitor().set_handler([this](const simtvp::tlm_violation &v) { rules.push_back(v.rule); });
    SC_THREAD(run);
    SC_METHOD(in_method);
    dont_initialize();
    sensitive << method_go;
  }
  sc_core::sc_event method_go;
  void run() {
    method_go.notify(1, SC_NS);
    wait(2, SC_NS);
    if (body) body(*this);
  }
  void in_method() {
    if (method_body) method_body(*this);
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload &, tlm::tlm_phase &phase, sc_time &) {
    if (phase == tlm::BEGIN_RESP) {
      got_resp.notify(SC_ZERO_TIME);
      return bw_answer;
    }
    return tlm::TLM_ACCEPTED;
  }
  // A fresh, correctly initialised payload.
  static void init(tlm::tlm_generic_payload &t, tlm::tlm_command cmd, uint64_t addr, unsigned char *data, unsigned n) {
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(n);
    t.set_streaming_width(n);
    t.set_byte_enable_ptr(nullptr);
    t.set_byte_enable_length(0);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
  bool saw(const std::string &rule) const {
    for (const std::string &r : rules)
      if (r == rule) return true;
    return false;
  }
};

bench *make_bench() { return new bench("bench"); }

TEST(TlmChecker, CompliantLtAndAtTrafficHasNoViolation) {
  bench *b = make_bench();
  b->body = [](bench &b) {
    unsigned char data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    tlm::tlm_generic_payload t;
    sc_time d = sc_time(3, SC_NS);
    bench::init(t, tlm::TLM_WRITE_COMMAND, 16, data, 8);
    b.socket->b_transport(t, d);
    bench::init(t, tlm::TLM_READ_COMMAND, 16, data, 8);
    b.socket->b_transport(t, d);
    // AT: END_REQ returned at once, BEGIN_RESP later on the backward path, completed there.
    tlm::tlm_generic_payload a, c;
    a.set_mm(&b.mm);
    c.set_mm(&b.mm);
    a.acquire();
    c.acquire();
    bench::init(a, tlm::TLM_READ_COMMAND, 0, data, 4);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    d = SC_ZERO_TIME;
    EXPECT_EQ(b.socket->nb_transport_fw(a, ph, d), tlm::TLM_UPDATED);
    EXPECT_EQ(ph, tlm::END_REQ);
    b.tgt.pending.clear();
    // A second request may begin now that the first one's request phase is over.
    bench::init(c, tlm::TLM_WRITE_COMMAND, 32, data, 4);
    ph = tlm::BEGIN_REQ;
    EXPECT_EQ(b.socket->nb_transport_fw(c, ph, d), tlm::TLM_UPDATED);
    wait(10, SC_NS);
    EXPECT_EQ(b.tgt.respond(a), tlm::TLM_COMPLETED);
    // The second response, ended with END_RESP on the forward path.
    b.bw_answer = tlm::TLM_ACCEPTED;
    EXPECT_EQ(b.tgt.respond(c), tlm::TLM_ACCEPTED);
    ph = tlm::END_RESP;
    d = SC_ZERO_TIME;
    EXPECT_EQ(b.socket->nb_transport_fw(c, ph, d), tlm::TLM_COMPLETED);
    // DMI and debug.
    tlm::tlm_generic_payload q;
    q.set_command(tlm::TLM_READ_COMMAND);
    q.set_address(64);
    tlm::tlm_dmi dmi;
    EXPECT_TRUE(b.socket->get_direct_mem_ptr(q, dmi));
    tlm::tlm_generic_payload g;
    bench::init(g, tlm::TLM_READ_COMMAND, 0, data, 8);
    EXPECT_EQ(b.socket->transport_dbg(g), 8u);
  };
  sc_core::sc_start();
  EXPECT_TRUE(b->rules.empty()) << b->rules.size() << " violations, first: " << (b->rules.empty() ? "" : b->rules[0]);
  EXPECT_EQ(b->checker.monitor().transactions(), 4u);
  EXPECT_EQ(b->checker.monitor().open_transactions(), 0u);
}

// A deliberately broken initiator: each of its mistakes is reported under its clause.
TEST(TlmChecker, BrokenInitiatorIsCaught) {
  bench *b = make_bench();
  b->method_body = [](bench &b) {
    unsigned char data[4] = {};
    tlm::tlm_generic_payload t;
    bench::init(t, tlm::TLM_READ_COMMAND, 0, data, 4);
    sc_time d = SC_ZERO_TIME;
    b.socket->b_transport(t, d);  // from a method process
  };
  b->body = [](bench &b) {
    unsigned char data[8] = {};
    tlm::tlm_generic_payload t;
    sc_time d = SC_ZERO_TIME;
    bench::init(t, tlm::TLM_READ_COMMAND, 0, data, 4);
    t.set_response_status(tlm::TLM_OK_RESPONSE);  // not TLM_INCOMPLETE_RESPONSE
    b.socket->b_transport(t, d);
    bench::init(t, tlm::TLM_WRITE_COMMAND, 0, data, 4);
    unsigned char be[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    t.set_byte_enable_ptr(be);  // with a byte enable length of 0
    b.socket->b_transport(t, d);
    bench::init(t, tlm::TLM_READ_COMMAND, 0, data, 0);  // no data
    t.set_streaming_width(4);
    b.socket->b_transport(t, d);
    bench::init(t, tlm::TLM_READ_COMMAND, 0, data, 4);
    t.set_dmi_allowed(true);
    b.socket->b_transport(t, d);

    // nb_transport without a memory manager.
    tlm::tlm_generic_payload nomm;
    bench::init(nomm, tlm::TLM_READ_COMMAND, 0, data, 4);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    b.socket->nb_transport_fw(nomm, ph, d);
    b.tgt.pending.clear();
    ph = tlm::END_RESP;  // END_RESP without a BEGIN_RESP
    b.socket->nb_transport_fw(nomm, ph, d);

    // Two BEGIN_REQs while the first request phase is open (the target withholds END_REQ).
    b.tgt.nb_hold_end_req = true;
    tlm::tlm_generic_payload x, y;
    x.set_mm(&b.mm);
    y.set_mm(&b.mm);
    x.acquire();
    y.acquire();
    bench::init(x, tlm::TLM_READ_COMMAND, 0, data, 4);
    bench::init(y, tlm::TLM_READ_COMMAND, 8, data + 4, 4);
    ph = tlm::BEGIN_REQ;
    d = sc_time(100, SC_NS);
    b.socket->nb_transport_fw(x, ph, d);
    ph = tlm::BEGIN_REQ;
    b.socket->nb_transport_fw(y, ph, d);
    // The initiator sends a target's phase on the forward path (the target ends y there).
    ph = tlm::END_REQ;
    b.socket->nb_transport_fw(y, ph, d);
    // The target answers x with an annotation earlier than x's BEGIN_REQ (2 ns + 0 < 2 ns +
    // 100 ns); the initiator completes it and then sends END_RESP for the ended transaction.
    b.tgt.respond(x);
    ph = tlm::END_RESP;
    d = SC_ZERO_TIME;
    b.socket->nb_transport_fw(x, ph, d);

    // A DMI descriptor handed over already filled in.
    tlm::tlm_generic_payload q;
    q.set_command(tlm::TLM_READ_COMMAND);
    q.set_address(0);
    tlm::tlm_dmi dmi;
    dmi.set_dmi_ptr(data);
    b.socket->get_direct_mem_ptr(q, dmi);
  };
  sc_core::sc_start();
  const std::set<std::string> want = {"11.1.1.4 b", "14.17 e", "14.14 f", "14.12 d", "14.16", "14.5 i",
                                      "15.2.4",     "15.2.6 e", "15.2.3 c", "15.2.7 c", "11.2.5 f"};
  for (const std::string &rule : want) EXPECT_TRUE(b->saw(rule)) << "no violation of " << rule;
  for (const std::string &rule : b->rules) EXPECT_TRUE(want.count(rule)) << "unexpected violation of " << rule;
  for (const simtvp::tlm_violation &v : b->checker.monitor().violations())
    EXPECT_NE(v.text.find("bench.checker: "), std::string::npos) << v.text;
}

// A deliberately broken target: status left incomplete, write data scribbled on, TLM_ACCEPTED with
// a changed phase, a second BEGIN_RESP while the first response is open, a DMI range without the
// requested address, a debug transfer longer than asked.
TEST(TlmChecker, BrokenTargetIsCaught) {
  bench *b = make_bench();
  b->body = [](bench &b) {
    unsigned char data[8] = {};
    tlm::tlm_generic_payload t;
    sc_time d = SC_ZERO_TIME;
    b.tgt.leave_status_incomplete = true;
    bench::init(t, tlm::TLM_READ_COMMAND, 0, data, 4);
    b.socket->b_transport(t, d);
    b.tgt.leave_status_incomplete = false;
    b.tgt.scribble_on_writes = true;
    bench::init(t, tlm::TLM_WRITE_COMMAND, 0, data, 4);
    b.socket->b_transport(t, d);
    b.tgt.scribble_on_writes = false;

    tlm::tlm_generic_payload x, y;
    x.set_mm(&b.mm);
    y.set_mm(&b.mm);
    x.acquire();
    y.acquire();
    d = SC_ZERO_TIME;
    b.tgt.accepted_with_new_phase = true;
    bench::init(x, tlm::TLM_READ_COMMAND, 0, data, 4);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    b.socket->nb_transport_fw(x, ph, d);
    b.tgt.accepted_with_new_phase = false;
    b.bw_answer = tlm::TLM_ACCEPTED;  // the initiator keeps x's response open
    b.tgt.respond(x);
    bench::init(y, tlm::TLM_READ_COMMAND, 8, data + 4, 4);
    ph = tlm::BEGIN_REQ;
    b.socket->nb_transport_fw(y, ph, d);  // END_REQ at once
    b.tgt.respond(y);                     // a second BEGIN_RESP before x's END_RESP

    b.tgt.dmi_wrong_range = true;
    tlm::tlm_generic_payload q;
    q.set_command(tlm::TLM_READ_COMMAND);
    q.set_address(16);
    tlm::tlm_dmi dmi;
    b.socket->get_direct_mem_ptr(q, dmi);
    b.tgt.dbg_too_many = true;
    tlm::tlm_generic_payload g;
    bench::init(g, tlm::TLM_READ_COMMAND, 0, data, 8);
    b.socket->transport_dbg(g);
  };
  sc_core::sc_start();
  const std::set<std::string> want = {"14.17 f", "14.7", "11.1.2.7", "15.2.6 f", "11.2.5", "11.3.4"};
  for (const std::string &rule : want) EXPECT_TRUE(b->saw(rule)) << "no violation of " << rule;
  for (const std::string &rule : b->rules) EXPECT_TRUE(want.count(rule)) << "unexpected violation of " << rule;
}

// With the default handler, a broken initiator on the GPU's BAR0 (the testbench's checker on that
// socket) stops the simulation with an SC_ERROR naming the socket, the access and the clause: a
// test cannot pass over it.
TEST(TlmChecker, ViolationAtTheGpusBar0StopsTheSimulation) {
  static gpu_config *cfg = new gpu_config();  // outlives the GPU, which the stopped simulation keeps
  simtvp_diag diag;
  ASSERT_EQ(test_support::load_default_config(cfg, {"-simt_model", "func", "-device_memory_mb", "64"}, &diag),
            SIMTVP_OK)
      << diag.message;
  simtvp::gpu_top *gpu = simtvp::gpu_top::create("gpu", *cfg, simtvp::gpu_top_options{}, &diag);
  ASSERT_NE(gpu, nullptr) << diag.message;
  auto *tb = new test_support::gpu_testbench("tb", 1u << 20, SC_ZERO_TIME);
  tb->body = [](test_support::gpu_testbench &t) {
    EXPECT_EQ(t.read(GPU_REG_ID), GPU_ID_VALUE);
    uint32_t v = 0;
    tlm::tlm_generic_payload p;
    bench::init(p, tlm::TLM_READ_COMMAND, GPU_REG_SCRATCH, reinterpret_cast<unsigned char *>(&v), 4);
    p.set_streaming_width(0);  // broken
    sc_time d = SC_ZERO_TIME;
    t.mmio->b_transport(p, d);
    ADD_FAILURE() << "the simulation went on after a protocol violation";
  };
  tb->attach(gpu);
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "no error";
  } catch (const sc_core::sc_report &r) {
    EXPECT_STREQ(r.get_msg_type(), "simtvp/tlm_checker");
    EXPECT_NE(std::string(r.get_msg()).find("tb.bar0_check: streaming width is 0"), std::string::npos) << r.get_msg();
    EXPECT_NE(std::string(r.get_msg()).find("[IEEE 1666-2011 14.15 f]"), std::string::npos) << r.get_msg();
  }
}

}  // namespace
