#include "unit/op/grad_cases.h"

namespace braid::test {

std::vector<GradCase> all_grad_cases() {
  std::vector<GradCase> all;
  for (auto family : {tensor_grad_cases, matrix_grad_cases, index_grad_cases, nn_conv_grad_cases, nn_basic_grad_cases,
                      image_grad_cases, linalg_grad_cases}) {
    auto cases = family();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

std::vector<std::vector<double>> random_inputs(const GradCase& c, std::mt19937_64& gen) {
  std::vector<std::vector<double>> inputs(c.shapes.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto [lo, hi] = i < c.ranges.size() ? c.ranges[i] : std::pair<double, double>{-1.0, 1.0};
    std::uniform_real_distribution<double> u(lo, hi);
    inputs[i].resize(static_cast<size_t>(c.shapes[i].size()));
    for (auto& v : inputs[i]) v = u(gen);
  }
  if (c.fill) c.fill(inputs);
  for (int i : c.symmetric) {
    const Shape& s = c.shapes[static_cast<size_t>(i)];
    const int64_t n = s.back(), count = s.size() / (n * n);
    auto& m = inputs[static_cast<size_t>(i)];
    for (int64_t b = 0; b < count; ++b)
      for (int64_t r = 0; r < n; ++r)
        for (int64_t k = r + 1; k < n; ++k)
          m[static_cast<size_t>(b * n * n + r * n + k)] = m[static_cast<size_t>(b * n * n + k * n + r)];
  }
  return inputs;
}

std::string grad_case_name(const ::testing::TestParamInfo<GradCase>& info) {
  std::string n = info.param.op + "_" + std::to_string(info.index);
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

}  // namespace braid::test
