// at_kernels_variant — runs the whole-kernel tests of tests/simt/simt_kernels_test.cpp (the
// functional engine's expectations) through other SIMT core models without copying them: included
// first, it renames that file's suite and gives simttest::Gpu the model options below, so every
// GPU the tests build runs AT cores (or a CA/AT mix). Define AT_KERNEL_MODEL_ARGS (option list)
// and AT_KERNEL_SUITE (test-suite name) before including it.
#ifndef SIMTVP_AT_KERNELS_VARIANT_H
#define SIMTVP_AT_KERNELS_VARIANT_H

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#define Gpu GpuBase
#include "simt_test_util.h"
#undef Gpu

namespace simttest {
/* (In an unnamed namespace: each variant's Gpu is its own translation unit's. A Gpu of external
 * linkage was one class name with several definitions in a test binary — this header's in each
 * variant, simt_test_util.h's in the others — and the linker kept one constructor for all: which
 * one depended on the compiler, so a plain test could build a variant's cores.) */
namespace {

struct Gpu : GpuBase {
  Gpu(const char *file, const std::vector<const char *> &overrides, uint8_t ldst = SH_LDST_REAL,
      uint32_t mem_latency = 100, uint32_t fake_latency = 20, uint32_t stack_bytes = 0, bool trace = false,
      bool every_cycle = false, uint64_t max_cycles = 0)
      : GpuBase(file, with_model(overrides), ldst, mem_latency, fake_latency, stack_bytes, trace, every_cycle,
                max_cycles) {}
  static std::vector<const char *> with_model(std::vector<const char *> o) {
    for (const char *a : {AT_KERNEL_MODEL_ARGS}) o.push_back(a);
    return o;
  }
};

}  // namespace
}  // namespace simttest

#define SimtCaKernels AT_KERNEL_SUITE

#endif
