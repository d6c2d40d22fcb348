// clock_domain — exact cycle ↔ time conversion per clock domain (clock_domain.h).
#include "clock_domain.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace simtvp {

using u128 = unsigned __int128;

namespace {

uint64_t to_khz(double mhz) { return static_cast<uint64_t>(std::llround(mhz * 1000.0)); }

}  // namespace

clock_domain::clock_domain(std::string name, double mhz) : name_(std::move(name)), khz_(0) {
  if (!(mhz > 0.0) || !std::isfinite(mhz) || to_khz(mhz) == 0) {
    std::string msg = "clock domain '" + name_ + "': frequency must be positive, got " +
                      std::to_string(mhz) + " MHz";
    SC_REPORT_ERROR("simtvp/clock_domain", msg.c_str());
    khz_ = 1000000; // 1 GHz, if the error was demoted to a warning
    return;
  }
  khz_ = to_khz(mhz);
}

uint64_t clock_domain::units_per_second() const {
  if (!ups_) {
    double res = sc_core::sc_get_time_resolution().to_seconds();
    ups_ = static_cast<uint64_t>(std::llround(1.0 / res));
  }
  return ups_;
}

sc_core::sc_time clock_domain::period() const { return time_of(1); }

// Both conversions below are exact on 128 bits; while the products fit in 64 bits (runs shorter
// than about 2^64 resolution units / frequency: ~13 ms of simulated time at 1.4 GHz and 1 ps)
// the same quotient is computed on 64 bits, without the 128-bit division helper.
sc_core::sc_time clock_domain::time_of(uint64_t cycle) const {
  uint64_t prod;
  if (!__builtin_mul_overflow(cycle, units_per_second(), &prod))
    return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(prod / (khz_ * 1000u)));
  u128 units = static_cast<u128>(cycle) * units_per_second() / (static_cast<u128>(khz_) * 1000u);
  return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(units));
}

uint64_t clock_domain::cycle_at(const sc_core::sc_time &t) const {
  // largest n with floor(n × U / F) <= v  ⟺  n × U < (v + 1) × F
  const uint64_t f64 = khz_ * 1000u, v64 = t.value();
  uint64_t prod;
  if (v64 < UINT64_MAX && !__builtin_mul_overflow(v64 + 1, f64, &prod))
    return (prod - 1) / units_per_second();
  u128 f = static_cast<u128>(khz_) * 1000u;
  u128 v = static_cast<u128>(t.value());
  return static_cast<uint64_t>(((v + 1) * f - 1) / units_per_second());
}

uint64_t clock_domain::cycle_from(const sc_core::sc_time &t) const {
  uint64_t n = cycle_at(t);
  return time_of(n) == t ? n : n + 1;
}

uint64_t clock_domain::cycles_in(uint64_t n, const clock_domain &to) const {
  u128 num = static_cast<u128>(n) * to.khz_;
  return static_cast<uint64_t>((num + khz_ - 1) / khz_);
}

simtvp_status parse_clock_domains(const char *text, double mhz[4], simtvp_diag *diag) {
  static const char *const names[4] = {"core", "interconnect", "L2", "DRAM"};
  const char *p = text ? text : "";
  for (int i = 0; i < 4; i++) {
    char *end = nullptr;
    double v = std::strtod(p, &end);
    bool sep_ok = i == 3 ? (*end == 0) : (*end == ':');
    if (end == p || !sep_ok || !(v > 0.0) || !std::isfinite(v)) {
      simtvp_diag_set(diag, SIMTVP_ERR_CONFIG,
                      "-gpgpu_clock_domains: \"%s\": the %s clock (field %d) must be a positive "
                      "number of MHz, fields <core>:<icnt>:<l2>:<dram>",
                      text ? text : "", names[i], i + 1);
      simtvp_diag_at_option(diag, "-gpgpu_clock_domains");
      return SIMTVP_ERR_CONFIG;
    }
    mhz[i] = v;
    p = end + (i == 3 ? 0 : 1);
  }
  return SIMTVP_OK;
}

}  // namespace simtvp
