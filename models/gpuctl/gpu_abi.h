/* gpu_abi — the GPU's software interface: BAR0 registers, command rings, packets, error codes and
 * the program-image header. Single source of truth, shared by sw/driver, firmware/cp and the
 * model cores in models/gpuctl; docs/gpu-abi.md is generated from the tables below
 * (`gpu_abi_doc > docs/gpu-abi.md`) and a test checks that the committed file matches.
 *
 * Model: one register aperture (BAR0, 32-bit registers, little-endian), N hardware channels each
 * with a ring of 32-bit dwords in system memory (base/size/put/get), a doorbell, fences as
 * semaphore releases into system memory, a level-triggered interrupt line, and a first-error
 * capture (status/code/address/info). The shape follows public descriptions of real GPUs
 * (channels with GPFIFO put/get and a doorbell that names the channel; semaphore release/acquire
 * methods; a launch descriptor that carries grid, block, shared memory and registers like a QMD),
 * simplified to what a CUDA runtime needs.
 *
 * Every table is an X-macro: the enums below and the doc generator expand the same rows. Add rows;
 * never renumber (ABI major version changes when a meaning changes). */
#ifndef SIMTVP_GPU_ABI_H
#define SIMTVP_GPU_ABI_H

#include <stdint.h>

#include "mmu_pte.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_ABI_VERSION_MAJOR 1u
#define GPU_ABI_VERSION_MINOR 3u /* 1.1: virtual memory (MMU, fault buffer); 1.2: SYSTEM, MAP_SYSMEM;
                                    1.3: MMU_CAPS.REPLAYABLE from the configuration (unified memory) */
#define GPU_ABI_VERSION ((GPU_ABI_VERSION_MAJOR << 16) | GPU_ABI_VERSION_MINOR)
#define GPU_ID_VALUE 0x53565047u /* "GPVS" in little-endian bytes: simtvp GPU */
#define GPU_BAR0_BYTES 0x10000u  /* BAR0 aperture; offsets not in the tables are unmapped */

/* ---- register access rights ------------------------------------------------------------- */
/* RO  read-only: host writes are ignored and reported (ERR REG_RO_WRITE).
 * RW  read/write: bits outside the register's defined mask are reserved: a write that sets one is
 *     reported (ERR REG_RESERVED_BITS) and the reserved bits are ignored.
 * W1C read; writing 1 to a bit clears it, 0 leaves it.
 * WO  write-only (an action): reads return 0 and are reported (ERR REG_WO_READ).
 * Every access must be 32 bits wide and 4-byte aligned (ERR REG_ACCESS_SIZE); an offset not in
 * the map is reported (ERR REG_UNMAPPED) and reads return 0. Firmware sees all registers RW. */
typedef enum gpu_access { GPU_ACC_RO = 0, GPU_ACC_RW, GPU_ACC_W1C, GPU_ACC_WO } gpu_access;

/* Where a register's reset value comes from: the table (FIX) or the GPU configuration (CFG; the
 * table value is the register block's own default, gpu_caps_default, which a configuration
 * replaces). */
typedef enum gpu_reset_source { GPU_RST_FIX = 0, GPU_RST_CFG } gpu_reset_source;

