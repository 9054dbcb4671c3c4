// provd devsetup's parts on hand-built inputs: the .r1cs reader (every malformed file refused
// with the reason), the Lagrange basis at a point against the product formula, fixed-base
// multiplication against double-and-add, the atomic output and container writer, and whole dev
// keys that prove and verify (snarkjs checks them in tests/integration/devsetup_test.cpp).
#include "prover_core/groth16/dev_setup.hpp"

#include <climits>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/curve/fixed_base.hpp"
#include "prover_core/groth16/bin_file_writer.hpp"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/verification_key.hpp"
#include "prover_core/groth16/verifier.hpp"
#include "prover_core/io/atomic_output.hpp"
#include "prover_core/ntt/lagrange.hpp"
#include "tests/support/random.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::groth16 {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::provd::testing::TempDir;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

ThreadPool& Pool() {
  static ThreadPool pool(2);
  return pool;
}

std::string U32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string U64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string Int(const field::BigInt<4>& v) {
  std::string out(32, '\0');
  v.ToBytesLE(std::span(reinterpret_cast<uint8_t*>(out.data()), out.size()));
  return out;
}
std::string Small(uint64_t v) { return Int(field::BigInt<4>::FromUint64(v)); }

// A circuit over wires [1, z (output), x, y, t (private inputs x, y)]:
//   x * y = t,   (t + 2x) * 1 = z.
struct R1csParts {
  field::BigInt<4> prime = Bn254Engine::Fr::Modulus();
  uint32_t wires = 5, outputs = 1, public_inputs = 0, private_inputs = 2, constraints = 2;
  std::string lcs = Terms({{2, Small(1)}}) + Terms({{3, Small(1)}}) + Terms({{4, Small(1)}}) +
                    Terms({{4, Small(1)}, {2, Small(2)}}) + Terms({{0, Small(1)}}) +
                    Terms({{1, Small(1)}});
  std::vector<std::pair<uint32_t, std::string>> extra;

  static std::string Terms(const std::vector<std::pair<uint32_t, std::string>>& terms) {
    std::string out = U32(static_cast<uint32_t>(terms.size()));
    for (const auto& [wire, value] : terms) out += U32(wire) + value;
    return out;
  }
  std::string Build() const {
    const std::string header = U32(32) + Int(prime) + U32(wires) + U32(outputs) +
                               U32(public_inputs) + U32(private_inputs) + U64(wires) +
                               U32(constraints);
    std::vector<std::pair<uint32_t, std::string>> sections = {{1, header}, {2, lcs}};
    sections.insert(sections.end(), extra.begin(), extra.end());
    std::string out = "r1cs" + U32(1) + U32(static_cast<uint32_t>(sections.size()));
    for (const auto& [id, body] : sections) out += U32(id) + U64(body.size()) + body;
    return out;
  }
};

absl::StatusOr<std::shared_ptr<const R1csFile>> Parse(const R1csParts& parts, TempDir& dir) {
  testing::WriteFile(dir / "c.r1cs", parts.Build());
  return R1csFile::Open((dir / "c.r1cs").string());
}

TEST(R1csFileTest, AGoodFileParses) {
  TempDir dir;
  absl::StatusOr<std::shared_ptr<const R1csFile>> r1cs = Parse(R1csParts{}, dir);
  ASSERT_THAT(r1cs.status(), IsOk());
  const R1csHeader& h = (*r1cs)->header();
  EXPECT_EQ(h.curve, CurveId::kBn254);
  EXPECT_EQ(h.n_wires, 5u);
  EXPECT_EQ(h.n_public(), 1u);
  EXPECT_EQ(h.n_constraints, 2u);
  std::vector<size_t> sizes;
  (*r1cs)->ForEachConstraint([&](uint32_t, const R1csConstraint& c) {
    sizes.insert(sizes.end(), {c.a.size(), c.b.size(), c.c.size()});
  });
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 1, 1, 2, 1, 1}));
  EXPECT_EQ(DevSetupLogDomain(h), 2u);  // 2 constraints + 1 public + 1 = 4 rows
}

