/* exec_tex — texture and surface instructions through texture/surface objects (PTX ISA 9.7.10
 * tex, tld4, txq; 9.7.11 suld, sust, suq). The handle operand is the device address of a
 * func_tex_desc (func_tex.h); sampling follows the CUDA Programming Guide's "Texture Fetching"
 * appendix: point sampling, linear filtering with 8-bit weight fractions, wrap/clamp/mirror/border
 * addressing, normalised coordinates and the normalised-float read mode. Only the base mip level
 * exists (tex.level / tex.grad sample level 0). Legacy .texref/.surfref bindings are not supported. */
#include <inttypes.h>
#include <math.h>

#include "alu.h"
#include "func_internal.h"
#include "func_tex.h"

enum { TX_INT_RESULT = 1, TX_INT_COORDS = 2, TX_HAS_PRED = 4 };

typedef struct fx_tex {
  uint32_t dst[4];      /* destination rows */
  uint8_t dst_skip[4], n_dst;
  uint32_t crd[4];      /* coordinate rows */
  uint8_t n_crd;
  uint8_t geom;
  uint8_t component;    /* tld4 */
  uint8_t clamp_mode;   /* surfaces: ptx_surf_clamp */
  uint8_t bytes;        /* surfaces: element bytes */
  uint8_t vec;
} fx_tex;

/* ---- descriptors and texels ----------------------------------------------------------------------- */

static bool read_desc(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t handle, func_tex_desc *t) {
  if (!fx_dev_read(w, handle, t, sizeof *t, NULL) || t->magic != FUNC_TEX_MAGIC) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, handle,
             "0x%" PRIx64 " is not a texture or surface object (no descriptor there)", handle);
    return false;
  }
  if (!t->width) t->width = 1;
  if (!t->height) t->height = 1;
  if (!t->depth) t->depth = 1;
  if (!t->layers) t->layers = 1;
  if (t->channels != 1 && t->channels != 2 && t->channels != 4) t->channels = 1;
  return true;
}

static uint32_t chan_bytes(const func_tex_desc *t) {
  uint32_t n = ptx_type_bytes((ptx_type)t->channel_type);
  return n ? n : 4;
}

static uint64_t texel_addr(const func_tex_desc *t, int x, int y, int z, int layer) {
  return t->data + (uint64_t)layer * t->layer_pitch + (uint64_t)z * t->slice_pitch + (uint64_t)y * t->pitch +
         (uint64_t)x * chan_bytes(t) * t->channels;
}

/* Reads a texel's channels as raw 32-bit values (integers sign/zero-extended, f16 as bits). */
static bool fetch_raw(fx_warp *w, const fx_insn *in, uint32_t lane, const func_tex_desc *t, int x, int y, int z,
                      int layer, uint32_t raw[4]) {
  uint8_t buf[32];
  uint32_t cb = chan_bytes(t), n = cb * t->channels;
  uint64_t a = texel_addr(t, x, y, z, layer);
  /* The step record gets the lane's first texel read (timing models time the texture access by
   * it); tex_h marks the lane's slot UINT64_MAX before sampling. */
  if (w->rec && w->rec->addr[lane] == UINT64_MAX) w->rec->addr[lane] = a;
  if (!fx_dev_read(w, a, buf, n, NULL)) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, a, "texel (%d,%d,%d) at 0x%" PRIx64 " is not mapped", x, y, z, a);
    return false;
  }
  for (uint32_t c = 0; c < 4; c++) {
    if (c >= t->channels) {
      raw[c] = 0;
      continue;
    }
    raw[c] = (uint32_t)fx_load_le(buf + c * cb, cb, ptx_type_is_signed((ptx_type)t->channel_type));
  }
  return true;
}

