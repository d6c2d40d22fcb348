// fatbin_test.cpp — the fatbin reader on the committed nvcc 13.0 fixtures: layouts (default zstd,
// --no-compress, -compress-all, LZ4, several architectures, PTX only, SASS only), picking PTX and
// SASS for a compute capability, PTX identical to separately generated PTX, the registration
// wrapper, and per-kernel cubin facts against recorded ptxas -v reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "fatbin_test_util.h"

using namespace fatbin_test;

namespace {

fatbin_ptr open_bytes(const bytes &b) {
  fatbin *f = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_open(b.data(), b.size, &f, &diag), SIMTVP_OK) << diag.message;
  return fatbin_ptr(f);
}

std::string read_ptx(const fatbin *f, size_t index) {
  char *text = nullptr;
  size_t length = 0;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_read_ptx(f, index, &text, &length, &diag), SIMTVP_OK) << diag.message;
  std::string s = text ? std::string(text, length) : std::string();
  std::free(text);
  return s;
}

std::vector<uint8_t> read_payload(const fatbin *f, size_t index) {
  uint8_t *payload = nullptr;
  size_t size = 0;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_read_entry(f, index, &payload, &size, &diag), SIMTVP_OK) << diag.message;
  std::vector<uint8_t> v(payload, payload + size);
  std::free(payload);
  return v;
}

cubin_ptr read_cubin(const fatbin *f, size_t index) {
  fatbin_cubin *c = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_read_cubin(f, index, &c, &diag), SIMTVP_OK) << diag.message;
  return cubin_ptr(c);
}

size_t pick_ptx(const fatbin *f, uint32_t sm) {
  size_t index = SIZE_MAX;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_pick_ptx(f, sm, &index, &diag), SIMTVP_OK) << "sm_" << sm << ": " << diag.message;
  return index;
}

size_t pick_elf(const fatbin *f, uint32_t sm) {
  size_t index = SIZE_MAX;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_pick_elf(f, sm, &index, &diag), SIMTVP_OK) << "sm_" << sm << ": " << diag.message;
  return index;
}

// Fatbin PTX equals `nvcc -ptx` output line for line, comments and indentation aside.
void expect_same_ptx(const std::string &from_fatbin, const std::string &reference_path) {
  std::string reference = read_text(reference_path);
  ASSERT_FALSE(reference.empty()) << reference_path;
  EXPECT_EQ(normalized_ptx_lines(from_fatbin), normalized_ptx_lines(reference)) << reference_path;
}

// Every entry function ptxas reported, with the same registers, barriers, shared memory, stack
// frame and cumulative stack as the cubin's .nv.info says, and no kernel ptxas did not report.
void expect_cubin_matches_ptxas(const fatbin_cubin *c, const std::string &report_path) {
  const auto report = parse_ptxas_report(report_path);
  ASSERT_FALSE(report.empty()) << report_path;
  EXPECT_EQ(fatbin_cubin_kernel_count(c), report.size()) << report_path;
  for (const auto &entry : report) {
    const fatbin_kernel *k = fatbin_cubin_find_kernel(c, entry.first.c_str());
    ASSERT_NE(k, nullptr) << entry.first << " missing from the cubin (" << report_path << ")";
    SCOPED_TRACE(entry.first + " in " + report_path);
    EXPECT_EQ(k->registers, entry.second.registers);
    EXPECT_EQ((int)k->barriers, entry.second.barriers);
    EXPECT_EQ((int)k->shared_bytes, entry.second.shared_bytes);
    EXPECT_EQ((int)k->frame_bytes, entry.second.frame_bytes);
    EXPECT_EQ((int)k->min_stack_bytes, entry.second.cumulative_stack_bytes);
  }
}

const char *kPtx75 = "fatbin_kernels.compute_75.ptx";

}  // namespace

