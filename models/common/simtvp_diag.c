/* simtvp_diag — error and warning reporting shared by all model cores (see simtvp_diag.h). */
#include "simtvp_diag.h"

#include <stdio.h>
#include <string.h>

static void copy_name(char *dst, const char *src) {
  if (!src) src = "";
  size_t n = strlen(src);
  if (n >= SIMTVP_DIAG_NAME_MAX) n = SIMTVP_DIAG_NAME_MAX - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

void simtvp_diag_clear(simtvp_diag *diag) {
  if (diag) memset(diag, 0, sizeof *diag);
}

simtvp_status simtvp_diag_vset(simtvp_diag *diag, simtvp_status status, const char *fmt, va_list ap) {
  if (!diag) return status;
  diag->status = status;
  vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  return status;
}

simtvp_status simtvp_diag_set(simtvp_diag *diag, simtvp_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  simtvp_diag_vset(diag, status, fmt, ap);
  va_end(ap);
  return status;
}

void simtvp_diag_at_file(simtvp_diag *diag, const char *file, uint32_t line, uint32_t column) {
  if (!diag) return;
  copy_name(diag->file, file);
  diag->line = line;
  diag->column = column;
  diag->where |= SIMTVP_WHERE_FILE;
}

simtvp_status simtvp_diag_option_error(simtvp_diag *diag, simtvp_status status, const char *option,
                                       const char *fmt, ...) {
  if (!diag) return status;
  char text[SIMTVP_DIAG_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  simtvp_diag_set(diag, status, "%s: %s", option, text);
  simtvp_diag_at_option(diag, option);
  return status;
}

void simtvp_diag_at_option(simtvp_diag *diag, const char *option) {
  if (!diag) return;
  copy_name(diag->option, option);
  diag->where |= SIMTVP_WHERE_OPTION;
}

void simtvp_diag_at_address(simtvp_diag *diag, uint64_t address) {
  if (!diag) return;
  diag->address = address;
  diag->where |= SIMTVP_WHERE_ADDRESS;
}

void simtvp_diag_at_thread(simtvp_diag *diag, const char *kernel, const uint32_t cta[3],
                           const uint32_t thread[3]) {
  if (!diag) return;
  copy_name(diag->kernel, kernel);
  for (int i = 0; i < 3; i++) {
    diag->cta[i] = cta ? cta[i] : 0;
    diag->thread[i] = thread ? thread[i] : 0;
  }
  diag->where |= SIMTVP_WHERE_THREAD;
}

void simtvp_diag_at_pc(simtvp_diag *diag, uint64_t pc) {
  if (!diag) return;
  diag->pc = pc;
  diag->where |= SIMTVP_WHERE_PC;
}

const char *simtvp_status_name(simtvp_status status) {
  switch (status) {
  case SIMTVP_OK: return "ok";
  case SIMTVP_ERR_ARG: return "bad argument";
  case SIMTVP_ERR_PARSE: return "parse error";
  case SIMTVP_ERR_CONFIG: return "configuration error";
  case SIMTVP_ERR_UNSUPPORTED: return "unsupported";
  case SIMTVP_ERR_FAULT: return "kernel fault";
  case SIMTVP_ERR_TRAP: return "kernel trap";
  case SIMTVP_ERR_DEADLOCK: return "deadlock";
  case SIMTVP_ERR_LIMIT: return "limit exceeded";
  case SIMTVP_ERR_IO: return "i/o error";
  case SIMTVP_ERR_NOMEM: return "out of host memory";
  case SIMTVP_ERR_STATE: return "invalid state";
  case SIMTVP_ERR_MISALIGNED: return "misaligned address";
  }
  return "unknown status";
}

void simtvp_msg(const simtvp_msg_port *port, simtvp_severity severity, const char *fmt, ...) {
  if (!port || !port->emit) return;
  char buf[SIMTVP_DIAG_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  port->emit(port->ctx, severity, buf);
}