static float chan_float(const func_tex_desc *t, uint32_t raw) {
  switch (t->channel_type) {
  case PTX_TYPE_F32: return alu_f32(raw);
  case PTX_TYPE_F16: return alu_f32(alu_cvt_f32_f16((uint16_t)raw));
  case PTX_TYPE_U8: return t->read_normalized ? (float)(raw & 0xff) / 255.0f : (float)(raw & 0xff);
  case PTX_TYPE_U16: return t->read_normalized ? (float)(raw & 0xffff) / 65535.0f : (float)(raw & 0xffff);
  case PTX_TYPE_S8: {
    float v = (float)(int8_t)raw;
    return t->read_normalized ? fmaxf(v / 127.0f, -1.0f) : v;
  }
  case PTX_TYPE_S16: {
    float v = (float)(int16_t)raw;
    return t->read_normalized ? fmaxf(v / 32767.0f, -1.0f) : v;
  }
  case PTX_TYPE_S32: return (float)(int32_t)raw;
  default: return (float)raw;
  }
}

static bool fetch_float(fx_warp *w, const fx_insn *in, uint32_t lane, const func_tex_desc *t, int x, int y, int z,
                        int layer, float out[4]) {
  uint32_t raw[4];
  if (!fetch_raw(w, in, lane, t, x, y, z, layer, raw)) return false;
  for (uint32_t c = 0; c < 4; c++) out[c] = c < t->channels ? chan_float(t, raw[c]) : (c == 3 ? 1.0f : 0.0f);
  return true;
}

/* floor() to int without undefined behaviour for huge values or NaN (which sample texel 0). */
static inline int ffloor(float v) {
  if (!(v == v)) return 0;
  if (v > 1073741824.0f) return 1073741824;
  if (v < -1073741824.0f) return -1073741824;
  return (int)floorf(v);
}

/* Integer texel index under an address mode; false when the texel is outside (border). */
static bool address(int i, int size, uint8_t mode, int *out) {
  switch (mode) {
  case FUNC_TEX_ADDR_WRAP: *out = ((i % size) + size) % size; return true;
  case FUNC_TEX_ADDR_MIRROR: {
    int p = ((i % (2 * size)) + 2 * size) % (2 * size);
    *out = p < size ? p : 2 * size - 1 - p;
    return true;
  }
  case FUNC_TEX_ADDR_BORDER:
    *out = i;
    return i >= 0 && i < size;
  default:
    *out = i < 0 ? 0 : i >= size ? size - 1 : i;
    return true;
  }
}

/* Wrap and mirror need normalised coordinates in CUDA; otherwise they act as clamp. */
static uint8_t mode_of(const func_tex_desc *t, int d) {
  uint8_t m = t->address[d];
  if (!t->normalized_coords && (m == FUNC_TEX_ADDR_WRAP || m == FUNC_TEX_ADDR_MIRROR)) return FUNC_TEX_ADDR_CLAMP;
  return m;
}

/* Samples texel (ix, iy, iz) with address modes; border texels give the border colour. */
static bool sample_at(fx_warp *w, const fx_insn *in, uint32_t lane, const func_tex_desc *t, int ix, int iy, int iz,
                      int layer, float out[4]) {
  int size[3] = {(int)t->width, (int)t->height, (int)t->depth}, idx[3] = {ix, iy, iz}, r[3] = {0, 0, 0};
  for (int d = 0; d < 3; d++) {
    if (d >= t->dims) break;
    if (!address(idx[d], size[d], mode_of(t, d), &r[d])) {
      memcpy(out, t->border, sizeof t->border);
      return true;
    }
  }
  return fetch_float(w, in, lane, t, r[0], r[1], r[2], layer, out);
}

