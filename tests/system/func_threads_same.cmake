# func_threads_same.cmake — runs a program on the functional GPU (-simt_model func) with
# -func_threads 1 and with -func_threads 4, requires its PASS verdict and byte-identical
# statistics (stats.json) from both; with EXPECT_COUNTER=<name> that counter must also be > 0.
# For programs whose kernels run CTA by CTA in whole-kernel mode (docs/system-modes.md §2.4):
# unified memory's replayable faults (um.fault_waits) once the driver has a fault buffer.
#   cmake -DSIMTVP=<build/bin/simtvp> -DPROGRAM=<bin/x> -DOUT=<dir> [-DEXPECT_COUNTER=<name>] -P func_threads_same.cmake
foreach(var SIMTVP PROGRAM OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "func_threads_same.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
set(ENV{SIMTVP_QUIET} 1)
unset(ENV{SIMTVP_CONFIG})  # the built-in default configuration
foreach(threads 1 4)
  set(ENV{SIMTVP_OUTDIR} ${OUT}/${threads})
  set(ENV{SIMTVP_OPTIONS} "-simt_model func -func_threads ${threads}")
  execute_process(COMMAND ${SIMTVP} ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS ")
    message(FATAL_ERROR "${PROGRAM} with -func_threads ${threads} exited with ${rc}:\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/1/stats.json ${OUT}/4/stats.json RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "${PROGRAM}: the statistics with -func_threads 1 and 4 differ: compare ${OUT}/1/stats.json "
                      "with ${OUT}/4/stats.json")
endif()
if(DEFINED EXPECT_COUNTER)
  file(READ ${OUT}/4/stats.json stats)
  string(JSON n ERROR_VARIABLE none GET "${stats}" totals counters ${EXPECT_COUNTER})
  if(NOT n GREATER 0)
    message(FATAL_ERROR "${PROGRAM} with -func_threads 4: ${EXPECT_COUNTER} is '${n}', expected > 0")
  endif()
endif()
