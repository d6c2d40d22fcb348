// Texture and surface instructions of the functional engine through texture/surface objects
// (func_tex.h descriptors): tex1Dfetch on linear memory, tld4 gathers, normalised-float reads of
// 8-bit channels with border addressing, 3D and layered textures, surface reads with zero and
// clamp boundary modes. Fixture: fixtures/textures.cu (nvcc PTX).
#include <cmath>
#include <cstring>

#include "func_tex.h"
#include "func_test_util.h"

using namespace functest;

namespace {

struct TexGpu : Gpu {
  TexGpu() {
    EXPECT_EQ(load(read_file(std::string(SIMTVP_SOURCE_DIR) + "/tests/func/fixtures/textures.ptx"), "textures.ptx"),
              SIMTVP_OK)
        << diag.message;
  }
  uint64_t desc(func_tex_desc d) {
    d.magic = FUNC_TEX_MAGIC;
    return upload(std::vector<func_tex_desc>{d});
  }
};

func_tex_desc base(uint8_t res, uint8_t dims, uint32_t w, uint32_t h, uint32_t dpt, uint64_t data, uint32_t texel) {
  func_tex_desc d{};
  d.resource = res;
  d.dims = dims;
  d.channels = 1;
  d.channel_type = PTX_TYPE_F32;
  d.address[0] = d.address[1] = d.address[2] = FUNC_TEX_ADDR_CLAMP;
  d.width = w, d.height = h, d.depth = dpt, d.layers = 1;
  d.data = data;
  d.pitch = (uint64_t)w * texel;
  d.slice_pitch = d.pitch * h;
  return d;
}

TEST(FuncTex, Fetch1DFromLinearMemoryReadsZeroOutside) {
  TexGpu g;
  std::vector<float> v(20);
  for (int i = 0; i < 20; i++) v[i] = 1.5f * i;
  uint64_t data = g.upload(v), out = g.alloc(32 * 4);
  uint64_t t = g.desc(base(FUNC_TEX_RES_LINEAR, 1, 20, 1, 1, data, 4));
  ASSERT_EQ(g.launch("k_fetch1d", 1, 32, {t, out, 32}), SIMTVP_OK) << g.diag.message;
  auto r = g.download<float>(out, 32);
  for (int i = 0; i < 32; i++) EXPECT_EQ(r[i], i - 2 >= 0 && i - 2 < 20 ? 1.5f * (i - 2) : 0.0f) << i;
}

TEST(FuncTex, GatherReturnsTheFourTexelsOfTheBilinearFootprint) {
  TexGpu g;
  std::vector<float> v(16);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++) v[y * 4 + x] = 10.0f * y + x;
  uint64_t data = g.upload(v);
  uint64_t t = g.desc(base(FUNC_TEX_RES_ARRAY, 2, 4, 4, 1, data, 4));
  std::vector<float> c = {1.0f, 1.0f, 2.3f, 3.9f, 0.2f, 0.2f, 3.6f, 1.5f};
  uint64_t dc = g.upload(c), out = g.alloc(4 * 16);
  ASSERT_EQ(g.launch("k_gather", 1, 4, {t, dc, out}), SIMTVP_OK) << g.diag.message;
  auto r = g.download<float>(out, 16);
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : x > 3 ? 3 : x;
    y = y < 0 ? 0 : y > 3 ? 3 : y;
    return v[y * 4 + x];
  };
  for (int i = 0; i < 4; i++) {
    int i0 = (int)std::floor(c[2 * i] - 0.5f), j0 = (int)std::floor(c[2 * i + 1] - 0.5f);
    EXPECT_EQ(r[4 * i + 0], at(i0, j0 + 1)) << i;
    EXPECT_EQ(r[4 * i + 1], at(i0 + 1, j0 + 1));
    EXPECT_EQ(r[4 * i + 2], at(i0 + 1, j0));
    EXPECT_EQ(r[4 * i + 3], at(i0, j0));
  }
}