/* Filtered sample at float coordinates (texel units are computed here). */
static bool sample(fx_warp *w, const fx_insn *in, uint32_t lane, const func_tex_desc *t, const float *crd, int layer,
                   float out[4]) {
  float pos[3] = {0, 0, 0};
  int size[3] = {(int)t->width, (int)t->height, (int)t->depth};
  for (int d = 0; d < t->dims && d < 3; d++) {
    float u = crd[d];
    if (t->normalized_coords) {
      uint8_t m = mode_of(t, d);
      if (m == FUNC_TEX_ADDR_WRAP) u -= floorf(u);
      else if (m == FUNC_TEX_ADDR_MIRROR) {
        float f = u - 2.0f * floorf(u * 0.5f);
        u = f < 1.0f ? f : 2.0f - f;
      }
      u *= (float)size[d];
    }
    pos[d] = u;
  }
  if (t->filter != FUNC_TEX_FILTER_LINEAR) {
    int i[3] = {ffloor(pos[0]), ffloor(pos[1]), ffloor(pos[2])};
    return sample_at(w, in, lane, t, i[0], i[1], i[2], layer, out);
  }
  int i0[3] = {0, 0, 0};
  float a[3] = {0, 0, 0};
  for (int d = 0; d < t->dims && d < 3; d++) {
    float x = pos[d] - 0.5f, f = floorf(x);
    i0[d] = ffloor(x);
    a[d] = x == x && f == f ? roundf((x - f) * 256.0f) / 256.0f : 0.0f; /* 8-bit weight fraction */
  }
  for (int c = 0; c < 4; c++) out[c] = 0.0f;
  int nz = t->dims >= 3 ? 2 : 1, ny = t->dims >= 2 ? 2 : 1;
  for (int dz = 0; dz < nz; dz++)
    for (int dy = 0; dy < ny; dy++)
      for (int dx = 0; dx < 2; dx++) {
        float wgt = (dx ? a[0] : 1.0f - a[0]) * (t->dims >= 2 ? (dy ? a[1] : 1.0f - a[1]) : 1.0f) *
                    (t->dims >= 3 ? (dz ? a[2] : 1.0f - a[2]) : 1.0f);
        float v[4];
        if (!sample_at(w, in, lane, t, i0[0] + dx, i0[1] + dy, i0[2] + dz, layer, v)) return false;
        for (int c = 0; c < 4; c++) out[c] += wgt * v[c];
      }
  return true;
}

/* Cubemap direction to face and face coordinates in [0,1] (CUDA Programming Guide, "Cubemap"). */
static int cube_face(const float *v, float *s, float *t) {
  float x = v[0], y = v[1], z = v[2], ax = fabsf(x), ay = fabsf(y), az = fabsf(z), ma, sc, tc;
  int face;
  if (ax >= ay && ax >= az) face = x >= 0 ? 0 : 1, ma = ax, sc = x >= 0 ? -z : z, tc = -y;
  else if (ay >= az) face = y >= 0 ? 2 : 3, ma = ay, sc = x, tc = y >= 0 ? z : -z;
  else face = z >= 0 ? 4 : 5, ma = az, sc = z >= 0 ? x : -x, tc = -y;
  *s = ma > 0 ? (sc / ma + 1.0f) * 0.5f : 0.5f;
  *t = ma > 0 ? (tc / ma + 1.0f) * 0.5f : 0.5f;
  return face;
}

/* ---- tex / tld4 / txq -------------------------------------------------------------------------------- */

static void write_result(fx_warp *w, const fx_tex *x, uint32_t lane, const uint32_t v[4]) {
  for (uint32_t c = 0; c < x->n_dst; c++)
    if (!x->dst_skip[c]) FX_R32(w, x->dst[c])[lane] = v[c];
}

