# Strict warnings for provd's own targets only: third-party and generated code is compiled with
# its own defaults, so a new compiler warning in a dependency never breaks our build.
function(provd_strict_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror -Wshadow -Wnon-virtual-dtor
      -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough>
    # GCC 12 at -O3 reports -Wrestrict inside libstdc++'s `"literal" + std::string&&` (GCC bug
    # 105329, fixed in 13) wherever gtest prints a protobuf; kept a warning, not an error.
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-error=restrict>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
endfunction()
