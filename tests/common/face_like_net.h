#pragma once
// A small network in the shape of the real models that first showed queued-kernel lifetime bugs
// (insightface's gender-age net): raw pixels normalised by a chain of scalar operations (which the
// executor fuses into one kernel), convolution, BatchNorm, LeakyReLU, pooling and a classifier.
// Its parameters are fixed values, so that separate bindings compute the same bits.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "braid/ndarray/creation.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/symbol.h"

namespace braid::test {

inline constexpr int64_t kFaceSide = 16;
inline constexpr int64_t kFaceClasses = 5;

inline Shape face_input_shape(int64_t batch) { return Shape{batch, 3, kFaceSide, kFaceSide}; }

/// `loss`: ends in SoftmaxOutput with a `softmax_label` input (for training), else in softmax.
inline Symbol face_like_net(bool loss) {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  x = sym::make("_minus_scalar", {x}, {{"scalar", "127.5"}}, "minus");
  x = sym::make("_mul_scalar", {x}, {{"scalar", "0.0078125"}}, "scale");
  x = sym::make("Convolution", {x}, {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "8"}, {"no_bias", "True"}},
                "conv0");
  x = sym::make("BatchNorm", {x}, {{"fix_gamma", "False"}, {"eps", "2e-5"}}, "bn0");
  x = sym::make("LeakyReLU", {x}, {{"act_type", "leaky"}, {"slope", "0.1"}}, "relu0");
  x = sym::make("_mul_scalar", {x}, {{"scalar", "0.5"}}, "half");
  x = sym::make("Activation", {x}, {{"act_type", "tanh"}}, "tanh0");
  x = sym::make("Pooling", {x}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}, "pool0");
  x = sym::make("FullyConnected", {x}, {{"num_hidden", std::to_string(kFaceClasses)}}, "fc1");
  if (loss) return sym::make("SoftmaxOutput", {x}, {}, "softmax");
  return sym::make("softmax", {x}, {}, "prob");
}

/// Values in [lo, hi) from `seed`, exactly representable in float32.
inline NDArray face_random(const Shape& shape, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(shape.size()));
  for (auto& e : v) e = dist(rng);
  return nd::array<float>(v, shape);
}

/// Pixels in [0, 255) for a batch.
inline NDArray face_pixels(int64_t batch, unsigned seed) { return face_random(face_input_shape(batch), seed, 0, 255); }

struct FaceParams {
  std::map<std::string, NDArray> arg, aux;
};

/// Fixed parameters for face_like_net (variances positive), by name.
inline FaceParams face_params(const Symbol& net) {
  auto shapes = net.infer_shape({{"data", face_input_shape(1)}});
  FaceParams p;
  const auto args = net.list_arguments();
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] != "data" && args[i] != "softmax_label")
      p.arg[args[i]] = face_random(shapes.arg[i], 100 + static_cast<unsigned>(i), -0.5f, 0.5f);
  const auto aux = net.list_auxiliary_states();
  for (size_t i = 0; i < aux.size(); ++i)
    p.aux[aux[i]] = face_random(shapes.aux[i], 200 + static_cast<unsigned>(i), 0.5f, 1.5f);
  return p;
}

}  // namespace braid::test
