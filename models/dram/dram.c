/* dram — the parts every DRAM fidelity variant shares: the -gpgpu_dram_timing_opt parser, config
 * defaults, derived turnarounds, consistency checks, the per-channel model choice and the factory
 * that dispatches through the dram_ops table (DESIGN.md §2). */
#include "dram.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_TIMING "-gpgpu_dram_timing_opt"

struct dram {
  const dram_ops *ops;
  void *impl;
};

/* ---- -gpgpu_dram_timing_opt ---------------------------------------------------------------------- */

typedef struct timing_field {
  const char *name; /* the named form's key (GPGPU-Sim spelling) */
  size_t offset;
  bool optional;    /* bank-group fields may be omitted */
} timing_field;

/* The ordered form lists the fields in this order. */
static const timing_field k_fields[] = {
    {"nbk", offsetof(dram_timing, nbk), false},     {"CCD", offsetof(dram_timing, tCCD), false},
    {"RRD", offsetof(dram_timing, tRRD), false},    {"RCD", offsetof(dram_timing, tRCD), false},
    {"RAS", offsetof(dram_timing, tRAS), false},    {"RP", offsetof(dram_timing, tRP), false},
    {"RC", offsetof(dram_timing, tRC), false},      {"CL", offsetof(dram_timing, CL), false},
    {"WL", offsetof(dram_timing, WL), false},       {"CDLR", offsetof(dram_timing, tCDLR), false},
    {"WR", offsetof(dram_timing, tWR), false},      {"nbkgrp", offsetof(dram_timing, nbkgrp), true},
    {"CCDL", offsetof(dram_timing, tCCDL), true},   {"RTPL", offsetof(dram_timing, tRTPL), true},
};
#define N_FIELDS (sizeof k_fields / sizeof k_fields[0])

static simtvp_status timing_error(simtvp_diag *diag, const char *field, const char *fmt,
                                  const char *arg) {
  char what[256];
  snprintf(what, sizeof what, fmt, arg ? arg : "");
  if (field)
    simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s: field '%s': %s", OPT_TIMING, field, what);
  else
    simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s: %s", OPT_TIMING, what);
  simtvp_diag_at_option(diag, OPT_TIMING);
  return SIMTVP_ERR_PARSE;
}

/* Copies text without whitespace and quotes into buf. */
static bool compact(const char *text, char *buf, size_t cap) {
  size_t n = 0;
  for (const char *p = text; *p; p++) {
    if (isspace((unsigned char)*p) || *p == '"' || *p == '\'') continue;
    if (n + 1 >= cap) return false;
    buf[n++] = *p;
  }
  buf[n] = 0;
  return true;
}

/* Parses an unsigned decimal that must fill [s, e). */
static bool parse_u32(const char *s, const char *e, uint32_t *out) {
  if (s == e) return false;
  uint64_t v = 0;
  for (const char *p = s; p < e; p++) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + (uint64_t)(*p - '0');
    if (v > 1000000) return false; /* no DRAM timing is a million cycles */
  }
  *out = (uint32_t)v;
  return true;
}

static uint32_t *field_ptr(dram_timing *t, size_t i) {
  return (uint32_t *)((char *)t + k_fields[i].offset);
}

simtvp_status dram_timing_parse(const char *text, dram_timing *out, simtvp_diag *diag) {
  char buf[512];
  if (!text || !out) return timing_error(diag, NULL, "no value given%s", NULL);
  if (!compact(text, buf, sizeof buf)) return timing_error(diag, NULL, "value too long%s", NULL);
  if (!buf[0]) return timing_error(diag, NULL, "empty value%s", NULL);

  dram_timing t;
  memset(&t, 0, sizeof t);
  t.nbkgrp = 1; /* bank groups are off unless given */
  bool seen[N_FIELDS] = {false};
  bool named = strchr(buf, '=') != NULL;
  size_t index = 0;
  char *p = buf;
  while (1) {
    char *end = strchr(p, ':');
    if (!end) end = p + strlen(p);
    char token[64];
    size_t len = (size_t)(end - p);
    if (len >= sizeof token) len = sizeof token - 1;
    memcpy(token, p, len);
    token[len] = 0;
    if (named) {
      char *eq = strchr(token, '=');
      if (!eq) return timing_error(diag, NULL, "expected key=value, got '%s'", token);
      *eq = 0;
      const char *key = token;
      if ((key[0] == 't' || key[0] == 'T') && strcmp(key, "nbk") && strcmp(key, "nbkgrp")) key++;
      size_t f = 0;
      while (f < N_FIELDS && strcmp(k_fields[f].name, key) != 0) f++;
      if (f == N_FIELDS) return timing_error(diag, token, "unknown field%s", NULL);
      if (seen[f]) return timing_error(diag, k_fields[f].name, "given twice%s", NULL);
      if (!parse_u32(eq + 1, eq + 1 + strlen(eq + 1), field_ptr(&t, f)))
        return timing_error(diag, k_fields[f].name, "expected an unsigned integer, got '%s'",
                            eq + 1);
      seen[f] = true;
    } else {
      if (index == N_FIELDS)
        return timing_error(diag, NULL, "more than 14 fields (extra value '%s')", token);
      if (!parse_u32(token, token + strlen(token), field_ptr(&t, index)))
        return timing_error(diag, k_fields[index].name, "expected an unsigned integer, got '%s'",
                            token);
      seen[index++] = true;
    }
    if (!*end) break;
    p = end + 1;
  }
  for (size_t f = 0; f < N_FIELDS; f++)
    if (!seen[f] && !k_fields[f].optional) return timing_error(diag, k_fields[f].name, "missing%s", NULL);
  if (t.nbk == 0) return timing_error(diag, "nbk", "must be at least 1%s", NULL);
  if (t.nbkgrp == 0) return timing_error(diag, "nbkgrp", "must be at least 1%s", NULL);
  if (t.nbk % t.nbkgrp) return timing_error(diag, "nbkgrp", "must divide nbk%s", NULL);
  *out = t;
  return SIMTVP_OK;
}

