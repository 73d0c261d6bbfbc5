// Loads the .params files written by real MXNet releases and checks names, shapes, dtypes and
// values against facts computed once with an independent NumPy parse (struct + frombuffer over
// the raw bytes, float64 sums); re-saving reproduces MXNet's bytes.
#include <gtest/gtest.h>

#include <numeric>

#include "braid/io/params.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

struct Expected {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> first;  // the first elements in row-major order
  float last;
  double sum;  // NumPy: a.astype(float64).sum()
};

void check(const io::NamedArrays& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.arrays.size(), want.size());
  ASSERT_EQ(got.names.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    const NDArray& a = got.arrays[i];
    EXPECT_EQ(got.names[i], want[i].name);
    EXPECT_EQ(a.shape(), Shape(want[i].shape));
    EXPECT_EQ(a.dtype(), DType::Float32);
    EXPECT_EQ(a.ctx(), cpu());
    auto v = a.to_vector<float>();
    ASSERT_GE(v.size(), want[i].first.size());
    for (size_t j = 0; j < want[i].first.size(); ++j) EXPECT_EQ(v[j], want[i].first[j]) << j;
    EXPECT_EQ(v.back(), want[i].last);
    double sum = std::accumulate(v.begin(), v.end(), 0.0);
    EXPECT_NEAR(sum, want[i].sum, 1e-7 * (1 + std::abs(want[i].sum)));
  }
}

const std::vector<Expected> kMnist = {
    {"arg:hybridsequential9_conv0_weight",
     {10, 1, 5, 5},
     {0.30523387f, -0.10693789f, -0.4073407f},
     -0.45822683f,
     -4.0322594},
    {"arg:hybridsequential9_conv0_bias", {10}, {-0.39049768f, 0.1361517f, -0.5933632f}, 0.113950185f, -3.02109474},
    {"arg:hybridsequential9_conv1_weight",
     {25, 10, 5, 5},
     {-0.0011289769f, -0.026852649f, -0.08552855f},
     -0.030637177f,
     16.6481796},
    {"arg:hybridsequential9_conv1_bias", {25}, {-0.13141036f, -0.25932112f, -0.276211f}, -0.2509752f, -4.70741004},
    {"arg:hybridsequential9_dense0_weight",
     {20, 400},
     {-0.056454647f, 0.043434296f, 0.12514259f},
     0.12750146f,
     -10.7109163},
    {"arg:hybridsequential9_dense0_bias", {20}, {0.02932578f, 0.20029616f, 0.061128397f}, 0.080864325f, -1.04586807},
    {"arg:hybridsequential9_dense1_weight", {10, 20}, {0.58089966f, -0.7500469f, 0.3495173f}, -0.6757039f, 4.86198108},
    {"arg:hybridsequential9_dense1_bias", {10}, {-0.8520188f, -0.7933895f, -1.0856142f}, -1.2356315f, -10.8420054},
};

const std::vector<Expected> kLinreg = {
    {"arg:fc1_weight", {1, 2}, {1.0f, 1.9999949f}, 1.9999949f, 2.99999487},
    {"arg:fc1_bias", {1}, {2.479882e-06f}, 2.479882e-06f, 2.47988191e-06},
};

TEST(ParamsFixtures, MnistV2) { check(io::load(fixture("mnist-0035.params")), kMnist); }

TEST(ParamsFixtures, SagemakerV1) { check(io::load(fixture("sagemaker-linreg-model-0000.params")), kLinreg); }

// Pre-V1 (MXNet < 0.9): six unnamed float32 arrays, each arange(128).
void check_legacy(const io::NamedArrays& got) {
  EXPECT_TRUE(got.names.empty());
  ASSERT_EQ(got.arrays.size(), 6u);
  std::vector<float> arange(128);
  std::iota(arange.begin(), arange.end(), 0.0f);
  for (const auto& a : got.arrays) {
    EXPECT_EQ(a.shape(), Shape({128}));
    EXPECT_EQ(a.dtype(), DType::Float32);
    EXPECT_EQ(a.to_vector<float>(), arange);
  }
}

TEST(ParamsFixtures, LegacyPreV1) { check_legacy(io::load(fixture("legacy_ndarray.v0"))); }

TEST(ParamsFixtures, EveryParamsFileLoads) {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(BRAID_FIXTURES_DIR)) {
    if (entry.path().extension() != ".params") continue;
    SCOPED_TRACE(entry.path().string());
    auto got = io::load(entry.path().string());
    EXPECT_FALSE(got.arrays.empty());
    for (const auto& a : got.arrays) EXPECT_FALSE(a.is_none());
    ++seen;
  }
  EXPECT_GE(seen, 2);
}

TEST(ParamsFixtures, MnistResavesByteIdentical) {
  const std::string original = read_file_bytes(fixture("mnist-0035.params"));
  auto loaded = io::load(fixture("mnist-0035.params"));
  EXPECT_EQ(io::save_to_bytes(loaded), original);

  auto path = (scratch_dir() / "mnist.params").string();
  io::save(path, loaded);
  EXPECT_EQ(read_file_bytes(path), original);
}

TEST(ParamsFixtures, V1ResavedAsV2LoadsBackEqual) {
  const std::string bytes = io::save_to_bytes(io::load(fixture("sagemaker-linreg-model-0000.params")));
  EXPECT_EQ(bytes.substr(24, 4), std::string("\xC9\xFA\x93\xF9", 4));  // first record is V2 now
  check(io::load_from_bytes(bytes), kLinreg);
}

TEST(ParamsFixtures, PreV1ResavedAsV2LoadsBackEqual) {
  auto path = (scratch_dir() / "legacy.params").string();
  io::save(path, io::load(fixture("legacy_ndarray.v0")));
  EXPECT_EQ(read_file_bytes(path).substr(24, 4), std::string("\xC9\xFA\x93\xF9", 4));
  check_legacy(io::load(path));
}

}  // namespace
}  // namespace braid::test
