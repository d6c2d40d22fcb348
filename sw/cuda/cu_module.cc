// cu_module.cc — modules (PTX text, fatbins), functions, variables, occupancy and launches
// (cu_core.h, docs/cudart.md "Modules and launches").
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cu_internal.h"
#include "fatbin.h"
#include "func_tensormap.h"
#include "ptx.h"

using namespace cucore;

namespace {

uint32_t device_sm(const State &s) { return s.props.cc_major * 10 + s.props.cc_minor; }

// The loaders below create a module, or with `into` place a library's pending image in it.
int load_ptx_locked(State &s, Ctx *c, const char *ptx, size_t len, const std::string &name, cu_module **out,
                    Module *into = nullptr) {
  drv_module *dm = nullptr;
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_module_load_ptx(s.d, ptx, len, name.c_str(), &dm, &diag);
    if (st == SIMTVP_OK) return CUDA_SUCCESS;
    if (st == SIMTVP_ERR_PARSE || st == SIMTVP_ERR_UNSUPPORTED)
      return fail(st == SIMTVP_ERR_PARSE ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_NOT_SUPPORTED,
                  "loading %s: %s", name.c_str(), diag.message);
    return drv_fail(s, st, diag);
  });
  if (r != CUDA_SUCCESS) return r;
  if (into) {
    into->dm = dm;
    *out = reinterpret_cast<cu_module *>(into->handle);
    return managed_module_vars(s, into);
  }
  auto m = std::make_unique<Module>();
  m->dm = dm;
  m->ctx = c;
  m->name = name;
  Module *mp = m.get();
  *out = reinterpret_cast<cu_module *>(s.modules.add(std::move(m)));
  return managed_module_vars(s, mp);
}

int load_fatbin_locked(State &s, Ctx *c, fatbin *fb, const std::string &name, bool relocatable, cu_module **out,
                       Module *into) {
  simtvp_diag diag = cleared_diag();
  size_t index = 0;
  uint32_t sm = device_sm(s);
  if (fatbin_pick_ptx(fb, sm, &index, &diag) != SIMTVP_OK) {
    // No PTX at or below the configured compute capability. A simulator is often configured as an
    // older GPU than the program was built for (nvcc 13 emits compute_75 at the least): run the
    // oldest PTX there is and say so, unless SIMTVP_CUDA_STRICT_ARCH asks for CUDA's refusal.
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < fatbin_entry_count(fb); i++) {
      const fatbin_entry *e = fatbin_entry_at(fb, i);
      if (e->kind == FATBIN_KIND_PTX && (best == SIZE_MAX || e->arch < fatbin_entry_at(fb, best)->arch)) best = i;
    }
    const char *strict = std::getenv("SIMTVP_CUDA_STRICT_ARCH");
    if (best == SIZE_MAX && relocatable)
      return fail(CUDA_ERROR_NO_BINARY_FOR_GPU,
                  "%s: separately compiled device code (nvcc -rdc=true / device linking) is not supported by "
                  "simtvp: the device-linked image holds SASS only and simtvp runs PTX; build without -rdc",
                  name.c_str());
    if (best == SIZE_MAX || (strict && *strict && std::strcmp(strict, "0") != 0))
      return fail(CUDA_ERROR_NO_BINARY_FOR_GPU,
                  "%s: no PTX for the device (compute capability %u.%u): %s. simtvp runs PTX; build with "
                  "-gencode arch=compute_XX,code=compute_XX (XX <= %u) to embed it",
                  name.c_str(), s.props.cc_major, s.props.cc_minor, diag.message, sm);
    index = best;
    if (!std::getenv("SIMTVP_CUDA_QUIET"))
      std::fprintf(stderr,
                   "simtvp: warning: %s: its PTX targets compute_%u, newer than the configured GPU (compute "
                   "capability %u.%u); running it anyway (SIMTVP_CUDA_STRICT_ARCH=1 refuses, as CUDA would)\n",
                   name.c_str(), fatbin_entry_at(fb, best)->arch, s.props.cc_major, s.props.cc_minor);
  }
  const fatbin_entry *entry = fatbin_entry_at(fb, index);
  char *text = nullptr;
  size_t len = 0;
  if (fatbin_read_ptx(fb, index, &text, &len, &diag) != SIMTVP_OK)
    return fail(CUDA_ERROR_INVALID_IMAGE, "%s: cannot read its PTX: %s", name.c_str(), diag.message);
  char label[64];
  std::snprintf(label, sizeof label, " (PTX compute_%u)", entry ? entry->arch : 0);
  int r = load_ptx_locked(s, c, text, len, name + label, out, into);
  std::free(text);
  return r;
}

