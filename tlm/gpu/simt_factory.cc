// simt_factory — which SIMT sides this build has, by the name gpu_params.simt_model gives
// ("func" when every core is functional, "timing" when any core is CA or AT). A timing side adds
// its row here; nothing else in the GPU top changes.
#include <cstring>

#include "simt_subsystem.h"
#include "simt_timing.h"

namespace simtvp {

namespace {
struct simt_factory_row {
  const char *model;
  simt_factory make;
};

const simt_factory_row kSimtSides[] = {
    {"func", make_simt_func},
    {"timing", make_simt_timing},  // CA/AT clusters + interconnect + partitions + DRAM
};
}  // namespace

simt_factory find_simt_factory(const char *model) {
  for (const simt_factory_row &row : kSimtSides)
    if (std::strcmp(row.model, model) == 0) return row.make;
  return nullptr;
}

}  // namespace simtvp