TEST(R1csFileTest, MalformedFilesAreRefusedWithTheReason) {
  struct Case {
    const char* name;
    R1csParts parts;
    const char* message;
  };
  std::vector<Case> cases;
  auto add = [&](const char* name, auto mutate, const char* message) {
    R1csParts p;
    mutate(p);
    cases.push_back({name, p, message});
  };
  add(
      "other prime", [](R1csParts& p) { p.prime = field::BigInt<4>::FromUint64(97); },
      "neither bn128's nor bls12381's");
  add(
      "wire out of range", [](R1csParts& p) { p.wires = 4; }, "wire 4 outside the 4 wires");
  add(
      "value not below r",
      [](R1csParts& p) {
        p.lcs = R1csParts::Terms({{2, Int(p.prime)}}) + p.lcs.substr(40);
      },
      "value not below the prime");
  add(
      "fewer constraints than the header says", [](R1csParts& p) { p.constraints = 3; },
      "constraint 2 A: truncated");
  add(
      "more bytes than the constraints", [](R1csParts& p) { p.constraints = 1; },
      "bytes after the last of the header's 1 constraints");
  add(
      "a term count past the end", [](R1csParts& p) { p.lcs = U32(1000) + p.lcs.substr(4); },
      "1000 terms do not fit");
  add(
      "custom gates",
      [](R1csParts& p) {
        p.extra = {{4, U32(0)}, {5, U32(0)}};
      },
      "custom gates, which only PLONK supports");
  add(
      "too few wires for the inputs", [](R1csParts& p) { p.private_inputs = 9; },
      "5 wires cannot hold");
  for (const Case& c : cases) {
    TempDir dir;
    EXPECT_THAT(Parse(c.parts, dir).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.name;
  }
  TempDir dir;
  testing::WriteFile(dir / "w.r1cs", "wtns" + U32(1) + U32(0));
  EXPECT_THAT(R1csFile::Open((dir / "w.r1cs").string()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("magic")));
  EXPECT_THAT(R1csFile::Open((dir / "absent.r1cs").string()).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent.r1cs")));
}

// L_j(x) = prod_{k != j} (x - w^k) / (w^j - w^k), straight from the definition.
template <typename F>
F LagrangeByProduct(size_t log_n, size_t j, const F& x) {
  const size_t n = size_t{1} << log_n;
  const F w = ntt::RootOfUnity<F>(log_n);
  F num = F::One(), den = F::One();
  for (size_t k = 0; k < n; ++k) {
    if (k == j) continue;
    num *= x - w.Pow(k);
    den *= w.Pow(j) - w.Pow(k);
  }
  return num * den.Inverse();
}

TEST(LagrangeBasisTest, MatchesTheProductFormula) {
  using F = Bn254Engine::Fr;
  testing::TestRng rng(7);
  const F x = rng.NextField<F>();
  absl::StatusOr<std::vector<F>> all = ntt::LagrangeBasisAt<F>(4, x, 0, 1, 16, Pool());
  ASSERT_THAT(all.status(), IsOk());
  F sum = F::Zero();
  for (size_t j = 0; j < 16; ++j) {
    EXPECT_EQ((*all)[j], LagrangeByProduct<F>(4, j, x)) << j;
    sum += (*all)[j];
  }
  EXPECT_EQ(sum, F::One());  // the basis sums to the constant 1
  // The odd points of the 2n-th roots, as the zkey's H section uses them.
  absl::StatusOr<std::vector<F>> odd = ntt::LagrangeBasisAt<F>(5, x, 1, 2, 16, Pool());
  ASSERT_THAT(odd.status(), IsOk());
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ((*odd)[i], LagrangeByProduct<F>(5, 2 * i + 1, x));
}

TEST(LagrangeBasisTest, ARootOfTheDomainIsRefused) {
  using F = Bls12381Engine::Fr;
  EXPECT_THAT(ntt::LagrangeBasisAt<F>(3, ntt::RootOfUnity<F>(3).Pow(5), 0, 1, 8, Pool()).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("root of unity")));
}

template <typename C>
void ExpectFixedBaseMatchesDoubleAndAdd() {
  using Fr = typename C::ScalarField;
  testing::TestRng rng(11);
  std::vector<Fr> scalars = {Fr::Zero(), Fr::One(), -Fr::One(), Fr::FromUint64(256)};
  for (int i = 0; i < 20; ++i) scalars.push_back(rng.NextField<Fr>());
  const auto g = C::Generator();
  curve::FixedBaseMul<C> mul(g);
  std::vector<curve::AffinePoint<C>> out(scalars.size());
  mul.MulMany(std::span<const Fr>(scalars), std::span(out), Pool());
  for (size_t i = 0; i < scalars.size(); ++i) {
    EXPECT_EQ(out[i], curve::ScalarMul(g, scalars[i].ToCanonical()).ToAffine()) << i;
  }
  EXPECT_TRUE(out[0].infinity);
}

TEST(FixedBaseMulTest, MatchesDoubleAndAdd) {
  ExpectFixedBaseMatchesDoubleAndAdd<curve::Bn254G1>();
  ExpectFixedBaseMatchesDoubleAndAdd<curve::Bls12381G2>();
}

TEST(AtomicOutputTest, CommittedOrNothing) {
  TempDir dir;
  const fs::path path = dir / "out.bin";
  {
    absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(path);
    ASSERT_THAT(out.status(), IsOk());
    ASSERT_THAT(out->Write(std::vector<uint8_t>{1, 2, 3}), IsOk());
    // Destroyed without Commit: as if the writer failed half-way.
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(path);
  ASSERT_THAT(out.status(), IsOk());
  ASSERT_THAT(out->Write(std::vector<uint8_t>{'o', 'k'}), IsOk());
  EXPECT_FALSE(fs::exists(path));
  ASSERT_THAT(out->Commit(/*sync_directory=*/true), IsOk());
  EXPECT_EQ(testing::ReadFile(path), "ok");
  EXPECT_THAT(out->Write(std::vector<uint8_t>{1}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("after it was committed")));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  EXPECT_THAT(io::AtomicOutput::Create(dir / "no-such-dir" / "f").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no-such-dir")));
}

TEST(AtomicOutputTest, CommitNewDoesNotReplaceAFileThatAppeared) {
  TempDir dir;
  const fs::path path = dir / "new.bin";
  absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(path);
  ASSERT_THAT(out.status(), IsOk());
  ASSERT_THAT(out->Write(std::vector<uint8_t>{'m', 'i', 'n', 'e'}), IsOk());
  testing::WriteFile(path, "theirs");  // another writer got there first
  EXPECT_THAT(out->CommitNew(), StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("meanwhile")));
  EXPECT_EQ(testing::ReadFile(path), "theirs");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  absl::StatusOr<io::AtomicOutput> fresh = io::AtomicOutput::Create(dir / "other.bin");
  ASSERT_THAT(fresh.status(), IsOk());
  EXPECT_THAT(fresh->CommitNew(), IsOk());
  EXPECT_TRUE(fs::exists(dir / "other.bin"));
}

// What a writer killed mid-write leaves (a temp file nobody holds) is swept; a live writer's
// temp file, a young one and files that only look similar are not.
TEST(AtomicOutputTest, SweepRemovesOnlyAbandonedTempFiles) {
  TempDir dir;
  const auto age = [](const fs::path& p) {
    fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1));
  };
  absl::StatusOr<io::AtomicOutput> live = io::AtomicOutput::Create(dir / "live.bin");
  ASSERT_THAT(live.status(), IsOk());
  ASSERT_THAT(live->Write(std::vector<uint8_t>{'l'}), IsOk());
  age(live->temp_path());  // old, but locked by its writer
  fs::create_directories(dir / "sub");
  for (const char* dead : {"dead.bin.provd-tmp-AbCdEf", "sub/x.zkey.provd-tmp-Qwerty"}) {
    testing::WriteFile(dir / dead, "half");
    age(dir / dead);
  }
  testing::WriteFile(dir / "young.bin.provd-tmp-XyZ123", "being created");
  for (const char* other : {"notes.tmp", "a.provd-tmp-toolong", "b.tmpAbCdEf"}) {
    testing::WriteFile(dir / other, "keep");
    age(dir / other);
  }
  EXPECT_EQ(io::SweepAbandonedTemps(dir.path()), 2u);
  EXPECT_FALSE(fs::exists(dir / "dead.bin.provd-tmp-AbCdEf"));
  EXPECT_FALSE(fs::exists(dir / "sub/x.zkey.provd-tmp-Qwerty"));
  EXPECT_TRUE(fs::exists(live->temp_path()));
  EXPECT_TRUE(fs::exists(dir / "young.bin.provd-tmp-XyZ123"));
  for (const char* other : {"notes.tmp", "a.provd-tmp-toolong", "b.tmpAbCdEf"}) {
    EXPECT_TRUE(fs::exists(dir / other)) << other;
  }
  EXPECT_EQ(io::SweepAbandonedTemps(dir.path(), std::chrono::seconds(0)), 1u);  // the young one
  ASSERT_THAT(live->Commit(), IsOk());
  EXPECT_EQ(testing::ReadFile(dir / "live.bin"), "l");
  EXPECT_EQ(io::SweepAbandonedTemps(dir / "no-such-dir"), 0u);
}