bool looks_like_text(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n && i < 64; i++)
    if (p[i] == 0 || (p[i] < 9) || (p[i] > 13 && p[i] < 32)) return p[i] == 0 && i > 0;
  return true;
}

int load_image_locked(State &s, Ctx *c, const void *image, size_t size, const std::string &name, cu_module **out,
                      Module *into = nullptr) {
  const uint8_t *p = static_cast<const uint8_t *>(image);
  uint32_t magic = 0;
  if (size == 0 || size >= 4) std::memcpy(&magic, p, 4);
  simtvp_diag diag = cleared_diag();
  if (magic == FATBIN_WRAPPER_MAGIC || magic == FATBIN_CONTAINER_MAGIC) {
    fatbin *fb = nullptr;
    simtvp_status st;
    if (magic == FATBIN_WRAPPER_MAGIC) {
      st = fatbin_open_wrapper(image, 0, &fb, &diag);
    } else {
      if (size == 0) {  // the container header states its size
        uint64_t payload = 0;
        std::memcpy(&payload, p + 8, 8);
        if (payload > FATBIN_DEFAULT_MAX_SIZE)
          return fail(CUDA_ERROR_INVALID_IMAGE, "%s: fatbin header claims %llu bytes", name.c_str(),
                      (unsigned long long)payload);
        size = 16 + payload;
      }
      st = fatbin_open(image, size, &fb, &diag);
    }
    if (st != SIMTVP_OK) return fail(CUDA_ERROR_INVALID_IMAGE, "%s: not a readable fatbin: %s", name.c_str(), diag.message);
    int32_t version = 0;
    if (magic == FATBIN_WRAPPER_MAGIC) std::memcpy(&version, p + 4, 4);
    int r = load_fatbin_locked(s, c, fb, name, version == 2, out, into);
    fatbin_destroy(fb);
    return r;
  }
  if ((size == 0 || size >= 4) && std::memcmp(p, "\x7f" "ELF", 4) == 0)
    return fail(CUDA_ERROR_NOT_SUPPORTED,
                "%s is a cubin (SASS machine code): simtvp executes PTX; load the PTX text or a fatbin that "
                "embeds PTX instead", name.c_str());
  size_t len = size ? size : std::strlen(static_cast<const char *>(image));
  while (len && p[len - 1] == 0) len--;
  if (!looks_like_text(p, len))
    return fail(CUDA_ERROR_INVALID_IMAGE, "%s is neither PTX text, a fatbin nor a fatbin wrapper", name.c_str());
  return load_ptx_locked(s, c, static_cast<const char *>(image), len, name, out, into);
}

// A module file's bytes plus a terminating NUL (text loads see a terminator; binary sizes stay
// exact as size() - 1).
int read_file(const char *path, std::vector<uint8_t> *bytes) {
  FILE *f = std::fopen(path, "rb");
  if (!f) return fail(CUDA_ERROR_FILE_NOT_FOUND, "cannot open module file '%s'", path);
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes->insert(bytes->end(), buf, buf + n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) return fail(CUDA_ERROR_FILE_NOT_FOUND, "cannot read module file '%s'", path);
  if (bytes->empty()) return fail(CUDA_ERROR_INVALID_IMAGE, "module file '%s' is empty", path);
  bytes->push_back(0);
  return CUDA_SUCCESS;
}

