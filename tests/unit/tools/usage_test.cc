// What braid says to a mistyped command line: the nearest command or option, checks in words,
// the version with the build's features, and the file that is actually missing.
#include <gtest/gtest.h>

#include "common/cli_runner.h"

namespace braid::test {
namespace {

TEST(Usage, AMistypedCommandGetsTheNearestOne) {
  auto r = braid_cli("trian --epochs 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'trian' of braid; did you mean 'train'?"), std::string::npos) << r.err;
  r = braid_cli("params shwo x.params");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'shwo' of braid params; did you mean 'show'?"), std::string::npos) << r.err;
  r = braid_cli("zzzzzzzz");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;  // nothing near
  EXPECT_NE(r.err.find("The commands: params, ops,"), std::string::npos) << r.err;
}

TEST(Usage, AMistypedOptionGetsTheNearestOneOfItsCommand) {
  auto r = braid_cli("train --epoch 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown option '--epoch' of braid train; did you mean '--epochs'?"), std::string::npos)
      << r.err;
  r = braid_cli("serve --model-repo x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean '--model-repository'?"), std::string::npos) << r.err;
}

TEST(Usage, NumbersOutOfRangeAreSaidInWords) {
  auto r = braid_cli("train --epochs 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--epochs: must be greater than 0, got 0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("1797693"), std::string::npos) << r.err;  // no 310-digit bound
  r = braid_cli("train --checkpoint-every -2");
  EXPECT_NE(r.err.find("--checkpoint-every: must be 0 or more, got -2"), std::string::npos) << r.err;
  r = braid_cli("train --batch-size many");
  EXPECT_NE(r.err.find("must be a number, got 'many'"), std::string::npos) << r.err;
}

TEST(Usage, VersionNamesTheBuildsFeatures) {
  auto r = braid_cli("--version");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("braid " BRAID_VERSION_FOR_TESTS " (MXNet 1.9.1's API and file formats)"), std::string::npos)
      << r.out;
  for (const char* feature : {"CUDA ", "MPI ", "ZeroMQ parameter server ", "serving "})
    EXPECT_NE(r.out.find(feature), std::string::npos) << feature << " in " << r.out;
}

TEST(Usage, AMissingInputFileIsNamedWithoutDatasetAdvice) {
  auto r = braid_cli("eval --symbol s.json --params p.params --images /nonexistent/images.idx --labels l.idx");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/images.idx"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("dataset-fashion-mnist"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid::test
