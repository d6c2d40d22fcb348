# The interval SIMT core (models/simt/interval, docs/simt-interval.md): its sources join the
# simtvp_simt library (models/simt/CMakeLists.txt includes this file).
set(SIMTVP_SIMT_INTERVAL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/simt_interval.c
  ${CMAKE_CURRENT_LIST_DIR}/simt_interval_mem.c)
