# The approximately-timed SIMT core (models/simt/at, docs/simt-at.md): its sources join the
# simtvp_simt library (models/simt/CMakeLists.txt includes this file).
set(SIMTVP_SIMT_AT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/simt_at.c
  ${CMAKE_CURRENT_LIST_DIR}/simt_at_mem.c
  ${CMAKE_CURRENT_LIST_DIR}/simt_at_smem.c)