/* ---- global registers ---------------------------------------------------------------------- */
/* X(name, offset, access, reset, reset source, defined-bits mask, description) */
#define GPU_ABI_REGS(ROW)                                                                            \
  ROW(ID, 0x000, RO, GPU_ID_VALUE, FIX, 0xFFFFFFFFu, "Identification: 0x53565047 (\"GPVS\").")       \
  ROW(ABI_VERSION, 0x004, RO, GPU_ABI_VERSION, FIX, 0xFFFFFFFFu,                                     \
    "ABI version: major in [31:16], minor in [15:0]. A driver refuses another major.")             \
  ROW(NAME0, 0x008, RO, 0x746D6973u, CFG, 0xFFFFFFFFu, "Device name bytes 0-3 (ASCII, NUL-padded).") \
  ROW(NAME1, 0x00C, RO, 0x47207076u, CFG, 0xFFFFFFFFu, "Device name bytes 4-7.")                     \
  ROW(NAME2, 0x010, RO, 0x00005550u, CFG, 0xFFFFFFFFu, "Device name bytes 8-11.")                    \
  ROW(NAME3, 0x014, RO, 0, CFG, 0xFFFFFFFFu, "Device name bytes 12-15.")                             \
  ROW(NAME4, 0x018, RO, 0, CFG, 0xFFFFFFFFu, "Device name bytes 16-19.")                             \
  ROW(NAME5, 0x01C, RO, 0, CFG, 0xFFFFFFFFu, "Device name bytes 20-23.")                             \
  ROW(NAME6, 0x020, RO, 0, CFG, 0xFFFFFFFFu, "Device name bytes 24-27.")                             \
  ROW(NAME7, 0x024, RO, 0, CFG, 0xFFFFFFFFu, "Device name bytes 28-31.")                             \
  ROW(CC, 0x028, RO, 0x0705u, CFG, 0xFFFFu, "Compute capability: MAJOR [15:8], MINOR [7:0].")        \
  ROW(SM_COUNT, 0x02C, RO, 30, CFG, 0xFFFFFFFFu, "SIMT cores (SMs) = clusters x cores per cluster.") \
  ROW(CLUSTERS, 0x030, RO, 30, CFG, 0xFFFFFFFFu, "SIMT core clusters.")                              \
  ROW(WARP_SIZE, 0x034, RO, 32, CFG, 0xFFFFFFFFu, "Threads per warp.")                               \
  ROW(MAX_THREADS_PER_BLOCK, 0x038, RO, 1024, CFG, 0xFFFFFFFFu, "Largest CTA, threads.")             \
  ROW(MAX_BLOCK_DIM_XY, 0x03C, RO, 0x04000400u, CFG, 0xFFFFFFFFu,                                    \
    "Largest block dimensions: X [15:0], Y [31:16].")                                              \
  ROW(MAX_BLOCK_DIM_Z, 0x040, RO, 64, CFG, 0xFFFFFFFFu, "Largest block dimension Z.")                \
  ROW(MAX_GRID_DIM_X, 0x044, RO, 0x7FFFFFFFu, CFG, 0xFFFFFFFFu, "Largest grid dimension X.")         \
  ROW(MAX_GRID_DIM_YZ, 0x048, RO, 0xFFFFFFFFu, CFG, 0xFFFFFFFFu,                                     \
    "Largest grid dimensions: Y [15:0], Z [31:16].")                                               \
  ROW(MAX_THREADS_PER_SM, 0x04C, RO, 1024, CFG, 0xFFFFFFFFu, "Threads resident per SM.")             \
  ROW(MAX_WARPS_PER_SM, 0x050, RO, 32, CFG, 0xFFFFFFFFu, "Warps resident per SM.")                   \
  ROW(MAX_CTAS_PER_SM, 0x054, RO, 16, CFG, 0xFFFFFFFFu, "CTA slots per SM.")                         \
  ROW(REGS_PER_SM, 0x058, RO, 65536, CFG, 0xFFFFFFFFu, "32-bit registers per SM.")                   \
  ROW(REGS_PER_BLOCK, 0x05C, RO, 65536, CFG, 0xFFFFFFFFu, "32-bit registers one CTA may use.")       \
  ROW(REG_ALLOC_UNIT, 0x060, RO, 256, CFG, 0xFFFFFFFFu,                                              \
    "Register allocation granularity per warp (registers; a warp gets a multiple of this).")       \
  ROW(SMEM_PER_SM, 0x064, RO, 65536, CFG, 0xFFFFFFFFu, "Shared memory per SM, bytes.")               \
  ROW(SMEM_PER_BLOCK, 0x068, RO, 49152, CFG, 0xFFFFFFFFu, "Shared memory per CTA by default, bytes.") \
  ROW(SMEM_PER_BLOCK_OPTIN, 0x06C, RO, 65536, CFG, 0xFFFFFFFFu,                                      \
    "Shared memory per CTA on opt-in, bytes.")                                                     \
  ROW(SMEM_ALLOC_UNIT, 0x070, RO, 256, CFG, 0xFFFFFFFFu, "Shared memory allocation granularity.")    \
  ROW(CONST_MEM_BYTES, 0x074, RO, 65536, CFG, 0xFFFFFFFFu, "Constant memory per module, bytes.")     \
  ROW(L2_BYTES, 0x078, RO, 4194304, CFG, 0xFFFFFFFFu, "L2 cache size, bytes.")                       \
  ROW(MEM_BUS_WIDTH, 0x07C, RO, 384, CFG, 0xFFFFFFFFu, "DRAM bus width, bits.")                      \
  ROW(CORE_CLOCK_KHZ, 0x080, RO, 1365000, CFG, 0xFFFFFFFFu, "SIMT core clock, kHz.")                 \
  ROW(MEM_CLOCK_KHZ, 0x084, RO, 3500000, CFG, 0xFFFFFFFFu, "DRAM clock, kHz.")                       \
  ROW(DEVMEM_BASE_LO, 0x088, RO, 0, CFG, 0xFFFFFFFFu, "First device address, bits [31:0].")          \
  ROW(DEVMEM_BASE_HI, 0x08C, RO, 0x1000u, CFG, 0xFFFFFFFFu, "First device address, bits [63:32].")   \
  ROW(DEVMEM_SIZE_LO, 0x090, RO, 0, CFG, 0xFFFFFFFFu, "Device memory bytes, bits [31:0].")           \
  ROW(DEVMEM_SIZE_HI, 0x094, RO, 2, CFG, 0xFFFFFFFFu, "Device memory bytes, bits [63:32].")          \
  ROW(N_CHANNELS, 0x098, RO, 16, CFG, 0xFFFFFFFFu, "Hardware channels (command rings), 1..64.")      \
  ROW(N_COPY_ENGINES, 0x09C, RO, 2, CFG, 0xFFFFFFFFu, "Copy engines working concurrently.")          \
  ROW(MAX_CONCURRENT_KERNELS, 0x0A0, RO, 32, CFG, 0xFFFFFFFFu,                                       \
    "Kernels (from different channels) the CTA dispatcher runs at once.")                          \
  ROW(MAX_PARAM_BYTES, 0x0A4, RO, 32764, CFG, 0xFFFFFFFFu, "Largest kernel parameter buffer, bytes.") \
  ROW(MMU_CAPS, 0x0A8, RO, 0x00343034u, CFG, 0x00FFFFFFu,                                            \
    "MMU: LEVELS [3:0] page-table levels, PAGE_4K [4] and PAGE_2M [5] page sizes, REPLAYABLE [6] " \
    "accesses wait on replayable faults (1 on the platform's GPUs: functional, and timing with "   \
    "any mix of CA, AT and func cores), "                                                           \
    "VA_BITS [15:8], PA_BITS [23:16] (see Virtual memory).")                                                                             \
  ROW(HEAP_BASE_LO, 0x0AC, RO, 0, CFG, 0xFFFFFFFFu,                                                  \
    "Device malloc heap the GPU keeps (physical address; software maps it at the same virtual "    \
    "address in every address space), bits [31:0].")                                               \
  ROW(HEAP_BASE_HI, 0x0B0, RO, 0, CFG, 0xFFFFFFFFu, "Device malloc heap, bits [63:32].")             \
  ROW(HEAP_SIZE_LO, 0x0B4, RO, 0, CFG, 0xFFFFFFFFu, "Device malloc heap bytes, bits [31:0] (0: none).") \
  ROW(HEAP_SIZE_HI, 0x0B8, RO, 0, CFG, 0xFFFFFFFFu, "Device malloc heap bytes, bits [63:32].")       \
  ROW(SYSTEM, 0x0BC, RO, 0, CFG, 0x7u,                                                               \
    "How the GPU sits in the system (docs/system-modes.md): INTEGRATED [0] no DRAM of its own; "   \
    "COHERENT [1] host memory is cached coherently; PAGEABLE [2] kernels reach pageable host "     \
    "memory through the IOMMU.")                                                                   \
  ROW(CTRL, 0x100, RW, 0, FIX, 0x1u, "Global control: ENABLE [0] lets the command processor run.")  \
  ROW(STATUS, 0x104, RO, 0x1u, FIX, 0x3u,                                                            \
    "Global status: IDLE [0] no work queued or running; ERROR [1] ERR_STATUS is not zero.")        \
  ROW(DOORBELL, 0x108, WO, 0, FIX, 0xFFu,                                                            \
    "Write a channel number after advancing its PUT: the command processor fetches from it.")      \
  ROW(SCRATCH, 0x10C, RW, 0, FIX, 0xFFFFFFFFu, "Free for software (bus checks).")                    \
  ROW(TIMER_LO, 0x110, RO, 0, FIX, 0xFFFFFFFFu,                                                      \
    "Global timer, nanoseconds, bits [31:0]; reading it latches TIMER_HI.")                        \
  ROW(TIMER_HI, 0x114, RO, 0, FIX, 0xFFFFFFFFu, "Global timer bits [63:32] as latched by TIMER_LO.") \
  ROW(INTR_STATUS, 0x200, W1C, 0, FIX, 0x7u,                                                         \
    "Interrupt causes: COMPLETION [0], ERROR [1], MMU_FAULT [2]. Write 1 to acknowledge (clear).") \
  ROW(INTR_ENABLE, 0x204, RW, 0, FIX, 0x7u, "Causes that drive the interrupt line (bits as INTR_STATUS).") \
  ROW(INTR_PENDING, 0x208, RO, 0, FIX, 0x7u,                                                         \
    "INTR_STATUS & INTR_ENABLE: the line is asserted while this is not zero.")                     \
  ROW(ERR_STATUS, 0x300, W1C, 0, FIX, 0x3Fu,                                                         \
    "Error classes seen since last cleared (see fields). Write 1 to clear; the capture registers " \
    "below re-arm when all bits are clear.")                                                       \
  ROW(ERR_CODE, 0x304, RO, 0, FIX, 0xFFFFFFu,                                                        \
    "First error captured: CODE [7:0] (error table), CHANNEL [15:8] (0xFF = none), OPCODE [23:16] " \
    "(packet opcode, 0 when not a packet error).")                                                 \
  ROW(ERR_ADDR_LO, 0x308, RO, 0, FIX, 0xFFFFFFFFu,                                                   \
    "Address of the first error, bits [31:0]: packet's system-memory address, register offset, or " \
    "faulting memory address (see error table).")                                                 \
  ROW(ERR_ADDR_HI, 0x30C, RO, 0, FIX, 0xFFFFFFFFu, "Address of the first error, bits [63:32].")      \
  ROW(ERR_INFO, 0x310, RO, 0, FIX, 0xFFFFFFFFu,                                                      \
    "More about the first error: offending dword index, written value, or grid id (see error table).") \
  ROW(ERR_COUNT, 0x314, RO, 0, FIX, 0xFFFFFFFFu, "Errors since reset (saturates).")                 \
  ROW(MEMMAP_CTRL, 0x400, RW, 0, FIX, 0x1u,                                                          \
    "Device memory map: ENABLE [0]: only the blocks declared with MEMMAP_OP are accessible (0: all of " \
    "device memory). Set it before the first block; setting it drops the contents of device memory.") \
  ROW(MEMMAP_ADDR_LO, 0x404, RW, 0, FIX, 0xFFFFFFFFu, "MEMMAP_OP block address, bits [31:0].")       \
  ROW(MEMMAP_ADDR_HI, 0x408, RW, 0, FIX, 0xFFFFFFFFu, "MEMMAP_OP block address, bits [63:32].")      \
  ROW(MEMMAP_SIZE_LO, 0x40C, RW, 0, FIX, 0xFFFFFFFFu, "MEMMAP_OP block size in bytes, bits [31:0].") \
  ROW(MEMMAP_SIZE_HI, 0x410, RW, 0, FIX, 0xFFFFFFFFu, "MEMMAP_OP block size in bytes, bits [63:32].") \
  ROW(MEMMAP_TAG_LO, 0x414, RW, 0, FIX, 0xFFFFFFFFu,                                                 \
    "MEMMAP_OP block tag (software's, e.g. its allocation site; memory-checker reports), bits [31:0].") \
  ROW(MEMMAP_TAG_HI, 0x418, RW, 0, FIX, 0xFFFFFFFFu, "MEMMAP_OP block tag, bits [63:32].")           \
  ROW(MEMMAP_OP, 0x41C, WO, 0, FIX, 0xFu,                                                            \
    "Write to declare (CMD 1) or end (CMD 2) the block at MEMMAP_ADDR of MEMMAP_SIZE bytes; refused " \
    "ones raise MEMMAP_OP.")                                                                         \
  ROW(MMU_INVAL_PDB_LO, 0x420, RW, 0, FIX, 0xFFFFF007u,                                              \
    "Address space MMU_INVALIDATE acts on, bits [31:0] in the PDB format (as CH_PDB_LO); 0 with "  \
    "MMU_INVAL_PDB_HI 0 = every address space.")                                                   \
  ROW(MMU_INVAL_PDB_HI, 0x424, RW, 0, FIX, 0x000FFFFFu, "Address space to invalidate, bits [51:32].") \
  ROW(MMU_INVAL_VA_LO, 0x428, RW, 0, FIX, 0xFFFFF000u,                                               \
    "First virtual address MMU_INVALIDATE acts on, bits [31:12].")                                 \
  ROW(MMU_INVAL_VA_HI, 0x42C, RW, 0, FIX, 0x0000FFFFu, "First virtual address, bits [47:32].")       \
  ROW(MMU_INVAL_PAGES, 0x430, RW, 0, FIX, 0xFFFFFFFFu,                                               \
    "4 KiB pages from MMU_INVAL_VA to invalidate; 0 = the whole address space.")                   \
  ROW(MMU_INVALIDATE, 0x434, WO, 0, FIX, 0x1u,                                                       \
    "Write TRIGGER [0]: every TLB and translation cache of the GPU drops the translations of the "  \
    "range; accesses issued after the write walk the page tables again.")                          \
  ROW(FAULT_BUF_BASE_LO, 0x440, RW, 0, FIX, 0xFFFFFF00u,                                             \
    "Replayable-fault buffer in system memory, bits [31:0]; 256-byte aligned.")                    \
  ROW(FAULT_BUF_BASE_HI, 0x444, RW, 0, FIX, 0xFFFFFFFFu, "Fault buffer base, bits [63:32].")         \
  ROW(FAULT_BUF_ENTRIES, 0x448, RW, 0, FIX, 0x0001FFFFu,                                             \
    "Fault buffer size in 32-byte entries, at most 65536; 0 = no buffer (replayable faults are "   \
    "fatal).")                                                                                     \
  ROW(FAULT_BUF_GET, 0x44C, RW, 0, FIX, 0x0000FFFFu,                                                 \
    "Index of the next entry software reads (software advances it past the entries it consumed).") \
  ROW(FAULT_BUF_PUT, 0x450, RO, 0, FIX, 0x0000FFFFu,                                                 \
    "Index where the GPU writes the next entry. Empty when GET == PUT; the GPU keeps one entry "   \
    "free.")                                                                                       \
  ROW(FAULT_STATUS, 0x454, W1C, 0, FIX, 0x1u,                                                        \
    "OVERFLOW [0]: a replayable fault found the buffer full and was not written (it is recorded "  \
    "again when its access replays). Write 1 to clear.")                                           \
  ROW(MMU_REPLAY, 0x458, WO, 0, FIX, 0x3u,                                                           \
    "Write REPLAY [0]: every access waiting on a replayable fault retries; CANCEL [1]: they fail "  \
    "instead (a fatal fault of their kernel).")                                                    \
  ROW(FAULT_PENDING, 0x45C, RO, 0, FIX, 0xFFFFFFFFu,                                                 \
    "Distinct pages with accesses waiting for MMU_REPLAY.")