static void tex_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  const fx_tex *x = in->ext;
  const uint64_t *H = FX_R64(w, in->o[1]);
  func_tex_desc t;
  uint64_t have = 0;
  bool loaded = false;
  if (w->rec) {
    w->rec->is_load = true;
    w->rec->space = PTX_SPACE_TEX;
    w->rec->mem_mask = m;
  }
  FX_FOR_LANES(lane, m) {
    if (!loaded || H[lane] != have) {
      if (!read_desc(w, in, lane, H[lane], &t)) return;
      have = H[lane];
      loaded = true;
    }
    uint32_t raw[4] = {0, 0, 0, 0};
    uint32_t cr[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < x->n_crd; k++) cr[k] = FX_R32(w, x->crd[k])[lane];
    float crd[4] = {0, 0, 0, 0};
    int layer = 0, first = 0;
    if (x->geom == PTX_GEOM_A1D || x->geom == PTX_GEOM_A2D) {
      layer = (int)cr[0];
      layer = layer < 0 ? 0 : layer >= (int)t.layers ? (int)t.layers - 1 : layer;
      first = 1;
    }
    for (uint32_t k = first; k < x->n_crd; k++)
      crd[k - first] = (in->flags & TX_INT_COORDS) ? (float)(int32_t)cr[k] : alu_f32(cr[k]);
    if (x->geom == PTX_GEOM_CUBE) {
      float s, tt;
      layer = cube_face(crd, &s, &tt);
      crd[0] = s * (t.normalized_coords ? 1.0f : (float)t.width);
      crd[1] = tt * (t.normalized_coords ? 1.0f : (float)t.height);
    }
    if (w->rec) {
      w->rec->addr[lane] = UINT64_MAX; /* filled by the first texel fetch_raw reads */
      w->rec->access_bytes = (uint16_t)(chan_bytes(&t) * t.channels);
    }
    if (in->aux2) { /* tld4 */
      /* gather: component of the four texels of the bilinear footprint, in the order
       * (i0,j1) (i1,j1) (i1,j0) (i0,j0) */
      float u = crd[0], v = crd[1];
      if (t.normalized_coords) u *= (float)t.width, v *= (float)t.height;
      int i0 = ffloor(u - 0.5f), j0 = ffloor(v - 0.5f);
      int pts[4][2] = {{i0, j0 + 1}, {i0 + 1, j0 + 1}, {i0 + 1, j0}, {i0, j0}};
      for (int q = 0; q < 4; q++) {
        float val[4];
        if (!sample_at(w, in, lane, &t, pts[q][0], pts[q][1], 0, layer, val)) return;
        raw[q] = (in->flags & TX_INT_RESULT) ? (uint32_t)(int32_t)val[x->component] : alu_f32_bits(val[x->component]);
      }
    } else if (in->flags & (TX_INT_RESULT | TX_INT_COORDS)) {
      /* integer results (element reads of integer textures) or integer coordinates (tex1Dfetch,
       * unnormalised texel coordinates): point sampling of raw texels */
      int i[3] = {0, 0, 0};
      for (int d = 0; d < t.dims && d < 3; d++) {
        float u = crd[d];
        if (t.normalized_coords && !(in->flags & TX_INT_COORDS)) u *= d == 0 ? (float)t.width : d == 1 ? (float)t.height : (float)t.depth;
        int size = d == 0 ? (int)t.width : d == 1 ? (int)t.height : (int)t.depth;
        int r;
        /* linear memory (tex1Dfetch) has no address modes: outside it reads as zero */
        uint8_t mode = t.resource == FUNC_TEX_RES_LINEAR ? FUNC_TEX_ADDR_BORDER : mode_of(&t, d);
        if (!address(ffloor(u), size, mode, &r)) r = -1;
        i[d] = r;
      }
      bool out = i[0] < 0 || i[1] < 0 || i[2] < 0;
      if (out) {
        memset(raw, 0, sizeof raw);
      } else if (in->flags & TX_INT_RESULT) {
        if (!fetch_raw(w, in, lane, &t, i[0], i[1], i[2], layer, raw)) return;
      } else {
        float f[4];
        if (!fetch_float(w, in, lane, &t, i[0], i[1], i[2], layer, f)) return;
        for (int c = 0; c < 4; c++) raw[c] = alu_f32_bits(f[c]);
      }
    } else {
      float f[4];
      if (!sample(w, in, lane, &t, crd, layer, f)) return;
      for (int c = 0; c < 4; c++) raw[c] = alu_f32_bits(f[c]);
    }
    /* no texel read (every footprint texel outside with a border): the texture's first texel */
    if (w->rec && w->rec->addr[lane] == UINT64_MAX) w->rec->addr[lane] = texel_addr(&t, 0, 0, 0, layer);
    write_result(w, x, lane, raw);
  }
}

