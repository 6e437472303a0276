# Checks what the build needs before anything else is configured, so that a
# missing piece is one message saying what to install and how to point the
# build at it, not a find_package error deep in configure.
# scripts/sample.sh and scripts/test.sh install the Debian packages themselves.

function(croq_fail_missing_packages)
  list(JOIN ARGN " " packages)
  message(FATAL_ERROR
    "Missing: ${packages}\n"
    "On Debian or Ubuntu install them with\n"
    "  sudo apt-get install ${packages}\n"
    "(scripts/sample.sh and scripts/test.sh do this for you), then configure again.")
endfunction()

# Before project(): the build tools, whose absence CMake reports only
# indirectly ("CMAKE_MAKE_PROGRAM is not set", "No CMAKE_CXX_COMPILER").
function(croq_check_build_tools)
  set(missing)
  if(CMAKE_GENERATOR STREQUAL "Ninja" AND NOT CMAKE_MAKE_PROGRAM)
    find_program(CROQ_NINJA NAMES ninja ninja-build)
    if(NOT CROQ_NINJA)
      list(APPEND missing ninja-build)
    endif()
  endif()
  if(NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
    find_program(CROQ_CXX NAMES c++ g++ clang++)
    if(NOT CROQ_CXX)
      list(APPEND missing g++)
    endif()
  endif()
  if(missing)
    croq_fail_missing_packages(${missing})
  endif()
endfunction()

# After project(): the CUDA toolkit and the Debian -dev packages. A macro, so
# that CUDAToolkit_* and the imported targets are seen by the caller.
macro(croq_find_dependencies)
  # Where the toolkit is: CUDAToolkit_ROOT, else the root of
  # CMAKE_CUDA_COMPILER (nvcc), else $CUDA_HOME, else what FindCUDAToolkit
  # finds ($CUDA_PATH, nvcc on PATH, /usr/local/cuda). A location given
  # must hold it: FindCUDAToolkit would quietly take nvcc on PATH instead.
  set(croq_cuda_given "")
  if(CUDAToolkit_ROOT)
    set(croq_cuda_given "CUDAToolkit_ROOT=${CUDAToolkit_ROOT}")
  elseif(CMAKE_CUDA_COMPILER)
    set(croq_cuda_given "CMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER}")
    get_filename_component(CUDAToolkit_ROOT "${CMAKE_CUDA_COMPILER}" REALPATH)
    get_filename_component(CUDAToolkit_ROOT "${CUDAToolkit_ROOT}" DIRECTORY)
    get_filename_component(CUDAToolkit_ROOT "${CUDAToolkit_ROOT}" DIRECTORY)
  elseif(DEFINED ENV{CUDA_HOME})
    set(croq_cuda_given "CUDA_HOME=$ENV{CUDA_HOME}")
    set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}")
  endif()
  if(croq_cuda_given AND NOT EXISTS "${CUDAToolkit_ROOT}/include/nvrtc.h")
    message(FATAL_ERROR
      "${croq_cuda_given} does not point at a CUDA toolkit: "
      "${CUDAToolkit_ROOT}/include/nvrtc.h is missing.\n"
      "Give the toolkit's root (the folder with bin/nvcc and include/nvrtc.h) "
      "or its bin/nvcc, or leave it unset to use $CUDA_PATH, nvcc on PATH or /usr/local/cuda.")
  endif()
  # CMake 3.25.0 and 3.25.1 (Debian 12's) FindCUDAToolkit fail on a toolkit
  # without libnvToolsExt (CUDA 13) when the project requires CMake >= 3.25:
  # they mark the missing CUDA::nvToolsExt deprecated. Below 3.25 they don't.
  set(croq_required_cmake ${CMAKE_MINIMUM_REQUIRED_VERSION})
  if(CMAKE_VERSION VERSION_LESS 3.26)
    set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
  endif()
  find_package(CUDAToolkit QUIET)  # NVRTC and cuda.h; libcuda is loaded at run time
  set(CMAKE_MINIMUM_REQUIRED_VERSION ${croq_required_cmake})
  find_path(CROQ_CUDA_HEADERS NAMES nvrtc.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
  find_path(CROQ_CUDA_DRIVER_HEADER NAMES cuda.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
  if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::nvrtc OR NOT CROQ_CUDA_HEADERS OR NOT CROQ_CUDA_DRIVER_HEADER)
    message(FATAL_ERROR
      "No usable CUDA toolkit found (libcroqjit needs NVRTC, nvrtc.h and cuda.h; "
      "no GPU or driver is needed to build).\n"
      "Looked at: $CUDA_PATH, nvcc on PATH, /usr/local/cuda.\n"
      "Install NVIDIA's CUDA toolkit (https://developer.nvidia.com/cuda-downloads). "
      "If it is not in /usr/local/cuda, point the build at it with\n"
      "  CUDA_HOME=/path/to/cuda cmake ...   or   cmake -DCMAKE_CUDA_COMPILER=/path/to/cuda/bin/nvcc ...")
  endif()
  message(STATUS "CUDA toolkit ${CUDAToolkit_VERSION}: ${CUDAToolkit_BIN_DIR}")

  set(croq_missing_packages)
  find_package(spdlog QUIET)
  if(NOT spdlog_FOUND)
    list(APPEND croq_missing_packages libspdlog-dev)
  endif()
  find_package(nlohmann_json 3 QUIET)
  if(NOT nlohmann_json_FOUND)
    list(APPEND croq_missing_packages nlohmann-json3-dev)
  endif()
  find_package(XXHash QUIET)  # cmake/FindXXHash.cmake: header-only use
  if(NOT XXHash_FOUND)
    list(APPEND croq_missing_packages libxxhash-dev)
  endif()
  find_package(utf8cpp QUIET)  # header-only: UTF-8 validation (src/support/utf8.cpp)
  if(NOT utf8cpp_FOUND)
    list(APPEND croq_missing_packages libutfcpp-dev)
  endif()
  find_package(Hiredis QUIET MODULE)  # cmake/FindHiredis.cmake: the remote kernel cache
  if(NOT Hiredis_FOUND)
    list(APPEND croq_missing_packages libhiredis-dev)
  endif()
  find_package(OpenSSL QUIET COMPONENTS Crypto)  # HMAC-SHA256 of remote cache entries
  if(NOT OpenSSL_FOUND OR NOT TARGET OpenSSL::Crypto)
    list(APPEND croq_missing_packages libssl-dev)
  endif()
  if(CROQ_BUILD_TESTS)
    find_package(GTest QUIET)
    if(NOT GTest_FOUND)
      list(APPEND croq_missing_packages libgtest-dev)
    endif()
  endif()
  if(croq_missing_packages)
    croq_fail_missing_packages(${croq_missing_packages})
  endif()
endmacro()