// The bytes of an image as cucore_module_load_image reads them, so a library can keep a copy:
// a fatbin wrapper stays a wrapper over a copied container (its version says whether it is
// device-linked), a container is one container unless the size says more, text runs to its NUL.
int copy_image(const void *image, size_t size, const std::string &name, std::vector<uint8_t> *out) {
  const uint8_t *p = static_cast<const uint8_t *>(image);
  uint32_t magic = 0;
  if (size == 0 || size >= 4) std::memcpy(&magic, p, 4);
  auto container_bytes = [&](const uint8_t *c, size_t *n) -> int {
    uint32_t m = 0;
    uint64_t payload = 0;
    std::memcpy(&m, c, 4);
    std::memcpy(&payload, c + 8, 8);
    if (m != FATBIN_CONTAINER_MAGIC || payload > FATBIN_DEFAULT_MAX_SIZE)
      return fail(CUDA_ERROR_INVALID_IMAGE, "%s: not a readable fatbin (container magic 0x%08x, %llu bytes)",
                  name.c_str(), m, (unsigned long long)payload);
    *n = 16 + (size_t)payload;
    return CUDA_SUCCESS;
  };
  if (magic == FATBIN_WRAPPER_MAGIC) {
    // {magic, version, data, filename}: keep the 8-byte head and the container it points to.
    const uint8_t *data = nullptr;
    std::memcpy(&data, p + 8, sizeof data);
    size_t n = 0;
    if (!data) return fail(CUDA_ERROR_INVALID_IMAGE, "%s: fatbin wrapper without data", name.c_str());
    if (int r = container_bytes(data, &n)) return r;
    out->assign(p, p + 8);
    out->insert(out->end(), data, data + n);
    return CUDA_SUCCESS;
  }
  if (magic == FATBIN_CONTAINER_MAGIC) {
    size_t n = size;
    if (n == 0)
      if (int r = container_bytes(p, &n)) return r;
    out->assign(p, p + n);
    return CUDA_SUCCESS;
  }
  if ((size == 0 || size >= 4) && std::memcmp(p, "\x7f" "ELF", 4) == 0)
    return fail(CUDA_ERROR_NOT_SUPPORTED,
                "%s is a cubin (SASS machine code): simtvp executes PTX; load the PTX text or a fatbin that "
                "embeds PTX instead", name.c_str());
  size_t n = size ? size : std::strlen(static_cast<const char *>(image));
  out->assign(p, p + n);
  return CUDA_SUCCESS;
}

// Places a library's pending image (its first use); the outcome of a failed placement stays.
int ensure_loaded(State &s, Module *m) {
  if (m->dm) return CUDA_SUCCESS;
  if (m->load_error != CUDA_SUCCESS) return fail(m->load_error, "%s", m->load_message.c_str());
  if (int r = ready(s)) return r;
  std::vector<uint8_t> &img = m->pending_image;
  cu_module *self = nullptr;
  uint32_t magic = 0;
  if (img.size() >= 4) std::memcpy(&magic, img.data(), 4);
  int r;
  if (magic == FATBIN_WRAPPER_MAGIC) {
    // Rebuild a wrapper over the copied container (the loader takes the size from its header).
    struct {
      int32_t magic, version;
      const void *data, *filename;
    } wrapper;
    std::memcpy(&wrapper, img.data(), 8);
    wrapper.data = img.data() + 8;
    wrapper.filename = nullptr;
    r = load_image_locked(s, nullptr, &wrapper, 0, m->name, &self, m);
  } else {
    img.push_back(0);  // text sees a terminator; the size stays exact
    r = load_image_locked(s, nullptr, img.data(), img.size() - 1, m->name, &self, m);
    img.pop_back();
  }
  if (r == CUDA_SUCCESS) {
    std::vector<uint8_t>().swap(img);
  } else if (r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE ||
             r == CUDA_ERROR_NOT_SUPPORTED) {
    m->load_error = r;  // the image is at fault: every later use says so (device errors are retried)
    m->load_message = cucore_last_message();
  }
  return r;
}