/* ---- configuration --------------------------------------------------------------------------------- */

void dram_config_default(dram_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->model = "ca";
  /* The manual's named example timing (GDDR5-class, command clock). */
  cfg->timing = (dram_timing){.nbk = 16, .tCCD = 2, .tRRD = 6, .tRCD = 12, .tRAS = 28, .tRP = 12,
                              .tRC = 40, .CL = 12, .WL = 4, .tCDLR = 5, .tWR = 12, .nbkgrp = 1,
                              .tCCDL = 0, .tRTPL = 0};
  cfg->bus_width_bytes = 4;        /* GTX480 config: 32-bit chips */
  cfg->burst_length = 8;           /* GDDR5 BL8 */
  cfg->data_command_freq_ratio = 4; /* GDDR5: 4 data beats per command clock */
  cfg->chips_per_channel = 2;
  cfg->scheduler = DRAM_SCHED_FRFCFS;
  cfg->sched_queue_size = 16;
  cfg->return_queue_size = 0;
  cfg->write_queue_size = 32;
  cfg->write_high_watermark = 28;
  cfg->write_low_watermark = 16;
}

void dram_derive(const dram_config *cfg, dram_derived *d) {
  const dram_timing *t = &cfg->timing;
  uint32_t ratio = cfg->data_command_freq_ratio ? cfg->data_command_freq_ratio : 1;
  uint32_t burst = (cfg->burst_length + ratio - 1) / ratio;
  if (burst == 0) burst = 1;
  d->burst_cycles = burst;
  d->atom_bytes = cfg->burst_length * cfg->bus_width_bytes *
                  (cfg->chips_per_channel ? cfg->chips_per_channel : 1);
  /* GPGPU-Sim's derived turnarounds: the 2 is the data-bus turnaround bubble. */
  int64_t rtw = (int64_t)t->CL + burst + 2 - (int64_t)t->WL;
  d->tRTW = rtw > 0 ? (uint32_t)rtw : 0;
  d->tWTR = t->WL + burst + t->tCDLR;
  d->tWTP = t->WL + burst + t->tWR;
  d->tRTP = burst;
  d->tCCDL = (t->nbkgrp > 1 && t->tCCDL > t->tCCD) ? t->tCCDL : t->tCCD;
}

static simtvp_status config_error(simtvp_diag *diag, const char *option, const char *what) {
  return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, option, "%s", what);
}

simtvp_status dram_config_check(const dram_config *cfg, simtvp_diag *diag) {
  const dram_timing *t = &cfg->timing;
  if (t->nbk == 0 || t->nbk > 1024) return config_error(diag, OPT_TIMING, "nbk must be 1..1024");
  if (t->nbkgrp == 0 || t->nbk % t->nbkgrp)
    return config_error(diag, OPT_TIMING, "nbkgrp must divide nbk");
  if (cfg->bus_width_bytes == 0)
    return config_error(diag, "-gpgpu_dram_buswidth", "must be at least 1 byte");
  if (cfg->burst_length == 0)
    return config_error(diag, "-gpgpu_dram_burst_length", "must be at least 1");
  if (cfg->data_command_freq_ratio == 0)
    return config_error(diag, "-dram_data_command_freq_ratio", "must be at least 1");
  if (cfg->scheduler != DRAM_SCHED_FIFO && cfg->scheduler != DRAM_SCHED_FRFCFS)
    return config_error(diag, "-gpgpu_dram_scheduler", "must be 0 (FIFO) or 1 (FR-FCFS)");
  if (cfg->bank_indexing > 1)
    return config_error(diag, "-dram_bnk_indexing_policy", "must be 0 (linear) or 1 (xor)");
  if (cfg->bank_group_indexing > 1)
    return config_error(diag, "-dram_bnkgrp_indexing_policy", "must be 0 (upper) or 1 (lower)");
  if (cfg->separate_write_queue) {
    if (cfg->write_low_watermark > cfg->write_high_watermark)
      return config_error(diag, "-dram_write_queue_size", "low watermark above high watermark");
    if (cfg->write_queue_size && cfg->write_high_watermark > cfg->write_queue_size)
      return config_error(diag, "-dram_write_queue_size", "high watermark above queue size");
    if (cfg->write_high_watermark == 0)
      return config_error(diag, "-dram_write_queue_size", "high watermark must be at least 1");
  }
  if (cfg->tREFI && cfg->tRFC >= cfg->tREFI)
    return config_error(diag, "-dram_tREFI", "tRFC must be shorter than tREFI");
  if (!cfg->addrmap)
    return config_error(diag, "-gpgpu_mem_addr_mapping", "the controller needs an address map");
  if ((1ull << dram_addrmap_bank_bits(cfg->addrmap)) > t->nbk)
    return config_error(diag, "-gpgpu_mem_addr_mapping",
                        "the map has more bank bits than -gpgpu_dram_timing_opt nbk allows");
  return SIMTVP_OK;
}

