# run_mode.cmake — runs a program under simtvp with -system_mode MODE and requires its PASS verdict;
# in the coherent modes (shared_llc, shared_va) the directory must have seen the GPU's writes to
# host memory and sent messages (coherence.gpu.writes > 0, coherence.messages > 0 in stats.json);
# hmm in shared_va: the IOMMU answered page requests and the fault report names the kernel, the
# thread and the address. With EXPECT_FAIL=<text> the program must fail saying <text> instead.
# With FUNC=1 the GPU is the functional one (-simt_model func): no timing checks (it sends no
# memory traffic), but its CTAs must have yielded (func.step_yields > 0: the kernel waited);
# FUNC_THREADS=<n> adds -func_threads <n>.
#   cmake -DSIMTVP=<build/bin/simtvp> -DPROGRAM=<bin/x> -DMODE=<mode> -DOUT=<dir> [-DEXPECT_FAIL=..] [-DFUNC=1] -P run_mode.cmake
foreach(var SIMTVP PROGRAM MODE OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_mode.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
set(ENV{SIMTVP_QUIET} 1)
set(ENV{SIMTVP_OUTDIR} ${OUT})
set(ENV{SIMTVP_OPTIONS} "-system_mode ${MODE}")
if(FUNC)
  set(ENV{SIMTVP_OPTIONS} "-system_mode ${MODE} -simt_model func")
  if(FUNC_THREADS)  # whole-kernel mode, whose kernels run CTA by CTA while host memory is mapped
    set(ENV{SIMTVP_OPTIONS} "-system_mode ${MODE} -simt_model func -func_threads ${FUNC_THREADS}")
  endif()
endif()
execute_process(COMMAND ${SIMTVP} ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
if(DEFINED EXPECT_FAIL)
  if(rc EQUAL 0 OR NOT out MATCHES "FAIL .*${EXPECT_FAIL}")
    message(FATAL_ERROR "${PROGRAM} with -system_mode ${MODE} should fail on ${EXPECT_FAIL}; exited with ${rc}:\n${out}${err}")
  endif()
  return()
endif()
if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS ")
  message(FATAL_ERROR "${PROGRAM} with -system_mode ${MODE} exited with ${rc}:\n${out}${err}")
endif()
if(PROGRAM MATCHES "hmm$")
  if(NOT err MATCHES "GPU page fault \\(invalid\\).*is not mapped in kernel _Z9wild_readPKiPi, CTA \\(0,0,0\\), thread \\(0,0,0\\), pc ")
    message(FATAL_ERROR "hmm: no fault report naming the kernel, CTA, thread and PC:\n${err}")
  endif()
  file(READ ${OUT}/stats.json stats)
  string(REGEX MATCHALL "\"iommu[.]page_requests\": *[0-9]+" m "${stats}")
  string(REGEX MATCH ": *[1-9]" any "${m}")
  if(NOT any)
    message(FATAL_ERROR "hmm: the IOMMU answered no page requests (${OUT}/stats.json)")
  endif()
endif()
# spin: the program's stores to mapped memory while kernels ran were trapped, 20 of them by hand:
# 4 rounds × 2 stores (payload, flag) on pinned memory, the same on registered memory, and 4 in
# the coherence part (the store that straddles two pages traps twice; the line; the flag). In the coherent modes the third kernel (reread) sees
# exactly one invalidation of the GPU's copies: the GPU L2 holds `line` (read before its fence and
# flag store); the host's store to it invalidates that copy (1). The GPU never holds `flag` when
# the host stores 2 to it (its flag store is a write-through that keeps no copy, and its next read
# of the flag reaches the directory after the host's store), and nothing writes host memory after.
# The same kernel's directory reads, 3 by hand: line (the first read misses the L2); flag (the
# kernel's own store was a write-through that left no copy, so its first read of the flag misses;
# the host's store of 2 came before it, as the single invalidation says, so that read ends the
# loop); line again (the host's store invalidated the L2's copy, and ld.volatile never uses the
# non-coherent L1: it used to hit a stale L1 copy there, 2 reads).
if(PROGRAM MATCHES "spin$")
  file(READ ${OUT}/stats.json stats)
  string(JSON writes GET "${stats}" totals counters host.trapped_writes)
  if(NOT writes EQUAL 20)
    message(FATAL_ERROR "spin with -system_mode ${MODE}: host.trapped_writes is ${writes}, expected 20 (${OUT}/stats.json)")
  endif()
  if(MODE MATCHES "^shared_" AND NOT FUNC)
    string(JSON name GET "${stats}" kernels 2 kernel_name)
    string(JSON inv GET "${stats}" kernels 2 counters coherence.gpu.invalidations)
    string(JSON reads GET "${stats}" kernels 2 counters coherence.gpu.reads)
    if(NOT name STREQUAL "_Z6rereadPViS0_Pi" OR NOT inv EQUAL 1 OR NOT reads EQUAL 3)
      message(FATAL_ERROR "spin with -system_mode ${MODE}: kernel ${name} has coherence.gpu.invalidations ${inv} "
                          "and coherence.gpu.reads ${reads}, expected 1 and 3")
    endif()
  endif()
endif()
# spin_managed: 2 trapped stores by hand (the managed line, the pinned flag; the watch covers the
# remote managed page). In the coherent modes the kernel (the only one) sees 1 invalidation (the
# host's store to the line) and 3 directory reads, as spin's reread: line, flag, line again. The
# L2 holds the remote line under its virtual address on cores without TLBs; before gpu_top
# dropped the virtual pages of the window the directory names, the second read hit that stale
# copy (2 reads in shared_llc).
if(PROGRAM MATCHES "spin_managed$")
  file(READ ${OUT}/stats.json stats)
  string(JSON writes GET "${stats}" totals counters host.trapped_writes)
  if(NOT writes EQUAL 2)
    message(FATAL_ERROR "spin_managed with -system_mode ${MODE}: host.trapped_writes is ${writes}, expected 2 (${OUT}/stats.json)")
  endif()
  if(MODE MATCHES "^shared_" AND NOT FUNC)
    string(JSON inv GET "${stats}" kernels 0 counters coherence.gpu.invalidations)
    string(JSON reads GET "${stats}" kernels 0 counters coherence.gpu.reads)
    if(NOT inv EQUAL 1 OR NOT reads EQUAL 3)
      message(FATAL_ERROR "spin_managed with -system_mode ${MODE}: coherence.gpu.invalidations ${inv} "
                          "and coherence.gpu.reads ${reads}, expected 1 and 3")
    endif()
  endif()
endif()
if(FUNC)
  file(READ ${OUT}/stats.json stats)
  string(JSON yields ERROR_VARIABLE none GET "${stats}" totals counters func.step_yields)
  if(NOT yields GREATER 0)
    message(FATAL_ERROR "${PROGRAM} with -system_mode ${MODE} -simt_model func: no CTA yielded (func.step_yields '${yields}')")
  endif()
  message(STATUS "${PROGRAM} with -system_mode ${MODE} -simt_model func: ${out}")
  return()
endif()
if(MODE MATCHES "^shared_")
  file(READ ${OUT}/stats.json stats)
  foreach(counter "coherence[.]gpu[.]writes" "coherence[.]messages")
    string(REGEX MATCHALL "\"${counter}\": *[0-9]+" m "${stats}")  # per kernel, then totals
    string(REGEX MATCH ": *[1-9]" any "${m}")
    if(NOT any)
      message(FATAL_ERROR "-system_mode ${MODE}: ${counter} is 0 or missing in ${OUT}/stats.json")
    endif()
  endforeach()
endif()
message(STATUS "${PROGRAM} with -system_mode ${MODE}: ${out}")
