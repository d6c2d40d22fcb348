// names — see names.h.
#include "names.h"

#include <cstdio>

#include "gpu_abi.h"
#include "gpu_hw.h"

namespace simtvp::report {

std::string packet_name(uint32_t opcode) {
  switch (opcode) {
#define NAME_CASE(name, op, dw, desc) \
  case op: return #name;
    GPU_ABI_PACKETS(NAME_CASE)
#undef NAME_CASE
  default: break;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "opcode 0x%x", opcode);
  return buf;
}

std::string register_name(uint32_t offset) {
  char buf[48];
  if (offset >= GPU_CH_BASE) {
    uint32_t ch = (offset - GPU_CH_BASE) / GPU_CH_STRIDE, reg = (offset - GPU_CH_BASE) % GPU_CH_STRIDE;
    const char *n = nullptr;
    switch (reg) {
#define CH_CASE(name, off, acc, rst, mask, desc) \
  case off: n = #name; break;
      GPU_ABI_CH_REGS(CH_CASE)
#undef CH_CASE
    default: break;
    }
    if (n) {
      std::snprintf(buf, sizeof buf, "CH%u.%s", ch, n + 3);  // "CH_PUT" -> "PUT"
      return buf;
    }
  } else {
    switch (offset) {
#define REG_CASE(name, off, acc, rst, src, mask, desc) \
  case off: return #name;
      GPU_ABI_REGS(REG_CASE)
#undef REG_CASE
    default: break;
    }
  }
  std::snprintf(buf, sizeof buf, "0x%x", offset);
  return buf;
}

std::string cp_work_name(uint32_t what, uint32_t reg) {
  switch (what) {
  case GPU_TRACE_CP_REG_WRITE: return "register write " + register_name(reg);
  case GPU_TRACE_CP_COPY_DONE: return "copy done";
  case GPU_TRACE_CP_LAUNCH_DONE: return "kernel done";
  default: return "timer";
  }
}

std::string copy_name(uint32_t packed) {
  uint32_t kind = packed & 0xFF, src = (packed >> 8) & 0xFF, dst = (packed >> 16) & 0xFF;
  auto side = [](uint32_t a) { return a == GPU_APERTURE_SYSMEM ? "H" : "D"; };
  if (kind == GPU_COPY_MEMSET) return std::string("memset ") + side(dst);
  return std::string("copy ") + side(src) + "2" + side(dst);
}

}  // namespace simtvp::report