/* ---- per-channel registers --------------------------------------------------------------- */
#define GPU_CH_BASE 0x1000u   /* channel c's block starts at GPU_CH_BASE + c * GPU_CH_STRIDE */
#define GPU_CH_STRIDE 0x40u
#define GPU_MAX_CHANNELS 64u

/* X(name, offset in the channel block, access, reset, defined-bits mask, description) */
#define GPU_ABI_CH_REGS(ROW)                                                                         \
  ROW(CH_BASE_LO, 0x00, RW, 0, 0xFFFFFF00u,                                                          \
    "Ring base in system memory, bits [31:0]; 256-byte aligned (bits [7:0] reserved).")            \
  ROW(CH_BASE_HI, 0x04, RW, 0, 0xFFFFFFFFu, "Ring base, bits [63:32].")                              \
  ROW(CH_SIZE, 0x08, RW, 0, 0xFFFFFFFFu,                                                             \
    "Ring size in bytes: a power of two from 4 KiB to 16 MiB (checked when the channel is enabled).") \
  ROW(CH_PUT, 0x0C, RW, 0, 0x00FFFFFCu,                                                              \
    "Byte offset where software writes the next packet dword (host-owned).")                       \
  ROW(CH_GET, 0x10, RO, 0, 0x00FFFFFCu,                                                              \
    "Byte offset of the next dword the command processor reads. Ring is empty when GET == PUT; "   \
    "software keeps at least 4 bytes free so a full ring never looks empty.")                      \
  ROW(CH_CTRL, 0x14, RW, 0, 0x1u,                                                                    \
    "ENABLE [0]: 0->1 checks BASE/SIZE and sets GET = PUT, as they are at this write (the "        \
    "command processor may handle it later); 1->0 stops fetching (work in flight "                 \
    "completes).")                                                                                 \
  ROW(CH_STATUS, 0x18, RO, 0, 0x7u,                                                                  \
    "BUSY [0] packets pending or in flight; WAITING [1] blocked on a semaphore; ERROR [2] a "       \
    "packet of this channel was rejected since it was enabled.")                                   \
  ROW(CH_FENCE_LO, 0x1C, RO, 0, 0xFFFFFFFFu, "Value of the channel's last FENCE packet, bits [31:0].") \
  ROW(CH_FENCE_HI, 0x20, RO, 0, 0xFFFFFFFFu, "Value of the channel's last FENCE packet, bits [63:32].") \
  ROW(CH_PKT_COUNT, 0x24, RO, 0, 0xFFFFFFFFu, "Packets completed since the channel was enabled.")   \
  ROW(CH_PDB_LO, 0x28, RW, 0, 0xFFFFF007u,                                                           \
    "Page-directory base of the channel's address space (mmu_pte.h PDB format): VALID [0] "        \
    "translation on, APERTURE [2:1] where the root table is, ADDR [31:12]. Each packet uses the "  \
    "value at the moment it starts; VALID 0 = physical addresses.")                               \
  ROW(CH_PDB_HI, 0x2C, RW, 0, 0x000FFFFFu, "Page-directory base, ADDR bits [51:32].")

