# Release packages: `cpack` in the build folder makes
#   xgpu-<version>-linux-<processor>.tar.gz  what `cmake --install` installs, under
#                                           one top folder; unpacked anywhere, bin/
#                                           finds lib/ through its $ORIGIN RUNPATH
#   xgpu_<version>-<release>_<arch>.deb     the same files under /usr
# Both hold libxgpu, the plugins in <libdir>/xgpu, the headers, the CMake and
# pkg-config files, gpuinfo and gpubench. Configure with the default prefix
# for a plain lib/ in the archive (a prefix of /usr gives lib/<multiarch>).
set(CPACK_PACKAGE_NAME xgpu)
set(CPACK_PACKAGE_VENDOR "xgpu developers")
set(CPACK_PACKAGE_CONTACT "xgpu developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "portable multi-backend GPU compute runtime")
set(CPACK_PACKAGE_DESCRIPTION "xgpu runs one kernel dialect on OpenCL, CUDA and HIP
devices through one C API (xgpu.h). It loads whichever vendor stacks the
machine has at run time and says why a backend is unavailable. This package
holds libxgpu, its backend plugins, the headers, the CMake and pkg-config
files, gpuinfo (device listing) and gpubench (benchmarks, results verified).")
string(TOLOWER "${CMAKE_SYSTEM_NAME}" xgpu_system)
set(CPACK_PACKAGE_FILE_NAME "xgpu-${PROJECT_VERSION}-${xgpu_system}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_GENERATOR "TGZ;DEB")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "xgpu developers")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# An OpenCL driver (pocl-opencl-icd runs on the CPU) gives the OpenCL
# backend a device; the NVIDIA driver and ROCm are not in Debian's main.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "opencl-icd")
# Depends and Recommends are computed when cpack runs (XgpuCPackProject.cmake):
# Depends from what the library and the tools link, Recommends from what the
# plugins link, which xgpu loads only when present.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/XgpuCPackProject.cmake)
set(CPACK_XGPU_BINARY_DIR ${CMAKE_BINARY_DIR})

# The built files whose links make Depends, then those that make Recommends.
set(xgpu_depends_from "$<TARGET_FILE:xgpu>")
foreach(tool gpuinfo gpubench)
  if(TARGET ${tool})
    string(APPEND xgpu_depends_from "\n$<TARGET_FILE:${tool}>")
  endif()
endforeach()
set(xgpu_recommends_from "")
foreach(backend opencl cuda hip)
  if(TARGET xgpu-${backend})
    string(APPEND xgpu_recommends_from "$<TARGET_FILE:xgpu-${backend}>\n")
  endif()
endforeach()
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/cpack-depends-from.txt CONTENT "${xgpu_depends_from}\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/cpack-recommends-from.txt
     CONTENT "${xgpu_recommends_from}")

include(CPack)
