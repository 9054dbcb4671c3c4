# Every dependency comes from Debian's packages (scripts/install-deps.sh installs them) and is
# found here once; modules link the imported targets.

find_package(Threads REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(OpenSSL REQUIRED)       # SHA-2 for proof randomness and input digests
find_package(SQLite3 REQUIRED)       # the job store
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)  # the job store on PostgreSQL
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  # Debian's libcli11-dev ships the header and a pkg-config file; wrap it in a target.
  find_path(PROVD_CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${PROVD_CLI11_INCLUDE})
endif()
find_package(Boost 1.74 REQUIRED)   # Interprocess is header-only

find_program(PROVD_PROTOC protoc REQUIRED)
find_program(PROVD_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)

if(PROVD_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
