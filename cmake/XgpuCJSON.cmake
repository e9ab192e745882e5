# cJSON for gpubench and the tool tests: Debian's CMake package first, else
# a header and library found by hand (a copy carried to a machine without
# package access, named in CMAKE_PREFIX_PATH; see scripts/gpu-check-prepare.sh).
# Sets cJSON_FOUND, CJSON_INCLUDE_DIRS and CJSON_LIBRARIES.
if(NOT cJSON_FOUND)
  find_package(cJSON QUIET)
endif()
if(NOT cJSON_FOUND)
  find_path(XGPU_CJSON_INCLUDE_DIR cjson/cJSON.h)
  find_library(XGPU_CJSON_LIBRARY NAMES cjson libcjson.so.1)
  if(XGPU_CJSON_INCLUDE_DIR AND XGPU_CJSON_LIBRARY)
    set(cJSON_FOUND TRUE)
    set(CJSON_INCLUDE_DIRS ${XGPU_CJSON_INCLUDE_DIR} ${XGPU_CJSON_INCLUDE_DIR}/cjson)
    set(CJSON_LIBRARIES ${XGPU_CJSON_LIBRARY})
  endif()
endif()