// Launch-configuration checks with the code CUDA gives each (the driver repeats them).
int check_launch(State &s, Function *f, const drv_function_attrs &at, uint32_t max_dyn, const uint32_t grid[3],
                 const uint32_t block[3], uint32_t smem) {
  const drv_device_props &p = s.props;
  uint64_t threads = 1;
  for (int i = 0; i < 3; i++) {
    if (grid[i] == 0 || grid[i] > p.max_grid_dim[i])
      return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: grid dimension %c = %u outside 1..%u", f->name.c_str(),
                  "xyz"[i], grid[i], p.max_grid_dim[i]);
    if (block[i] == 0 || block[i] > p.max_block_dim[i])
      return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: block dimension %c = %u outside 1..%u", f->name.c_str(),
                  "xyz"[i], block[i], p.max_block_dim[i]);
    threads *= block[i];
  }
  if (threads > p.max_threads_per_block)
    return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: %llu threads per block exceed the device's %u",
                f->name.c_str(), (unsigned long long)threads, p.max_threads_per_block);
  if (smem > max_dyn)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "launch of %s: %u bytes of dynamic shared memory exceed its limit of %u (raise it with "
                "cudaFuncSetAttribute(MaxDynamicSharedMemorySize))",
                f->name.c_str(), smem, max_dyn);
  if (threads > at.max_threads_per_block)
    return fail(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                "launch of %s: %llu threads per block exceed its limit of %u (%u registers per thread)",
                f->name.c_str(), (unsigned long long)threads, at.max_threads_per_block, at.regs_per_thread);
  if (drv_occupancy(s.d, f->df, (uint32_t)threads, smem) == 0)
    return fail(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                "launch of %s: one block (%llu threads, %u registers per thread, %u + %u bytes of shared "
                "memory) does not fit an SM",
                f->name.c_str(), (unsigned long long)threads, at.regs_per_thread, at.static_smem_bytes, smem);
  return CUDA_SUCCESS;
}

uint32_t max_dyn_of(State &s, Function *f, const drv_function_attrs &at) {
  if (f->max_dynamic_smem_set) return f->max_dynamic_smem;
  return s.props.smem_per_block > at.static_smem_bytes ? s.props.smem_per_block - at.static_smem_bytes : 0;
}

}  // namespace

namespace cucore {

int check_kernel_launch(State &s, Function *fn, const uint32_t grid[3], const uint32_t block[3], uint32_t smem) {
  drv_function_attrs at;
  drv_function_get_attrs(s.d, fn->df, &at);
  return check_launch(s, fn, at, max_dyn_of(s, fn, at), grid, block, smem);
}

int pack_kernel_args(State &s, Function *fn, void **args, const void *buffer, size_t bytes, std::vector<uint8_t> *out,
                     std::vector<uint32_t> *offsets) {
  drv_function_attrs at;
  drv_function_get_attrs(s.d, fn->df, &at);
  out->assign(at.param_bytes, 0);
  if (offsets) {
    offsets->clear();
    for (uint32_t i = 0; i < at.n_params; i++) {
      uint32_t off = 0, n = 0;
      drv_function_param(fn->df, i, &off, &n);
      offsets->push_back(off);
    }
  }
  if (buffer) {
    if (bytes < at.param_bytes)
      return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: parameter buffer of %zu bytes, the kernel needs %u",
                  fn->name.c_str(), bytes, at.param_bytes);
    std::memcpy(out->data(), buffer, at.param_bytes);
    return CUDA_SUCCESS;
  }
  if (!at.n_params) return CUDA_SUCCESS;
  if (!args)
    return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: no arguments given for its %u parameters", fn->name.c_str(),
                at.n_params);
  for (uint32_t i = 0; i < at.n_params; i++)
    if (!args[i]) return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: argument %u points to NULL", fn->name.c_str(), i);
  simtvp_diag diag = cleared_diag();
  uint32_t used = 0;
  if (drv_function_pack_params(fn->df, args, out->data(), (uint32_t)out->size(), &used, &diag) != SIMTVP_OK)
    return fail(CUDA_ERROR_INVALID_VALUE, "launch of %s: %s", fn->name.c_str(), diag.message);
  return CUDA_SUCCESS;
}

}  // namespace cucore

