# Build options of provd and the settings they imply.

set(PROVD_CUDA AUTO CACHE STRING
  "Build the CUDA kernels: AUTO (when nvcc is found), ON (required) or OFF")
set_property(CACHE PROVD_CUDA PROPERTY STRINGS AUTO ON OFF)

# Off until a device run has measured it (docs/gpu.md): CI checks the algorithm on the host
# and compiles the PTX, but only a GPU runs it.
option(PROVD_CUDA_PTX_MONT_MUL
  "Device field products in 32-bit words on PTX carry chains instead of 64-bit limbs" OFF)
option(PROVD_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(PROVD_BUILD_TESTS "Build the test suite" ON)
option(PROVD_BUILD_BENCHMARKS "Build the benchmarks in bench/ (Google Benchmark)" OFF)

# ccache makes rebuilds on 2-core machines bearable; use it whenever it is installed.
find_program(PROVD_CCACHE ccache)
if(PROVD_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${PROVD_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${PROVD_CCACHE})
endif()

if(PROVD_SANITIZE)
  # Applied to everything we compile and link, so that instrumented and uninstrumented code of
  # ours never mix. -fno-sanitize-recover makes UBSan findings fail the test that hit them.
  add_compile_options(
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined>
    $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=all>
    $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()
