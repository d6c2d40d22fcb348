// hwcorr_micro_ptx — writes bench/micro's PTX module (micro::micro_module()) for the hardware
// correlation suite, or checks that the committed copy is current.
//
//   hwcorr_micro_ptx                 print the module on stdout
//   hwcorr_micro_ptx --check FILE    exit 0 if FILE holds exactly the module, 1 (with the command
//                                    that regenerates it) if not
//
// The hardware suite (run_hw.sh) builds with nvcc alone on the GPU machine, without simtvp, so it
// loads the committed bench/hwcorr/micro/micro.ptx; the CTest HwCorr.micro_ptx_is_current keeps
// that file equal to what bench/micro generates.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "micro_kernels.h"

int main(int argc, char **argv) {
  const std::string &ptx = micro::micro_module();
  if (argc == 1) {
    std::fwrite(ptx.data(), 1, ptx.size(), stdout);
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--check") == 0) {
    std::ifstream f(argv[2], std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "hwcorr_micro_ptx: cannot read %s\n", argv[2]);
      return 1;
    }
    std::stringstream s;
    s << f.rdbuf();
    if (s.str() == ptx) return 0;
    std::fprintf(stderr,
                 "hwcorr_micro_ptx: %s differs from bench/micro's module (micro_kernels.cc changed); regenerate it "
                 "with: build/bin/hwcorr_micro_ptx > bench/hwcorr/micro/micro.ptx\n",
                 argv[2]);
    return 1;
  }
  std::fprintf(stderr, "usage: hwcorr_micro_ptx [--check FILE]\n");
  return 2;
}
