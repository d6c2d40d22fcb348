/* simtvp_diag — how every model core reports bad input and faults.
 *
 * A function that can fail on its input returns a simtvp_status and, when given a non-NULL
 * simtvp_diag, fills it with a human-readable message that names the place (file:line:column,
 * option, address, thread, PC) plus the same facts as structured fields for programs and tests.
 * Warnings (input accepted with a remark) go through a simtvp_msg_port instead, so a block never
 * prints by itself. No globals: a diag is plain data owned by the caller. */
#ifndef SIMTVP_DIAG_H
#define SIMTVP_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum simtvp_status {
  SIMTVP_OK = 0,
  SIMTVP_ERR_ARG,         /* bad argument to an API call */
  SIMTVP_ERR_PARSE,       /* malformed input text (PTX, option file, configuration string) */
  SIMTVP_ERR_CONFIG,      /* unknown or inconsistent configuration option */
  SIMTVP_ERR_UNSUPPORTED, /* valid input this build does not implement */
  SIMTVP_ERR_FAULT,       /* a kernel fault: bad address, misalignment, overflow */
  SIMTVP_ERR_TRAP,        /* trap / assert / brkpt executed by a kernel */
  SIMTVP_ERR_DEADLOCK,    /* barrier deadlock or no forward progress */
  SIMTVP_ERR_LIMIT,       /* a resource limit was exceeded (memory, cycles, instructions) */
  SIMTVP_ERR_IO,          /* a file could not be read or written */
  SIMTVP_ERR_NOMEM,       /* host allocation failed */
  SIMTVP_ERR_STATE,       /* the call is not valid in the object's current state */
  SIMTVP_ERR_MISALIGNED   /* a kernel fault: an access not aligned to its size (CUDA's 716) */
} simtvp_status;

/* Which of the structured fields of a simtvp_diag carry a value. */
enum {
  SIMTVP_WHERE_FILE = 1u << 0,    /* file, line, column */
  SIMTVP_WHERE_OPTION = 1u << 1,  /* option */
  SIMTVP_WHERE_ADDRESS = 1u << 2, /* address */
  SIMTVP_WHERE_THREAD = 1u << 3,  /* kernel, cta[], thread[] */
  SIMTVP_WHERE_PC = 1u << 4       /* pc (instruction index / address) */
};

#define SIMTVP_DIAG_MESSAGE_MAX 1024
#define SIMTVP_DIAG_NAME_MAX 128

typedef struct simtvp_diag {
  simtvp_status status;
  uint32_t where; /* SIMTVP_WHERE_* bits */
  char message[SIMTVP_DIAG_MESSAGE_MAX];
  char file[SIMTVP_DIAG_NAME_MAX];
  uint32_t line, column;
  char option[SIMTVP_DIAG_NAME_MAX];
  uint64_t address;
  char kernel[SIMTVP_DIAG_NAME_MAX];
  uint32_t cta[3], thread[3];
  uint64_t pc;
} simtvp_diag;

/* Clears a diag to "no error". */
void simtvp_diag_clear(simtvp_diag *diag);

/* Sets status and message (printf-style); returns status so callers can `return simtvp_diag_set(...)`.
 * A NULL diag is allowed: the status is still returned. Structured fields are set separately. */
simtvp_status simtvp_diag_set(simtvp_diag *diag, simtvp_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
simtvp_status simtvp_diag_vset(simtvp_diag *diag, simtvp_status status, const char *fmt, va_list ap);
/* A configuration error: message "<option>: <text>" and the option field set; returns status. */
simtvp_status simtvp_diag_option_error(simtvp_diag *diag, simtvp_status status, const char *option,
                                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Structured place setters (no-ops on a NULL diag). */
void simtvp_diag_at_file(simtvp_diag *diag, const char *file, uint32_t line, uint32_t column);
void simtvp_diag_at_option(simtvp_diag *diag, const char *option);
void simtvp_diag_at_address(simtvp_diag *diag, uint64_t address);
void simtvp_diag_at_thread(simtvp_diag *diag, const char *kernel, const uint32_t cta[3],
                           const uint32_t thread[3]);
void simtvp_diag_at_pc(simtvp_diag *diag, uint64_t pc);

const char *simtvp_status_name(simtvp_status status);

/* Severity of a message sent through a msg port. */
typedef enum simtvp_severity { SIMTVP_INFO, SIMTVP_WARNING, SIMTVP_ERROR } simtvp_severity;

/* Port through which a block reports warnings and information it does not fail on. */
typedef struct simtvp_msg_port {
  void *ctx;
  void (*emit)(void *ctx, simtvp_severity severity, const char *message);
} simtvp_msg_port;

/* Formats and sends a message; does nothing when the port has no emit function. */
void simtvp_msg(const simtvp_msg_port *port, simtvp_severity severity, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DIAG_H */
