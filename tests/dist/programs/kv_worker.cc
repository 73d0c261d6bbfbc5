// A worker of the dist KVStore tests (tests/dist/dist_kvstore_test.cc), started with the DMLC_*
// environment next to `braid server` processes; the checks follow MXNet's nightly
// dist_sync_kvstore.py. Usage: braid_dist_kv_worker TYPE SCENARIO [DIR]. Prints what differs and
// exits 1 on a wrong value; exits 0 when every check passed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/base/half.h"
#include "braid/engine/engine.h"
#include "braid/io/ndarray_iter.h"
#include "braid/io/params.h"
#include "braid/kvstore/kvstore.h"
#include "braid/module/module.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/random.h"
#include "braid/symbol/compose.h"

using namespace braid;

namespace {

const Shape kSmall{2, 3};
const Shape kBig{1200, 1200};  // over MXNET_KVSTORE_BIGARRAY_BOUND's default: split over the servers
constexpr int kRepeat = 3;
int failures = 0;

void expect_all(const NDArray& a, double expected, const std::string& what, double tolerance = 1e-5) {
  const std::vector<double> v = a.to_vector<double>();
  for (size_t i = 0; i < v.size(); ++i)
    if (std::abs(v[i] - expected) > tolerance * std::max(1.0, std::abs(expected))) {
      std::printf("FAIL %s: element %zu is %.9g, expected %.9g\n", what.c_str(), i, v[i], expected);
      ++failures;
      return;
    }
}

void expect_equal(const std::vector<float>& got, const std::vector<float>& want, const std::string& what,
                  float tolerance = 1e-6f) {
  for (size_t i = 0; i < want.size(); ++i)
    if (std::abs(got[i] - want[i]) > tolerance * std::max(1.f, std::abs(want[i]))) {
      std::printf("FAIL %s: element %zu is %.9g, expected %.9g\n", what.c_str(), i, got[i], want[i]);
      ++failures;
      return;
    }
}

NDArray full(const Shape& shape, double v, DType dtype = DType::Float32, Context ctx = cpu()) {
  NDArray a = nd::zeros(shape, ctx);
  a.fill(v);
  return dtype == DType::Float32 ? a : a.astype(dtype);
}

// Sync mode, as MXNet's test_sync_push_pull: each worker pushes rank + 1 (a list of two values
// on two CPU contexts for the small key, summed here first), kRepeat times. Without an optimizer
// the value becomes each round's sum; with SGD the rounds' sums are its gradients.
void sync_push_pull(kv::KVStore& kv, bool optimizer) {
  const int W = kv.num_workers(), r = kv.rank();
  const double lr = 0.1;
  kv.init(3, full(kSmall, 1));
  kv.init(99, full(kBig, 1));
  kv.init(7, full(kSmall, 1, DType::Float16));
  if (optimizer)  // multi_precision: the float16 key's update runs on a float32 copy
    kv.set_optimizer(optim::create("sgd", {{"learning_rate", std::to_string(lr)}, {"multi_precision", "true"}}));
  NDArray first = nd::zeros(kSmall);
  kv.pull(3, {first});
  expect_all(first, 1, "the value worker 0 initialised");
  for (int i = 0; i < kRepeat; ++i) {
    kv.push(3,
            {full(kSmall, (r + 1) / 2.0, DType::Float32, cpu(0)), full(kSmall, (r + 1) / 2.0, DType::Float32, cpu(1))});
    kv.push(99, {full(kBig, r + 1)});
    kv.push(7, {full(kSmall, r + 1, DType::Float16)});
  }
  const double round_sum = W * (W + 1) / 2.0;
  const double expected = optimizer ? 1 - lr * round_sum * kRepeat : round_sum;
  NDArray small = nd::zeros(kSmall), big = nd::zeros(kBig), half = nd::zeros(kSmall, cpu(), DType::Float16);
  NDArray small_copy = nd::zeros(kSmall, cpu(1));
  kv.pull(3, {small, small_copy});
  kv.pull(99, {big});
  kv.pull(7, {half});
  expect_all(small, expected, "small key");
  expect_all(small_copy, expected, "small key, second output");
  expect_all(big, expected, "big key (split over the servers)");
  expect_all(half, expected, "float16 key", 1e-3);
}

// Async mode: every push applies at once; after all workers pushed, SGD has applied each of them.
void async_push_pull(kv::KVStore& kv) {
  const int W = kv.num_workers(), r = kv.rank();
  const double lr = 0.01;
  kv.init(3, full(kSmall, 1));
  kv.init(99, full(kBig, 1));
  kv.set_optimizer(optim::create("sgd", {{"learning_rate", std::to_string(lr)}}));
  for (int i = 0; i < kRepeat; ++i) {
    kv.push(3, {full(kSmall, r + 1)});
    kv.push(99, {full(kBig, r + 1)});
  }
  engine::Engine::get().wait_for_all();  // this worker's pushes have been applied
  kv.barrier();                          // and everyone else's
  NDArray small = nd::zeros(kSmall), big = nd::zeros(kBig);
  kv.pull(3, {small});
  kv.pull(99, {big});
  const double expected = 1 - lr * kRepeat * W * (W + 1) / 2.0;
  expect_all(small, expected, "small key");
  expect_all(big, expected, "big key", 1e-4);
}

// 2-bit compression against an independent computation: every worker knows every worker's
// gradients (a function of rank, round and element), quantizes them with its own residuals, and
// checks the servers' sum of the decoded values.
float gradient(int rank, int round, int64_t i) {
  return static_cast<float>(std::sin(0.37 * static_cast<double>(i) + rank * 1.3 + round * 0.71)) * 0.6f;
}

void compressed(kv::KVStore& kv) {
  const int W = kv.num_workers(), r = kv.rank();
  const float t = 0.5f;
  kv.set_gradient_compression({{"type", "2bit"}, {"threshold", "0.5"}});
  const std::map<int, Shape> keys = {{3, Shape{5, 7}}, {99, kBig}};
  for (const auto& [key, shape] : keys) kv.init(key, full(shape, 0));
  std::map<int, std::vector<std::vector<float>>> residual;  // key -> worker -> element
  for (const auto& [key, shape] : keys)
    residual[key].assign(static_cast<size_t>(W), std::vector<float>(static_cast<size_t>(shape.size()), 0.f));
  for (int round = 0; round < 3; ++round) {
    for (const auto& [key, shape] : keys) {
      const auto n = static_cast<size_t>(shape.size());
      std::vector<float> mine(n), expected(n, 0.f);
      for (size_t i = 0; i < n; ++i) mine[i] = gradient(r, round, static_cast<int64_t>(i));
      for (int w = 0; w < W; ++w)
        for (size_t i = 0; i < n; ++i) {
          float& res = residual[key][static_cast<size_t>(w)][i];
          res += gradient(w, round, static_cast<int64_t>(i));
          float sent = 0;
          if (res >= t)
            sent = t;
          else if (res <= -t)
            sent = -t;
          res -= sent;
          expected[i] += sent;
        }
      kv.push(key, {nd::array<float>(mine, shape)});
      NDArray out = nd::zeros(shape);
      kv.pull(key, {out});
      expect_equal(out.to_vector<float>(), expected,
                   "2-bit key " + std::to_string(key) + " round " + std::to_string(round));
    }
  }
}

// save_optimizer_states in distributed mode equals the states of one optimizer that saw the same
// summed gradients, and loading them back restores them on the servers.
void optimizer_states(kv::KVStore& kv, const std::string& dir) {
  const int W = kv.num_workers(), r = kv.rank();
  const std::map<std::string, std::string> params = {{"learning_rate", "0.05"}, {"beta1", "0.8"}};
  kv.init(3, full(kSmall, 1));
  kv.init(99, full(kBig, 0.5));
  kv.set_optimizer(optim::create("adam", params));
  auto reference = optim::create("adam", params);
  NDArray w3 = full(kSmall, 1), w99 = full(kBig, 0.5);
  for (int round = 0; round < 2; ++round) {
    kv.push(3, {full(kSmall, 0.1 * (r + 1) + round)});
    kv.push(99, {full(kBig, 0.2 * (r + 1) - round)});
    double s3 = 0, s99 = 0;
    for (int w = 0; w < W; ++w) s3 += 0.1 * (w + 1) + round, s99 += 0.2 * (w + 1) - round;
    reference->update(3, w3, full(kSmall, s3));
    reference->update(99, w99, full(kBig, s99));
  }
  const std::string path = dir + "/states-" + std::to_string(r) + ".params";
  kv.save_optimizer_states(path);
  io::NamedArrays saved = io::load(path), want = io::load_from_bytes(reference->save_states());
  std::map<std::string, NDArray> by_name;
  for (size_t i = 0; i < saved.names.size(); ++i) by_name[saved.names[i]] = saved.arrays[i];
  if (saved.names.size() != want.names.size()) {
    std::printf("FAIL saved %zu states, the reference %zu\n", saved.names.size(), want.names.size());
    ++failures;
  }
  for (size_t i = 0; i < want.names.size(); ++i) {
    auto it = by_name.find(want.names[i]);
    if (it == by_name.end()) {
      std::printf("FAIL state %s missing\n", want.names[i].c_str());
      ++failures;
    } else if (it->second.shape() != want.arrays[i].shape()) {
      std::printf("FAIL state %s has shape %s, expected %s\n", want.names[i].c_str(), it->second.shape().str().c_str(),
                  want.arrays[i].shape().str().c_str());
      ++failures;
    } else {
      expect_equal(it->second.astype(DType::Float32).to_vector<float>(),
                   want.arrays[i].astype(DType::Float32).to_vector<float>(), "state " + want.names[i]);
    }
  }
  kv.barrier();  // every worker has saved before any loads
  kv.load_optimizer_states(path);
  kv.barrier();
  const std::string again = dir + "/states-again-" + std::to_string(r) + ".params";
  kv.save_optimizer_states(again);
  io::NamedArrays reloaded = io::load(again);
  for (size_t i = 0; i < reloaded.names.size(); ++i)
    expect_equal(reloaded.arrays[i].astype(DType::Float32).to_vector<float>(),
                 by_name.at(reloaded.names[i]).astype(DType::Float32).to_vector<float>(),
                 "reloaded state " + reloaded.names[i]);
}

// Workers with different numbers of rounds (MXNet issue 7888): worker r pushes r + 1 times and
// leaves; a round completes with the workers still running, so nobody hangs. Worker r's last
// round is that of the workers r .. W-1.
void uneven_rounds(kv::KVStore& kv) {
  const int W = kv.num_workers(), r = kv.rank();
  kv.init(3, full(kSmall, 0));
  kv.init(99, full(kBig, 0));
  for (int i = 0; i <= r; ++i) {
    kv.push(3, {full(kSmall, r + 1)});
    kv.push(99, {full(kBig, r + 1)});
  }
  NDArray small = nd::zeros(kSmall), big = nd::zeros(kBig);
  kv.pull(3, {small});
  kv.pull(99, {big});
  double expected = 0;
  for (int w = r; w < W; ++w) expected += w + 1;
  expect_all(small, expected, "small key after this worker's last round");
  expect_all(big, expected, "big key after this worker's last round");
}

// A push the servers reject (an update they cannot run) fails the next pull with their reason
// on every worker, instead of leaving a stale value; the job goes on.
void server_error(kv::KVStore& kv) {
  kv.init(7, full(kSmall, 1, DType::Int32));
  kv.init(8, full(kSmall, 1));
  kv.set_optimizer(optim::create("sgd", {{"learning_rate", "0.1"}}));  // updates floating-point weights
  kv.push(7, {full(kSmall, 1, DType::Int32)});
  NDArray ints = nd::zeros(kSmall, cpu(), DType::Int32);
  kv.pull(7, {ints});
  try {
    ints.wait_to_read();
    std::printf("FAIL the pull after a rejected push did not fail\n");
    ++failures;
  } catch (const Error& e) {
    if (std::string(e.what()).find("floating-point") == std::string::npos) {
      std::printf("FAIL the error does not give the server's reason: %s\n", e.what());
      ++failures;
    }
  }
  try {
    kv.push(8, {full(Shape{3, 2}, 1)});
    std::printf("FAIL a push of the wrong shape was accepted\n");
    ++failures;
  } catch (const Error& e) {
    if (std::string(e.what()).find("(2, 3)") == std::string::npos) {
      std::printf("FAIL the shape error does not name the key's shape: %s\n", e.what());
      ++failures;
    }
  }
  kv.push(8, {full(kSmall, 1)});
  NDArray ok = nd::zeros(kSmall);
  kv.pull(8, {ok});
  expect_all(ok, 1 - 0.1 * kv.num_workers(), "a key pushed after the error");
}

// Module.fit with dist_sync: worker r takes its B rows of every global batch of W * B rows, so
// that the servers' sum of the workers' gradients is the gradient of the global batch; the
// weights must end as those of one Module trained here on batches of W * B without a store.
// (Module creates its own store: the rank comes from BRAID_PS_RANK, which the test sets, or from
// mpirun for horovod.)
void module_fit(const std::string& type) {
  // The job's size and this worker's rank: from braid launch's variables, or from mpirun's (horovod).
  auto env = [](const char* a, const char* b) { return std::atoi(std::getenv(a) ? std::getenv(a) : std::getenv(b)); };
  const int W = env("DMLC_NUM_WORKER", "OMPI_COMM_WORLD_SIZE"), r = env("BRAID_PS_RANK", "OMPI_COMM_WORLD_RANK");
  constexpr int64_t B = 10, rows = 300, dim = 4;
  nd::seed(3);
  const std::vector<float> x = nd::random_normal(0, 1, Shape{rows, dim}).to_vector<float>();
  std::vector<float> y(rows), mine_x, mine_y;
  for (int64_t i = 0; i < rows; ++i) y[static_cast<size_t>(i)] = static_cast<float>(i % 3);
  for (int64_t i = 0; i < rows; ++i)
    if ((i % (W * B)) / B == r) {
      mine_x.insert(mine_x.end(), x.begin() + i * dim, x.begin() + (i + 1) * dim);
      mine_y.push_back(y[static_cast<size_t>(i)]);
    }
  auto net = [] {
    sym::Prefix fresh("");
    Symbol h =
        sym::make("Activation", {sym::make("FullyConnected", {Symbol::Variable("data")}, {{"num_hidden", "8"}}, "fc1")},
                  {{"act_type", "relu"}}, "relu1");
    return sym::make("SoftmaxOutput", {sym::make("FullyConnected", {h}, {{"num_hidden", "3"}}, "fc2")}, {}, "softmax");
  };
  auto fit = [&](const std::vector<float>& xs, const std::vector<float>& ys, int64_t batch, const std::string& store) {
    const auto n = static_cast<int64_t>(ys.size());
    io::NDArrayIter data(nd::array<float>(xs, Shape{n, dim}), nd::array<float>(ys, Shape{n}), batch);
    mod::Module m(net());
    mod::FitOptions o;
    o.kvstore = store;
    o.optimizer_params = {{"learning_rate", "0.2"}, {"momentum", "0.9"}};
    o.num_epoch = 3;
    nd::seed(11 + r);  // different on every worker: the servers' copy (worker 0's) must win
    if (store.empty()) nd::seed(11);
    m.fit(data, o);
    return m.get_params().first;
  };
  const mod::ParamMap dist = fit(mine_x, mine_y, B, type), single = fit(x, y, W * B, "");
  for (const auto& [name, value] : single)
    expect_equal(dist.at(name).to_vector<float>(), value.to_vector<float>(), "Module parameter " + name, 1e-5f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TYPE SCENARIO [DIR]\n", argv[0]);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string type = argv[1], scenario = argv[2], dir = argc > 3 ? argv[3] : ".";
  try {
    if (scenario == "module") {
      module_fit(type);
      std::printf("module: %s\n", failures ? "FAILED" : "ok");
      return failures ? 1 : 0;
    }
    auto kv = kv::create(type);
    if (scenario == "sync")
      sync_push_pull(*kv, false);
    else if (scenario == "sync_optimizer")
      sync_push_pull(*kv, true);
    else if (scenario == "async")
      async_push_pull(*kv);
    else if (scenario == "compression")
      compressed(*kv);
    else if (scenario == "server_error")
      server_error(*kv);
    else if (scenario == "uneven")
      uneven_rounds(*kv);
    else if (scenario == "states")
      optimizer_states(*kv, dir);
    else
      throw Error("unknown scenario " + scenario);
    std::printf("worker %d of %d: %s\n", kv->rank(), kv->num_workers(), failures ? "FAILED" : "ok");
  } catch (const std::exception& e) {
    std::printf("FAIL error: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