TEST(AtomicOutputTest, TempNamesAndNamesTooLongForOne) {
  EXPECT_TRUE(io::AtomicOutput::IsTempName("k.zkey.provd-tmp-a1B2c3"));
  EXPECT_TRUE(io::AtomicOutput::IsTempName(".provd-tmp-a1B2c3"));
  EXPECT_FALSE(io::AtomicOutput::IsTempName("k.zkey.provd-tmp-a1B2c"));
  EXPECT_FALSE(io::AtomicOutput::IsTempName("k.zkey"));
  TempDir dir;
  const std::string longest(NAME_MAX - io::AtomicOutput::kTempSuffixSize, 'n');
  absl::StatusOr<io::AtomicOutput> fits = io::AtomicOutput::Create(dir / longest);
  ASSERT_THAT(fits.status(), IsOk());
  ASSERT_THAT(fits->Commit(), IsOk());
  EXPECT_TRUE(fs::exists(dir / longest));
  EXPECT_THAT(io::AtomicOutput::Create(dir / (longest + "n")).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(absl::StrCat("the file name is ", longest.size() + 1,
                                              " bytes long; at most ", longest.size()))));
}

TEST(BinFileWriterTest, ASectionOfTheWrongSizeIsAnError) {
  TempDir dir;
  absl::StatusOr<io::AtomicOutput> out = io::AtomicOutput::Create(dir / "f.zkey");
  ASSERT_THAT(out.status(), IsOk());
  absl::StatusOr<BinFileWriter> file = BinFileWriter::Start(*out, "zkey", 1, 2);
  ASSERT_THAT(file.status(), IsOk());
  ASSERT_THAT(file->BeginSection(1, 4), IsOk());
  ASSERT_THAT(file->WriteU32(1), IsOk());
  ASSERT_THAT(file->EndSection(), IsOk());
  EXPECT_THAT(file->Finish(), StatusIs(absl::StatusCode::kInternal, HasSubstr("1 declared")));
  ASSERT_THAT(file->BeginSection(2, 8), IsOk());
  ASSERT_THAT(file->WriteU32(1), IsOk());
  EXPECT_THAT(file->EndSection(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("declared 8 bytes, wrote 4")));
}