extern "C" {

int cucore_module_load_ptx(cu_ctx *ctx, const char *ptx, size_t len, const char *name, cu_module **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!ptx || !out) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !ptx ? "the PTX" : "the module");
  return load_ptx_locked(s, ctx_or_primary(s, ctx), ptx, len, name ? name : "module", out);
}

int cucore_module_load_image(cu_ctx *ctx, const void *image, size_t size, const char *name, cu_module **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!image || !out) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !image ? "the image" : "the module");
  return load_image_locked(s, ctx_or_primary(s, ctx), image, size, name ? name : "module image", out);
}

int cucore_module_load_file(cu_ctx *ctx, const char *path, cu_module **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!path || !out) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !path ? "the path" : "the module");
  std::vector<uint8_t> bytes;
  if (int r = read_file(path, &bytes)) return r;
  return load_image_locked(s, ctx_or_primary(s, ctx), bytes.data(), bytes.size() - 1, path, out);
}

int cucore_library_load(const void *image, size_t size, const char *path, const char *name, cu_module **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if ((!image && !path) || !out)
    return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !out ? "the library" : "the image");
  std::string label = path ? path : name ? name : "library image";
  std::vector<uint8_t> bytes;
  if (path) {
    if (int r = read_file(path, &bytes)) return r;
    bytes.pop_back();
    image = bytes.data();
    size = bytes.size();
  }
  auto m = std::make_unique<Module>();
  if (int r = copy_image(image, size, label, &m->pending_image)) return r;
  m->name = label;
  *out = reinterpret_cast<cu_module *>(s.modules.add(std::move(m)));
  return CUDA_SUCCESS;
}

bool cucore_module_is_library(const cu_module *module) {
  State &s = state();
  Peek peek;
  Module *m = s.modules.get(module);
  return m && !m->ctx;
}

int cucore_module_kernels(cu_module *module, const char **names, uint32_t capacity, uint32_t *count) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Module *m = s.modules.get(module);
  if (!m) return fail(CUDA_ERROR_INVALID_HANDLE, "module %p is not a loaded module", (void *)module);
  if (int r = ensure_loaded(s, m)) return r;
  const ptx_module *pm = drv_module_ptx(m->dm);
  uint32_t n = 0;
  for (uint32_t i = 0; i < pm->n_functions; i++) {
    const ptx_function *f = &pm->functions[i];
    if (!(f->flags & PTX_FN_ENTRY) || (f->flags & PTX_FN_DECL_ONLY)) continue;
    if (names && n < capacity) names[n] = f->name;
    n++;
  }
  if (count) *count = n;
  return CUDA_SUCCESS;
}

int cucore_module_unload(cu_module *module) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  Module *m = s.modules.get(module);
  if (!m) return fail(CUDA_ERROR_INVALID_HANDLE, "module %p is not a loaded module (unloaded twice?)", (void *)module);
  return run(s, [&]() -> int { return module_unload_locked(s, m); });
}

bool cucore_module_valid(const cu_module *module) {
  State &s = state();
  Peek peek;
  return s.modules.get(module) != nullptr;
}

int cucore_module_function(cu_module *module, const char *name, cu_function **out) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Module *m = s.modules.get(module);
  if (!m) return fail(CUDA_ERROR_INVALID_HANDLE, "module %p is not a loaded module", (void *)module);
  if (!name || !out) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !name ? "the name" : "the function");
  if (int r = ensure_loaded(s, m)) return r;
  auto it = m->functions.find(name);
  if (it != m->functions.end()) {
    *out = reinterpret_cast<cu_function *>(it->second);
    return CUDA_SUCCESS;
  }
  drv_function *df = drv_module_function(m->dm, name);
  if (!df) return fail(CUDA_ERROR_NOT_FOUND, "module %s has no kernel (.entry) named '%s'", m->name.c_str(), name);
  auto f = std::make_unique<Function>();
  f->df = df;
  f->mod = m;
  f->name = name;
  uintptr_t h = s.functions.add(std::move(f));
  m->functions[name] = h;
  *out = reinterpret_cast<cu_function *>(h);
  return CUDA_SUCCESS;
}