static void txq_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  const uint64_t *H = FX_R64(w, in->o[1]);
  uint32_t *D = FX_R32(w, in->o[0]);
  FX_FOR_LANES(lane, m) {
    func_tex_desc t;
    if (!read_desc(w, in, lane, H[lane], &t)) return;
    uint32_t v = 0;
    switch (in->aux) {
    case PTX_TXQ_WIDTH: v = t.width; break;
    case PTX_TXQ_HEIGHT: v = t.height; break;
    case PTX_TXQ_DEPTH: v = t.depth; break;
    case PTX_TXQ_NORMALIZED_COORDS: v = t.normalized_coords; break;
    case PTX_TXQ_FILTER_MODE: v = t.filter; break;
    case PTX_TXQ_ADDR_MODE_0: v = t.address[0]; break;
    case PTX_TXQ_ADDR_MODE_1: v = t.address[1]; break;
    case PTX_TXQ_ADDR_MODE_2: v = t.address[2]; break;
    case PTX_TXQ_NUM_MIPMAP_LEVELS: v = 1; break;
    case PTX_TXQ_NUM_SAMPLES: v = 1; break;
    case PTX_TXQ_ARRAY_SIZE: v = t.layers; break;
    default: v = 0; break;
    }
    D[lane] = v;
  }
}

/* ---- suld / sust --------------------------------------------------------------------------------------- */

/* Device address of a surface access (x in bytes, y/z in elements), applying the clamp mode;
 * false when the access is dropped (.zero) — or faulted (.trap). */
static bool surf_addr(fx_warp *w, const fx_insn *in, uint32_t lane, const func_tex_desc *t, const fx_tex *x,
                      const uint32_t *cr, uint32_t bytes, uint64_t *a) {
  int first = (x->geom == PTX_GEOM_A1D || x->geom == PTX_GEOM_A2D) ? 1 : 0;
  int layer = first ? (int)cr[0] : 0;
  int c[3] = {0, 0, 0};
  for (int k = first; k < x->n_crd && k - first < 3; k++) c[k - first] = (int32_t)cr[k];
  int64_t row_bytes = (int64_t)t->width * chan_bytes(t) * t->channels;
  int64_t lim[3] = {row_bytes - (int64_t)bytes, (int64_t)t->height - 1, (int64_t)t->depth - 1};
  bool out = layer < 0 || layer >= (int)t->layers;
  for (int d = 0; d < 3; d++) {
    if (d >= t->dims) {
      c[d] = 0;
      continue;
    }
    if (c[d] < 0 || c[d] > lim[d]) {
      if (x->clamp_mode == PTX_SURF_CLAMP) c[d] = c[d] < 0 ? 0 : (int)lim[d];
      else out = true;
    }
  }
  if (out) {
    if (x->clamp_mode == PTX_SURF_TRAP) {
      fx_fault(w, in, lane, SIMTVP_ERR_FAULT, false, 0, "surface access at (%d,%d,%d) layer %d is out of range (.trap)",
               c[0], c[1], c[2], layer);
    }
    return false;
  }
  *a = t->data + (uint64_t)layer * t->layer_pitch + (uint64_t)c[2] * t->slice_pitch + (uint64_t)c[1] * t->pitch +
       (uint64_t)c[0];
  return true;
}