TEST(Fatbin, DefaultNvccFatbinHoldsSassAndZstdCompressedPtx) {
  bytes b = read_bytes(fixture("fatbin_kernels.default.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  ASSERT_EQ(fatbin_entry_count(f.get()), 2u);
  EXPECT_EQ(fatbin_container_count(f.get()), 1u);
  const fatbin_entry *elf = fatbin_entry_at(f.get(), 0), *ptx = fatbin_entry_at(f.get(), 1);
  EXPECT_EQ(elf->kind, (uint32_t)FATBIN_KIND_ELF);
  EXPECT_EQ(elf->arch, 75u);
  EXPECT_EQ(elf->compression, FATBIN_COMPRESSION_NONE);
  EXPECT_EQ(ptx->kind, (uint32_t)FATBIN_KIND_PTX);
  EXPECT_EQ(ptx->arch, 75u);
  EXPECT_EQ(ptx->compression, FATBIN_COMPRESSION_ZSTD);
  EXPECT_EQ(ptx->version_major, 9u);  // PTX ISA 9.0, nvcc 13
  EXPECT_EQ(ptx->version_minor, 0u);
  EXPECT_LT(ptx->stored_size, ptx->uncompressed_size);
  EXPECT_EQ(ptx->options, nullptr);
  EXPECT_EQ(fatbin_entry_at(f.get(), 2), nullptr);
}

TEST(Fatbin, CompressedPtxEqualsSeparatelyGeneratedPtx) {
  bytes b = read_bytes(fixture("fatbin_kernels.default.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  std::string ptx = read_ptx(f.get(), pick_ptx(f.get(), 75));
  EXPECT_EQ(ptx.find('\0'), std::string::npos);
  expect_same_ptx(ptx, fixture(kPtx75));
}

TEST(Fatbin, UncompressedPtxEqualsSeparatelyGeneratedPtx) {
  bytes b = read_bytes(fixture("fatbin_kernels.no_compress.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  size_t index = pick_ptx(f.get(), 75);
  EXPECT_EQ(fatbin_entry_at(f.get(), index)->compression, FATBIN_COMPRESSION_NONE);
  expect_same_ptx(read_ptx(f.get(), index), fixture(kPtx75));
}

TEST(Fatbin, Lz4CompressedPtxEqualsSeparatelyGeneratedPtx) {
  bytes b = read_bytes(fixture("fatbin_kernels.lz4.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  size_t index = pick_ptx(f.get(), 75);
  EXPECT_EQ(fatbin_entry_at(f.get(), index)->compression, FATBIN_COMPRESSION_LZ4);
  expect_same_ptx(read_ptx(f.get(), index), fixture(kPtx75));
}

// The same cubin stored plainly (default), with zstd (-compress-all) and as LZ4 blocks
// (-compress-mode=speed) decompresses to the same bytes.
TEST(Fatbin, CompressedCubinsDecompressToTheUncompressedCubin) {
  bytes plain_bytes = read_bytes(fixture("fatbin_kernels.no_compress.fatbin"));
  fatbin_ptr plain = open_bytes(plain_bytes);
  ASSERT_TRUE(plain);
  const std::vector<uint8_t> reference = read_payload(plain.get(), pick_elf(plain.get(), 75));
  ASSERT_GT(reference.size(), 64u);
  bool saw_compressed_elf = false;
  for (const char *name : {"fatbin_kernels.compress_all.fatbin", "fatbin_kernels.lz4.fatbin",
                           "fatbin_kernels.default.fatbin"}) {
    bytes b = read_bytes(fixture(name));
    fatbin_ptr f = open_bytes(b);
    ASSERT_TRUE(f) << name;
    size_t index = pick_elf(f.get(), 75);
    saw_compressed_elf |= fatbin_entry_at(f.get(), index)->compression != FATBIN_COMPRESSION_NONE;
    std::vector<uint8_t> got = read_payload(f.get(), index);
    // Payloads are padded to 8 bytes; the ELF itself must be identical.
    got.resize(std::max(got.size(), reference.size()));
    EXPECT_TRUE(std::equal(reference.begin(), reference.end(), got.begin())) << name;
  }
  EXPECT_TRUE(saw_compressed_elf);
}

TEST(Fatbin, PicksNewestPtxNotAboveDeviceCapability) {
  bytes b = read_bytes(fixture("fatbin_kernels.multi_arch.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  // PTX for compute_75, compute_80, compute_90.
  const struct {
    uint32_t device, ptx;
  } cases[] = {{75, 75}, {80, 80}, {86, 80}, {89, 80}, {90, 90}, {100, 90}, {120, 90}};
  for (const auto &c : cases) {
    const fatbin_entry *e = fatbin_entry_at(f.get(), pick_ptx(f.get(), c.device));
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->kind, (uint32_t)FATBIN_KIND_PTX);
    EXPECT_EQ(e->arch, c.ptx) << "device sm_" << c.device;
  }
  for (uint32_t arch : {75u, 80u, 90u}) {
    const std::string ptx = read_ptx(f.get(), pick_ptx(f.get(), arch));
    expect_same_ptx(ptx, fixture("fatbin_kernels.compute_" + std::to_string(arch) + ".ptx"));
  }
}

TEST(Fatbin, NoPtxAtOrBelowTheDeviceIsUnsupportedAndNamesWhatThereIs) {
  bytes b = read_bytes(fixture("fatbin_kernels.multi_arch.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  size_t index = 12345;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_pick_ptx(f.get(), 70, &index, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_EQ(index, 12345u);
  EXPECT_NE(std::strstr(diag.message, "sm_70"), nullptr) << diag.message;
  EXPECT_NE(std::strstr(diag.message, "compute_75, compute_80, compute_90"), nullptr) << diag.message;
}

TEST(Fatbin, SassOnlyFatbinHasNoPtxToPick) {
  bytes b = read_bytes(fixture("fatbin_kernels.sass_only.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  ASSERT_EQ(fatbin_entry_count(f.get()), 1u);
  size_t index;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_pick_ptx(f.get(), 80, &index, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::strstr(diag.message, "PTX in the fatbin: none; SASS: sm_80"), nullptr) << diag.message;
  EXPECT_EQ(fatbin_entry_at(f.get(), pick_elf(f.get(), 80))->arch, 80u);
}

TEST(Fatbin, PtxOnlyFatbinPicksByCapabilityAndHasNoSass) {
  bytes b = read_bytes(fixture("fatbin_kernels.ptx_only.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  EXPECT_EQ(fatbin_entry_at(f.get(), pick_ptx(f.get(), 80))->arch, 75u);
  EXPECT_EQ(fatbin_entry_at(f.get(), pick_ptx(f.get(), 86))->arch, 86u);
  expect_same_ptx(read_ptx(f.get(), pick_ptx(f.get(), 90)), fixture("fatbin_kernels.compute_86.ptx"));
  size_t index;
  EXPECT_EQ(fatbin_pick_elf(f.get(), 86, &index, nullptr), SIMTVP_ERR_UNSUPPORTED);
}

TEST(Fatbin, PicksSassByBinaryCompatibility) {
  bytes b = read_bytes(fixture("fatbin_kernels.multi_arch.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  // SASS for sm_75, sm_80, sm_86, sm_90: same major, newest minor not above the device.
  const struct {
    uint32_t device, sass;
  } cases[] = {{75, 75}, {80, 80}, {86, 86}, {87, 86}, {89, 86}, {90, 90}};
  for (const auto &c : cases)
    EXPECT_EQ(fatbin_entry_at(f.get(), pick_elf(f.get(), c.device))->arch, c.sass) << c.device;
  size_t index;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_pick_elf(f.get(), 70, &index, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_EQ(fatbin_pick_elf(f.get(), 100, &index, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::strstr(diag.message, "sm_75, sm_80, sm_86, sm_90"), nullptr) << diag.message;
}

TEST(Fatbin, ReadingPtxFromAnElfEntryIsAnArgumentError) {
  bytes b = read_bytes(fixture("fatbin_kernels.default.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  char *text = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(fatbin_read_ptx(f.get(), pick_elf(f.get(), 75), &text, nullptr, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(text, nullptr);
  EXPECT_NE(std::strstr(diag.message, "not PTX"), nullptr) << diag.message;
  fatbin_cubin *c = nullptr;
  EXPECT_EQ(fatbin_read_cubin(f.get(), pick_ptx(f.get(), 75), &c, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(c, nullptr);
  uint8_t *payload = nullptr;
  size_t size;
  EXPECT_EQ(fatbin_read_entry(f.get(), 2, &payload, &size, &diag), SIMTVP_ERR_ARG);
}

// What __cudaRegisterFatBinary receives: {magic, version, data, filename_or_fatbins}.
struct registration_wrapper {
  int magic;
  int version;
  const void *data;
  const void *filename_or_fatbins;
};

TEST(Fatbin, OpensThroughTheRegistrationWrapper) {
  bytes b = read_bytes(fixture("fatbin_kernels.multi_arch.fatbin"));
  fatbin_ptr direct = open_bytes(b);
  ASSERT_TRUE(direct);
  // nvcc's registration data is followed by other sections: the container's own size must bound it.
  bytes padded = b;
  padded.words.resize(padded.words.size() + 64, 0xdeadbeefdeadbeefull);
  const registration_wrapper wrapper = {(int)FATBIN_WRAPPER_MAGIC, 1, padded.data(), nullptr};
  fatbin *raw = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  ASSERT_EQ(fatbin_open_wrapper(&wrapper, 0, &raw, &diag), SIMTVP_OK) << diag.message;
  fatbin_ptr f(raw);
  ASSERT_EQ(fatbin_entry_count(f.get()), fatbin_entry_count(direct.get()));
  for (size_t i = 0; i < fatbin_entry_count(f.get()); ++i) {
    EXPECT_EQ(fatbin_entry_at(f.get(), i)->arch, fatbin_entry_at(direct.get(), i)->arch);
    EXPECT_EQ(fatbin_entry_at(f.get(), i)->payload_offset, fatbin_entry_at(direct.get(), i)->payload_offset);
  }
  expect_same_ptx(read_ptx(f.get(), pick_ptx(f.get(), 86)), fixture("fatbin_kernels.compute_80.ptx"));
}

TEST(Fatbin, WrapperWithBadMagicVersionOrSizeIsRejected) {
  bytes b = read_bytes(fixture("fatbin_kernels.default.fatbin"));
  fatbin *f = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  registration_wrapper wrapper = {0x12345678, 1, b.data(), nullptr};
  EXPECT_EQ(fatbin_open_wrapper(&wrapper, 0, &f, &diag), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::strstr(diag.message, "magic 0x12345678"), nullptr) << diag.message;
  wrapper = {(int)FATBIN_WRAPPER_MAGIC, 3, b.data(), nullptr};
  EXPECT_EQ(fatbin_open_wrapper(&wrapper, 0, &f, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::strstr(diag.message, "version 3"), nullptr) << diag.message;
  wrapper = {(int)FATBIN_WRAPPER_MAGIC, 1, nullptr, nullptr};
  EXPECT_EQ(fatbin_open_wrapper(&wrapper, 0, &f, &diag), SIMTVP_ERR_PARSE);
  wrapper = {(int)FATBIN_WRAPPER_MAGIC, 1, b.data(), nullptr};
  EXPECT_EQ(fatbin_open_wrapper(&wrapper, 1024, &f, &diag), SIMTVP_ERR_LIMIT);
  EXPECT_EQ(f, nullptr);
  const uint64_t not_a_fatbin[4] = {0x1122334455667788ull, 0, 0, 0};
  wrapper = {(int)FATBIN_WRAPPER_MAGIC, 1, not_a_fatbin, nullptr};
  EXPECT_EQ(fatbin_open_wrapper(&wrapper, 0, &f, &diag), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::strstr(diag.message, "not a fatbin"), nullptr) << diag.message;
}

// A program's .nv_fatbin section holds one container per translation unit, back to back.
TEST(Fatbin, ReadsSeveralContainersBackToBack) {
  bytes a = read_bytes(fixture("fatbin_kernels.sass_only.fatbin"));
  bytes b = read_bytes(fixture("fatbin_kernels.ptx_only.fatbin"));
  std::vector<uint8_t> joined = a.vector();
  joined.resize(joined.size() + 8, 0);  // zero padding between containers
  std::vector<uint8_t> second = b.vector();
  joined.insert(joined.end(), second.begin(), second.end());
  fatbin *raw = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  ASSERT_EQ(fatbin_open(joined.data(), joined.size(), &raw, &diag), SIMTVP_OK) << diag.message;
  fatbin_ptr f(raw);
  EXPECT_EQ(fatbin_container_count(f.get()), 2u);
  ASSERT_EQ(fatbin_entry_count(f.get()), 3u);
  EXPECT_EQ(fatbin_entry_at(f.get(), 0)->container, 0u);
  EXPECT_EQ(fatbin_entry_at(f.get(), 2)->container, 1u);
  EXPECT_EQ(fatbin_entry_at(f.get(), pick_ptx(f.get(), 86))->arch, 86u);
  expect_same_ptx(read_ptx(f.get(), pick_ptx(f.get(), 75)), fixture(kPtx75));
}

// The header extension of a PTX entry may carry JIT options ({u32 offset, u32 size} at the
// extension, the string inside the header). nvcc -Xptxas -v stores "-v"; this patches the same.
TEST(Fatbin, PtxEntryJitOptionsComeFromTheHeaderExtension) {
  bytes b = read_bytes(fixture("fatbin_kernels.no_compress.fatbin"));
  fatbin_ptr plain = open_bytes(b);
  ASSERT_TRUE(plain);
  const fatbin_entry *e = fatbin_entry_at(plain.get(), pick_ptx(plain.get(), 75));
  ASSERT_EQ(e->header_size, 0x50u);
  uint8_t *h = b.data() + e->offset;
  ASSERT_EQ(h[0x14], 0x40);  // extension at 0x40: {0x48, 0} — no options
  ASSERT_EQ(h[0x40], 0x48);
  h[0x44] = 4;
  std::memcpy(h + 0x48, "-O3 ", 4);
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  const fatbin_entry *patched = fatbin_entry_at(f.get(), e->index);
  ASSERT_NE(patched->options, nullptr);
  EXPECT_EQ(std::string(patched->options, patched->options_size), "-O3");
}

TEST(Cubin, RegisterCountsAndSizesMatchPtxasForEveryArchitecture) {
  bytes b = read_bytes(fixture("fatbin_kernels.multi_arch.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  for (uint32_t sm : {75u, 80u, 86u, 90u}) {
    cubin_ptr c = read_cubin(f.get(), pick_elf(f.get(), sm));
    ASSERT_TRUE(c);
    expect_cubin_matches_ptxas(c.get(), fixture("fatbin_kernels.sm_" + std::to_string(sm) + ".ptxas.txt"));
    // sm_90 cubins lay the system-reserved 1 KiB out in front of a kernel's static shared memory.
    const fatbin_kernel *shared = fatbin_cubin_find_kernel(c.get(), "_Z11with_sharedPfPKf");
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(shared->reserved_shared_bytes, sm == 90 ? 1024u : 0u) << "sm_" << sm;
  }
}

TEST(Cubin, ParametersFollowTheKernelSignatureWithAlignment) {
  bytes b = read_bytes(fixture("fatbin_kernels.multi_arch.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  for (uint32_t sm : {75u, 80u, 86u, 90u}) {
    SCOPED_TRACE("sm_" + std::to_string(sm));
    cubin_ptr c = read_cubin(f.get(), pick_elf(f.get(), sm));
    ASSERT_TRUE(c);
    // many_params(char, double, record{double, char, int[3]}, short, int *)
    const fatbin_kernel *k = fatbin_cubin_find_kernel(c.get(), "_Z11many_paramscd6recordsPi");
    ASSERT_NE(k, nullptr);
    const fatbin_param want[] = {{0, 0, 1}, {1, 8, 8}, {2, 16, 24}, {3, 40, 2}, {4, 48, 8}};
    ASSERT_EQ(k->param_count, 5u);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(k->params[i].ordinal, want[i].ordinal);
      EXPECT_EQ(k->params[i].offset, want[i].offset) << "parameter " << i;
      EXPECT_EQ(k->params[i].size, want[i].size) << "parameter " << i;
    }
    EXPECT_EQ(k->param_bytes, 56u);
    // Parameters start at c[0][0x160] up to sm_86 and at c[0][0x210] on sm_90.
    EXPECT_EQ(k->param_base, sm < 90 ? 0x160u : 0x210u);
    EXPECT_GE(k->const0_bytes, k->param_base + k->param_bytes);
    EXPECT_GT(k->code_bytes, 0u);
    const fatbin_kernel *two = fatbin_cubin_find_kernel(c.get(), "_Z10with_localPii");
    ASSERT_NE(two, nullptr);
    ASSERT_EQ(two->param_count, 2u);
    EXPECT_EQ(two->params[1].offset, 8u);
    EXPECT_EQ(two->params[1].size, 4u);
    EXPECT_EQ(fatbin_cubin_find_kernel(c.get(), "_Z5depthi"), nullptr);  // a device function
  }
}

TEST(Cubin, LaunchBoundsBecomeMaxThreadsAndARegisterCap) {
  bytes b = read_bytes(fixture("fatbin_kernels.default.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  cubin_ptr c = read_cubin(f.get(), pick_elf(f.get(), 75));
  ASSERT_TRUE(c);
  const fatbin_kernel *bounded = fatbin_cubin_find_kernel(c.get(), "_Z7boundedPfPKfi");
  ASSERT_NE(bounded, nullptr);
  EXPECT_EQ(bounded->max_threads[0], 256u);
  EXPECT_EQ(bounded->max_threads[1], 1u);
  EXPECT_EQ(bounded->max_threads[2], 1u);
  // __launch_bounds__(256, 2): 65536 registers / (256 threads * 2 CTAs) = 128 per thread.
  EXPECT_EQ(bounded->max_registers, 128u);
  const fatbin_kernel *unbounded = fatbin_cubin_find_kernel(c.get(), "_Z11with_sharedPfPKf");
  ASSERT_NE(unbounded, nullptr);
  EXPECT_EQ(unbounded->max_threads[0], 0u);
  EXPECT_EQ(unbounded->required_threads[0], 0u);
}

// Every program of tests/kernels: the fatbin nvcc made holds the PTX committed beside it, the
// prebuilt binary embeds that very fatbin, and its cubin agrees with the recorded ptxas report.
TEST(Kernels, EveryProgramFatbinHoldsItsPtxAndMatchesPtxas) {
  const std::filesystem::path dir = source_path("tests/kernels");
  std::vector<std::string> names;
  for (const auto &file : std::filesystem::directory_iterator(dir))
    if (file.path().extension() == ".cu") names.push_back(file.path().stem().string());
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 17u);
  for (const std::string &name : names) {
    SCOPED_TRACE(name);
    // the architecture a program is built for: 75, or a line `// simtvp-arch: 80` in its source
    // (90a: Hopper's arch-specific features; its fatbin entries say 90)
    uint32_t sm = 75;
    std::string suffix;
    const std::string source = read_text((dir / (name + ".cu")).string());
    const size_t mark = source.find("\n// simtvp-arch: ");
    if (mark != std::string::npos) {
      size_t digits = 0;
      sm = (uint32_t)std::stoul(source.substr(mark + 17), &digits);
      if (source.compare(mark + 17 + digits, 1, "a") == 0) suffix = "a";
    }
    bytes b = read_bytes((dir / "fatbin" / (name + ".fatbin")).string());
    ASSERT_GT(b.size, 0u);
    fatbin_ptr f = open_bytes(b);
    ASSERT_TRUE(f);
    size_t ptx = pick_ptx(f.get(), sm);
    EXPECT_EQ(fatbin_entry_at(f.get(), ptx)->compression, FATBIN_COMPRESSION_ZSTD);
    expect_same_ptx(read_ptx(f.get(), ptx), (dir / "ptx" / (name + ".ptx")).string());
    cubin_ptr c = read_cubin(f.get(), pick_elf(f.get(), sm));
    ASSERT_TRUE(c);
    expect_cubin_matches_ptxas(c.get(), (dir / "ptxas" / (name + ".sm_" + std::to_string(sm) + suffix + ".txt")).string());

    const std::vector<uint8_t> program = read_bytes((dir / "bin" / name).string()).vector();
    const std::vector<uint8_t> image = b.vector();
    EXPECT_NE(std::search(program.begin(), program.end(), image.begin(), image.end()), program.end())
        << "bin/" << name << " does not embed fatbin/" << name << ".fatbin";
  }
}

TEST(Kernels, HandWrittenHostProgramsEmbedTheCommittedFatbin) {
  const std::string header = read_text(source_path("tests/kernels/host/host_kernels_fatbin.h"));
  bytes b = read_bytes(source_path("tests/kernels/host/host_kernels.fatbin"));
  fatbin_ptr f = open_bytes(b);
  ASSERT_TRUE(f);
  // bin2c writes the fatbin as 64-bit words: the first is the container header's first word.
  char first[32];
  std::snprintf(first, sizeof first, "0x%016llxULL", (unsigned long long)b.words[0]);
  EXPECT_NE(header.find(first), std::string::npos);
  size_t words = 0;
  for (size_t at = header.find("ULL"); at != std::string::npos; at = header.find("ULL", at + 3)) ++words;
  EXPECT_EQ(words, b.size / 8);
  expect_same_ptx(read_ptx(f.get(), pick_ptx(f.get(), 75)),
                  source_path("tests/kernels/host/host_kernels.ptx"));
  cubin_ptr c = read_cubin(f.get(), pick_elf(f.get(), 75));
  ASSERT_TRUE(c);
  EXPECT_NE(fatbin_cubin_find_kernel(c.get(), "saxpy"), nullptr);
  EXPECT_NE(fatbin_cubin_find_kernel(c.get(), "_Z16scale_and_offsetPiii"), nullptr);
}
