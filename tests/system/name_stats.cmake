# name_stats.cmake — runs one program under simtvp as two copies whose file names differ in length
# and requires byte-identical statistics (stats.json). The runtime names each module after the
# program ("<program> fatbin <n>") and the name travels in the program image the driver uploads:
# the image keeps it in a fixed slot (docs/gpu-abi.md "Program image"), so the upload, and every
# cycle after it, does not depend on the name.
#   cmake -DSIMTVP=<build/bin/simtvp> -DPROGRAM=<bin/x> -DOUT=<dir> -P name_stats.cmake
foreach(var SIMTVP PROGRAM OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "name_stats.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(ENV{SIMTVP_QUIET} 1)
foreach(name p a_program_whose_file_name_is_much_longer_than_the_other_one)
  file(COPY_FILE ${PROGRAM} ${OUT}/${name})
  file(CHMOD ${OUT}/${name} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  set(ENV{SIMTVP_OUTDIR} ${OUT}/out_${name})
  execute_process(COMMAND ${SIMTVP} ${OUT}/${name} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS ")
    message(FATAL_ERROR "${OUT}/${name} exited with ${rc}:\n${out}${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/out_p/stats.json
                        ${OUT}/out_a_program_whose_file_name_is_much_longer_than_the_other_one/stats.json
                RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "the statistics of one program under two file names differ: compare the stats.json files "
                      "in ${OUT}/out_*")
endif()