static void surf_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  const fx_tex *x = in->ext;
  const uint64_t *H = FX_R64(w, in->o[1]);
  bool store = in->flags & 8;
  uint32_t bytes = x->bytes * x->vec;
  if (w->rec) {
    w->rec->is_load = !store;
    w->rec->is_store = store;
    w->rec->space = PTX_SPACE_GLOBAL;
    w->rec->mem_mask = m;
    w->rec->access_bytes = (uint16_t)bytes;
  }
  FX_FOR_LANES(lane, m) {
    func_tex_desc t;
    if (!read_desc(w, in, lane, H[lane], &t)) return;
    uint32_t cr[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < x->n_crd; k++) cr[k] = FX_R32(w, x->crd[k])[lane];
    uint64_t a;
    uint8_t buf[32] = {0};
    if (!surf_addr(w, in, lane, &t, x, cr, bytes, &a)) {
      if (w->stop) return;
      if (!store)
        for (uint32_t k = 0; k < x->vec; k++)
          if (!x->dst_skip[k]) FX_R32(w, x->dst[k])[lane] = 0;
      continue;
    }
    if (w->rec) w->rec->addr[lane] = a;
    bool st;
    if (store) {
      for (uint32_t k = 0; k < x->vec; k++) {
        uint64_t v = x->bytes == 8 ? FX_R64(w, x->dst[k])[lane] : FX_R32(w, x->dst[k])[lane];
        memcpy(buf + k * x->bytes, &v, x->bytes);
      }
      st = fx_dev_write(w, a, buf, bytes, NULL);
    } else {
      st = fx_dev_read(w, a, buf, bytes, NULL);
      if (st)
        for (uint32_t k = 0; k < x->vec; k++) {
          if (x->dst_skip[k]) continue;
          uint64_t v = fx_load_le(buf + k * x->bytes, x->bytes, false);
          if (x->bytes == 8) FX_R64(w, x->dst[k])[lane] = v;
          else FX_R32(w, x->dst[k])[lane] = (uint32_t)v;
        }
    }
    if (!st) {
      fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, a, "surface %s at 0x%" PRIx64 " is not mapped", store ? "store" : "load", a);
      return;
    }
  }
  if (store) w->counts->stores[PTX_SPACE_GLOBAL]++;
  else w->counts->loads[PTX_SPACE_GLOBAL]++;
}

/* ---- builders ------------------------------------------------------------------------------------------ */

static simtvp_status handle_operand(fx_build *b, const ptx_operand *op) {
  if (op->kind == PTX_OPND_ADDR && op->base_sym == PTX_NONE && op->index != PTX_NONE && op->rclass == PTX_RC_B64) {
    ptx_operand r = *op;
    r.kind = PTX_OPND_REG;
    return fx_src_op(b, &r, PTX_TYPE_U64, &b->out->o[1]);
  }
  if (op->kind == PTX_OPND_REG && op->rclass == PTX_RC_B64) return fx_src_op(b, op, PTX_TYPE_U64, &b->out->o[1]);
  return fx_unsupported(b, "texture/surface references (.texref/.surfref) are not supported; use texture objects");
}

static simtvp_status vec_rows(fx_build *b, const ptx_operand *op, bool dst, ptx_type t, uint32_t *rows, uint8_t *skip,
                              uint8_t *n, uint32_t max) {
  const ptx_operand *el = op->kind == PTX_OPND_VEC ? fx_vec_elems(b, op) : op;
  uint32_t cnt = op->kind == PTX_OPND_VEC ? op->count : 1;
  if (cnt > max) return fx_unsupported(b, "too many vector elements");
  for (uint32_t k = 0; k < cnt; k++) {
    if (el[k].kind == PTX_OPND_SINK) {
      if (skip) skip[k] = 1;
      continue;
    }
    simtvp_status st = dst ? fx_dst_op(b, &el[k], &rows[k]) : fx_src_op(b, &el[k], t, &rows[k]);
    if (st != SIMTVP_OK) return st;
  }
  *n = (uint8_t)cnt;
  return SIMTVP_OK;
}

