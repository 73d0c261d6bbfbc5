// braid train on a slice of the real Fashion-MNIST: the JSON log, the saved parameters, errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "braid/io/params.h"
#include "common/cli_runner.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;

TEST(Train, WritesTheJsonLogAndTheParameters) {
  fs::path dir = fs::path(::testing::TempDir()) / "braid_train_test";
  fs::create_directories(dir);
  const auto log = dir / "log.json", prefix = dir / "mlp";
  auto r = braid_cli("train --model mlp --epochs 2 --limit 1280 --test-limit 500 --batch-size 64 --json-log '" +
                     log.string() + "' --save '" + prefix.string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  auto recs = read_json_lines(log);
  ASSERT_EQ(recs.size(), 3u);
  for (int e = 0; e < 2; ++e) {
    EXPECT_EQ(recs[e]["epoch"], e + 1);
    for (const char* k : {"train_loss", "train_acc", "test_acc", "samples_per_sec", "seconds"})
      EXPECT_TRUE(recs[e][k].is_number()) << k;
  }
  EXPECT_EQ(recs[2]["final"], true);
  EXPECT_LT(recs[1]["train_loss"].get<double>(), recs[0]["train_loss"].get<double>());
  EXPECT_GT(recs[2]["test_acc"].get<double>(), 0.5);  // far above chance (0.1) after 40 steps
  auto params = io::load(prefix.string() + ".params");
  EXPECT_EQ(params.names, (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(params.arrays[0].shape(), Shape({256, 784}));
  EXPECT_TRUE(fs::exists(prefix.string() + ".states"));
  EXPECT_NE(r.out.find("test accuracy"), std::string::npos) << r.out;
}

// A resumed run keeps the JSON log of the epochs before its checkpoint, line for line, and adds
// the epochs it trains.
TEST(Train, AResumedRunKeepsTheLogsHistory) {
  const fs::path dir = fs::path(::testing::TempDir()) / "braid_train_resume_log";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string common =
      "train --model mlp --limit 640 --test-limit 200 --batch-size 64 --checkpoint-every 10 "
      "--checkpoint '" +
      (dir / "ckpt").string() + "' --json-log '" + (dir / "log.json").string() + "'";
  auto first = braid_cli(common + " --epochs 2");
  ASSERT_EQ(first.code, 0) << first.err;
  const auto before = read_json_lines(dir / "log.json");
  ASSERT_EQ(before.size(), 3u);
  auto resumed = braid_cli(common + " --epochs 3 --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("kept the 2 record(s) of the epochs before epoch 3"), std::string::npos) << resumed.out;
  const auto after = read_json_lines(dir / "log.json");
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(after[0], before[0]);
  EXPECT_EQ(after[1], before[1]);
  EXPECT_EQ(after[2]["epoch"], 3);
  EXPECT_GT(after[2]["samples_per_sec"].get<double>(), 0);
  EXPECT_EQ(after[3]["final"], true);
}

// The position of a checkpoint counts batches of its setup: a resume with another batch size
// (or model, data, optimizer, seed, workers) is refused; a new learning rate is taken, with a note.
TEST(Train, AResumeChecksTheCheckpointsSetup) {
  const fs::path dir = fs::path(::testing::TempDir()) / "braid_train_resume_setup";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string common = "train --model mlp --limit 640 --test-limit 200 --checkpoint-every 5 --checkpoint '" +
                             (dir / "ckpt").string() + "'";
  ASSERT_EQ(braid_cli(common + " --epochs 1 --batch-size 64").code, 0);
  auto other_batch = braid_cli(common + " --epochs 2 --batch-size 32 --resume");
  EXPECT_NE(other_batch.code, 0);
  EXPECT_NE(other_batch.err.find("it was written with --batch-size 64, this run has 32"), std::string::npos)
      << other_batch.err;
  auto other_optimizer = braid_cli(common + " --epochs 2 --batch-size 64 --optimizer adam --resume");
  EXPECT_NE(other_optimizer.code, 0);
  EXPECT_NE(other_optimizer.err.find("--optimizer \"sgd\", this run has \"adam\""), std::string::npos)
      << other_optimizer.err;
  auto other_lr = braid_cli(common + " --epochs 2 --batch-size 64 --lr 0.01 --resume");
  EXPECT_EQ(other_lr.code, 0) << other_lr.err;
  EXPECT_NE(other_lr.out.find("resuming with --lr 0.01 (the checkpoint was written with 0.05)"), std::string::npos)
      << other_lr.out;
}

// LeNet runs convolutions, pooling, dropout-free dense layers and the data loader's shuffle: with
// one engine thread, everything that decides the arithmetic is a function of the seed.
TEST(Train, SameSeedAndOneEngineThreadGiveIdenticalLosses) {
  fs::path dir = fs::path(::testing::TempDir()) / "braid_train_seed_test";
  fs::create_directories(dir);
  auto losses = [&](int seed, const std::string& name) {
    const auto log = dir / name;
    auto r = braid_cli("train --model lenet --epochs 2 --limit 640 --test-limit 200 --num-workers 2 --seed " +
                           std::to_string(seed) + " --json-log '" + log.string() + "'",
                       "BRAID_CPU_WORKER_NTHREADS=1 ");
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<double> out;
    for (const auto& rec : read_json_lines(log))
      if (!rec.contains("final")) out.push_back(rec["train_loss"].get<double>());
    return out;
  };
  const auto a = losses(7, "a.json"), b = losses(7, "b.json"), c = losses(8, "c.json");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a, b);  // bit for bit
  EXPECT_NE(a, c);  // and the seed does matter
}

// --ctx cpu(0),cpu(1): each batch split over two contexts, gradients summed by the KVStore; the
// same seed trains like one context (sums in another order: rounding, which 20 steps of SGD with
// momentum amplify to ~1e-4; tests/unit/gluon/data_parallel_test.cc checks 1e-5 after 3 steps).
TEST(Train, TwoContextsTrainLikeOne) {
  fs::path dir = fs::path(::testing::TempDir()) / "braid_train_ctx_test";
  fs::create_directories(dir);
  auto losses = [&](const std::string& ctx, const std::string& kvstore, const std::string& name) {
    const auto log = dir / name;
    auto r = braid_cli("train --model lenet --epochs 2 --limit 640 --test-limit 200 --seed 3 --ctx '" + ctx +
                       "' --kvstore " + kvstore + " --json-log '" + log.string() + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    if (ctx.find(',') != std::string::npos) {
      EXPECT_NE(r.out.find("kvstore " + kvstore), std::string::npos) << r.out;
    }
    std::vector<double> out;
    for (const auto& rec : read_json_lines(log))
      if (!rec.contains("final")) out.push_back(rec["train_loss"].get<double>());
    return out;
  };
  const auto one = losses("cpu(0)", "device", "one.json");
  ASSERT_EQ(one.size(), 2u);
  for (const std::string kvstore : {"device", "local"}) {
    const auto two = losses("cpu(0),cpu(1)", kvstore, "two_" + kvstore + ".json");
    ASSERT_EQ(two.size(), 2u);
    for (size_t e = 0; e < 2; ++e) EXPECT_NEAR(two[e], one[e], 1e-3 * one[e]) << kvstore << " epoch " << e + 1;
  }
  auto bad = braid_cli("train --model mlp --epochs 1 --ctx 'cpu(0),'");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("an empty context"), std::string::npos) << bad.err;
}

// --model-parallel 2: LeNet's layers split over cpu(0) and cpu(1), each batch in micro-batches;
// trains like one context and saves the parameters under the usual names.
TEST(Train, ModelParallelTrainsLikeOneContext) {
  fs::path dir = fs::path(::testing::TempDir()) / "braid_train_mp_test";
  fs::create_directories(dir);
  auto run = [&](const std::string& extra, const std::string& name) {
    const auto log = dir / (name + ".json");
    auto r = braid_cli("train --model lenet --epochs 2 --limit 640 --test-limit 200 --seed 3 " + extra +
                       " --json-log '" + log.string() + "' --save '" + (dir / name).string() + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<double> out;
    for (const auto& rec : read_json_lines(log))
      if (!rec.contains("final")) out.push_back(rec["train_loss"].get<double>());
    return std::make_pair(out, r.out);
  };
  const auto [one, out1] = run("", "one");
  const auto [split, out2] = run("--model-parallel 2 --micro-batches 4", "split");
  EXPECT_NE(out2.find("model parallel over 2 contexts, 4 micro-batches"), std::string::npos) << out2;
  ASSERT_EQ(split.size(), one.size());
  for (size_t e = 0; e < one.size(); ++e) EXPECT_NEAR(split[e], one[e], 1e-3 * one[e]) << "epoch " << e + 1;
  EXPECT_EQ(io::load((dir / "split.params").string()).names, io::load((dir / "one.params").string()).names);
  auto bad = braid_cli("train --model mlp --epochs 1 --model-parallel 9");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("layers to place"), std::string::npos) << bad.err;
}

// A run whose loss turns NaN, or stays at chance after its first epoch, stops with the cause and
// the learning rate to try (exit status 2) unless --ignore-divergence.
TEST(Train, ADivergedOrStuckRunStopsWithTheLearningRateToTry) {
  const std::string base = "train --model mlp --epochs 3 --limit 3200 --test-limit 100 ";
  auto nan = braid_cli(base + "--lr 1e8");
  EXPECT_EQ(nan.code, 2);
  EXPECT_NE(nan.err.find("at epoch 1, batch 10: the training loss is NaN"), std::string::npos) << nan.err;
  EXPECT_NE(nan.err.find("too high: try 10000000"), std::string::npos) << nan.err;
  auto stuck = braid_cli(base + "--lr 1e-9");
  EXPECT_EQ(stuck.code, 2);
  EXPECT_NE(stuck.err.find("training stopped after epoch 1"), std::string::npos) << stuck.err;
  EXPECT_NE(stuck.err.find("chance level for 10 classes"), std::string::npos) << stuck.err;
  EXPECT_NE(stuck.err.find("too low: try 1e-08"), std::string::npos) << stuck.err;
  auto ignored = braid_cli("train --model mlp --epochs 2 --limit 3200 --test-limit 100 --lr 1e-9 --ignore-divergence");
  EXPECT_EQ(ignored.code, 0) << ignored.err;
  EXPECT_NE(ignored.out.find("test accuracy"), std::string::npos) << ignored.out;
}

TEST(Train, UnknownModelIsAClearError) {
  auto r = braid_cli("train --model vgg99 --epochs 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("resnet-mini"), std::string::npos) << r.err;
}

TEST(Train, MissingDataNamesTheFolder) {
  auto r = braid_cli("train --data-dir /nonexistent/fmnist --epochs 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/fmnist"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid::test
