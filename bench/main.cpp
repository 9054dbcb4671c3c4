// The main() of every provd benchmark: PROVD_THREADS=N sizes the process pool (default: all
// cores) before Google Benchmark runs.
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "prover_core/thread_pool.hpp"

int main(int argc, char** argv) {
  if (const char* threads = std::getenv("PROVD_THREADS")) {
    provd::ConfigureDefaultThreadPool(static_cast<size_t>(std::atoi(threads)));
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
