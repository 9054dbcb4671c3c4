#include "prover_core/groth16/key_cache.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "prover_core/io/resolve_inside.hpp"

namespace provd::groth16 {
namespace {

uint64_t KeyBytes(const AnyProvingKey& key) {
  const ZkeyFile& file = KeyFile(key);
  return std::visit(
      [&](const auto& k) {
        return file.size_bytes() + 4 * k->matrices().entry_count() +
               8 * (uint64_t{file.header().domain_size} + 1);
      },
      key);
}

}  // namespace

absl::StatusOr<LoadedKey> LoadKey(const std::string& path) {
  absl::StatusOr<AnyProvingKey> proving = LoadProvingKey(path);
  if (!proving.ok()) return proving.status();
  absl::StatusOr<AnyVerificationKey> verifying = VerificationKeyFromZkey(KeyFile(*proving));
  if (!verifying.ok()) return verifying.status();
  return LoadedKey{*std::move(proving), PrepareVerificationKey(*std::move(verifying))};
}

ProvingKeyCache::ProvingKeyCache(std::filesystem::path key_dir, uint64_t budget_bytes)
    : key_dir_(std::move(key_dir)), budget_bytes_(budget_bytes) {}

absl::StatusOr<std::filesystem::path> ProvingKeyCache::Resolve(const std::string& name) const {
  return io::ResolveInside(key_dir_, name, "key", "the key directory");
}

absl::StatusOr<LoadedKey> ProvingKeyCache::Get(const std::string& name) {
  absl::StatusOr<std::filesystem::path> path = Resolve(name);
  if (!path.ok()) return path.status();
  struct stat st {};
  if (::stat(path->c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("key \"", name, "\": ", std::strerror(errno)));
  }
  const FileIdentity identity{st.st_dev, st.st_ino, static_cast<uintmax_t>(st.st_size),
                              int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
  const std::string key_id = path->string();

  std::promise<absl::StatusOr<LoadedKey>> promise;
  std::shared_future<absl::StatusOr<LoadedKey>> future;
  uint64_t generation = 0;  // nonzero: this call loads the key
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key_id);
    if (it != entries_.end() && it->second.identity == identity) {
      ++stats_.hits;
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      future = it->second.key;
    } else {
      if (it != entries_.end()) EraseLocked(it);  // replaced on disk: forget the old one
      ++stats_.loads;
      generation = ++next_generation_;
      lru_.push_front(key_id);
      Entry& entry = entries_[key_id];
      entry.identity = identity;
      entry.key = promise.get_future().share();
      entry.lru = lru_.begin();
      entry.generation = generation;
      future = entry.key;
    }
  }
  if (generation != 0) {
    // Loaded outside the lock: other keys stay available meanwhile, and callers asking for
    // this one wait on the future instead of loading it again.
    absl::StatusOr<LoadedKey> key = absl::InternalError("unset");
    try {
      key = LoadKey(key_id);
    } catch (const std::bad_alloc&) {  // e.g. the index of a huge key: an error, not a crash
      key = absl::ResourceExhaustedError(absl::StrCat("key \"", name, "\": out of memory"));
    }
    const uint64_t bytes = key.ok() ? KeyBytes(key->proving) : 0;
    promise.set_value(std::move(key));
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key_id);
    if (it != entries_.end() && it->second.generation == generation) {
      if (bytes == 0 || bytes > budget_bytes_) {
        EraseLocked(it);  // errors are not cached; a key over the budget is used, not kept
      } else {
        it->second.bytes = bytes;
        stats_.bytes += bytes;
        EvictOverBudgetLocked();
      }
    }
  }
  return future.get();
}

void ProvingKeyCache::EraseLocked(std::map<std::string, Entry>::iterator it) {
  stats_.bytes -= it->second.bytes;
  lru_.erase(it->second.lru);
  entries_.erase(it);
}

ProvingKeyCache::Stats ProvingKeyCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats s = stats_;
  s.entries = entries_.size();
  return s;
}

void ProvingKeyCache::EvictOverBudgetLocked() {
  // Oldest first; entries still loading (bytes == 0) cost nothing yet and stay.
  for (auto it = lru_.end(); stats_.bytes > budget_bytes_ && it != lru_.begin();) {
    --it;
    auto entry = entries_.find(*it);
    if (entry->second.bytes == 0) continue;
    ++it;  // EraseLocked removes the list node `it` pointed at
    EraseLocked(entry);
    ++stats_.evictions;
  }
}

}  // namespace provd::groth16
