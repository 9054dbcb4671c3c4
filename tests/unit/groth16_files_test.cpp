// The .wtns and .zkey readers on hand-built files: every malformed or unsupported input gives
// INVALID_ARGUMENT (or NOT_FOUND for a missing file) naming the file and what is wrong.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prover_core/groth16/chunk_points.hpp"
#include "prover_core/groth16/groth16.hpp"
#include "prover_core/groth16/witness_file.hpp"
#include "prover_core/groth16/zkey_file.hpp"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::groth16 {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

using Fr = Bn254Engine::Fr;
using Fq = Bn254Engine::Fq;

std::string U32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string U64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
template <size_t N>
std::string Int(const field::BigInt<N>& v) {
  std::string out(8 * N, '\0');
  v.ToBytesLE(std::span(reinterpret_cast<uint8_t*>(out.data()), out.size()));
  return out;
}

// (1, 1) in the zkey's Montgomery encoding: on no curve y^2 = x^3 + b with b != 0.
std::string OffCurvePoint() { return Int(Fq::One().Montgomery()) + Int(Fq::One().Montgomery()); }

using Sections = std::vector<std::pair<uint32_t, std::string>>;

std::string Container(const char* magic, uint32_t version, const Sections& sections) {
  std::string out(magic, 4);
  out += U32(version) + U32(static_cast<uint32_t>(sections.size()));
  for (const auto& [id, body] : sections) out += U32(id) + U64(body.size()) + body;
  return out;
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string WitnessHeader(uint32_t count, uint32_t n8 = 32) {
  return U32(n8) + Int(Fr::Modulus()) + U32(count);
}

std::string Values(const std::vector<uint64_t>& values) {
  std::string out;
  for (uint64_t v : values) out += Int(field::BigInt<4>::FromUint64(v));
  return out;
}

TEST(WitnessFile, ParsesValuesInNormalForm) {
  auto w = ParseWitness(
      Bytes(Container("wtns", 2, {{1, WitnessHeader(3)}, {2, Values({1, 7, 9})}})), "w.wtns");
  ASSERT_THAT(w, IsOk());
  EXPECT_EQ(w->prime, Fr::Modulus());
  ASSERT_EQ(w->values.size(), 3u);
  EXPECT_EQ(w->values[1], field::BigInt<4>::FromUint64(7));
}

TEST(WitnessFile, SectionsMayComeInAnyOrder) {
  auto w = ParseWitness(Bytes(Container("wtns", 2, {{2, Values({1, 2})}, {1, WitnessHeader(2)}})),
                        "w.wtns");
  EXPECT_THAT(w, IsOk());
}

TEST(WitnessFile, RejectsMalformedContainers) {
  const std::string good = Container("wtns", 2, {{1, WitnessHeader(2)}, {2, Values({1, 2})}});
  EXPECT_THAT(ParseWitness(Bytes(Container("zkey", 2, {})), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("w.wtns: not a .wtns file")));
  EXPECT_THAT(
      ParseWitness(Bytes(Container("wtns", 1, {})), "w.wtns"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unsupported .wtns version 1")));
  EXPECT_THAT(ParseWitness(Bytes(good.substr(0, 7)), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated header")));
  EXPECT_THAT(ParseWitness(Bytes(good.substr(0, good.size() - 1)), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated: section 2")));
  EXPECT_THAT(ParseWitness(Bytes(good + "x"), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unexpected bytes")));
  EXPECT_THAT(
      ParseWitness(Bytes(Container("wtns", 2, {{1, WitnessHeader(1)}, {1, WitnessHeader(1)}})),
                   "w.wtns"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("section 1 appears twice")));
  // A huge declared section size must not wrap around the bounds check.
  std::string huge = Container("wtns", 2, {});
  huge[8] = 1;
  huge += U32(1) + U64(~uint64_t{0} - 4);
  EXPECT_THAT(ParseWitness(Bytes(huge), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated")));
}

TEST(WitnessFile, RejectsBadContents) {
  EXPECT_THAT(ParseWitness(Bytes(Container("wtns", 2, {{2, Values({1})}})), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("w.wtns: section 1 (header): missing")));
  EXPECT_THAT(
      ParseWitness(Bytes(Container("wtns", 2, {{1, WitnessHeader(1, 48)}, {2, Values({1})}})),
                   "w.wtns"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("32-byte scalar fields")));
  EXPECT_THAT(
      ParseWitness(Bytes(Container("wtns", 2, {{1, WitnessHeader(3)}, {2, Values({1, 2})}})),
                   "w.wtns"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("section 2 (values): expected 96 bytes, found 64")));
  EXPECT_THAT(ParseWitness(Bytes(Container("wtns", 2, {{1, WitnessHeader(0)}, {2, ""}})), "w.wtns"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no values")));
  std::string values = Values({1, 2}) + Int(Fr::Modulus());
  EXPECT_THAT(
      ParseWitness(Bytes(Container("wtns", 2, {{1, WitnessHeader(3)}, {2, values}})), "w.wtns"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("value 2 is not below the prime")));
}

TEST(WitnessFile, ReportsMissingEmptyAndNonRegularFiles) {
  testing::TempDir dir;
  EXPECT_THAT(ReadWitnessFile((dir / "absent.wtns").string()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent.wtns")));
  testing::WriteFile(dir / "empty.wtns", "");
  EXPECT_THAT(ReadWitnessFile((dir / "empty.wtns").string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty file")));
  EXPECT_THAT(ReadWitnessFile(dir.path().string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a regular file")));
}

// A structurally valid bn128 zkey with every point at infinity (all-zero bytes), which the
// tests below break one piece at a time.
struct ZkeyParts {
  uint32_t protocol = 1;
  field::BigInt<4> q = Fq::Modulus();
  field::BigInt<4> r = Fr::Modulus();
  uint32_t n_vars = 4;
  uint32_t n_public = 1;
  uint32_t domain = 4;
  std::string alpha1 = std::string(64, '\0');
  std::string coefficients = U32(0);
  std::string a_points = std::string(4 * 64, '\0');

  std::string Build() const {
    std::string header = U32(32) + Int(q) + U32(32) + Int(r) + U32(n_vars) + U32(n_public) +
                         U32(domain) + alpha1 + std::string(64 + 128 + 128 + 64 + 128, '\0');
    return Container("zkey", 1,
                     {{1, U32(protocol)},
                      {2, header},
                      {3, std::string((n_public + 1) * 64, '\0')},
                      {4, coefficients},
                      {5, a_points},
                      {6, std::string(n_vars * 64, '\0')},
                      {7, std::string(n_vars * 128, '\0')},
                      {8, std::string(n_vars > n_public ? (n_vars - n_public - 1) * 64 : 0, '\0')},
                      {9, std::string(domain * 64, '\0')}});
  }
};

class ZkeyFileTest : public ::testing::Test {
 protected:
  absl::StatusOr<AnyProvingKey> Load(const ZkeyParts& parts) {
    const auto path = dir_ / "k.zkey";
    testing::WriteFile(path, parts.Build());
    return LoadProvingKey(path.string());
  }
  std::string Coefficient(uint32_t matrix, uint32_t constraint, uint32_t signal,
                          const field::BigInt<4>& value) {
    return U32(matrix) + U32(constraint) + U32(signal) + Int(value);
  }
  testing::TempDir dir_;
};

TEST_F(ZkeyFileTest, LoadsAWellFormedKey) {
  ZkeyParts parts;
  parts.coefficients = U32(1) + Coefficient(0, 3, 2, field::BigInt<4>::FromUint64(5));
  absl::StatusOr<AnyProvingKey> key = Load(parts);
  ASSERT_THAT(key, IsOk());
  const ZkeyHeader& h = KeyFile(*key).header();
  EXPECT_EQ(h.curve, CurveId::kBn254);
  EXPECT_EQ(h.n_vars, 4u);
  EXPECT_EQ(h.log_domain, 2u);
}

TEST_F(ZkeyFileTest, RejectsOtherProtocolsAndCurves) {
  ZkeyParts parts;
  parts.protocol = 2;
  EXPECT_THAT(Load(parts), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("protocol id 2 is not Groth16")));
  parts = {};
  parts.q = field::BigInt<4>::FromUint64(101);
  EXPECT_THAT(Load(parts),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unsupported curve")));
  parts = {};
  parts.r = Fq::Modulus();
  EXPECT_THAT(Load(parts), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("does not match the curve bn128")));
}

TEST_F(ZkeyFileTest, RejectsBadCountsAndDomains) {
  ZkeyParts parts;
  parts.domain = 6;
  EXPECT_THAT(Load(parts),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a power of two")));
  parts = {};
  parts.n_public = 4;
  parts.n_vars = 4;
  EXPECT_THAT(Load(parts),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs nPublic < nVars")));
  parts = {};
  parts.a_points = std::string(3 * 64, '\0');
  EXPECT_THAT(Load(parts),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("k.zkey: section 5 (A points): expected 256 bytes, found 192")));
  parts = {};
  parts.coefficients = U32(2) + Coefficient(0, 0, 0, {});
  EXPECT_THAT(Load(parts), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("section 4 (coefficients): expected 92 bytes")));
}

TEST_F(ZkeyFileTest, RejectsBadCoefficientEntries) {
  struct Case {
    uint32_t matrix, constraint, signal;
    field::BigInt<4> value;
    const char* message;
  };
  const Case cases[] = {
      {2, 0, 0, {}, "entry 0: matrix 2"},
      {0, 4, 0, {}, "entry 0: constraint 4 outside the domain of 4"},
      {1, 0, 4, {}, "entry 0: signal 4 outside the 4 variables"},
      {0, 0, 0, Fr::Modulus(), "entry 0: value not below the scalar field prime"},
  };
  for (const Case& c : cases) {
    ZkeyParts parts;
    parts.coefficients = U32(1) + Coefficient(c.matrix, c.constraint, c.signal, c.value);
    EXPECT_THAT(Load(parts), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

TEST_F(ZkeyFileTest, RejectsVerificationKeyPointsOffTheCurve) {
  ZkeyParts parts;
  parts.alpha1 = OffCurvePoint();
  EXPECT_THAT(Load(parts), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("section 2 (header): alpha1: bn254 G1 point is "
                                              "not on the curve")));
}

TEST_F(ZkeyFileTest, ProvingRejectsAnOffCurvePointNamingItsSectionAndIndex) {
  ZkeyParts parts;
  parts.a_points.replace(64, 64, OffCurvePoint());
  absl::StatusOr<AnyProvingKey> key = Load(parts);
  ASSERT_THAT(key, IsOk());
  Witness witness{"w.wtns", Fr::Modulus(), {}};
  for (uint64_t v : {1, 2, 3, 4}) witness.values.push_back(field::BigInt<4>::FromUint64(v));
  ThreadPool pool(2);
  EXPECT_THAT(ProveOnCpu(*key, witness, {}, pool),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("msm_a: " + (dir_ / "k.zkey").string() +
                                 ": section 5 (A points): point 1: bn254 G1 point is not on "
                                 "the curve")));
}

// A key whose A section holds the points G, 2G, 3G, ...: two whole blocks of PointChecks and
// a shorter last one.
class PointChecksTest : public ZkeyFileTest {
 protected:
  static constexpr size_t kBlock = PointChecks::kBlockPoints;
  static constexpr size_t kPoints = 3 * kBlock - 72;
  using Key = ProvingKey<Bn254Engine>;
  using G1 = curve::Bn254G1;
  using Points = std::vector<curve::AffinePoint<G1>>;

  // G, 2G, ..., kPoints G.
  static Points Multiples() {
    Points multiples;
    curve::XyzzPoint<G1> p;
    for (size_t i = 0; i < kPoints; ++i) {
      p.AddAffine(G1::Generator());
      multiples.push_back(p.ToAffine());
    }
    return multiples;
  }
  static ZkeyParts Parts() {
    ZkeyParts parts;
    parts.n_vars = kPoints;
    parts.a_points.clear();
    for (const auto& a : Multiples()) {
      parts.a_points += Int(a.x.Montgomery()) + Int(a.y.Montgomery());
    }
    return parts;
  }
  static void PutOffCurvePoint(ZkeyParts& parts, size_t index) {
    parts.a_points.replace(index * 64, 64, OffCurvePoint());
  }
  std::shared_ptr<const Key> LoadKey(const ZkeyParts& parts) {
    absl::StatusOr<AnyProvingKey> key = Load(parts);
    EXPECT_THAT(key, IsOk());
    return key.ok() ? std::get<std::shared_ptr<const Key>>(*key) : nullptr;
  }
  // The points [begin, end) as one fresh decode gives them.
  Points Expected(const Key& key, size_t begin, size_t end) {
    Points points;
    EXPECT_THAT(key.DecodePoints(kZkeyA, begin, end, points, pool_), IsOk());
    return points;
  }
  ThreadPool pool_{2};
};

TEST_F(PointChecksTest, OnlyWholeBlocksAreRememberedAsChecked) {
  std::shared_ptr<const Key> key = LoadKey(Parts());
  ASSERT_NE(key, nullptr);
  Points points;
  EXPECT_EQ(key->checked_points(kZkeyA), 0u);
  ASSERT_THAT(key->DecodePoints(kZkeyA, 0, kBlock + kBlock / 2, points, pool_), IsOk());
  EXPECT_EQ(points.size(), kBlock + kBlock / 2);
  EXPECT_EQ(key->checked_points(kZkeyA), kBlock);  // block 1 was only half decoded
  ASSERT_THAT(key->DecodePoints(kZkeyA, kBlock - 10, kPoints, points, pool_), IsOk());
  EXPECT_EQ(points.size(), kPoints - kBlock + 10);
  EXPECT_EQ(key->checked_points(kZkeyA), kPoints);  // the last block ends with the section
  EXPECT_EQ(key->checked_points(kZkeyB1), 0u);      // other sections have their own
  // Decoded from checked blocks, the points are the same: G, 2G, ...
  ASSERT_THAT(key->DecodePoints(kZkeyA, 0, kPoints, points, pool_), IsOk());
  const Points multiples = Multiples();
  for (size_t i = 0; i < kPoints; ++i) ASSERT_EQ(points[i], multiples[i]) << "point " << i;
}

TEST_F(PointChecksTest, AnOffCurvePointFailsEveryDecodeAndItsBlockIsNeverTrusted) {
  ZkeyParts parts = Parts();
  PutOffCurvePoint(parts, 2 * kBlock - 48);
  std::shared_ptr<const Key> key = LoadKey(parts);
  ASSERT_NE(key, nullptr);
  Points points;
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_THAT(key->DecodePoints(kZkeyA, 0, kPoints, points, pool_),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat("section 5 (A points): point ", 2 * kBlock - 48,
                                                ": bn254 G1 point is not on the curve"))));
    EXPECT_EQ(key->checked_points(kZkeyA), kPoints - kBlock) << "attempt " << attempt;
  }
  // The blocks around it decode, from their checked state, without it.
  EXPECT_THAT(key->DecodePoints(kZkeyA, 0, kBlock, points, pool_), IsOk());
  EXPECT_THAT(key->DecodePoints(kZkeyA, 2 * kBlock, kPoints, points, pool_), IsOk());
}

TEST_F(PointChecksTest, DecodingRefusesASectionOfTheOtherGroup) {
  std::shared_ptr<const Key> key = LoadKey(Parts());
  ASSERT_NE(key, nullptr);
  std::vector<curve::AffinePoint<curve::Bn254G2>> g2;
  Points g1;
  EXPECT_THAT(key->DecodePoints(kZkeyA, 0, 1, g2, pool_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("section 5 does not hold bn254 G2 points")));
  EXPECT_THAT(key->DecodePoints(kZkeyB2, 0, 1, g1, pool_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("section 7 does not hold bn254 G1 points")));
  EXPECT_THAT(key->DecodePoints(kZkeyB2, 0, 1, g2, pool_), IsOk());
}

TEST_F(PointChecksTest, PointsDecodedAheadAreTheSameAndTheirErrorComesWithThem) {
  ZkeyParts parts = Parts();
  PutOffCurvePoint(parts, kBlock + 76);
  std::shared_ptr<const Key> key = LoadKey(parts);
  ASSERT_NE(key, nullptr);
  ChunkPoints<Bn254Engine, G1> chunks(*key, kZkeyA, pool_);
  absl::StatusOr<std::span<const curve::AffinePoint<G1>>> first = chunks.Get({0, kBlock});
  ASSERT_THAT(first, IsOk());
  const Points first_copy(first->begin(), first->end());
  chunks.Prefetch({kBlock, 2 * kBlock});
  chunks.Prefetch({2 * kBlock, kPoints});  // one decode ahead at a time: ignored
  EXPECT_THAT(chunks.Get({kBlock, 2 * kBlock}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(absl::StrCat("point ", kBlock + 76, ": "))));
  EXPECT_EQ(first_copy, Expected(*key, 0, kBlock));
  chunks.Prefetch({2 * kBlock, kPoints});
  absl::StatusOr<std::span<const curve::AffinePoint<G1>>> last = chunks.Get({2 * kBlock, kPoints});
  ASSERT_THAT(last, IsOk());
  EXPECT_EQ(Points(last->begin(), last->end()), Expected(*key, 2 * kBlock, kPoints));
  EXPECT_EQ(chunks.prefetches(), 2u);
  // A decode ahead of another range than the one asked for is dropped, not returned.
  chunks.Prefetch({0, 10});
  absl::StatusOr<std::span<const curve::AffinePoint<G1>>> other = chunks.Get({10, 30});
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(Points(other->begin(), other->end()), Expected(*key, 10, 30));
  EXPECT_EQ(chunks.prefetches(), 3u);
}

TEST_F(ZkeyFileTest, ProvingRejectsAWitnessThatDoesNotFitTheKey) {
  absl::StatusOr<AnyProvingKey> key = Load(ZkeyParts{});
  ASSERT_THAT(key, IsOk());
  ThreadPool pool(2);
  Witness short_witness{"w.wtns", Fr::Modulus(), {field::BigInt<4>::FromUint64(1)}};
  EXPECT_THAT(ProveOnCpu(*key, short_witness, {}, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 values, but the key")));
  Witness other_field{"w.wtns", Bls12381Engine::Fr::Modulus(), {}};
  other_field.values.assign(4, field::BigInt<4>::FromUint64(1));
  EXPECT_THAT(ProveOnCpu(*key, other_field, {}, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("another field")));
  Witness no_one{"w.wtns", Fr::Modulus(), {}};
  no_one.values.assign(4, field::BigInt<4>::FromUint64(2));
  EXPECT_THAT(
      ProveOnCpu(*key, no_one, {}, pool),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("witness[0] must be the constant 1")));
}

TEST(Decimal, PrintsBigIntegers) {
  EXPECT_EQ(field::ToDecimal(field::BigInt<4>{}), "0");
  EXPECT_EQ(field::ToDecimal(field::BigInt<4>::FromUint64(10000000000000000000ull)),
            "10000000000000000000");
  field::BigInt<4> r_minus_1 = Fr::Modulus();
  r_minus_1.SubInPlace(field::BigInt<4>::FromUint64(1));
  EXPECT_EQ(field::ToDecimal(r_minus_1),
            "21888242871839275222246405745257275088548364400416034343698204186575808495616");
}

}  // namespace
}  // namespace provd::groth16