/* ---- register fields ---------------------------------------------------------------------- */
/* X(register, field, lsb, width, description) */
#define GPU_ABI_FIELDS(ROW)                                                                          \
  ROW(ABI_VERSION, MINOR, 0, 16, "minor version")                                                    \
  ROW(ABI_VERSION, MAJOR, 16, 16, "major version")                                                   \
  ROW(CC, MINOR, 0, 8, "compute capability minor")                                                   \
  ROW(CC, MAJOR, 8, 8, "compute capability major")                                                   \
  ROW(MAX_BLOCK_DIM_XY, X, 0, 16, "block X limit")                                                   \
  ROW(MAX_BLOCK_DIM_XY, Y, 16, 16, "block Y limit")                                                  \
  ROW(MAX_GRID_DIM_YZ, Y, 0, 16, "grid Y limit")                                                     \
  ROW(MAX_GRID_DIM_YZ, Z, 16, 16, "grid Z limit")                                                    \
  ROW(SYSTEM, INTEGRATED, 0, 1, "device memory is a carve-out of system memory")                      \
  ROW(SYSTEM, COHERENT, 1, 1, "the L2 caches host memory, kept coherent with the host")              \
  ROW(SYSTEM, PAGEABLE, 2, 1, "any host pointer works in kernels (IOMMU, host page tables)")         \
  ROW(CTRL, ENABLE, 0, 1, "command processor runs")                                                  \
  ROW(STATUS, IDLE, 0, 1, "nothing queued or running")                                               \
  ROW(STATUS, ERROR, 1, 1, "ERR_STATUS != 0")                                                        \
  ROW(DOORBELL, CHANNEL, 0, 8, "channel whose PUT moved")                                            \
  ROW(INTR_STATUS, COMPLETION, 0, 1, "a packet with the INTR flag, or an INTERRUPT packet, completed") \
  ROW(INTR_STATUS, ERROR, 1, 1, "an error was captured (ERR_STATUS)")                                \
  ROW(INTR_STATUS, MMU_FAULT, 2, 1, "a replayable fault was written to the fault buffer (or overflowed)") \
  ROW(MMU_CAPS, LEVELS, 0, 4, "page-table levels (4)")                                               \
  ROW(MMU_CAPS, PAGE_4K, 4, 1, "4 KiB pages (level-0 leaves)")                                       \
  ROW(MMU_CAPS, PAGE_2M, 5, 1, "2 MiB pages (level-1 leaves with PS)")                               \
  ROW(MMU_CAPS, REPLAYABLE, 6, 1, "accesses wait on replayable faults (else they are fatal)")      \
  ROW(MMU_CAPS, VA_BITS, 8, 8, "virtual address bits (48)")                                          \
  ROW(MMU_CAPS, PA_BITS, 16, 8, "physical address bits (52)")                                        \
  ROW(MMU_INVALIDATE, TRIGGER, 0, 1, "drop the translations of the range")                           \
  ROW(FAULT_STATUS, OVERFLOW, 0, 1, "a fault found the buffer full")                                 \
  ROW(MMU_REPLAY, REPLAY, 0, 1, "waiting accesses retry")                                            \
  ROW(MMU_REPLAY, CANCEL, 1, 1, "waiting accesses fail")                                             \
  ROW(ERR_STATUS, PACKET, 0, 1, "malformed or rejected packet")                                      \
  ROW(ERR_STATUS, REG, 1, 1, "illegal register access")                                              \
  ROW(ERR_STATUS, RING, 2, 1, "bad ring configuration or doorbell")                                  \
  ROW(ERR_STATUS, DMA, 3, 1, "system-memory access failed")                                          \
  ROW(ERR_STATUS, DEVMEM, 4, 1, "device-memory access failed")                                       \
  ROW(ERR_STATUS, KERNEL, 5, 1, "a kernel faulted or trapped")                                       \
  ROW(ERR_CODE, CODE, 0, 8, "gpu_err code")                                                          \
  ROW(ERR_CODE, CHANNEL, 8, 8, "channel, 0xFF when none")                                            \
  ROW(ERR_CODE, OPCODE, 16, 8, "packet opcode")                                                      \
  ROW(CH_CTRL, ENABLE, 0, 1, "channel fetches packets")                                              \
  ROW(CH_STATUS, BUSY, 0, 1, "work pending or in flight")                                            \
  ROW(CH_STATUS, WAITING, 1, 1, "blocked in SEM_WAIT")                                               \
  ROW(CH_STATUS, ERROR, 2, 1, "a packet was rejected")                                               \
  ROW(MEMMAP_CTRL, ENABLE, 0, 1, "kernels, copies and the command processor reach only declared blocks") \
  ROW(MEMMAP_OP, CMD, 0, 2, "1 = MAP: declare a live block (its pages become accessible); 2 = UNMAP: end " \
    "the block starting at MEMMAP_ADDR (pages no live block touches become inaccessible)")           \
  ROW(MEMMAP_OP, INTERNAL, 2, 1, "MAP: the block is software's own (program image, module data), not " \
    "the program's")                                                                               \
  ROW(MEMMAP_OP, CODE, 3, 1, "MAP: the block is a program image: instruction fetch only, no kernel " \
    "data access belongs there (the memory checker reports one)")                                    \
  ROW(CH_PDB_LO, VALID, 0, 1, "translation on")                                                      \
  ROW(CH_PDB_LO, APERTURE, 1, 2, "aperture of the root table (0 VIDMEM, 1 SYSMEM)")                 \
  ROW(CH_PDB_LO, ADDR, 12, 20, "root table address bits [31:12]")

