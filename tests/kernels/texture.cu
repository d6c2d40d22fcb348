// texture — texture and surface objects on 2D float cudaArrays:
//   sample_texture:  tex2D<float> with linear filtering and normalised coordinates, once through a
//                    texture object with clamp addressing and once with wrap addressing, at points
//                    inside and outside [0,1) (the filter's weights are chosen as multiples of 1/8 so
//                    the hardware's 8-bit weight fraction represents them exactly);
//   write_surface:   surf2Dwrite into a second array (cudaArraySurfaceLoadStore), read back with
//                    cudaMemcpy2DFromArray, and fetched again through a point-sampled texture object
//                    with unnormalised coordinates (fetch_texels).
// Usage: texture [width=16] [height=8]  (powers of two keep every coordinate exact in float)
#include <cmath>

#include "kernel_check.cuh"

__global__ void sample_texture(cudaTextureObject_t clamp_tex, cudaTextureObject_t wrap_tex,
                               const float2 *coords, float *clamped, float *wrapped, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  clamped[i] = tex2D<float>(clamp_tex, coords[i].x, coords[i].y);
  wrapped[i] = tex2D<float>(wrap_tex, coords[i].x, coords[i].y);
}

__global__ void write_surface(cudaSurfaceObject_t surface, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) surf2Dwrite(100.0f * x + y, surface, x * (int)sizeof(float), y);
}

__global__ void fetch_texels(cudaTextureObject_t point_tex, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(point_tex, x + 0.5f, y + 0.5f);
}

// Host model of CUDA's linear filter (programming guide, "Texture Fetching").
struct host_texture {
  const float *texels;
  int width, height;
  bool wrap;
  float at(int x, int y) const {
    if (wrap) {
      x = ((x % width) + width) % width;
      y = ((y % height) + height) % height;
    } else {
      x = x < 0 ? 0 : x >= width ? width - 1 : x;
      y = y < 0 ? 0 : y >= height ? height - 1 : y;
    }
    return texels[y * width + x];
  }
  double sample(float u, float v) const {
    if (wrap) {
      u -= std::floor(u);
      v -= std::floor(v);
    }
    double x = (double)u * width - 0.5, y = (double)v * height - 0.5;
    int i = (int)std::floor(x), j = (int)std::floor(y);
    double a = x - i, b = y - j;
    return (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) + (1 - a) * b * at(i, j + 1) +
           a * b * at(i + 1, j + 1);
  }
};

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureAddressMode mode,
                                        cudaTextureFilterMode filter, int normalized) {
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.addressMode[0] = desc.addressMode[1] = mode;
  desc.filterMode = filter;
  desc.readMode = cudaReadModeElementType;
  desc.normalizedCoords = normalized;
  cudaTextureObject_t tex = 0;
  CHECK_CUDA(cudaCreateTextureObject(&tex, &res, &desc, nullptr));
  return tex;
}

