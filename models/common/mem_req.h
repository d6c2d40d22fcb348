/* mem_req — a memory request travelling between timing models: SIMT core → L1 → interconnect →
 * memory partition (L2 slice, DRAM controller) and back as a reply.
 *
 * Timing models move addresses, sizes and masks, never data (DESIGN.md §3): the functional engine
 * has already read or written the device-memory store when the instruction executed. The access
 * kinds are GPGPU-Sim's mem_access_type so statistics keep their familiar names.
 *
 * Requests come from a mem_req_pool owned by whoever creates them (no malloc per request); a block
 * that receives a request holds the pointer until it replies or hands it on, and the last holder
 * returns it to its pool (mem_req.pool). Fields may be appended; existing ones keep their meaning. */
#ifndef SIMTVP_MEM_REQ_H
#define SIMTVP_MEM_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mem_access_kind {
  MEM_ACC_GLOBAL_R = 0,
  MEM_ACC_LOCAL_R,
  MEM_ACC_CONST_R,
  MEM_ACC_TEXTURE_R,
  MEM_ACC_GLOBAL_W,
  MEM_ACC_LOCAL_W,
  MEM_ACC_L1_WRBK,      /* write-back of a dirty L1 line */
  MEM_ACC_L2_WRBK,      /* write-back of a dirty L2 line to DRAM */
  MEM_ACC_INST_R,       /* instruction fetch */
  MEM_ACC_L1_WR_ALLOC_R, /* fill read caused by a write-allocate miss in L1 */
  MEM_ACC_L2_WR_ALLOC_R, /* fill read caused by a write-allocate miss in L2 */
  MEM_ACC_ATOMIC,       /* global atomic / reduction, executed at the L2 */
  MEM_ACC_KIND_COUNT
} mem_access_kind;

/* Line and sector geometry shared by the caches and the coalescer (sectored 128-byte lines). */
#define MEM_LINE_BYTES 128u
#define MEM_SECTOR_BYTES 32u
#define MEM_SECTORS_PER_LINE 4u

struct mem_req_pool;

typedef struct mem_req {
  uint64_t id;          /* unique per pool, for tracing and matching replies */
  uint64_t addr;        /* device address of the first byte */
  uint32_t size;        /* bytes covered (a sector, a line, or less) */
  uint8_t kind;         /* mem_access_kind */
  bool is_write;        /* data flows toward memory */
  bool is_reply;        /* travelling back toward the requester */
  bool needs_reply;     /* false for writes that need no acknowledgement */
  uint8_t sector_mask;  /* sectors of the 128-byte line touched: bit i = bytes [32i, 32i+32) */
  uint64_t byte_mask[2];/* bytes of the 128-byte line touched: bit i of [i/64] = byte i */
  uint16_t sm;          /* originating SIMT core (global index), or UINT16_MAX */
  uint16_t cluster;     /* originating cluster, or UINT16_MAX */
  uint16_t warp;        /* originating warp slot within the core, or UINT16_MAX */
  uint16_t src_node;    /* interconnect node that injected it */
  uint16_t dst_node;    /* interconnect node it is heading to */
  uint32_t partition;   /* memory partition (DRAM channel), filled by address decoding */
  uint32_t sub_partition; /* L2 slice within the partition */
  uint64_t owner_tag;   /* requester's bookkeeping (e.g. MSHR entry or instruction id), opaque */
  void *owner_ctx;      /* requester's bookkeeping pointer, opaque */
  struct mem_req_pool *pool; /* where to return it */
  struct mem_req *next; /* free-list / intrusive queue link, owned by the current holder */
  uint8_t aperture;     /* mem_aperture: where the memory lives (set when the request is routed) */
  uint8_t n_ops;        /* lane operations an atomic carries (the L2's atomic unit); 0 counts as 1 */
  uint64_t bus_addr;    /* (addition) a SYSMEM request: where addr lies on the system bus, set with
                         * aperture when routed (0: not known). Partition and slice follow it, not
                         * addr: a GPU routes by physical address, and the virtual address of a host
                         * page moves from one run to the next (address-space randomisation). */
} mem_req;

/* Where a request's memory lives, as the GPU's page tables say: the GPU's own memory, or system
 * memory the GPU reaches through its hub and DMA initiator (zero-copy host memory). Partitions
 * send SYSMEM requests to the hub instead of the DRAM controller (docs/system-modes.md). */
typedef enum mem_aperture { MEM_APERTURE_VIDMEM = 0, MEM_APERTURE_SYSMEM = 1 } mem_aperture;

/* How a block learns the aperture of an address (a TLM port of the GPU's translation). */
typedef struct mem_aperture_port {
  void *ctx;
  uint8_t (*of)(void *ctx, uint64_t addr); /* mem_aperture */
  /* (addition, optional) as `of`, and for SYSMEM the bus address of addr in *bus (0: not known);
   * used instead of `of` when set. */
  uint8_t (*of_bus)(void *ctx, uint64_t addr, uint64_t *bus);
} mem_aperture_port;

/* The address a request is routed and checked by (dram_addrdec: partition, sub-partition): the
 * bus address of system memory where known, else the device address. */
static inline uint64_t mem_req_route_addr(const mem_req *r) {
  return r->aperture == MEM_APERTURE_SYSMEM && r->bus_addr ? r->bus_addr : r->addr;
}

/* Bytes travelling on the wire for the request (request header + data for writes) and for its
 * reply; used by the interconnect to compute flits. Control size follows GPGPU-Sim (8 bytes). */
#define MEM_REQ_CONTROL_BYTES 8u
static inline uint32_t mem_req_wire_bytes(const mem_req *r) {
  bool carries_data = r->is_reply ? !r->is_write : r->is_write;
  return MEM_REQ_CONTROL_BYTES + (carries_data ? r->size : 0u);
}

/* A free-list pool of requests: allocation is O(1) and only grows the pool when it runs dry. */
typedef struct mem_req_pool mem_req_pool;
mem_req_pool *mem_req_pool_create(void);
void mem_req_pool_destroy(mem_req_pool *pool);
/* Returns a zeroed request with a fresh id and pool set; NULL only when host memory runs out. */
mem_req *mem_req_alloc(mem_req_pool *pool);
void mem_req_free(mem_req *req);
/* Requests currently handed out (for leak checks in tests and deadlock dumps). */
size_t mem_req_pool_outstanding(const mem_req_pool *pool);
/* (addition) A shared pool may have its requests freed (mem_req_free) by any host thread while its
 * owner allocates from it (parallel simulation, -sim_threads): frees then go to a lock-free return
 * stack the owner takes over when its free list runs dry. Allocation stays the owner's (one thread
 * at a time); request ids are the same either way. Set while no other thread uses the pool. */
void mem_req_pool_set_shared(mem_req_pool *pool, bool shared);
/* Grows the pool now to hold n requests at once, as if n had been allocated and freed (ids
 * advance by n), so a block's steady state never reaches malloc. false when host memory ran out
 * (the pool keeps what it got). */
bool mem_req_pool_reserve(mem_req_pool *pool, size_t n);

const char *mem_access_kind_name(mem_access_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_MEM_REQ_H */