/* ---- error codes (ERR_CODE.CODE) --------------------------------------------------------- */
/* X(name, code, ERR_STATUS class, meaning of ERR_ADDR, meaning of ERR_INFO, description) */
#define GPU_ABI_ERRORS(ROW)                                                                          \
  ROW(NONE, 0, PACKET, "-", "-", "no error")                                                         \
  ROW(PKT_OPCODE, 1, PACKET, "packet", "header", "unknown opcode; the rest of the ring up to PUT is skipped") \
  ROW(PKT_SIZE, 2, PACKET, "packet", "header",                                                       \
    "DWORDS does not match the opcode, or the packet runs past PUT; skipped up to PUT")            \
  ROW(PKT_RESERVED, 3, PACKET, "packet", "header", "reserved header bits or unknown flags set; packet skipped") \
  ROW(PKT_FIELD, 4, PACKET, "packet", "dword index", "a field is out of range; packet skipped")       \
  ROW(PKT_ALIGN, 5, PACKET, "packet", "dword index", "a misaligned address, pitch or size; packet skipped") \
  ROW(LAUNCH_LIMIT, 6, PACKET, "packet", "dword index",                                              \
    "one CTA needs more threads, warps, registers or shared memory than an SM has; launch skipped") \
  ROW(LAUNCH_IMAGE, 7, PACKET, "image address", "entry",                                             \
    "program image malformed (header, or any table on decoding) or entry not in it; launch skipped") \
  ROW(REG_RO_WRITE, 8, REG, "register offset", "value written", "write to a read-only register (ignored)") \
  ROW(REG_WO_READ, 9, REG, "register offset", "-", "read of a write-only register (returns 0)")      \
  ROW(REG_UNMAPPED, 10, REG, "register offset", "value written (0 for reads)",                        \
    "access to an offset with no register (write ignored, read returns 0)")                        \
  ROW(REG_RESERVED_BITS, 11, REG, "register offset", "value written",                                \
    "write sets reserved bits (those bits are ignored)")                                           \
  ROW(REG_ACCESS_SIZE, 12, REG, "register offset", "access bytes",                                   \
    "access not 32 bits wide or not 4-byte aligned (ignored, reads return 0)")                     \
  ROW(RING_CONFIG, 13, RING, "ring base", "ring size",                                               \
    "channel enabled with a bad base or size; the channel stays disabled")                         \
  ROW(DOORBELL, 14, RING, "channel", "PUT",                                                          \
    "doorbell for a channel that does not exist or is disabled, or PUT >= SIZE (ignored)")         \
  ROW(DMA_FAULT, 15, DMA, "system address", "dword index or 0",                                      \
    "system memory did not answer (ring fetch, parameters, semaphore, copy); the packet is dropped") \
  ROW(DEVMEM_FAULT, 16, DEVMEM, "device address", "0, or the MMU fault kind when translation failed", \
    "device memory access failed or did not translate (copy, memset, image)")                     \
  ROW(KERNEL_FAULT, 17, KERNEL, "faulting address", "grid id",                                       \
    "a kernel accessed memory it may not (its remaining CTAs still run)")                          \
  ROW(KERNEL_TRAP, 18, KERNEL, "pc", "grid id", "a kernel executed trap, or an assertion failed") \
  ROW(KERNEL_MISALIGNED, 19, KERNEL, "faulting address", "grid id",                                  \
    "a kernel accessed memory at an address not aligned to the access size")                       \
  ROW(KERNEL_STOPPED, 20, KERNEL, "0", "grid id",                                                    \
    "the kernel was stopped: instruction or cycle limit, or the deadlock watchdog")               \
  ROW(MEMMAP_OP, 21, REG, "block address", "MEMMAP_OP value",                                        \
    "MEMMAP_OP refused: bad command, block outside device memory or overlapping a live one, or no "  \
    "live block starts at the address (nothing changes)")                                        \
  ROW(SYSMEM_MAP, 30, DMA, "GPU address", "0",                                                       \
    "MAP_SYSMEM: the range overlaps a mapping, or the system memory there grants no direct access; " \
    "nothing is mapped")

/* ---- packets --------------------------------------------------------------------------------- */
/* Ring: SIZE bytes of little-endian dwords at BASE. Software writes packets at PUT (wrapping to
 * offset 0 at SIZE; a packet may wrap), advances PUT past whole packets only, then writes the
 * channel number to DOORBELL. The command processor reads from GET to PUT. Packets of one channel
 * execute in order and each starts only after the previous one completed; channels run
 * concurrently. */

/* Header dword. */
#define GPU_PKT_OPCODE_LSB 0
#define GPU_PKT_OPCODE_WIDTH 8
#define GPU_PKT_DWORDS_LSB 8 /* total dwords including the header, 1..255 */
#define GPU_PKT_DWORDS_WIDTH 8
#define GPU_PKT_FLAGS_LSB 16 /* flags byte: bit 0 common (INTR), bits 1..7 per opcode */
#define GPU_PKT_FLAGS_WIDTH 8
#define GPU_PKT_RESERVED_MASK 0xFF000000u /* must be zero */

