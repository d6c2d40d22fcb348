# same_stats.cmake — runs a program three times under simtvp with -system_mode MODE, each in a process of
# its own, and requires byte-identical statistics (stats.json). With the host's address-space
# randomisation (Linux's default, /proc/sys/kernel/randomize_va_space 2) mapped host memory lies at
# other virtual addresses in the two runs, at the same offsets within pages: the GPU must route it
# by its bus address (docs/system-modes.md §1), which the platform hands out in the order memory is
# registered, never by the host's virtual address. (Not against a `setarch -R` run: without
# randomisation the heap starts right after the program's data, not on a page boundary, so
# malloc'ed buffers lie at other offsets within their pages and kernels really touch other lines.)
#   cmake -DSIMTVP=<build/bin/simtvp> -DPROGRAM=<bin/x> -DMODE=<mode> -DOUT=<dir> -P same_stats.cmake
foreach(var SIMTVP PROGRAM MODE OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "same_stats.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
set(ENV{SIMTVP_QUIET} 1)
set(ENV{SIMTVP_OPTIONS} "-system_mode ${MODE}")
foreach(run first second third)
  set(ENV{SIMTVP_OUTDIR} ${OUT}/${run})
  execute_process(COMMAND ${SIMTVP} ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS ")
    message(FATAL_ERROR "${PROGRAM} (${run} run) with -system_mode ${MODE} exited with ${rc}:\n${out}${err}")
  endif()
endforeach()
foreach(run second third)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/first/stats.json ${OUT}/${run}/stats.json
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${PROGRAM} with -system_mode ${MODE}: the statistics of two runs differ: compare "
                        "${OUT}/first/stats.json with ${OUT}/${run}/stats.json")
  endif()
endforeach()
