/* config — option registry for GPGPU-Sim-style option files and command lines.
 *
 * Each block describes its options in a static table (config_option: name, type, default, unit,
 * description, and where the value goes: an offset into that block's plain config struct) and
 * registers the table with a registry together with the struct to fill. The registry writes every
 * default at registration, then parses option files in GPGPU-Sim's syntax (GPGPU-Sim 3.x manual,
 * "Configuration options"; the gpgpusim.config files of GPGPU-Sim 4.x / Accel-Sim) and command-line
 * overrides, later settings winning:
 *
 *     # comment to end of line
 *     -gpgpu_n_clusters 15                    name and value on one line
 *     -gpgpu_shader_core_pipeline 1536:32     values are single tokens...
 *     -gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:
 *                             CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2"
 *                                             ...or quoted; a line break inside quotes and the
 *                                             blanks around it are removed (continuation)
 *     -network_mode 2 -icnt_subnets 2         several pairs may share a line
 *     -config other.config                    includes another file (relative to this one)
 *
 * Composite values (cache strings, DRAM timing, clock domains...) are stored as text for the
 * owning block to parse; an option may carry a check function so that a malformed value is still
 * reported at its file:line. An unknown option is a warning naming it and its file:line (an error
 * in strict mode); a malformed value is always an error naming the option, the value and the
 * place. Options that simtvp accepts for compatibility but does not model are flagged in the table
 * and reported once (as information) when a file sets them. No globals: everything lives in the
 * registry, and the result depends only on the inputs. */
#ifndef SIMTVP_CONFIG_H
#define SIMTVP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C type of the stored value: INT int32_t, UINT uint32_t, UINT64 uint64_t, BOOL bool,
 * DOUBLE double, STRING char[size] (NUL-terminated), ENUM int32_t. */
typedef enum config_type {
  CONFIG_INT,
  CONFIG_UINT,
  CONFIG_UINT64,
  CONFIG_BOOL,
  CONFIG_DOUBLE,
  CONFIG_STRING,
  CONFIG_ENUM
} config_type;

/* One accepted name of an enum option; a table ends with {NULL, 0}. The number is accepted as
 * well as the name, so GPGPU-Sim's numeric settings (-gpgpu_dram_scheduler 1) keep working. */
typedef struct config_enum_value {
  const char *name;
  int32_t value;
} config_enum_value;

/* Optional extra check of a value's text (composite strings); on failure it writes a short reason
 * ("expected 4 numbers separated by ':'") to why and returns false. */
typedef bool (*config_check_fn)(const char *value, char *why, size_t why_size);

enum {
  CONFIG_NOT_MODELLED = 1u << 0, /* accepted for compatibility; simtvp ignores the value */
  CONFIG_PATH = 1u << 1          /* a file name: relative values from a file are resolved
                                    against that file's directory */
};

/* Sentinel offset for options that are parsed and checked but stored nowhere. */
#define CONFIG_NO_STORAGE ((size_t)-1)

typedef struct config_option {
  const char *name;          /* with the leading '-', e.g. "-gpgpu_n_clusters" */
  config_type type;
  size_t offset;             /* offsetof(block struct, field) or CONFIG_NO_STORAGE */
  size_t size;               /* sizeof(field): a STRING's capacity including the NUL */
  const char *default_value; /* text, parsed exactly like a value from a file */
  const char *unit;          /* "cycles (core clock)", "bytes", "entries", "" */
  const char *description;
  const config_enum_value *enum_values; /* CONFIG_ENUM only */
  config_check_fn check;                /* optional */
  const char *aliases;                  /* other accepted names, space-separated, or NULL */
  uint32_t flags;                       /* CONFIG_NOT_MODELLED, CONFIG_PATH */
} config_option;

/* Table-building helpers: T is the block's config struct type, F the field. */
#define CONFIG_OPT(T, F, kind, name, def, unit, desc)                                            \
  { name, kind, offsetof(T, F), sizeof(((T *)0)->F), def, unit, desc, NULL, NULL, NULL, 0 }
#define CONFIG_OPT_X(T, F, kind, name, def, unit, desc, enums, check, aliases, flags)            \
  { name, kind, offsetof(T, F), sizeof(((T *)0)->F), def, unit, desc, enums, check, aliases, flags }
/* An accepted-but-not-modelled GPGPU-Sim option with no storage. */
#define CONFIG_OPT_IGNORED(kind, name, def, desc)                                                 \
  { name, kind, CONFIG_NO_STORAGE, 0, def, "", desc, NULL, NULL, NULL, CONFIG_NOT_MODELLED }

/* A block's option table. `title` heads the block's section in docs/configuration.md. */
typedef struct config_block {
  const char *name;  /* short id: "core", "dram" ... */
  const char *title; /* "SIMT core organisation" */
  const char *description;
  const config_option *options;
  size_t n_options;
} config_block;

typedef struct config_registry config_registry;

/* msg receives warnings (unknown options) and information (accepted-but-not-modelled options);
 * it may be NULL. The registry copies the port. */
config_registry *config_registry_create(const simtvp_msg_port *msg);
void config_registry_destroy(config_registry *r);

/* Strict mode turns an unknown option from a warning into an error. */
void config_registry_set_strict(config_registry *r, bool strict);

/* Adds a block and writes every default into storage (which must outlive the registry). Fails on
 * a duplicate option name (in any block) or a default that does not parse: both are bugs in a
 * table, reported with the option's name. */
simtvp_status config_registry_add(config_registry *r, const config_block *block, void *storage,
                                  simtvp_diag *diag);