/* ---- per-channel model choice -------------------------------------------------------------------- */

static bool model_known(const char *s, size_t n) {
  return (n == 2 && (strncmp(s, "ca", 2) == 0 || strncmp(s, "at", 2) == 0));
}

simtvp_status dram_model_for_channel(const char *spec, uint32_t channel, const char **model,
                                     simtvp_diag *diag) {
  static const char *const k_names[2] = {"ca", "at"};
  const char *opt = "-dram_model";
  if (!spec) {
    *model = "ca";
    return SIMTVP_OK;
  }
  char buf[512];
  if (!compact(spec, buf, sizeof buf)) return config_error(diag, opt, "value too long");
  char *p = buf, *semi = strchr(p, ';');
  size_t n = semi ? (size_t)(semi - p) : strlen(p);
  if (!model_known(p, n)) return config_error(diag, opt, "default model must be 'ca' or 'at'");
  const char *chosen = strncmp(p, "ca", 2) == 0 ? k_names[0] : k_names[1];
  while (semi) {
    p = semi + 1;
    semi = strchr(p, ';');
    size_t len = semi ? (size_t)(semi - p) : strlen(p);
    char item[64];
    if (len >= sizeof item) return config_error(diag, opt, "override too long");
    memcpy(item, p, len);
    item[len] = 0;
    char *eq = strchr(item, '=');
    if (!eq || !model_known(eq + 1, strlen(eq + 1)))
      return config_error(diag, opt, "override must be <first>[-<last>]=ca|at");
    *eq = 0;
    char *dash = strchr(item, '-');
    uint32_t lo, hi;
    if (dash) {
      if (!parse_u32(item, dash, &lo) || !parse_u32(dash + 1, dash + 1 + strlen(dash + 1), &hi) ||
          hi < lo)
        return config_error(diag, opt, "bad channel range in override");
    } else if (!parse_u32(item, item + strlen(item), &lo)) {
      return config_error(diag, opt, "bad channel index in override");
    } else {
      hi = lo;
    }
    if (channel >= lo && channel <= hi) chosen = strcmp(eq + 1, "ca") == 0 ? k_names[0] : k_names[1];
  }
  *model = chosen;
  return SIMTVP_OK;
}

/* ---- factory and dispatch ------------------------------------------------------------------------- */

const dram_ops *dram_find_ops(const char *model) {
  if (!model) return NULL;
  if (strcmp(model, dram_ca_ops.name) == 0) return &dram_ca_ops;
  if (strcmp(model, dram_at_ops.name) == 0) return &dram_at_ops;
  return NULL;
}

simtvp_status dram_create(const dram_config *cfg, dram_ports ports, dram **out, simtvp_diag *diag) {
  *out = NULL;
  const dram_ops *ops = dram_find_ops(cfg->model);
  if (!ops) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "-dram_model: unknown DRAM model '%s' (ca or at)",
                    cfg->model ? cfg->model : "(null)");
    simtvp_diag_at_option(diag, "-dram_model");
    return SIMTVP_ERR_CONFIG;
  }
  simtvp_status st = dram_config_check(cfg, diag);
  if (st != SIMTVP_OK) return st;
  dram *d = calloc(1, sizeof *d);
  if (!d) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  d->ops = ops;
  st = ops->create(cfg, ports, &d->impl, diag);
  if (st != SIMTVP_OK) {
    free(d);
    return st;
  }
  *out = d;
  return SIMTVP_OK;
}

void dram_destroy(dram *d) {
  if (!d) return;
  d->ops->destroy(d->impl);
  free(d);
}

const char *dram_model_name(const dram *d) { return d->ops->name; }
bool dram_can_accept(const dram *d, bool is_write) { return d->ops->can_accept(d->impl, is_write); }
bool dram_push(dram *d, mem_req *req, uint64_t now) { return d->ops->push(d->impl, req, now); }
void dram_advance(dram *d, uint64_t now) { d->ops->advance(d->impl, now); }
uint64_t dram_next_event(const dram *d) { return d->ops->next_event(d->impl); }
void dram_complete_ready(dram *d) { d->ops->complete_ready(d->impl); }
void dram_get_stats(const dram *d, dram_stats *out) { d->ops->get_stats(d->impl, out); }
