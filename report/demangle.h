// demangle — kernel names as people read them: the PTX .entry names of CUDA C++ kernels are
// Itanium-mangled (`_Z11sgemm_tilediiifPKfS0_fPf`); this turns them back into
// `sgemm_tiled(int, int, int, float, float const*, float const*, float, float*)` with the C++
// runtime's demangler (abi::__cxa_demangle) and shortens them for tables.
#ifndef SIMTVP_REPORT_DEMANGLE_H
#define SIMTVP_REPORT_DEMANGLE_H

#include <cstddef>
#include <string>

namespace simtvp::report {

// The demangled name, or the name itself when it is not a mangled C++ name (extern "C" kernels,
// hand-written PTX).
std::string demangle(const std::string &name);

// A readable short form of a demangled name, at most max_chars characters (UTF-8 "…" counts as
// one): template arguments beyond the first level become "<…>", a parameter list that does not fit
// becomes "(…)", and what still does not fit is cut with "…". With drop_params the parameter list
// goes entirely ("sgemm_tiled"). Namespaces stay.
std::string short_name(const std::string &demangled, std::size_t max_chars, bool drop_params = false);

// Number of characters of UTF-8 text (continuation bytes are not counted).
std::size_t display_width(const std::string &text);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_DEMANGLE_H