int cucore_module_global(cu_module *module, const char *name, uint64_t *dptr, uint64_t *bytes) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Module *m = s.modules.get(module);
  if (!m) return fail(CUDA_ERROR_INVALID_HANDLE, "module %p is not a loaded module", (void *)module);
  if (!name) return fail(CUDA_ERROR_INVALID_VALUE, "the name pointer is NULL");
  if (int r = ensure_loaded(s, m)) return r;
  uint64_t a = 0, n = 0;
  simtvp_diag diag = cleared_diag();
  if (drv_module_global(m->dm, name, &a, &n, &diag) != SIMTVP_OK)
    return fail(CUDA_ERROR_NOT_FOUND, "module %s has no .global or .const variable named '%s'", m->name.c_str(), name);
  if (dptr) *dptr = a;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

bool cucore_function_valid(const cu_function *f) {
  State &s = state();
  Peek peek;
  return s.functions.get(f) != nullptr;
}

const char *cucore_function_name(const cu_function *f) {
  State &s = state();
  Peek peek;
  Function *fn = s.functions.get(f);
  return fn ? fn->name.c_str() : nullptr;
}

cu_module *cucore_function_module(const cu_function *f) {
  State &s = state();
  Peek peek;
  Function *fn = s.functions.get(f);
  return fn ? reinterpret_cast<cu_module *>(fn->mod->handle) : nullptr;
}

int cucore_function_attrs(cu_function *f, drv_function_attrs *attrs, uint32_t *max_dynamic_smem) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  drv_function_attrs at;
  drv_function_get_attrs(s.d, fn->df, &at);
  if (attrs) *attrs = at;
  if (max_dynamic_smem) *max_dynamic_smem = max_dyn_of(s, fn, at);
  return CUDA_SUCCESS;
}

int cucore_function_set_max_dynamic_smem(cu_function *f, uint32_t bytes) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  drv_function_attrs at;
  drv_function_get_attrs(s.d, fn->df, &at);
  uint64_t limit = s.props.smem_per_block_optin > at.static_smem_bytes ? s.props.smem_per_block_optin - at.static_smem_bytes : 0;
  if (bytes > limit)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "%s: %u bytes of dynamic shared memory exceed the opt-in limit %u minus %u static bytes",
                fn->name.c_str(), bytes, s.props.smem_per_block_optin, at.static_smem_bytes);
  simtvp_diag diag = cleared_diag();
  simtvp_status st = drv_function_set_max_dynamic_smem(s.d, fn->df, bytes, &diag);
  if (st != SIMTVP_OK) return fail(CUDA_ERROR_INVALID_VALUE, "%s", diag.message);
  fn->max_dynamic_smem = bytes;
  fn->max_dynamic_smem_set = true;
  return CUDA_SUCCESS;
}

int cucore_function_param_count(cu_function *f, uint32_t *count) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  drv_function_attrs at;
  drv_function_get_attrs(s.d, fn->df, &at);
  *count = at.n_params;
  return CUDA_SUCCESS;
}

int cucore_function_param(cu_function *f, uint32_t i, uint32_t *offset, uint32_t *bytes) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  uint32_t off = 0, n = 0;
  if (!drv_function_param(fn->df, i, &off, &n))
    return fail(CUDA_ERROR_INVALID_VALUE, "%s has no parameter %u", fn->name.c_str(), i);
  if (offset) *offset = off;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

int cucore_occupancy(cu_function *f, uint32_t block_threads, uint32_t dynamic_smem, uint32_t *blocks_per_sm) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  if (!blocks_per_sm) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (block_threads == 0) return fail(CUDA_ERROR_INVALID_VALUE, "block size 0");
  *blocks_per_sm = drv_occupancy(s.d, fn->df, block_threads, dynamic_smem);
  return CUDA_SUCCESS;
}