static simtvp_status build_tex(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  fx_tex *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  if (pi->nops < 3) return fx_unsupported(b, "tex needs d, [handle], coordinates");
  in->cls = FX_C_MEM;
  x->geom = pi->geom;
  if (x->geom == PTX_GEOM_2DMS || x->geom == PTX_GEOM_A2DMS || x->geom == PTX_GEOM_ACUBE)
    return fx_unsupported(b, "multisample and cubemap-array textures");
  ptx_type ct = (ptx_type)pi->type2;
  if (ct == PTX_TYPE_S32 || ct == PTX_TYPE_U32) in->flags |= TX_INT_COORDS;
  if (pi->type == PTX_TYPE_S32 || pi->type == PTX_TYPE_U32) in->flags |= TX_INT_RESULT;
  else if (pi->type != PTX_TYPE_F32) return fx_unsupported(b, "tex result type (f32, s32, u32 are supported)");
  simtvp_status st = vec_rows(b, &pi->ops[0], true, PTX_TYPE_B32, x->dst, x->dst_skip, &x->n_dst, 4);
  if (st == SIMTVP_OK) st = handle_operand(b, &pi->ops[1]);
  if (st == SIMTVP_OK) {
    uint8_t skip[4] = {0};
    st = vec_rows(b, &pi->ops[2], false, ct ? ct : PTX_TYPE_F32, x->crd, skip, &x->n_crd, 4);
  }
  if (st != SIMTVP_OK) return st;
  if (pi->opcode == PTX_OP_TLD4) {
    x->component = pi->sub_op == 'g' ? 1 : pi->sub_op == 'b' ? 2 : pi->sub_op == 'a' ? 3 : 0;
    in->aux2 = 1;
  }
  in->ext = x;
  in->fn = tex_h;
  return SIMTVP_OK;
}

static simtvp_status build_txq(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 2) return fx_unsupported(b, "txq needs d, [handle]");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = handle_operand(b, &pi->ops[1]);
  in->aux = pi->sub_op;
  in->fn = txq_h;
  return st;
}

static simtvp_status build_surf(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  bool store = pi->opcode == PTX_OP_SUST;
  fx_tex *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  if (pi->mods & PTX_MOD_FORMATTED) return fx_unsupported(b, "formatted surface access (.p); .b is supported");
  if (pi->nops < 3) return fx_unsupported(b, "surface access needs three operands");
  in->cls = FX_C_MEM;
  x->geom = pi->geom;
  x->clamp_mode = pi->sub_op;
  uint32_t n = ptx_type_bytes((ptx_type)pi->type);
  if (n != 1 && n != 2 && n != 4 && n != 8) return fx_unsupported(b, "surface element type");
  x->bytes = (uint8_t)n;
  const ptx_operand *h = store ? &pi->ops[0] : &pi->ops[1];
  const ptx_operand *crd = store ? &pi->ops[1] : &pi->ops[2];
  const ptx_operand *val = store ? &pi->ops[2] : &pi->ops[0];
  simtvp_status st = handle_operand(b, h);
  uint8_t skip[4] = {0};
  if (st == SIMTVP_OK) st = vec_rows(b, crd, false, PTX_TYPE_S32, x->crd, skip, &x->n_crd, 4);
  if (st == SIMTVP_OK) st = vec_rows(b, val, !store, (ptx_type)pi->type, x->dst, x->dst_skip, &x->vec, 4);
  if (st != SIMTVP_OK) return st;
  if (store) in->flags |= 8;
  in->ext = x;
  in->fn = surf_h;
  return SIMTVP_OK;
}

void fx_register_tex(fx_builder *t) {
  t[PTX_OP_TEX] = build_tex;
  t[PTX_OP_TLD4] = build_tex;
  t[PTX_OP_TXQ] = build_txq;
  t[PTX_OP_SULD] = build_surf;
  t[PTX_OP_SUST] = build_surf;
}