#define GPU_PKT_FLAG_INTR 0x01u /* raise COMPLETION when this packet completes (every opcode) */

static inline uint32_t gpu_pkt_header(uint32_t opcode, uint32_t dwords, uint32_t flags) {
  return (opcode & 0xFFu) | ((dwords & 0xFFu) << GPU_PKT_DWORDS_LSB) |
         ((flags & 0xFFu) << GPU_PKT_FLAGS_LSB);
}
static inline uint32_t gpu_pkt_opcode(uint32_t header) { return header & 0xFFu; }
static inline uint32_t gpu_pkt_dwords(uint32_t header) { return (header >> 8) & 0xFFu; }
static inline uint32_t gpu_pkt_flags(uint32_t header) { return (header >> 16) & 0xFFu; }

/* X(name, opcode, dwords including header (0 = any >= 1), description) */
#define GPU_ABI_PACKETS(ROW)                                                                         \
  ROW(NOP, 0x00, 0, "Does nothing; any length (padding, tests).")                                    \
  ROW(LAUNCH, 0x01, 19,                                                                              \
    "Launch a kernel: the command processor fetches the parameters, checks the image header and "  \
    "the per-CTA resources, and hands the grid to the CTA dispatcher; completes when every CTA "   \
    "finished. With the CLUSTER flag the packet is 20 dwords long (dword 19 `CLUSTER`).")          \
  ROW(COPY, 0x02, 7, "Copy BYTES from SRC to DST (device or system memory each) on a copy engine.") \
  ROW(COPY_2D, 0x03, 9,                                                                              \
    "Copy HEIGHT rows of WIDTH bytes; rows start SRC_PITCH / DST_PITCH bytes apart (WIDTH <= both).") \
  ROW(MEMSET, 0x04, 8,                                                                               \
    "Fill HEIGHT rows of WIDTH elements of 1, 2 or 4 bytes with VALUE; rows PITCH bytes apart "    \
    "(PITCH ignored when HEIGHT is 1).")                                                           \
  ROW(FENCE, 0x05, 5,                                                                                \
    "Semaphore release: sets the channel's FENCE registers to VALUE and, with SYSMEM, writes it "  \
    "to ADDR in system memory (with TIMESTAMP: {VALUE u64, timer ns u64}, 16 bytes).")             \
  ROW(SEM_WAIT, 0x06, 5,                                                                             \
    "Semaphore acquire: blocks the channel until the value at ADDR in system memory is >= VALUE "  \
    "(unsigned; or == VALUE with EQUAL); polled.")                                                 \
  ROW(INTERRUPT, 0x07, 1, "Raises COMPLETION (as the INTR flag does) when reached.")               \
  ROW(MAP_SYSMEM, 0x08, 7,                                                                           \
    "Maps BYTES of the GPU's address space at VA onto system memory at bus address BUS (zero-copy: " \
    "kernels that access VA read and write system memory through the DMA initiator), or with "     \
    "UNMAP removes the mapping at VA; 4 KiB pages.")

/* Packet dwords. X(packet, field, dword index, description) */
#define GPU_ABI_PKT_DWORDS(ROW)                                                                      \
  ROW(LAUNCH, IMAGE_LO, 1, "program image device address [31:0] (see Program image)")               \
  ROW(LAUNCH, IMAGE_HI, 2, "program image device address [63:32]")                                   \
  ROW(LAUNCH, ENTRY, 3, "function index of the .entry in the image")                                 \
  ROW(LAUNCH, GRID_X, 4, "grid dimension X, >= 1")                                                   \
  ROW(LAUNCH, GRID_Y, 5, "grid dimension Y, >= 1")                                                   \
  ROW(LAUNCH, GRID_Z, 6, "grid dimension Z, >= 1")                                                   \
  ROW(LAUNCH, BLOCK_X, 7, "block dimension X, >= 1")                                                 \
  ROW(LAUNCH, BLOCK_Y, 8, "block dimension Y, >= 1")                                                 \
  ROW(LAUNCH, BLOCK_Z, 9, "block dimension Z, >= 1")                                                 \
  ROW(LAUNCH, SMEM_DYNAMIC, 10, "dynamic shared memory per CTA, bytes")                              \
  ROW(LAUNCH, SMEM_STATIC, 11, "static shared memory per CTA, bytes")                                \
  ROW(LAUNCH, REGS_PER_THREAD, 12, "32-bit registers per thread")                                    \
  ROW(LAUNCH, LOCAL_BYTES, 13, "local memory per thread, bytes")                                     \
  ROW(LAUNCH, PARAM_LO, 14, "parameter buffer system-memory address [31:0], 4-byte aligned")         \
  ROW(LAUNCH, PARAM_HI, 15, "parameter buffer address [63:32]")                                      \
  ROW(LAUNCH, PARAM_BYTES, 16, "parameter buffer size, <= MAX_PARAM_BYTES")                          \
  ROW(LAUNCH, STREAM_ID, 17, "software stream id (statistics and traces)")                           \
  ROW(LAUNCH, GRID_ID, 18, "software grid id (%gridid, statistics, fault reports)")                  \
  ROW(LAUNCH, CLUSTER, 19,                                                                           \
    "only with the CLUSTER flag: thread block cluster, CTAs per cluster in X [7:0], Y [15:8], "    \
    "Z [23:16] (0 = clusters of one CTA); each divides the grid's, at most 16 CTAs in all, all "  \
    "resident at once")                                                                           \
  ROW(COPY, SRC_LO, 1, "source address [31:0]")                                                      \
  ROW(COPY, SRC_HI, 2, "source address [63:32]")                                                     \
  ROW(COPY, DST_LO, 3, "destination address [31:0]")                                                 \
  ROW(COPY, DST_HI, 4, "destination address [63:32]")                                                \
  ROW(COPY, BYTES_LO, 5, "bytes [31:0]")                                                             \
  ROW(COPY, BYTES_HI, 6, "bytes [63:32]")                                                            \
  ROW(COPY_2D, SRC_LO, 1, "source address [31:0]")                                                   \
  ROW(COPY_2D, SRC_HI, 2, "source address [63:32]")                                                  \
  ROW(COPY_2D, SRC_PITCH, 3, "source row pitch, bytes")                                              \
  ROW(COPY_2D, DST_LO, 4, "destination address [31:0]")                                              \
  ROW(COPY_2D, DST_HI, 5, "destination address [63:32]")                                             \
  ROW(COPY_2D, DST_PITCH, 6, "destination row pitch, bytes")                                         \
  ROW(COPY_2D, WIDTH, 7, "bytes per row")                                                            \
  ROW(COPY_2D, HEIGHT, 8, "rows")                                                                    \
  ROW(MEMSET, DST_LO, 1, "destination address [31:0], aligned to the element size")                 \
  ROW(MEMSET, DST_HI, 2, "destination address [63:32]")                                              \
  ROW(MEMSET, VALUE, 3, "fill value (low 8/16/32 bits used)")                                        \
  ROW(MEMSET, PITCH, 4, "row pitch, bytes, aligned to the element size")                             \
  ROW(MEMSET, WIDTH_LO, 5, "elements per row [31:0]")                                                \
  ROW(MEMSET, WIDTH_HI, 6, "elements per row [63:32]")                                               \
  ROW(MEMSET, HEIGHT, 7, "rows, >= 1")                                                               \
  ROW(FENCE, ADDR_LO, 1, "semaphore system-memory address [31:0], 8-byte aligned (4 with VALUE32)")  \
  ROW(FENCE, ADDR_HI, 2, "semaphore address [63:32]")                                                \
  ROW(FENCE, VALUE_LO, 3, "value [31:0]")                                                            \
  ROW(FENCE, VALUE_HI, 4, "value [63:32]")                                                           \
  ROW(SEM_WAIT, ADDR_LO, 1, "semaphore system-memory address [31:0], 8-byte aligned (4 with VALUE32)") \
  ROW(SEM_WAIT, ADDR_HI, 2, "semaphore address [63:32]")                                             \
  ROW(SEM_WAIT, VALUE_LO, 3, "value [31:0]")                                                         \
  ROW(SEM_WAIT, VALUE_HI, 4, "value [63:32]")                                                      \
  ROW(MAP_SYSMEM, VA_LO, 1, "GPU virtual address [31:0], 4 KiB aligned")                             \
  ROW(MAP_SYSMEM, VA_HI, 2, "GPU virtual address [63:32]")                                           \
  ROW(MAP_SYSMEM, BUS_LO, 3, "system-memory bus address [31:0], 4 KiB aligned (ignored with UNMAP)") \
  ROW(MAP_SYSMEM, BUS_HI, 4, "bus address [63:32]")                                                  \
  ROW(MAP_SYSMEM, BYTES_LO, 5, "bytes [31:0], a multiple of 4 KiB, not 0")                           \
  ROW(MAP_SYSMEM, BYTES_HI, 6, "bytes [63:32]")