int cucore_launch(cu_function *f, const uint32_t grid[3], const uint32_t block[3], uint32_t dynamic_smem,
                  cu_stream *stream, void **args, const void *param_buffer, size_t param_bytes) {
  static const uint32_t none[3] = {0, 0, 0};
  return cucore_launch_cluster(f, grid, block, none, dynamic_smem, stream, args, param_buffer, param_bytes);
}

int cucore_function_allow_nonportable_cluster(cu_function *f, bool allow) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  drv_function_allow_nonportable_cluster(fn->df, allow);
  return CUDA_SUCCESS;
}

int cucore_function_cluster_dims(cu_function *f, uint32_t dims[3]) {
  Entry e;
  dims[0] = dims[1] = dims[2] = 0;
  if (!e.ok()) return 0;
  Function *fn = state().functions.get(f);
  return fn && drv_function_cluster_dims(fn->df, dims) ? 1 : 0;
}

int cucore_tensor_map_encode_tiled(void *tensor_map, uint32_t data_type, uint32_t rank, uint64_t global_address,
                                   const uint64_t *global_dim, const uint64_t *global_strides, const uint32_t *box_dim,
                                   const uint32_t *element_strides, uint32_t interleave, uint32_t swizzle,
                                   uint32_t l2_promotion, uint32_t oob_fill) {
  simtvp_diag diag = cleared_diag();
  simtvp_status st = func_tensor_map_encode_tiled(static_cast<func_tensor_map *>(tensor_map), data_type, rank,
                                                  global_address, global_dim, global_strides, box_dim, element_strides,
                                                  interleave, swizzle, l2_promotion, oob_fill, &diag);
  if (st == SIMTVP_OK) return CUDA_SUCCESS;
  return fail(st == SIMTVP_ERR_UNSUPPORTED ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE, "%s", diag.message);
}

int cucore_launch_cluster(cu_function *f, const uint32_t grid[3], const uint32_t block[3], const uint32_t cluster[3],
                          uint32_t dynamic_smem, cu_stream *stream, void **args, const void *param_buffer,
                          size_t param_bytes) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Function *fn = s.functions.get(f);
  if (!fn) return fail(CUDA_ERROR_INVALID_HANDLE, "function %p is not a loaded kernel", (void *)f);
  if (int r = check_kernel_launch(s, fn, grid, block, dynamic_smem)) return r;
  // The parameter buffer in the kernel's layout (reused: no allocation per launch once grown).
  static thread_local std::vector<uint8_t> params;
  if (int r = pack_kernel_args(s, fn, args, param_buffer, param_bytes, &params, nullptr)) return r;
  Stream *capturing = nullptr;
  if (int r = capture_route(s, stream, &capturing)) return r;
  if (capturing) {
    NodeParams p;
    p.type = CU_GRAPH_NODE_KERNEL;
    p.func = fn->handle;
    for (int i = 0; i < 3; i++) {
      p.grid[i] = grid[i];
      p.block[i] = block[i];
    }
    p.smem = dynamic_smem;
    if (int r = pack_kernel_args(s, fn, args, param_buffer, param_bytes, &p.args, &p.arg_offsets)) return r;
    return capture_add(s, capturing, std::move(p));
  }
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int rr = resolve_stream(s, stream, &ds);
    if (rr != CUDA_SUCCESS) return rr;
    if ((rr = managed_to_device(s, ds)) != CUDA_SUCCESS) return rr;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_launch_cluster(s.d, ds, fn->df, grid, block, cluster, dynamic_smem, params.data(),
                                          (uint32_t)params.size(), &diag);
    // the driver's cluster checks say "cluster" after "launch of <kernel>: " (kernel names may too)
    const char *why = std::strstr(diag.message, ": ");
    if (st == SIMTVP_ERR_ARG && why && std::strstr(why, "cluster"))
      return fail(CUDA_ERROR_INVALID_CLUSTER_SIZE, "%s", diag.message);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

}  // extern "C"
