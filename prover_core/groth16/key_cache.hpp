// Proving keys by name, loaded once and shared by every proof that uses them: the daemon proves
// many jobs with a few keys, each often GBs. Keys live in one key directory; names are paths
// relative to it and nothing outside it can be named (no "..", no absolute paths, no symlink
// leading out). Loaded keys are kept under a byte budget (mapped file plus index), least
// recently used first out; a proof that holds a key keeps it alive after eviction. A file
// replaced on disk (new inode, size or mtime) is loaded afresh on the next request. Concurrent
// requests for a key that is loading wait for that one load. Each key comes with the
// verification key of its own zkey, prepared, so that every proof can be checked before it is
// handed out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/verifier.hpp"

namespace provd::groth16 {

struct LoadedKey {
  AnyProvingKey proving;
  AnyPreparedVerificationKey verifying;  // from the same zkey's header and IC section
};

// The key at `path` as the cache holds it (for a one-shot prover, which has no cache).
absl::StatusOr<LoadedKey> LoadKey(const std::string& path);

class ProvingKeyCache {
 public:
  struct Stats {
    uint64_t hits = 0;
    uint64_t loads = 0;  // misses that read a file (successfully or not)
    uint64_t evictions = 0;
    uint64_t bytes = 0;  // held by cached keys
    uint64_t entries = 0;
  };

  ProvingKeyCache(std::filesystem::path key_dir, uint64_t budget_bytes);

  // INVALID_ARGUMENT for a name that is empty, absolute, has a ".." component or resolves
  // outside the key directory; NOT_FOUND when there is no such key; the loader's error
  // (INVALID_ARGUMENT naming the file and section) for a bad key.
  absl::StatusOr<LoadedKey> Get(const std::string& name);

  Stats stats() const;
  const std::filesystem::path& key_dir() const { return key_dir_; }

 private:
  struct FileIdentity {
    uintmax_t device = 0, inode = 0, size = 0;
    int64_t mtime_ns = 0;
    friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
  };
  struct Entry {
    FileIdentity identity;
    std::shared_future<absl::StatusOr<LoadedKey>> key;
    uint64_t bytes = 0;  // 0 while loading
    std::list<std::string>::iterator lru;
    uint64_t generation = 0;  // tells a reload apart from the entry it replaced
  };

  absl::StatusOr<std::filesystem::path> Resolve(const std::string& name) const;
  void EvictOverBudgetLocked();
  void EraseLocked(std::map<std::string, Entry>::iterator it);

  std::filesystem::path key_dir_;
  uint64_t budget_bytes_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;  // by resolved path
  std::list<std::string> lru_;            // most recently used first
  Stats stats_;
  uint64_t next_generation_ = 0;
};

}  // namespace provd::groth16