/* Packet flags (in the header's flags byte). X(packet, flag, lsb, width, description) */
#define GPU_ABI_PKT_FLAGS(ROW)                                                                       \
  ROW(LAUNCH, CLUSTER, 1, 1, "the packet has dword 19, CLUSTER (20 dwords in all)")                 \
  ROW(COPY, SRC_SYSMEM, 1, 1, "source is system memory (else device memory)")                        \
  ROW(COPY, DST_SYSMEM, 2, 1, "destination is system memory (else device memory)")                   \
  ROW(COPY, SRC_PHYS, 3, 1, "a device-memory source address is physical (not translated)")           \
  ROW(COPY, DST_PHYS, 4, 1, "a device-memory destination address is physical (not translated)")      \
  ROW(COPY_2D, SRC_SYSMEM, 1, 1, "source is system memory")                                          \
  ROW(COPY_2D, DST_SYSMEM, 2, 1, "destination is system memory")                                     \
  ROW(COPY_2D, SRC_PHYS, 3, 1, "a device-memory source address is physical")                         \
  ROW(COPY_2D, DST_PHYS, 4, 1, "a device-memory destination address is physical")                    \
  ROW(MEMSET, DST_SYSMEM, 2, 1, "destination is system memory")                                      \
  ROW(MEMSET, ELEM, 3, 2, "element size: 0 = 1 byte, 1 = 2 bytes, 2 = 4 bytes (3 invalid)")          \
  ROW(MEMSET, DST_PHYS, 5, 1, "a device-memory destination address is physical")                     \
  ROW(FENCE, SYSMEM, 1, 1, "also write VALUE to ADDR")                                               \
  ROW(FENCE, TIMESTAMP, 2, 1, "write {VALUE u64, timer ns u64} to ADDR (needs SYSMEM, 16 bytes)")    \
  ROW(FENCE, VALUE32, 3, 1, "write only VALUE [31:0] (4 bytes)")                                     \
  ROW(SEM_WAIT, EQUAL, 1, 1, "wait for == VALUE instead of >= VALUE")                                \
  ROW(SEM_WAIT, VALUE32, 3, 1, "compare the 32-bit value at ADDR with VALUE [31:0]")                \
  ROW(MAP_SYSMEM, UNMAP, 1, 1, "remove the mapping of [VA, VA + BYTES) instead")

/* ---- expansions: constants for code ------------------------------------------------------- */
#define GPU_X_REG_ENUM(name, off, acc, rst, src, mask, desc) GPU_REG_##name = (off),
#define GPU_X_CH_REG_ENUM(name, off, acc, rst, mask, desc) GPU_REG_##name = (off),
enum { GPU_ABI_REGS(GPU_X_REG_ENUM) GPU_ABI_CH_REGS(GPU_X_CH_REG_ENUM) };
#undef GPU_X_REG_ENUM
#undef GPU_X_CH_REG_ENUM

/* Fields: GPU_<REG>_<FIELD>_LSB / _WIDTH; use GPU_FIELD_MASK(GPU_<REG>_<FIELD>) and friends. */
#define GPU_X_FIELD_ENUM(reg, field, lsb, width, desc)                                             \
  GPU_##reg##_##field##_LSB = (lsb), GPU_##reg##_##field##_WIDTH = (width),
enum { GPU_ABI_FIELDS(GPU_X_FIELD_ENUM) };
#undef GPU_X_FIELD_ENUM
#define GPU_FIELD_MASK(f) ((uint32_t)((((uint64_t)1 << f##_WIDTH) - 1) << f##_LSB))
#define GPU_FIELD_GET(f, v) ((uint32_t)(((uint32_t)(v) >> f##_LSB) & (uint32_t)(((uint64_t)1 << f##_WIDTH) - 1)))
#define GPU_FIELD_PUT(f, x) (((uint32_t)(x) << f##_LSB) & GPU_FIELD_MASK(f))

/* Channel register address: GPU_CH_REG(3, GPU_REG_CH_PUT). */
#define GPU_CH_REG(ch, reg) (GPU_CH_BASE + (uint32_t)(ch) * GPU_CH_STRIDE + (uint32_t)(reg))

