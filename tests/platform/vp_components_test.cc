// platform/vp components alone: system memory (TLM target and DMA allocator) and the system bus
// (routing, address errors, DMI address translation, debug transport).
#include <gtest/gtest.h>

#include <cstring>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sys_bus.h"
#include "sys_mem.h"

int sc_main(int, char *[]) { return 0; }

namespace {

// Pinned memory's host pointers are GPU addresses: the first system memory sits at one fixed host
// address (statistics do not move with address-space randomisation); a second one still works,
// elsewhere.
TEST(SysMem, HostViewSitsAtItsFixedAddressWhenFree) {
  simtvp::sys_mem first("first", 1 << 20), second("second", 1 << 20);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(reinterpret_cast<uint64_t>(first.data()), simtvp::sys_mem::kPreferredHostAddress);
  EXPECT_NE(second.data(), first.data());
  first.data()[0] = 1;
  second.data()[0] = 2;
  EXPECT_EQ(first.data()[0], 1);
}

TEST(SysMem, AllocatorAlignsFreesAndMergesNeighbours) {
  simtvp::sys_mem mem("mem", 1 << 20);
  ASSERT_TRUE(mem.ok());
  uint64_t a, b, c, d;
  ASSERT_TRUE(mem.alloc(100, 4096, &a));
  EXPECT_EQ(a % 4096, 0u);
  ASSERT_TRUE(mem.alloc(100, 1, &b));
  EXPECT_EQ(b % 64, 0u);  // at least the 64-byte granule
  EXPECT_GE(b, a + 100);
  ASSERT_TRUE(mem.alloc(1000, 256, &c));
  EXPECT_EQ(c % 256, 0u);
  EXPECT_FALSE(mem.alloc(1, 3, &d));         // alignment not a power of two
  EXPECT_FALSE(mem.alloc(2 << 20, 64, &d));  // larger than the memory
  EXPECT_TRUE(mem.free(b));
  EXPECT_FALSE(mem.free(b));                 // twice
  EXPECT_FALSE(mem.free(12345));             // never allocated
  EXPECT_TRUE(mem.free(a));
  EXPECT_TRUE(mem.free(c));
  EXPECT_EQ(mem.allocated_bytes(), 0u);
  // Everything merged back: the whole memory is one range again.
  ASSERT_TRUE(mem.alloc(1 << 20, 4096, &d));
  EXPECT_EQ(d, 0u);
  EXPECT_FALSE(mem.alloc(64, 64, &a));
}

struct initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<initiator> socket{"socket"};
  explicit initiator(sc_core::sc_module_name n) : sc_module(n) {}
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(static_cast<unsigned char *>(data));
    t.set_data_length(len);
    t.set_streaming_width(len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    EXPECT_EQ(t.get_address(), addr);  // the bus gives the address back as it was
    return t.get_response_status();
  }
};

TEST(SysBus, RoutesByAddressTranslatesDmiAndReportsUnmappedAddresses) {
  initiator cpu("cpu");
  simtvp::sys_bus bus("bus");
  simtvp::sys_mem low("low", 64 << 10), high("high", 64 << 10);
  ASSERT_TRUE(bus.map(0x10000, 64 << 10, 0, "low"));
  ASSERT_TRUE(bus.map(0x80000, 64 << 10, 1, "high"));
  EXPECT_FALSE(bus.map(0x1F000, 0x2000, 2, "overlap"));
  cpu.socket.bind(bus.targ);
  bus.init.bind(low.socket);
  bus.init.bind(high.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  uint32_t v = 0x1234, r = 0;
  EXPECT_EQ(cpu.access(tlm::TLM_WRITE_COMMAND, 0x80010, &v, 4), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(cpu.access(tlm::TLM_READ_COMMAND, 0x80010, &r, 4), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r, 0x1234u);
  EXPECT_EQ(cpu.access(tlm::TLM_READ_COMMAND, 0x10010, &r, 4), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r, 0u);  // the other memory, zero-filled
  EXPECT_EQ(cpu.access(tlm::TLM_READ_COMMAND, 0x40000, &r, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(cpu.access(tlm::TLM_READ_COMMAND, 0x1FFFE, &r, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // crosses the end

  // DMI: bus addresses, the target's pointer.
  tlm::tlm_generic_payload t;
  t.set_address(0x80010);
  t.set_command(tlm::TLM_READ_COMMAND);
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(cpu.socket->get_direct_mem_ptr(t, dmi));
  EXPECT_EQ(dmi.get_start_address(), 0x80000u);
  EXPECT_EQ(dmi.get_end_address(), 0x80000u + (64 << 10) - 1);
  uint32_t via_dmi;
  std::memcpy(&via_dmi, dmi.get_dmi_ptr() + 0x10, 4);
  EXPECT_EQ(via_dmi, 0x1234u);

  // Debug transport.
  unsigned char buf[4] = {0, 0, 0, 0};
  t.set_address(0x80010);
  t.set_data_ptr(buf);
  t.set_data_length(4);
  EXPECT_EQ(cpu.socket->transport_dbg(t), 4u);
  EXPECT_EQ(buf[0], 0x34);
  t.set_address(0x40000);
  EXPECT_EQ(cpu.socket->transport_dbg(t), 0u);
}

}  // namespace
