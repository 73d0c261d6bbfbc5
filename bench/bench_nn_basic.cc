// Float32 throughput of the main nn_basic kernels (forward and backward), called directly through
// the registry on host buffers: BatchNorm, LayerNorm, softmax, Activation, Dropout.
#include <benchmark/benchmark.h>

#include <random>

#include "braid/op/registry.h"

namespace {

using braid::Shape;
using namespace braid::op;

struct Bench {
  const OpDef& def;
  std::any param;
  std::vector<Shape> in, out, aux;
  std::vector<std::vector<float>> bufs;  // inputs, aux, outputs, out grads, in grads
  ForwardArgs fa;
  BackwardArgs ba;
  std::mt19937_64 rng{1};

  Bench(const std::string& op, const AttrMap& attrs, std::vector<Shape> shapes, size_t naux = 0)
      : def(Registry::get().find(op)), param(def.parse(attrs)) {
    in.assign(shapes.begin(), shapes.end() - static_cast<long>(naux));
    aux.assign(shapes.end() - static_cast<long>(naux), shapes.end());
    out.resize(static_cast<size_t>(def.num_outputs(param)));
    def.infer_shape(param, in, out, aux);
    std::uniform_real_distribution<float> u(0.1f, 1.0f);
    auto make = [&](const Shape& s) -> TBlob {
      bufs.emplace_back(static_cast<size_t>(s.size()));
      for (auto& v : bufs.back()) v = u(rng);
      return {bufs.back().data(), s, braid::DType::Float32};
    };
    bufs.reserve(3 * in.size() + 2 * out.size() + aux.size());
    for (const auto& s : in) fa.inputs.push_back(make(s));
    for (const auto& s : aux) fa.aux.push_back(make(s));
    for (const auto& s : out) fa.outputs.push_back(make(s));
    fa.req.assign(out.size(), OpReq::Write);
    ba.inputs = fa.inputs;
    ba.aux = fa.aux;
    ba.outputs = fa.outputs;
    for (const auto& s : out) ba.out_grads.push_back(make(s));
    for (const auto& s : in) ba.in_grads.push_back(make(s));
    ba.req.assign(in.size(), OpReq::Write);
  }
  void forward(bool train) { def.cpu.forward(OpContext{train, braid::cpu(), &rng}, param, fa); }
  void backward(bool train) { def.cpu.backward(OpContext{train, braid::cpu(), &rng}, param, ba); }
  int64_t bytes() const { return in[0].size() * 4; }
};

void run(benchmark::State& st, Bench& b, bool backward) {
  b.forward(true);
  for (auto _ : st) {
    if (backward)
      b.backward(true);
    else
      b.forward(true);
  }
  st.SetBytesProcessed(st.iterations() * b.bytes());
}

void BM_BatchNormForward(benchmark::State& st) {
  Bench b("BatchNorm", {{"fix_gamma", "False"}},
          {Shape({32, 64, 28, 28}), Shape({64}), Shape({64}), Shape({64}), Shape({64})}, 2);
  run(st, b, false);
}
void BM_BatchNormBackward(benchmark::State& st) {
  Bench b("BatchNorm", {{"fix_gamma", "False"}},
          {Shape({32, 64, 28, 28}), Shape({64}), Shape({64}), Shape({64}), Shape({64})}, 2);
  run(st, b, true);
}
void BM_LayerNormForward(benchmark::State& st) {
  Bench b("LayerNorm", {}, {Shape({4096, 1024}), Shape({1024}), Shape({1024})});
  run(st, b, false);
}
void BM_LayerNormBackward(benchmark::State& st) {
  Bench b("LayerNorm", {}, {Shape({4096, 1024}), Shape({1024}), Shape({1024})});
  run(st, b, true);
}
void BM_SoftmaxForward(benchmark::State& st) {
  Bench b("softmax", {}, {Shape({256, 4096})});
  run(st, b, false);
}
void BM_SoftmaxBackward(benchmark::State& st) {
  Bench b("softmax", {}, {Shape({256, 4096})});
  run(st, b, true);
}
void BM_ReluForward(benchmark::State& st) {
  Bench b("Activation", {{"act_type", "relu"}}, {Shape({1 << 22})});
  run(st, b, false);
}
void BM_SigmoidForward(benchmark::State& st) {
  Bench b("Activation", {{"act_type", "sigmoid"}}, {Shape({1 << 22})});
  run(st, b, false);
}
void BM_DropoutForward(benchmark::State& st) {
  Bench b("Dropout", {{"p", "0.5"}}, {Shape({1 << 22})});
  run(st, b, false);
}

BENCHMARK(BM_BatchNormForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BatchNormBackward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormBackward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxBackward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReluForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SigmoidForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DropoutForward)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
