#include "braid/gluon/model_zoo/vision/inception.h"

#include <functional>

#include "braid/gluon/nn/activations.h"
#include "braid/gluon/nn/batch_norm.h"
#include "braid/gluon/nn/concurrent.h"
#include "braid/gluon/nn/conv.h"
#include "braid/gluon/nn/dense.h"
#include "braid/gluon/nn/dropout.h"
#include "braid/gluon/nn/pooling.h"

namespace braid::gluon::model_zoo::vision {
namespace {

using namespace nn;

// A convolution without bias, batch norm (epsilon 0.001), relu.
struct BasicConv {
  int64_t channels;
  Dims kernel, strides = 1, padding = 0;
};

std::shared_ptr<HybridSequential> basic_conv(const BasicConv& c) {
  auto out = std::make_shared<HybridSequential>("");
  out->add(std::make_shared<Conv2D>(c.channels, c.kernel,
                                    ConvOptions{.strides = c.strides, .padding = c.padding, .use_bias = false}));
  out->add(std::make_shared<BatchNorm>(BatchNormOptions{.epsilon = 0.001}));
  out->add(std::make_shared<Activation>("relu"));
  return out;
}

enum class Pool { None, Avg, Max };

// An optional pooling (avg: 3x3 stride 1, max: 3x3 stride 2), then convolutions.
std::shared_ptr<HybridSequential> branch(Pool pool, const std::vector<BasicConv>& convs) {
  auto out = std::make_shared<HybridSequential>("");
  if (pool == Pool::Avg) out->add(std::make_shared<AvgPool2D>(3, PoolOptions{.strides = 1, .padding = 1}));
  if (pool == Pool::Max) out->add(std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2}));
  for (const BasicConv& c : convs) out->add(basic_conv(c));
  return out;
}

using MakeBranch = std::function<std::shared_ptr<HybridBlock>()>;

// Branches built inside the block's own scope (A1_...), run side by side and concatenated.
std::shared_ptr<HybridConcurrent> concurrent(const std::string& prefix, const std::vector<MakeBranch>& branches) {
  auto out = std::make_shared<HybridConcurrent>(1, prefix);
  auto scope = out->name_scope();
  for (const auto& make : branches) out->add(make());
  return out;
}

MakeBranch make(Pool pool, std::vector<BasicConv> convs) {
  return [pool, convs] { return branch(pool, convs); };
}

std::shared_ptr<HybridConcurrent> block_a(int64_t pool_features, const std::string& prefix) {
  return concurrent(prefix,
                    {make(Pool::None, {{64, 1}}), make(Pool::None, {{48, 1}, {64, 5, 1, 2}}),
                     make(Pool::None, {{64, 1}, {96, 3, 1, 1}, {96, 3, 1, 1}}), make(Pool::Avg, {{pool_features, 1}})});
}

std::shared_ptr<HybridConcurrent> block_b(const std::string& prefix) {
  return concurrent(prefix, {make(Pool::None, {{384, 3, 2}}), make(Pool::None, {{64, 1}, {96, 3, 1, 1}, {96, 3, 2}}),
                             make(Pool::Max, {})});
}

std::shared_ptr<HybridConcurrent> block_c(int64_t c7, const std::string& prefix) {
  const Dims k1x7{1, 7}, k7x1{7, 1}, p1x7{0, 3}, p7x1{3, 0};
  return concurrent(
      prefix,
      {make(Pool::None, {{192, 1}}), make(Pool::None, {{c7, 1}, {c7, k1x7, 1, p1x7}, {192, k7x1, 1, p7x1}}),
       make(Pool::None, {{c7, 1}, {c7, k7x1, 1, p7x1}, {c7, k1x7, 1, p1x7}, {c7, k7x1, 1, p7x1}, {192, k1x7, 1, p1x7}}),
       make(Pool::Avg, {{192, 1}})});
}

std::shared_ptr<HybridConcurrent> block_d(const std::string& prefix) {
  return concurrent(prefix,
                    {make(Pool::None, {{192, 1}, {320, 3, 2}}),
                     make(Pool::None, {{192, 1}, {192, {1, 7}, 1, {0, 3}}, {192, {7, 1}, 1, {3, 0}}, {192, 3, 2}}),
                     make(Pool::Max, {})});
}

// `first` (a branch), then 1x3 and 3x1 convolutions side by side.
MakeBranch split_3x3(std::vector<BasicConv> first) {
  return [first] {
    auto out = std::make_shared<HybridSequential>("");
    out->add(branch(Pool::None, first));
    auto split = std::make_shared<HybridConcurrent>(1, "");
    split->add(branch(Pool::None, {{384, {1, 3}, 1, {0, 1}}}));
    split->add(branch(Pool::None, {{384, {3, 1}, 1, {1, 0}}}));
    out->add(split);
    return out;
  };
}

std::shared_ptr<HybridConcurrent> block_e(const std::string& prefix) {
  return concurrent(prefix, {make(Pool::None, {{320, 1}}), split_3x3({{384, 1}}), split_3x3({{448, 1}, {384, 3, 1, 1}}),
                             make(Pool::Avg, {{192, 1}})});
}

}  // namespace

Inception3::Inception3(int64_t classes, std::optional<std::string> prefix)
    : Classifier("Inception3", std::move(prefix)) {
  auto scope = name_scope();
  auto& f = *features_;
  f.add(basic_conv({32, 3, 2}));
  f.add(basic_conv({32, 3}));
  f.add(basic_conv({64, 3, 1, 1}));
  f.add(std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2}));
  f.add(basic_conv({80, 1}));
  f.add(basic_conv({192, 3}));
  f.add(std::make_shared<MaxPool2D>(3, PoolOptions{.strides = 2}));
  f.add(block_a(32, "A1_"));
  f.add(block_a(64, "A2_"));
  f.add(block_a(64, "A3_"));
  f.add(block_b("B_"));
  f.add(block_c(128, "C1_"));
  f.add(block_c(160, "C2_"));
  f.add(block_c(160, "C3_"));
  f.add(block_c(192, "C4_"));
  f.add(block_d("D_"));
  f.add(block_e("E1_"));
  f.add(block_e("E2_"));
  f.add(std::make_shared<AvgPool2D>(8));
  f.add(std::make_shared<Dropout>(0.5));
  set_output(std::make_shared<Dense>(classes));
}

}  // namespace braid::gluon::model_zoo::vision
