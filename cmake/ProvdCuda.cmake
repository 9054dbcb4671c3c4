# CUDA is optional at build time and at run time. PROVD_CUDA=AUTO builds kernels/ whenever nvcc
# is found (CI machines have the toolkit but no GPU, so the kernels are always compiled there);
# the binaries then detect devices at run time and run on the CPU when there are none.

set(PROVD_HAVE_CUDA OFF)
if(NOT PROVD_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    # The toolkit's default location is not on PATH on a stock install.
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # A100 (sm_80), L4/L40/RTX 40 (sm_89), H100/H200 (sm_90).
      set(CMAKE_CUDA_ARCHITECTURES 80 89 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # prover_core's headers, which the kernels compile for the device, are C++20; CMake 3.25
    # does not know nvcc's C++20 flag (nvcc has it since CUDA 12), so tell it.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(PROVD_HAVE_CUDA ON)
  elseif(PROVD_CUDA STREQUAL "ON")
    message(FATAL_ERROR "PROVD_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "provd: CUDA kernels ${PROVD_HAVE_CUDA} (PROVD_CUDA=${PROVD_CUDA})")
