// The proving-key cache on real zkeys: names stay inside the key directory, keys load once and
// are shared, the byte budget evicts least recently used keys, replaced files reload, and
// concurrent requests share one load.
#include "prover_core/groth16/key_cache.hpp"

#include <filesystem>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/circuits.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::groth16 {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path Zkey(const std::string& name) { return testing::CircuitCase(name) / "circuit.zkey"; }

const void* Identity(const LoadedKey& key) { return &KeyFile(key.proving); }

class KeyCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "keys" / "sub");
    fs::copy_file(Zkey("mult_bn128"), dir_ / "keys" / "mult.zkey");
    fs::copy_file(Zkey("poseidon_bn128"), dir_ / "keys" / "poseidon.zkey");
    fs::copy_file(Zkey("mult_bls12381"), dir_ / "keys" / "sub" / "bls.zkey");
  }
  fs::path keys() const { return dir_ / "keys"; }
  testing::TempDir dir_;
};

TEST_F(KeyCacheTest, LoadsOnceAndShares) {
  ProvingKeyCache cache(keys(), uint64_t{1} << 30);
  absl::StatusOr<LoadedKey> first = cache.Get("mult.zkey");
  absl::StatusOr<LoadedKey> second = cache.Get("mult.zkey");
  absl::StatusOr<LoadedKey> nested = cache.Get("sub/bls.zkey");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  ASSERT_THAT(nested, IsOk());
  EXPECT_EQ(Identity(*first), Identity(*second));
  EXPECT_EQ(KeyFile(nested->proving).header().curve, CurveId::kBls12381);
  EXPECT_EQ(KeyCurve(nested->verifying), CurveId::kBls12381);  // its own verification key
  ProvingKeyCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.loads, 2u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_GT(stats.bytes, fs::file_size(keys() / "mult.zkey"));
}

TEST_F(KeyCacheTest, RefusesNamesOutsideTheKeyDirectory) {
  ProvingKeyCache cache(keys(), uint64_t{1} << 30);
  fs::copy_file(Zkey("mult_bn128"), dir_ / "outside.zkey");
  fs::create_symlink(dir_ / "outside.zkey", keys() / "link.zkey");
  EXPECT_THAT(cache.Get("../outside.zkey"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"..\" is not allowed")));
  EXPECT_THAT(cache.Get((dir_ / "outside.zkey").string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("relative")));
  EXPECT_THAT(cache.Get(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("relative")));
  EXPECT_THAT(cache.Get("link.zkey"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outside the key directory")));
  EXPECT_THAT(cache.Get("absent.zkey"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent.zkey")));
}

TEST_F(KeyCacheTest, BadKeysAreReportedAndNotCached) {
  ProvingKeyCache cache(keys(), uint64_t{1} << 30);
  testing::WriteFile(keys() / "bad.zkey", "zkey but not really");
  EXPECT_THAT(cache.Get("bad.zkey"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad.zkey")));
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST_F(KeyCacheTest, EvictsLeastRecentlyUsedOverBudget) {
  // A budget that holds poseidon.zkey or mult.zkey but not both, from what each one costs.
  auto cost = [&](const std::string& name) {
    ProvingKeyCache probe(keys(), uint64_t{1} << 30);
    EXPECT_THAT(probe.Get(name), IsOk());
    return probe.stats().bytes;
  };
  const uint64_t mult = cost("mult.zkey");
  const uint64_t poseidon = cost("poseidon.zkey");
  const uint64_t one_key = std::max(mult, poseidon) + std::min(mult, poseidon) / 2;
  ProvingKeyCache cache(keys(), one_key);
  ASSERT_THAT(cache.Get("mult.zkey"), IsOk());
  ASSERT_THAT(cache.Get("poseidon.zkey"), IsOk());
  ProvingKeyCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_LE(stats.bytes, one_key);
  ASSERT_THAT(cache.Get("poseidon.zkey"), IsOk());  // still there
  EXPECT_EQ(cache.stats().hits, 1u);
  ASSERT_THAT(cache.Get("mult.zkey"), IsOk());  // was evicted: loads again
  EXPECT_EQ(cache.stats().loads, 3u);

  ProvingKeyCache tiny(keys(), 10);  // no key fits: each is used, none kept
  ASSERT_THAT(tiny.Get("mult.zkey"), IsOk());
  EXPECT_EQ(tiny.stats().entries, 0u);
}

TEST_F(KeyCacheTest, ReloadsAKeyReplacedOnDisk) {
  ProvingKeyCache cache(keys(), uint64_t{1} << 30);
  absl::StatusOr<LoadedKey> before = cache.Get("mult.zkey");
  ASSERT_THAT(before, IsOk());
  // Replace by rename, the way keys should be updated.
  fs::copy_file(Zkey("poseidon_bn128"), keys() / "new.tmp");
  fs::rename(keys() / "new.tmp", keys() / "mult.zkey");
  absl::StatusOr<LoadedKey> after = cache.Get("mult.zkey");
  ASSERT_THAT(after, IsOk());
  EXPECT_NE(KeyFile(before->proving).header().n_vars, KeyFile(after->proving).header().n_vars);
  EXPECT_EQ(cache.stats().loads, 2u);
  EXPECT_EQ(KeyFile(before->proving).header().n_vars, 42u);  // the old key is still usable
}

TEST_F(KeyCacheTest, ConcurrentRequestsShareOneLoad) {
  ProvingKeyCache cache(keys(), uint64_t{1} << 30);
  std::vector<std::thread> threads;
  std::vector<const void*> seen(8);
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<LoadedKey> key = cache.Get("poseidon.zkey");
      seen[i] = key.ok() ? Identity(*key) : nullptr;
    });
  }
  for (std::thread& t : threads) t.join();
  for (const void* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_NE(seen[0], nullptr);
  EXPECT_EQ(cache.stats().loads, 1u);
}

}  // namespace
}  // namespace provd::groth16
