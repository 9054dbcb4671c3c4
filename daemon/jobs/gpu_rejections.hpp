// How many proofs each GPU has been part of that failed verification, shared by every job of
// the daemon: a GPU that keeps computing wrong results (a kernel bug on that model, failing
// memory) is retired after `limit` of them, while one wrong result (a cosmic ray) costs only
// the retry of that job.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace provd::daemon {

class GpuRejections {
 public:
  // limit 0: never retire.
  explicit GpuRejections(uint32_t limit) : limit_(limit) {}

  // Counts one rejected proof that ran on `gpu`; true exactly once, when the count reaches
  // the limit.
  bool Count(uint32_t gpu) {
    std::lock_guard lock(mutex_);
    return ++counts_[gpu] == limit_ && limit_ != 0;
  }

  uint64_t count(uint32_t gpu) const {
    std::lock_guard lock(mutex_);
    const auto it = counts_.find(gpu);
    return it == counts_.end() ? 0 : it->second;
  }

  uint32_t limit() const { return limit_; }

 private:
  const uint32_t limit_;
  mutable std::mutex mutex_;
  std::map<uint32_t, uint64_t> counts_;
};

}  // namespace provd::daemon