Witness CircuitWitness(const field::BigInt<4>& prime, uint64_t z) {
  Witness w{"x=3, y=5", prime, {}};
  for (uint64_t v : {uint64_t{1}, z, uint64_t{3}, uint64_t{5}, uint64_t{15}}) {
    w.values.push_back(field::BigInt<4>::FromUint64(v));
  }
  return w;
}

class DevKeyTest : public ::testing::TestWithParam<CurveId> {
 protected:
  R1csParts Parts() const {
    R1csParts p;
    if (GetParam() == CurveId::kBls12381) p.prime = Bls12381Engine::Fr::Modulus();
    return p;
  }
};

TEST_P(DevKeyTest, ProvesAndVerifiesAndRejectsAWrongWitness) {
  TempDir dir;
  absl::StatusOr<std::shared_ptr<const R1csFile>> r1cs = Parse(Parts(), dir);
  ASSERT_THAT(r1cs.status(), IsOk());
  EXPECT_EQ((*r1cs)->header().curve, GetParam());
  DevSetupOptions options;
  options.seed = std::vector<uint8_t>{'t', 'e', 's', 't'};
  absl::StatusOr<DevSetupSummary> summary = WriteDevZkey(**r1cs, dir / "k.zkey", options, Pool());
  ASSERT_THAT(summary.status(), IsOk());
  EXPECT_EQ(summary->domain_size, 4u);
  EXPECT_EQ(summary->coefficients, 3u + 2u + 2u);  // A terms, B terms, 1 + nPublic rows
  EXPECT_EQ(summary->zkey_bytes, fs::file_size(dir / "k.zkey"));

  absl::StatusOr<std::shared_ptr<const ZkeyFile>> zkey = ZkeyFile::Open((dir / "k.zkey").string());
  ASSERT_THAT(zkey.status(), IsOk());
  EXPECT_EQ(zkey->get()->header().curve, GetParam());
  absl::StatusOr<AnyProvingKey> key = LoadProvingKey(*zkey);
  ASSERT_THAT(key.status(), IsOk());
  absl::StatusOr<AnyVerificationKey> vkey = VerificationKeyFromZkey(**zkey);
  ASSERT_THAT(vkey.status(), IsOk());
  const AnyPreparedVerificationKey prepared = PrepareVerificationKey(*vkey);

  const field::BigInt<4>& prime = Parts().prime;
  absl::StatusOr<ProofArtifacts> good = ProveOnCpu(*key, CircuitWitness(prime, 21), {}, Pool());
  ASSERT_THAT(good.status(), IsOk());
  EXPECT_TRUE(VerifyArtifacts(prepared, *good).valid);
  EXPECT_THAT(good->public_json, HasSubstr("\"21\""));
  // z = 22 breaks the second constraint: whatever the prover makes of it must not verify.
  absl::StatusOr<ProofArtifacts> bad = ProveOnCpu(*key, CircuitWitness(prime, 22), {}, Pool());
  if (bad.ok()) {
    EXPECT_FALSE(VerifyArtifacts(prepared, *bad).valid);
  }
}

