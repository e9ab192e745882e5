# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE). For the .deb,
# dpkg-shlibdeps turns what the built files link into package names:
# Depends from libxgpu and the tools, Recommends from the backend plugins
# (libxgpu loads a plugin only when its vendor stack is there, and otherwise
# says why). The list of files comes from XgpuPackaging.cmake.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()

find_program(XGPU_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(NOT XGPU_DPKG_SHLIBDEPS)
  message(WARNING "xgpu: dpkg-shlibdeps not found (Debian: dpkg-dev); "
                  "the .deb says Depends: libc6 only")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6")
  return()
endif()

file(STRINGS ${CPACK_XGPU_BINARY_DIR}/cpack-depends-from.txt xgpu_depends_from)
file(STRINGS ${CPACK_XGPU_BINARY_DIR}/cpack-recommends-from.txt xgpu_recommends_from)
set(xgpu_work ${CPACK_XGPU_BINARY_DIR}/_xgpu_shlibdeps)
file(REMOVE_RECURSE ${xgpu_work})
file(MAKE_DIRECTORY ${xgpu_work}/debian)
file(TOUCH ${xgpu_work}/debian/control)
# dpkg-shlibdeps wants a package for every library a file links, except one
# lying in the same package tree as the file (under the same folder holding
# DEBIAN/): a DEBIAN/ in the build folder, for this run only, makes the
# tools and libxgpu.so.0 one package.
set(xgpu_marker ${CPACK_XGPU_BINARY_DIR}/DEBIAN)
set(xgpu_made_marker FALSE)
if(NOT EXISTS ${xgpu_marker})
  file(MAKE_DIRECTORY ${xgpu_marker})
  set(xgpu_made_marker TRUE)
endif()
set(xgpu_args -O -dDepends ${xgpu_depends_from})
if(xgpu_recommends_from)
  list(APPEND xgpu_args -dRecommends ${xgpu_recommends_from})
endif()
execute_process(COMMAND ${XGPU_DPKG_SHLIBDEPS} ${xgpu_args}
  WORKING_DIRECTORY ${xgpu_work}
  RESULT_VARIABLE xgpu_rc OUTPUT_VARIABLE xgpu_out ERROR_VARIABLE xgpu_err)
if(xgpu_made_marker)
  file(REMOVE_RECURSE ${xgpu_marker})
endif()
file(REMOVE_RECURSE ${xgpu_work})
if(NOT xgpu_rc EQUAL 0)
  message(FATAL_ERROR "xgpu: dpkg-shlibdeps ${xgpu_args} failed (${xgpu_rc}):\n${xgpu_err}")
endif()

if(xgpu_out MATCHES "shlibs:Depends=([^\n]*)")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
endif()
if(xgpu_out MATCHES "shlibs:Recommends=([^\n]*)")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${CMAKE_MATCH_1}")
endif()
message(STATUS "xgpu: Depends: ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
message(STATUS "xgpu: Recommends: ${CPACK_DEBIAN_PACKAGE_RECOMMENDS}")