int main(int argc, char **argv) {
  const int width = arg_int(argc, argv, 1, 16), height = arg_int(argc, argv, 2, 8);
  float *texels = new float[width * height];
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) texels[y * width + x] = std::sin(0.3f * x) + 0.25f * y;

  // Sample points: texel centres shifted by k/8 of a texel, from 1.5 texels left of the image to 1.5
  // texels right of it (outside [0,1) clamp and wrap differ).
  const int per_axis = 16, n = per_axis * per_axis;
  float2 *coords = new float2[n];
  for (int j = 0; j < per_axis; ++j)
    for (int i = 0; i < per_axis; ++i) {
      float tx = -2.0f + (width + 4.0f) * i / (per_axis - 1), ty = -2.0f + (height + 4.0f) * j / (per_axis - 1);
      tx = std::floor(tx) + 0.5f + (float)((i * 3) % 8) / 8.0f;
      ty = std::floor(ty) + 0.5f + (float)((j * 5) % 8) / 8.0f;
      coords[j * per_axis + i] = make_float2(tx / width, ty / height);
    }

  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  cudaArray_t image, surface_image;
  CHECK_CUDA(cudaMallocArray(&image, &channel, width, height));
  CHECK_CUDA(cudaMallocArray(&surface_image, &channel, width, height, cudaArraySurfaceLoadStore));
  CHECK_CUDA(cudaMemcpy2DToArray(image, 0, 0, texels, width * sizeof(float), width * sizeof(float),
                                 height, cudaMemcpyHostToDevice));
  cudaTextureObject_t clamp_tex = make_texture(image, cudaAddressModeClamp, cudaFilterModeLinear, 1);
  cudaTextureObject_t wrap_tex = make_texture(image, cudaAddressModeWrap, cudaFilterModeLinear, 1);

  float2 *dcoords;
  float *dclamped, *dwrapped, *dfetched;
  CHECK_CUDA(cudaMalloc(&dcoords, n * sizeof(float2)));
  CHECK_CUDA(cudaMalloc(&dclamped, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dwrapped, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dfetched, width * height * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dcoords, coords, n * sizeof(float2), cudaMemcpyHostToDevice));
  sample_texture<<<(n + 63) / 64, 64>>>(clamp_tex, wrap_tex, dcoords, dclamped, dwrapped, n);
  CHECK_LAUNCH();

  cudaResourceDesc surface_res;
  std::memset(&surface_res, 0, sizeof surface_res);
  surface_res.resType = cudaResourceTypeArray;
  surface_res.res.array.array = surface_image;
  cudaSurfaceObject_t surface = 0;
  CHECK_CUDA(cudaCreateSurfaceObject(&surface, &surface_res));
  dim3 block(8, 8), grid((width + 7) / 8, (height + 7) / 8);
  write_surface<<<grid, block>>>(surface, width, height);
  CHECK_LAUNCH();
  cudaTextureObject_t point_tex =
      make_texture(surface_image, cudaAddressModeClamp, cudaFilterModePoint, 0);
  fetch_texels<<<grid, block>>>(point_tex, dfetched, width, height);
  CHECK_LAUNCH();

  float *clamped = new float[n], *wrapped = new float[n];
  float *surface_back = new float[width * height], *fetched = new float[width * height];
  CHECK_CUDA(cudaMemcpy(clamped, dclamped, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(wrapped, dwrapped, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(fetched, dfetched, width * height * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy2DFromArray(surface_back, width * sizeof(float), surface_image, 0, 0,
                                   width * sizeof(float), height, cudaMemcpyDeviceToHost));

  host_texture clamp_model = {texels, width, height, false}, wrap_model = {texels, width, height, true};
  int status = -1;
  double worst = 0.0;
  for (int i = 0; i < n && status < 0; ++i) {
    double wc = clamp_model.sample(coords[i].x, coords[i].y);
    double ww = wrap_model.sample(coords[i].x, coords[i].y);
    worst = std::fmax(worst, std::fmax(std::fabs(clamped[i] - wc), std::fabs(wrapped[i] - ww)));
    // Exact weights; what is left is the rounding of the blend (done below fp32 precision by
    // some texture units, hence 1e-4 rather than a few ulp).
    if (!close_to(clamped[i], wc, 1e-4, 1e-4))
      status = verdict("texture", false, "clamp at (%g,%g) = %.7g, want %.7g", coords[i].x,
                       coords[i].y, clamped[i], wc);
    else if (!close_to(wrapped[i], ww, 1e-4, 1e-4))
      status = verdict("texture", false, "wrap at (%g,%g) = %.7g, want %.7g", coords[i].x,
                       coords[i].y, wrapped[i], ww);
  }
  for (int y = 0; y < height && status < 0; ++y)
    for (int x = 0; x < width && status < 0; ++x) {
      float want = 100.0f * x + y;
      if (surface_back[y * width + x] != want || fetched[y * width + x] != want)
        status = verdict("texture", false, "surface (%d,%d): read back %g, fetched %g, want %g", x,
                         y, surface_back[y * width + x], fetched[y * width + x], want);
    }
  if (status < 0)
    status = verdict("texture", true, "%dx%d, %d linear samples clamp+wrap (max err %.2g), surface ok",
                     width, height, n, worst);
  CHECK_CUDA(cudaDestroyTextureObject(clamp_tex));
  CHECK_CUDA(cudaDestroyTextureObject(wrap_tex));
  CHECK_CUDA(cudaDestroyTextureObject(point_tex));
  CHECK_CUDA(cudaDestroySurfaceObject(surface));
  CHECK_CUDA(cudaFreeArray(image));
  CHECK_CUDA(cudaFreeArray(surface_image));
  CHECK_CUDA(cudaFree(dcoords));
  CHECK_CUDA(cudaFree(dclamped));
  CHECK_CUDA(cudaFree(dwrapped));
  CHECK_CUDA(cudaFree(dfetched));
  delete[] texels;
  delete[] coords;
  delete[] clamped;
  delete[] wrapped;
  delete[] surface_back;
  delete[] fetched;
  return status;
}
