// Forward + backward of the nn_conv operators at LeNet's shapes (batch 64, float32) and of the
// other forms of convolution (1-D, 3-D, depthwise, transposed), calling the
// registry's kernels directly on preallocated buffers (no engine). bench/ops_vs_torch.py runs
// this binary and the same ops in PyTorch side by side.
#include <benchmark/benchmark.h>

#include <list>
#include <random>

#include "braid/op/registry.h"

namespace {

using braid::Shape;
using namespace braid::op;

struct Case {
  const char* name;
  const char* op;
  AttrMap attrs;
  std::vector<Shape> shapes;
};

const std::vector<Case>& lenet_cases() {
  static const std::vector<Case> cases{
      {"conv1",
       "Convolution",
       {{"kernel", "(5, 5)"}, {"num_filter", "20"}},
       {Shape({64, 1, 28, 28}), Shape({20, 1, 5, 5}), Shape({20})}},
      {"pool1",
       "Pooling",
       {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}},
       {Shape({64, 20, 24, 24})}},
      {"conv2",
       "Convolution",
       {{"kernel", "(5, 5)"}, {"num_filter", "50"}},
       {Shape({64, 20, 12, 12}), Shape({50, 20, 5, 5}), Shape({50})}},
      {"pool2", "Pooling", {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}, {Shape({64, 50, 8, 8})}},
      // The layout a hybridized LeNet pools in (its channels-last regions).
      {"pool1_nhwc",
       "Pooling",
       {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"layout", "NHWC"}},
       {Shape({64, 24, 24, 20})}},
      {"pool2_nhwc",
       "Pooling",
       {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"layout", "NHWC"}},
       {Shape({64, 8, 8, 50})}},
      {"fc1", "FullyConnected", {{"num_hidden", "128"}}, {Shape({64, 800}), Shape({128, 800}), Shape({128})}},
      {"fc2", "FullyConnected", {{"num_hidden", "10"}}, {Shape({64, 128}), Shape({10, 128}), Shape({10})}},
      // The other forms of convolution.
      {"conv1d",
       "Convolution",
       {{"kernel", "(5,)"}, {"num_filter", "32"}},
       {Shape({64, 16, 128}), Shape({32, 16, 5}), Shape({32})}},
      {"conv3d",
       "Convolution",
       {{"kernel", "(3, 3, 3)"}, {"num_filter", "8"}},
       {Shape({8, 4, 16, 16, 16}), Shape({8, 4, 3, 3, 3}), Shape({8})}},
      {"depthwise",
       "Convolution",
       {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "32"}, {"num_group", "32"}},
       {Shape({64, 32, 28, 28}), Shape({32, 1, 3, 3}), Shape({32})}},
      {"deconv",
       "Deconvolution",
       {{"kernel", "(5, 5)"}, {"num_filter", "10"}, {"no_bias", "True"}},
       {Shape({64, 20, 12, 12}), Shape({20, 10, 5, 5})}},
  };
  return cases;
}

// One op with every buffer it reads and writes, filled once.
class OpRun {
 public:
  explicit OpRun(const Case& c) : def_(Registry::get().find(c.op)), param_(def_.parse(c.attrs)) {
    std::vector<Shape> in = c.shapes, out(static_cast<size_t>(def_.num_outputs(param_))), aux;
    def_.infer_shape(param_, in, out, aux);
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    auto alloc = [&](const Shape& s, std::vector<TBlob>& blobs) {
      auto& v = bufs_.emplace_back(static_cast<size_t>(s.size()));
      for (auto& x : v) x = u(gen);
      blobs.push_back({v.data(), s, braid::DType::Float32});
    };
    for (const auto& s : in) alloc(s, fwd_.inputs);
    for (const auto& s : out) alloc(s, fwd_.outputs);
    for (const auto& s : out) alloc(s, bwd_.out_grads);
    for (const auto& s : in) alloc(s, bwd_.in_grads);
    fwd_.req.assign(out.size(), OpReq::Write);
    bwd_.req.assign(in.size(), OpReq::Write);
    bwd_.inputs = fwd_.inputs;
    bwd_.outputs = fwd_.outputs;
    ctx_.is_train = true;
  }
  void forward_backward() {
    def_.cpu.forward(ctx_, param_, fwd_);
    def_.cpu.backward(ctx_, param_, bwd_);
  }

 private:
  const OpDef& def_;
  std::any param_;
  std::list<std::vector<float>> bufs_;  // a list keeps the blobs' pointers valid
  ForwardArgs fwd_;
  BackwardArgs bwd_;
  OpContext ctx_;
};

void run_case(benchmark::State& state, const Case& c) {
  OpRun run(c);
  run.forward_backward();  // builds and caches the primitives
  for (auto _ : state) run.forward_backward();
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& c : lenet_cases())
    benchmark::RegisterBenchmark(c.name, run_case, c)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