TEST_P(DevKeyTest, ASeedGivesTheSameKeyAndTheOsAnotherOne) {
  TempDir dir;
  absl::StatusOr<std::shared_ptr<const R1csFile>> r1cs = Parse(Parts(), dir);
  ASSERT_THAT(r1cs.status(), IsOk());
  DevSetupOptions seeded;
  seeded.seed = std::vector<uint8_t>{1, 2, 3};
  ASSERT_THAT(WriteDevZkey(**r1cs, dir / "a.zkey", seeded, Pool()).status(), IsOk());
  ASSERT_THAT(WriteDevZkey(**r1cs, dir / "b.zkey", seeded, Pool()).status(), IsOk());
  ASSERT_THAT(WriteDevZkey(**r1cs, dir / "os.zkey", {}, Pool()).status(), IsOk());
  seeded.seed->push_back(4);
  ASSERT_THAT(WriteDevZkey(**r1cs, dir / "c.zkey", seeded, Pool()).status(), IsOk());
  const std::string a = testing::ReadFile(dir / "a.zkey");
  EXPECT_EQ(a, testing::ReadFile(dir / "b.zkey"));
  EXPECT_NE(a, testing::ReadFile(dir / "c.zkey"));
  EXPECT_NE(a, testing::ReadFile(dir / "os.zkey"));
  EXPECT_EQ(a.size(), testing::ReadFile(dir / "os.zkey").size());
}

TEST_P(DevKeyTest, AnUnwritableOutputLeavesNothing) {
  TempDir dir;
  absl::StatusOr<std::shared_ptr<const R1csFile>> r1cs = Parse(Parts(), dir);
  ASSERT_THAT(r1cs.status(), IsOk());
  EXPECT_THAT(WriteDevZkey(**r1cs, dir / "missing" / "k.zkey", {}, Pool()).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("missing")));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

INSTANTIATE_TEST_SUITE_P(BothCurves, DevKeyTest,
                         ::testing::Values(CurveId::kBn254, CurveId::kBls12381),
                         [](const ::testing::TestParamInfo<CurveId>& param) {
                           return std::string(SnarkjsCurveName(param.param));
                         });

}  // namespace
}  // namespace provd::groth16