/* Parses an option file; `-config FILE` inside it includes FILE (relative to this file). */
simtvp_status config_registry_load_file(config_registry *r, const char *path, simtvp_diag *diag);
/* Parses option text; origin names it in messages ("<string>", "tests/x.config"). Relative
 * includes and paths resolve against base_dir (NULL: the current directory). */
simtvp_status config_registry_load_text(config_registry *r, const char *text, const char *origin,
                                        const char *base_dir, simtvp_diag *diag);
/* Command-line overrides: "-name value" pairs; "-config FILE" loads a file at that point.
 * Messages name the place as "command line:<argument index>". */
simtvp_status config_registry_parse_args(config_registry *r, int argc, const char *const argv[],
                                         simtvp_diag *diag);
/* Sets one option (from a program); origin names it in messages. */
simtvp_status config_registry_set(config_registry *r, const char *name, const char *value,
                                  const char *origin, simtvp_diag *diag);

/* The current text of an option (a default, or the last value set), or NULL when unknown.
 * Aliases are accepted. */
const char *config_registry_value(const config_registry *r, const char *name);
/* Where the current value came from: file and line (line 0: the default or a program), and
 * whether anything set it. Returns false for an unknown name. */
bool config_registry_origin(const config_registry *r, const char *name, const char **file,
                            uint32_t *line, bool *was_set);
/* Fills diag's place (file:line and option) with where `name` was set, for errors found after
 * loading (consistency checks). */
void config_registry_diag_at(const config_registry *r, const char *name, simtvp_diag *diag);

/* The registered option nearest to a misspelt name (case-insensitive edit distance:
 * insertions, deletions, substitutions, swapped neighbours), or NULL when none is near enough
 * (distance at most config_suggest_limit(name): 1 below 6 characters, 2 below 16, else 3).
 * Unknown-option messages end with "; did you mean -name?" when there is one. */
const char *config_registry_suggest(const config_registry *r, const char *name);
/* The edit distance above, or limit + 1 when it is larger (also for names of other kinds, such as
 * configuration files). */
size_t config_edit_distance(const char *a, const char *b, size_t limit);
size_t config_suggest_limit(const char *name);

/* Counts of what loading saw so far (tests; a summary line in the CLI). */
uint32_t config_registry_unknown_count(const config_registry *r);
uint32_t config_registry_not_modelled_count(const config_registry *r);

/* Iteration over every registered option, in registration order. */
size_t config_registry_count(const config_registry *r);
const config_option *config_registry_option(const config_registry *r, size_t index,
                                            const config_block **block);

/* The effective configuration as an option file (loadable again), each option annotated with
 * where its value came from; not-modelled options are left out unless something set them. */
void config_registry_dump(const config_registry *r, FILE *out);
/* The reference of every option (docs/configuration.md is this output). */
void config_registry_write_markdown(const config_registry *r, FILE *out);

/* Name of a type as written in docs and messages ("uint", "string"...). */
const char *config_type_name(config_type type);

/* ---- checks for composite values, usable in tables ----------------------------------------- */

/* GPGPU-Sim cache configuration: "none" or
 * [<type>:]<nsets>:<bsize>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>],
 * <mshr>:<entries>:<max_merge>,<miss_queue>[:<fifo_entries>][,<data_port_width>]. The structure
 * and the numbers are checked; the letters' meaning is the cache block's. */
bool config_check_cache(const char *value, char *why, size_t why_size);
/* A list of unsigned integers separated by ',' (latencies, pipeline widths). */
bool config_check_uint_list(const char *value, char *why, size_t why_size);
/* A list of unsigned integers separated by ':' ("8:8:8:8", "1536:32"). */
bool config_check_uint_colon_list(const char *value, char *why, size_t why_size);
/* Four positive frequencies in MHz: "<core>:<icnt>:<l2>:<dram>". */
bool config_check_clock_domains(const char *value, char *why, size_t why_size);
/* GPGPU-Sim address mapping (-gpgpu_mem_addr_mapping, config_addr_mapping_parse); empty is
 * allowed (no mapping given). */
bool config_check_addr_mapping(const char *value, char *why, size_t why_size);

/* -gpgpu_mem_addr_mapping read once (GPGPU-Sim manual §2.5.2 "Address decoding"): the one parser
 * of the option, for its check here, the DRAM address decoder (models/dram dram_addrdec) and the
 * L2 slices' index address (models/mempart). The text is "[dramid@N;]<map>", surrounding quotes
 * and white space ignored: the map has exactly 64 characters, most significant bit first, each
 * one of D (channel), B (bank), R (row), C (column), S (burst: byte within a column access), 0
 * (unused), either case; '.' and white space between them are ignored. "dramid@N;" (N < 64)
 * places the channel at bit N by division (channel = (addr >> N) mod channels) and may not be
 * combined with D characters. */
typedef struct config_addr_mapping {
  bool by_division;    /* dramid@N */
  uint32_t dramid_bit; /* N */
  char field[64];      /* field[i]: what address bit i feeds, 'D' 'B' 'R' 'C' 'S' or '0' */
} config_addr_mapping;
/* false with why (without the option's name) when the text is malformed. */
bool config_addr_mapping_parse(const char *text, config_addr_mapping *out, char *why, size_t why_size);

/* strtod that always reads '.' as the decimal point (option files must not depend on a locale
 * the program may have set). */
double config_strtod(const char *s, char **end);

/* Parses an unsigned list separated by `sep` into out[0..max); returns the count, or -1 when the
 * text is not such a list or has more than max items. */
int config_parse_uint_list(const char *value, char sep, uint32_t *out, int max);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CONFIG_H */