TEST(FuncTex, NormalisedReadsOfBytesWithBorderAddressing) {
  TexGpu g;
  const int w = 4, h = 3;
  std::vector<uint8_t> v(w * h * 4);
  for (size_t i = 0; i < v.size(); i++) v[i] = (uint8_t)(i * 17);
  uint64_t data = g.upload(v), out = g.alloc(6 * 5 * 16);
  func_tex_desc d = base(FUNC_TEX_RES_ARRAY, 2, w, h, 1, data, 4);
  d.channels = 4;
  d.channel_type = PTX_TYPE_U8;
  d.read_normalized = 1;
  d.address[0] = d.address[1] = FUNC_TEX_ADDR_BORDER;
  d.border[0] = 0.25f, d.border[3] = 0.5f;
  uint64_t t = g.desc(d);
  ASSERT_EQ(g.launch("k_norm_u8", 1, 6, {t, out, (uint64_t)w}, 0, 1, 5), SIMTVP_OK) << g.diag.message;
  auto r = g.download<float>(out, 6 * 5 * 4);
  for (int y = 0; y < 5; y++)
    for (int x = 0; x < 6; x++) {
      int tx = (int)std::floor(x - 1.5f), ty = (int)std::floor(y - 1.5f);
      const float *got = &r[(y * 6 + x) * 4];
      for (int c = 0; c < 4; c++) {
        float want = (tx < 0 || tx >= w || ty < 0 || ty >= h) ? d.border[c] : v[(ty * w + tx) * 4 + c] / 255.0f;
        EXPECT_EQ(got[c], want) << x << "," << y << " channel " << c;
      }
    }
}

TEST(FuncTex, ThreeDimensionalAndLayeredTextures) {
  TexGpu g;
  std::vector<float> v(4 * 3 * 2);
  for (size_t i = 0; i < v.size(); i++) v[i] = (float)i;
  uint64_t data = g.upload(v), out = g.alloc(v.size() * 4);
  uint64_t t = g.desc(base(FUNC_TEX_RES_ARRAY, 3, 4, 3, 2, data, 4));
  ASSERT_EQ(g.launch("k_tex3d", 1, 4, {t, out}, 0, 1, 3, 1, 2), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.download<float>(out, v.size()), v);
  func_tex_desc l = base(FUNC_TEX_RES_ARRAY, 2, 4, 1, 1, data, 4);
  l.layered = 1;
  l.layers = 3;
  l.layer_pitch = 4 * 4 * 2;  // layers 8 floats apart
  uint64_t lt = g.desc(l), lout = g.alloc(12 * 4);
  ASSERT_EQ(g.launch("k_layered", 1, 4, {lt, lout, 3}, 0, 1, 3), SIMTVP_OK) << g.diag.message;
  auto r = g.download<float>(lout, 12);
  for (int layer = 0; layer < 3; layer++)
    for (int x = 0; x < 4; x++) EXPECT_EQ(r[layer * 4 + x], v[layer * 8 + x]);
}

TEST(FuncTex, SurfaceReadsHonourZeroAndClampBoundaries) {
  TexGpu g;
  const int w = 3, h = 2;
  std::vector<int32_t> v = {1, 2, 3, 4, 5, 6};
  uint64_t data = g.upload(v), out = g.alloc(5 * 4 * 8);
  func_tex_desc d = base(FUNC_TEX_RES_ARRAY, 2, w, h, 1, data, 4);
  d.channel_type = PTX_TYPE_S32;
  uint64_t s = g.desc(d);
  ASSERT_EQ(g.launch("k_surf_read", 1, 5, {s, out}, 0, 1, 4), SIMTVP_OK) << g.diag.message;
  auto r = g.download<int32_t>(out, 5 * 4 * 2);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 5; x++) {
      int sx = x - 1, sy = y - 1;
      bool in = sx >= 0 && sx < w && sy >= 0 && sy < h;
      int cx = sx < 0 ? 0 : sx >= w ? w - 1 : sx, cy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
      EXPECT_EQ(r[2 * (y * 5 + x)], in ? v[sy * w + sx] : 0) << x << "," << y;
      EXPECT_EQ(r[2 * (y * 5 + x) + 1], v[cy * w + cx]) << x << "," << y;
    }
}

}  // namespace
