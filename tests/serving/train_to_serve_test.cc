// From training to serving in three commands: braid train --save writes MXNet's export into a
// model repository, braid serve serves it, and braid infer classifies Fashion-MNIST's test set
// through the server as braid eval does on the same files.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "braid/io/idx.h"
#include "serving/serve_fixture.h"

namespace braid::test {
namespace {

const std::string kBraid = BRAID_BINARY_DIR "/bin/braid";

// The accuracy=0.xxxx a braid command printed, or -1.
double printed_accuracy(const std::string& log) {
  std::smatch m;
  const std::string text = read_text(log);
  return std::regex_search(text, m, std::regex("accuracy=([0-9.]+)")) ? std::stod(m[1]) : -1;
}

TEST(TrainToServe, TheServedModelClassifiesAsBraidEvalDoes) {
  const fs::path dir = fs::path(::testing::TempDir()) / "braid_train_to_serve";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string prefix = (dir / "repo" / "lenet" / "1" / "lenet").string();  // the folders do not exist yet
  Process train({kBraid, "train", "--model", "lenet", "--epochs", "1", "--limit", "6400", "--test-limit", "500",
                 "--save", prefix},
                {}, (dir / "train.log").string());
  ASSERT_EQ(train.wait(90), std::optional<int>(0)) << read_text((dir / "train.log").string());
  for (const char* file : {"-symbol.json", "-0000.params", ".params", ".states"})
    EXPECT_TRUE(fs::exists(prefix + file)) << prefix + file;

  const std::string images = io::fashion_mnist_dir() + "/t10k-images-idx3-ubyte.gz";
  const std::string labels = io::fashion_mnist_dir() + "/t10k-labels-idx1-ubyte.gz";
  const std::string eval_log = (dir / "eval.log").string();
  Process eval({kBraid, "eval", "--symbol", prefix + "-symbol.json", "--params", prefix + "-0000.params", "--images",
                images, "--labels", labels},
               {}, eval_log);
  ASSERT_EQ(eval.wait(60), std::optional<int>(0)) << read_text(eval_log);
  const double evaluated = printed_accuracy(eval_log);
  EXPECT_GT(evaluated, 0.5) << read_text(eval_log);  // trained: chance is 0.1

  Server server((dir / "repo").string());
  const std::string infer_log = (dir / "infer.log").string();
  Process infer({kBraid, "infer", "--url", "http://127.0.0.1:" + std::to_string(server.port), "--model", "lenet",
                 "--images", images, "--labels", labels, "--batch-size", "100", "--concurrency", "2"},
                {}, infer_log);
  ASSERT_EQ(infer.wait(60), std::optional<int>(0))
      << read_text(infer_log) << read_text((dir / "repo" / "serve.log").string());
  EXPECT_EQ(printed_accuracy(infer_log), evaluated) << read_text(infer_log);
}

}  // namespace
}  // namespace braid::test
