// clock_domain — cycles of one clock ↔ SystemC time, exactly, for any frequency.
//
// GPGPU-Sim has four clock domains (-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram> in MHz; the DRAM
// figure is the command clock). A domain's cycle n has its rising edge at time
//     edge(n) = floor(n × U / f)
// in units of the SystemC time resolution (U units per second, f in Hz, integer arithmetic on
// 128 bits), so edges never drift however long a run is and two domains with a rational frequency
// ratio meet exactly where they should (1000 MHz and 750 MHz edges coincide every 4 ns).
//
// Crossing between domains: something sent at time t is seen by a block of domain D at
// cycle_after(t) — D's first edge strictly after t. Strictly after is what makes the simulation
// independent of the order in which processes run at one instant (docs/tlm.md "Timing rules").
#ifndef SIMTVP_TLM_CLOCK_DOMAIN_H
#define SIMTVP_TLM_CLOCK_DOMAIN_H

#include <cstdint>
#include <string>

#include <systemc>

extern "C" {
#include "simtvp_diag.h"
}

namespace simtvp {

class clock_domain {
 public:
  // mhz > 0 (kHz precision: 1417.5 is exact). Bad values are reported with SC_REPORT_ERROR; use
  // parse_clock_domains to get a diag instead.
  clock_domain(std::string name, double mhz);

  const std::string &name() const { return name_; }
  double mhz() const { return static_cast<double>(khz_) / 1000.0; }
  uint64_t khz() const { return khz_; }
  // The period rounded to the time resolution (for display; edges use exact arithmetic).
  sc_core::sc_time period() const;

  // Time of the rising edge of cycle n.
  sc_core::sc_time time_of(uint64_t cycle) const;
  // The last cycle whose edge is at or before t.
  uint64_t cycle_at(const sc_core::sc_time &t) const;
  // The first cycle whose edge is strictly after t (where something sent at t is seen).
  uint64_t cycle_after(const sc_core::sc_time &t) const { return cycle_at(t) + 1; }
  // The first cycle whose edge is at or after t.
  uint64_t cycle_from(const sc_core::sc_time &t) const;
  bool is_edge(const sc_core::sc_time &t) const { return time_of(cycle_at(t)) == t; }
  // n cycles of this domain expressed in cycles of `to`, rounded up (ceil(n × f_to / f_this)).
  uint64_t cycles_in(uint64_t n, const clock_domain &to) const;

 private:
  uint64_t units_per_second() const;
  std::string name_;
  uint64_t khz_;
  mutable uint64_t ups_ = 0; // resolution units per second, read at first use
};

// The four domains of a GPU.
struct gpu_clocks {
  clock_domain core, icnt, l2, dram;
};

// Parses "<core>:<icnt>:<l2>:<dram>" (MHz). SIMTVP_ERR_CONFIG with a diag naming
// -gpgpu_clock_domains when a field is missing, not a number or not positive.
simtvp_status parse_clock_domains(const char *text, double mhz[4], simtvp_diag *diag);

}  // namespace simtvp

#endif  // SIMTVP_TLM_CLOCK_DOMAIN_H
