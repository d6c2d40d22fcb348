// timing_harness — see timing_harness.h.
#include "timing_harness.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "driver.h"
#include "drv_kernel.h"
#include "host_platform.h"
#include "simtvp_host.h"
#include "stats.h"
#include "test_files.h"

namespace gt {

namespace {

// ---- a byte stream through the pipe -----------------------------------------------------------

struct writer {
  std::string s;
  void u64(uint64_t v) { s.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void bytes(const void *p, size_t n) {
    u64(n);
    s.append(static_cast<const char *>(p), n);
  }
  void str(const std::string &t) { bytes(t.data(), t.size()); }
};

struct reader {
  const std::string &s;
  size_t at = 0;
  bool ok = true;
  uint64_t u64() {
    uint64_t v = 0;
    if (at + sizeof v > s.size()) {
      ok = false;
      return 0;
    }
    std::memcpy(&v, s.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (!ok || at + n > s.size()) {
      ok = false;
      return {};
    }
    std::string t = s.substr(at, n);
    at += n;
    return t;
  }
};

uint64_t xorshift(uint64_t &x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

}  // namespace

std::vector<uint8_t> initial(const buffer &b, int index) {
  if (!b.init.empty()) {
    std::vector<uint8_t> v = b.init;
    v.resize(b.bytes, 0);
    return v;
  }
  std::vector<uint8_t> v(b.bytes, 0);
  uint64_t x = 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(index) + 1);
  switch (b.how) {
  case fill::zero: case fill::tex_desc: break;
  case fill::bytes:
    for (auto &c : v) c = static_cast<uint8_t>(xorshift(x));
    break;
  case fill::int_mod:
    for (size_t i = 0; i + 4 <= v.size(); i += 4) {
      int32_t w = static_cast<int32_t>(b.lo + static_cast<int64_t>(xorshift(x) % static_cast<uint64_t>(b.k)));
      std::memcpy(&v[i], &w, 4);
    }
    break;
  case fill::float_dyadic:
    for (size_t i = 0; i + 4 <= v.size(); i += 4) {
      float f = (static_cast<float>(xorshift(x) % 64) - 32.0f) / 8.0f;
      std::memcpy(&v[i], &f, 4);
    }
    break;
  case fill::double_dyadic:
    for (size_t i = 0; i + 8 <= v.size(); i += 8) {
      double f = (static_cast<double>(xorshift(x) % 64) - 32.0) / 8.0;
      std::memcpy(&v[i], &f, 8);
    }
    break;
  case fill::half_small: {
    static const uint16_t halves[8] = {0x0000, 0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700};
    for (size_t i = 0; i + 2 <= v.size(); i += 2) {
      uint16_t h = halves[xorshift(x) % 8];
      std::memcpy(&v[i], &h, 2);
    }
    break;
  }
  case fill::u32_pattern:
    for (size_t i = 0; i + 4 <= v.size(); i += 4) {
      uint32_t w = static_cast<uint32_t>(i / 4) * 2654435761u;
      std::memcpy(&v[i], &w, 4);
    }
    break;
  }
  return v;
}

namespace {

// Runs fn in a child process with its stdout and stderr captured (result.printed, .messages);
// what fn writes comes back in *payload.
result fork_run(const std::function<void(writer &)> &fn, std::string *payload) {
  test_support::child_result c = test_support::run_in_child(
      [&] {
        writer w;
        fn(w);
        return w.s;
      },
      true);
  result r;
  r.error = c.error;
  r.printed = c.out;
  r.messages = c.err;
  *payload = c.payload;
  return r;
}

simtvp_host *open_platform(const options &o, simtvp_diag *diag) {
  test_support::clear_platform_environment();
  test_support::platform_options po;
  po.overrides = o.overrides;
  po.config = o.config;
  po.out_dir = o.out_dir;
  po.quiet = o.quiet;
  return test_support::open_platform(po, diag);
}

// Statistics the parent asked for: [totals][per kernel][ratios].
void write_stats(simtvp_host *h, const options &o, writer &w) {
  stats *st = h ? simtvp_host_stats(h) : nullptr;
  int found = 0;
  w.u64(st ? o.stats.size() : 0);
  if (st)
    for (const std::string &n : o.stats) w.u64(stats_get(st, n.c_str(), &found));
  uint32_t kernels = st ? stats_kernel_count(st) : 0;
  w.u64(kernels);
  for (uint32_t k = 0; k < kernels; k++) {
    w.u64(o.kernel_stats.size());
    for (const std::string &n : o.kernel_stats) w.u64(stats_kernel_get(st, k, n.c_str(), &found));
  }
  w.u64(st ? o.ratios.size() : 0);
  if (st)
    for (const std::string &n : o.ratios) {
      double v = stats_get_ratio(st, n.c_str(), &found);
      uint64_t b;
      std::memcpy(&b, &v, 8);
      w.u64(b);
    }
}

void read_stats(reader &rd, result &r) {
  uint64_t n = rd.u64();
  for (uint64_t i = 0; i < n && rd.ok; i++) r.stats.push_back(rd.u64());
  uint64_t kernels = rd.u64();
  for (uint64_t k = 0; k < kernels && rd.ok; k++) {
    std::vector<uint64_t> v(rd.u64());
    for (auto &x : v) x = rd.u64();
    r.kernel_stats.push_back(v);
  }
  n = rd.u64();
  for (uint64_t i = 0; i < n && rd.ok; i++) {
    uint64_t b = rd.u64();
    double v;
    std::memcpy(&v, &b, 8);
    r.ratios.push_back(v);
  }
}

// The child's side of run(): [launch status][error][fault][buffers][globals][stats].
void child_scenario(const scenario &s, const options &o, writer &w) {
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  simtvp_host *h = open_platform(o, &diag);
  std::string error;
  int launch_status = 0;
  std::vector<std::vector<uint8_t>> bufs(s.buffers.size());
  std::vector<std::vector<uint8_t>> globals(s.globals.size());
  drv *d = nullptr;
  if (!h) {
    error = std::string("open: ") + diag.message;
  } else if (simtvp_host_driver(h, &d, &diag) != SIMTVP_OK) {
    error = std::string("driver: ") + diag.message;
  } else {
    std::string path = s.ptx[0] == '/' ? s.ptx : test_support::source_path("tests/kernels/ptx/" + s.ptx);
    std::string text = test_support::read_file(path);
    simtvp_status st = test_support::host_call(h, [&] {
      simtvp_diag dd;
      simtvp_diag_clear(&dd);
      drv_module *mod = nullptr;
      if (drv_module_load_ptx(d, text.data(), text.size(), path.c_str(), &mod, &dd) != SIMTVP_OK) {
        error = std::string("load: ") + dd.message;
        return;
      }
      std::vector<uint64_t> addr(s.buffers.size(), 0);
      for (size_t i = 0; i < s.buffers.size(); i++)
        if (drv_mem_alloc(d, s.buffers[i].bytes, &addr[i], &dd) != SIMTVP_OK) {
          error = std::string("alloc: ") + dd.message;
          return;
        }
      for (size_t i = 0; i < s.buffers.size(); i++) {
        std::vector<uint8_t> v = initial(s.buffers[i], static_cast<int>(i));
        if (s.buffers[i].how == fill::tex_desc) {
          func_tex_desc t = s.buffers[i].tex;
          t.magic = FUNC_TEX_MAGIC;
          t.data = addr.at(static_cast<size_t>(s.buffers[i].data_buf));
          v.assign(reinterpret_cast<const uint8_t *>(&t), reinterpret_cast<const uint8_t *>(&t) + sizeof t);
          v.resize(s.buffers[i].bytes, 0);
        }
        if (drv_memcpy(d, nullptr, drv_device_ptr(addr[i]), drv_host_ptr(v.data()), v.size(), &dd) != SIMTVP_OK) {
          error = std::string("copy in: ") + dd.message;
          return;
        }
      }
      for (const global_var &g : s.globals) {
        uint64_t ga = 0, gb = 0;
        if (drv_module_global(mod, g.name.c_str(), &ga, &gb, &dd) != SIMTVP_OK) {
          error = std::string("global: ") + dd.message;
          return;
        }
        if (!g.init.empty() &&
            drv_memcpy(d, nullptr, drv_device_ptr(ga), drv_host_ptr(g.init.data()),
                       std::min<uint64_t>(gb, g.init.size()), &dd) != SIMTVP_OK) {
          error = std::string("global copy: ") + dd.message;
          return;
        }
      }
      for (const launch &l : s.launches) {
        drv_function *f = drv_module_function(mod, l.kernel.c_str());
        if (!f) {
          error = "no kernel " + l.kernel;
          return;
        }
        std::vector<uint64_t> values(l.args.size());
        std::vector<void *> ptrs(l.args.size());
        for (size_t i = 0; i < l.args.size(); i++) {
          values[i] = l.args[i].buf >= 0 ? addr.at(static_cast<size_t>(l.args[i].buf)) : l.args[i].bits;
          ptrs[i] = &values[i];
        }
        test_support::dims grid(l.grid[0], l.grid[1], l.grid[2]), block(l.block[0], l.block[1], l.block[2]);
        if (test_support::launch(d, f, grid, block, ptrs, &dd, l.smem) != SIMTVP_OK) {
          error = "launch " + l.kernel + ": " + dd.message;
          return;
        }
      }
      launch_status = drv_sync(d, &dd);
      if (launch_status != SIMTVP_OK) {
        error = std::string("sync: ") + dd.message;
        drv_clear_error(d);
      }
      for (size_t i = 0; i < s.buffers.size(); i++) {
        bufs[i].resize(s.buffers[i].bytes);
        drv_memcpy(d, nullptr, drv_host_ptr(bufs[i].data()), drv_device_ptr(addr[i]), bufs[i].size(), &dd);
      }
      for (size_t i = 0; i < s.globals.size(); i++) {
        uint64_t ga = 0, gb = 0;
        if (drv_module_global(mod, s.globals[i].name.c_str(), &ga, &gb, &dd) != SIMTVP_OK) continue;
        globals[i].resize(gb);
        drv_memcpy(d, nullptr, drv_host_ptr(globals[i].data()), drv_device_ptr(ga), gb, &dd);
      }
      // Copies to host memory land when the driver sees them complete.
      if (drv_sync(d, &dd) != SIMTVP_OK && error.empty()) error = std::string("copy out: ") + dd.message;
    }, &diag);
    if (st != SIMTVP_OK && error.empty()) error = std::string("call: ") + diag.message;
  }
  std::string fault, fault_place;
  if (h) {
    simtvp_diag f;
    if (simtvp_host_last_fault(h, &f)) fault = f.message, fault_place = place(f);
  }
  w.u64(static_cast<uint64_t>(launch_status));
  w.str(error);
  w.str(fault);
  w.str(fault_place);
  w.u64(bufs.size());
  for (const auto &b : bufs) w.bytes(b.data(), b.size());
  w.u64(globals.size());
  for (const auto &g : globals) w.bytes(g.data(), g.size());
  write_stats(h, o, w);
  if (h) simtvp_host_close(h);
}

std::vector<std::string> sorted_lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

arg F(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return arg{-1, b};
}

arg D(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return arg{-1, b};
}

std::string place(const simtvp_diag &d) {
  std::ostringstream o;
  o << simtvp_status_name(d.status) << ":";
  if (d.where & SIMTVP_WHERE_THREAD)
    o << " kernel " << d.kernel << " CTA (" << d.cta[0] << "," << d.cta[1] << "," << d.cta[2] << ") thread ("
      << d.thread[0] << "," << d.thread[1] << "," << d.thread[2] << ")";
  if (d.where & SIMTVP_WHERE_PC) o << " pc " << d.pc;
  if (d.where & SIMTVP_WHERE_FILE) o << " " << d.file << ":" << d.line;
  if (d.where & SIMTVP_WHERE_ADDRESS) o << " address 0x" << std::hex << d.address;
  if (d.where & SIMTVP_WHERE_OPTION) o << " option " << d.option;
  return o.str();
}

result run(const scenario &s, const options &o) {
  std::string payload;
  result r = fork_run([&](writer &w) { child_scenario(s, o, w); }, &payload);
  if (!r.error.empty()) return r;
  reader rd{payload};
  r.launch_status = static_cast<int>(rd.u64());
  r.error = rd.str();
  r.fault = rd.str();
  r.fault_place = rd.str();
  uint64_t n = rd.u64();
  for (uint64_t i = 0; i < n && rd.ok; i++) {
    std::string b = rd.str();
    r.buffers.emplace_back(b.begin(), b.end());
  }
  n = rd.u64();
  for (uint64_t i = 0; i < n && rd.ok; i++) {
    std::string b = rd.str();
    r.globals.emplace_back(b.begin(), b.end());
  }
  read_stats(rd, r);
  if (!rd.ok) r.error = "short message from the child";
  r.exit_code = r.error.empty() ? 0 : 1;
  return r;
}

result run_body(const options &o, const std::function<int(void *drv, std::string &out)> &body) {
  std::string payload;
  result r = fork_run(
      [&](writer &w) {
        simtvp_diag diag;
        simtvp_diag_clear(&diag);
        simtvp_host *h = open_platform(o, &diag);
        std::string out;
        int status = -1;
        std::string fault, fault_place;
        drv *d = nullptr;
        if (!h) {
          out = std::string("open: ") + diag.message;
        } else if (simtvp_host_driver(h, &d, &diag) != SIMTVP_OK) {
          out = std::string("driver: ") + diag.message;
        } else {
          simtvp_status st = test_support::host_call(h, [&] { status = body(d, out); }, &diag);
          if (st != SIMTVP_OK) out += std::string(" call: ") + diag.message;
          simtvp_diag f;
          if (simtvp_host_last_fault(h, &f)) fault = f.message, fault_place = place(f);
        }
        w.u64(static_cast<uint64_t>(status));
        w.str(out);
        w.str(fault);
        w.str(fault_place);
        write_stats(h, o, w);
        if (h) simtvp_host_close(h);
      },
      &payload);
  if (!r.error.empty()) return r;
  reader rd{payload};
  r.exit_code = static_cast<int>(rd.u64());
  r.error = rd.str();
  r.fault = rd.str();
  r.fault_place = rd.str();
  read_stats(rd, r);
  if (!rd.ok) r.error = "short message from the child";
  return r;
}

std::string compare(const scenario &s, const result &want, const result &got) {
  if (want.exit_code != 0) return "reference run failed: " + want.error;
  if (got.exit_code != 0) return "run failed: " + got.error;
  if (want.buffers.size() != got.buffers.size()) return "different buffer counts";
  for (size_t i = 0; i < s.buffers.size(); i++) {
    const buffer &b = s.buffers[i];
    std::vector<uint8_t> x = want.buffers[i], y = got.buffers[i];
    if (b.cmp == buffer::compare::ignore) continue;
    if (b.ignore_from < x.size()) {
      uint64_t end = std::min<uint64_t>(x.size(), b.ignore_from + b.ignore_bytes);
      std::fill(x.begin() + static_cast<long>(b.ignore_from), x.begin() + static_cast<long>(end), 0);
      std::fill(y.begin() + static_cast<long>(b.ignore_from), y.begin() + static_cast<long>(end), 0);
    }
    if (b.cmp == buffer::compare::sorted_u32) {
      std::vector<uint32_t> a(x.size() / 4), c(y.size() / 4);
      std::memcpy(a.data(), x.data(), a.size() * 4);
      std::memcpy(c.data(), y.data(), c.size() * 4);
      std::sort(a.begin(), a.end());
      std::sort(c.begin(), c.end());
      if (a != c) return "buffer " + std::to_string(i) + ": different values (as a multiset)";
      continue;
    }
    if (x != y) {
      size_t at = 0;
      while (at < x.size() && at < y.size() && x[at] == y[at]) at++;
      return "buffer " + std::to_string(i) + " differs first at byte " + std::to_string(at) + " of " +
             std::to_string(x.size());
    }
  }
  for (size_t i = 0; i < s.globals.size() && i < want.globals.size() && i < got.globals.size(); i++)
    if (s.globals[i].compare && want.globals[i] != got.globals[i]) return "global " + s.globals[i].name + " differs";
  if (s.sort_printf_lines ? sorted_lines(want.printed) != sorted_lines(got.printed) : want.printed != got.printed)
    return "device printf output differs:\n--- reference\n" + want.printed + "--- run\n" + got.printed;
  return "";
}

}  // namespace gt
