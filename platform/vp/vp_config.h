// vp_config — where the platform's configuration comes from: the option file (given, from
// $SIMTVP_CONFIG, or the built-in default configs/default.config), overrides ($SIMTVP_OPTIONS,
// then the caller's), strict mode and outputs, resolved once into vp_settings and loaded into a
// gpu_config through models/config. Used by the platform and by the `simtvp` command's checks.
#ifndef SIMTVP_PLATFORM_VP_CONFIG_H
#define SIMTVP_PLATFORM_VP_CONFIG_H

#include <string>
#include <vector>

#include "config.h"
#include "gpu_config.h"
#include "simtvp_diag.h"
#include "simtvp_host.h"

namespace simtvp {

struct vp_settings {
  std::string config_path;            // option file; empty = the built-in default
  std::string config_name;            // what messages and the statistics call it
  std::string out_dir;                // empty = no output files
  std::vector<std::string> overrides; // "-option" "value" words, applied after the file
  bool strict = false, quiet = false;
  std::string stats_text = "summary";  // $SIMTVP_STATS: statistics text on stderr: summary | full | none
  std::string trace_path;              // $SIMTVP_TRACE: timeline trace (Chrome trace-event JSON); empty = none
  std::string vcd_path;                // $SIMTVP_VCD: the timeline as a Value Change Dump; empty = none
  bool config_checked = false;         // $SIMTVP_CONFIG_CHECKED=1: the `simtvp` command already reported the
                                       // configuration's warnings; loading it again says nothing
  bool check_only = false;             // built to be checked (simtvp --check): no outputs, no summary
  bool debug = false;                  // $SIMTVP_DEBUG / $SIMTVP_DEBUG_SCRIPT: the interactive debugger
                                       // runs (platform/debug reads both); no progress line
};

// Options first, then the environment: SIMTVP_CONFIG, SIMTVP_OUTDIR, SIMTVP_OPTIONS (words, with
// '…' or "…" quoting, applied before options->overrides), SIMTVP_STRICT=1, SIMTVP_QUIET=1,
// SIMTVP_STATS, SIMTVP_TRACE, SIMTVP_VCD, SIMTVP_CONFIG_CHECKED=1, SIMTVP_DEBUG=1, SIMTVP_DEBUG_SCRIPT.
vp_settings vp_settings_resolve(const simtvp_host_options *options);

// Splits option text into words ('…' literal, "…" with \" and \\ escapes); false on an
// unterminated quote.
bool vp_split_words(const std::string &text, std::vector<std::string> *words);

// Quotes a word for SIMTVP_OPTIONS so that vp_split_words gives it back unchanged.
std::string vp_quote_word(const std::string &word);

// Loads and finalizes the configuration. *registry (caller destroys) stays for dumps and origins.
// Errors name the option and file:line (or "command line:<n>" / "SIMTVP_OPTIONS").
simtvp_status vp_load_config(const vp_settings &settings, const simtvp_msg_port *messages,
                             gpu_config *config, config_registry **registry, simtvp_diag *diag);

// Checks the platform's own options (host and bus timing) of a finalized configuration:
// SIMTVP_ERR_CONFIG naming the option and where it was set.
simtvp_status vp_check_platform_options(const gpu_config *config, const config_registry *registry,
                                        simtvp_diag *diag);

// An error about an option found after loading (diag->option set, no file yet): adds where the
// option was set (file:line) to the structured fields and the message.
void vp_diag_place(const config_registry *registry, simtvp_diag *diag);

// The built-in default configuration: the path of default.config among the shipped
// configurations (installed share/simtvp/configs, else the source tree's configs/), and the same
// text with its includes inlined (embedded at build time) for when neither is there.
const char *vp_default_config_path();
const char *vp_default_config_text();

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_VP_CONFIG_H
