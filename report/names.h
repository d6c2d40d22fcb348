// names — words for GPU events in traces and reports: packet opcodes and registers (gpu_abi.h),
// command-processor work, copy directions.
#ifndef SIMTVP_REPORT_NAMES_H
#define SIMTVP_REPORT_NAMES_H

#include <cstdint>
#include <string>

namespace simtvp::report {

std::string packet_name(uint32_t opcode);      // "LAUNCH", "COPY" …, "opcode 0x2a"
std::string register_name(uint32_t offset);    // "DOORBELL", "CH3.PUT", "0x1234"
std::string cp_work_name(uint32_t what, uint32_t reg);  // "register write CH0.PUT", "copy done" …
// kind | src << 8 | dst << 16 (timeline span.a of a copy) -> "copy H2D", "copy D2D", "memset D" …
std::string copy_name(uint32_t packed);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_NAMES_H
