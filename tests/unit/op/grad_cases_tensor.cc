// Gradient-check cases of the tensor operators (src/op/tensor).
#include <cmath>

#include "grad_cases.h"

namespace braid::test {

std::vector<GradCase> tensor_grad_cases() {
  std::vector<GradCase> c;
  for (const char* op : {"exp", "sin", "cos", "tanh", "sigmoid", "softrelu", "square", "negative",
                         "expm1"}) {
    c.push_back({op, {}, {Shape({3, 4})}});
    c.push_back({op, {}, {Shape({2, 3, 5})}});
  }
  for (const char* op : {"log", "sqrt", "rsqrt", "reciprocal", "log1p"})
    c.push_back({op, {}, {Shape({3, 4})}, {{0.5, 2.0}}});
  // abs and relu are not differentiable at 0; the random values stay away from it.
  for (const char* op : {"abs", "relu"})
    c.push_back({op, {}, {Shape({4, 5})}, {}, {}, [](auto& in) {
                   for (auto& v : in[0]) v = v < 0 ? v - 0.1 : v + 0.1;
                 }});
  c.push_back({"clip", {{"a_min", "-0.5"}, {"a_max", "0.5"}}, {Shape({4, 5})}, {}, {}, [](auto& in) {
                 for (auto& v : in[0]) v = std::abs(std::abs(v) - 0.5) < 0.01 ? v * 0.5 : v;
               }});
  c.push_back({"_copyto", {}, {Shape({2, 3})}});
  c.push_back({"Cast", {{"dtype", "float64"}}, {Shape({2, 3})}});
  return c;
}

}  // namespace braid::test