#define GPU_X_ERR_ENUM(name, code, cls, addr, info, desc) GPU_ERR_##name = (code),
typedef enum gpu_err { GPU_ABI_ERRORS(GPU_X_ERR_ENUM) GPU_ERR_COUNT } gpu_err;
#undef GPU_X_ERR_ENUM

#define GPU_X_PKT_ENUM(name, op, dw, desc) GPU_OP_##name = (op),
typedef enum gpu_opcode { GPU_ABI_PACKETS(GPU_X_PKT_ENUM) GPU_OP_COUNT } gpu_opcode;
#undef GPU_X_PKT_ENUM
#define GPU_X_PKT_LEN_ENUM(name, op, dw, desc) GPU_PKT_##name##_DWORDS = (dw),
enum { GPU_ABI_PACKETS(GPU_X_PKT_LEN_ENUM) };
#undef GPU_X_PKT_LEN_ENUM

/* Packet dword indices: GPU_<PKT>_<FIELD>, e.g. GPU_LAUNCH_GRID_X. */
#define GPU_X_DW_ENUM(pkt, field, idx, desc) GPU_##pkt##_##field = (idx),
enum { GPU_ABI_PKT_DWORDS(GPU_X_DW_ENUM) };
#undef GPU_X_DW_ENUM

/* Packet flags: GPU_<PKT>_F_<FLAG> (mask in the flags byte) and _LSB. */
#define GPU_X_PF_ENUM(pkt, flag, lsb, width, desc)                                                 \
  GPU_##pkt##_F_##flag = (((1 << (width)) - 1) << (lsb)), GPU_##pkt##_F_##flag##_LSB = (lsb),
enum { GPU_ABI_PKT_FLAGS(GPU_X_PF_ENUM) };
#undef GPU_X_PF_ENUM

/* Error class of each code, as an ERR_STATUS bit mask. */
static inline uint32_t gpu_err_class_mask(gpu_err e) {
  if (e == GPU_ERR_NONE) return 0;
#define GPU_X_ERR_CLASS(name, code, cls, addr, info, desc)                                         \
  case GPU_ERR_##name: return GPU_FIELD_MASK(GPU_ERR_STATUS_##cls);
  switch (e) { GPU_ABI_ERRORS(GPU_X_ERR_CLASS) default: return 0; }
#undef GPU_X_ERR_CLASS
}

/* ---- virtual memory -----------------------------------------------------------------------------
 * Device-memory addresses in packets and kernels are virtual: the GPU translates them through the
 * page tables of the channel's CH_PDB (mmu_pte.h has the format) unless the PDB is not VALID or a
 * *_PHYS flag says the address is physical. Software changes tables, then writes MMU_INVALIDATE.
 * With MMU_CAPS.REPLAYABLE (0 in this version: such faults are fatal) an access that faults on an
 * entry with REPLAY waits; the GPU writes one entry per distinct page
 * (per address space) into the fault buffer, raises INTR_STATUS.MMU_FAULT, and software services
 * the faults and writes MMU_REPLAY. */
typedef struct gpu_fault_entry {
  uint64_t va;           /* faulting virtual address (the first faulting byte of the access) */
  uint64_t timestamp_ns; /* global timer when the fault was recorded */
  uint32_t channel;      /* channel whose work faulted (whose CH_PDB it translated through) */
  uint32_t grid_id;      /* LAUNCH.GRID_ID of the kernel */
  uint16_t sm;           /* SIMT core */
  uint8_t access;        /* mmu_access: 0 read, 1 write, 2 atomic */
  uint8_t kind;          /* mmu_fault: 3 replayable-absent, 4 replayable-write */
  uint32_t valid;        /* 1 when the GPU wrote the entry (software may clear it) */
} gpu_fault_entry;
#define GPU_FAULT_ENTRY_BYTES 32u
#define GPU_FAULT_BUF_MAX_ENTRIES 65536u

/* The PDB of a channel as its two registers hold it. */
static inline uint64_t gpu_pdb_from_regs(uint32_t lo, uint32_t hi) { return ((uint64_t)hi << 32) | lo; }

/* Semaphore written by FENCE with TIMESTAMP. */
typedef struct gpu_semaphore_ts {
  uint64_t value;
  uint64_t timestamp_ns;
} gpu_semaphore_ts;

/* ---- program image ---------------------------------------------------------------------------
 * The driver places each loaded module in device memory as one image: this header, then the code
 * region (one 16-byte slot per pre-decoded instruction: the addresses instruction fetch uses),
 * then a layout table and models/ptx's arrays with pointers replaced by offsets (gpu_image.h
 * reads and writes them). Instruction i is at code_base = image + insn_offset, plus i * 16; a
 * function pointer's value is the address of the function's first instruction (models/func's
 * func_placement.code_base rule). The module's .global and .const segments are separate device
 * allocations whose addresses the header names. LAUNCH checks magic, version and
 * entry < n_functions. */
#define GPU_IMAGE_MAGIC 0x49505653u /* "SVPI" */
#define GPU_IMAGE_VERSION 2u
#define GPU_IMAGE_INSN_BYTES 16u    /* code slot per instruction (as 128-bit SASS instructions) */

/* A code slot: enough to identify the instruction in traces and I-cache models. */
typedef struct gpu_image_code_slot {
  uint16_t opcode;   /* ptx_opcode */
  uint8_t nops;
  uint8_t reserved;
  uint32_t pc;       /* module-wide instruction index */
  uint32_t function; /* owning function index */
  uint32_t ptx_line;
} gpu_image_code_slot;

typedef struct gpu_image_header {
  uint32_t magic;          /* GPU_IMAGE_MAGIC */
  uint32_t version;        /* GPU_IMAGE_VERSION */
  uint64_t image_bytes;    /* whole image including this header */
  uint32_t n_functions;
  uint32_t n_insns;
  uint64_t insn_offset;    /* code region, from the image start (16-byte aligned) */
  uint32_t insn_stride;    /* bytes per code slot: GPU_IMAGE_INSN_BYTES */
  uint32_t header_bytes;   /* sizeof(gpu_image_header) */
  uint64_t global_base;    /* device address of the module's .global segment (0 when empty) */
  uint64_t global_bytes;
  uint64_t const_base;     /* device address of the module's .const segment (0 when empty) */
  uint64_t const_bytes;
  uint64_t layout_offset;  /* the serialised ptx_module tables (gpu_image.h) */
  uint64_t layout_bytes;
  uint64_t load_id;        /* unique per load (the loader's choice, not 0): lets the GPU side cache a
                              decoded image by (address, load_id) */
  uint64_t reserved[3];
} gpu_image_header;

static inline uint64_t gpu_image_insn_addr(uint64_t image, const gpu_image_header *h, uint32_t i) {
  return image + h->insn_offset + (uint64_t)i * h->insn_stride;
}

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_ABI_H */
