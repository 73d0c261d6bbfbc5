// The float32 path (oneDNN primitives; Braid's loops for max pooling) against the float64
// reference (im2col + GEMM, direct pooling loops) over many configurations: forward, every
// gradient, with req Write and Add.
#include <gtest/gtest.h>

#include "unit/op/op_runner.h"

namespace braid::test {
namespace {

struct PrecisionCase {
  std::string op;
  op::AttrMap attrs;
  std::vector<Shape> shapes;
};

void PrintTo(const PrecisionCase& c, std::ostream* os) {
  *os << c.op;
  for (const auto& [k, v] : c.attrs) *os << " " << k << "=" << v;
}

class Float32VsFloat64 : public ::testing::TestWithParam<PrecisionCase> {};

TEST_P(Float32VsFloat64, ForwardAndGradientsAgree) {
  const PrecisionCase& c = GetParam();
  auto shapes = infer(c.op, c.attrs, c.shapes);
  std::vector<Values> inputs;
  for (size_t i = 0; i < c.shapes.size(); ++i)
    inputs.push_back(random_values(c.shapes[i].size(), 100 + static_cast<unsigned>(i)));
  const Values dy = random_values(shapes.out_shapes[0].size(), 7);

  auto ref = run_op<double>(c.op, c.attrs, c.shapes, inputs, dy);
  auto f32 = run_op<float>(c.op, c.attrs, c.shapes, inputs, dy);
  const double tol = 2e-4;  // float32 sums of up to a few hundred products of values in [-1, 1]
  expect_near(f32.outputs[0], ref.outputs[0], tol, tol, "output");
  for (size_t i = 0; i < inputs.size(); ++i)
    expect_near(f32.in_grads[i], ref.in_grads[i], tol, tol, "gradient of input " + std::to_string(i));

  // req Add accumulates onto what is there, in both paths.
  for (bool single : {true, false}) {
    auto added = single ? run_op<float>(c.op, c.attrs, c.shapes, inputs, dy, op::OpReq::Add, 0.5)
                        : run_op<double>(c.op, c.attrs, c.shapes, inputs, dy, op::OpReq::Add, 0.5);
    for (size_t i = 0; i < inputs.size(); ++i) {
      Values expected = ref.in_grads[i];
      for (auto& v : expected) v += 0.5;
      expect_near(added.in_grads[i], expected, tol, tol, "accumulated gradient of input " + std::to_string(i));
    }
  }
}

std::vector<PrecisionCase> conv_cases() {
  auto conv = [](op::AttrMap a, Shape x, int64_t f, int64_t g, bool bias, int64_t c_per_g, Shape k) {
    a["num_filter"] = std::to_string(f);
    a["num_group"] = std::to_string(g);
    a["no_bias"] = bias ? "False" : "True";
    std::vector<int64_t> w{f, c_per_g};
    for (auto d : k.dims()) w.push_back(d);
    std::vector<Shape> s{x, Shape(w)};
    if (bias) s.push_back(Shape({f}));
    return PrecisionCase{"Convolution", a, s};
  };
  return {
      conv({{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}}, Shape({2, 8, 10, 9}), 16, 1, true, 8, Shape({3, 3})),
      conv({{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"stride", "(2, 2)"}}, Shape({2, 16, 11, 12}), 32, 1, true, 16,
           Shape({3, 3})),
      conv({{"kernel", "(3, 2)"}, {"pad", "(2, 1)"}, {"dilate", "(2, 3)"}}, Shape({1, 8, 12, 11}), 8, 1, true, 8,
           Shape({3, 2})),
      conv({{"kernel", "(3, 3)"}}, Shape({2, 16, 9, 9}), 32, 4, true, 4, Shape({3, 3})),
      conv({{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}}, Shape({2, 8, 7, 7}), 8, 8, false, 1, Shape({3, 3})),
      conv({{"kernel", "(5,)"}, {"pad", "(2,)"}, {"stride", "(2,)"}}, Shape({3, 6, 30}), 10, 1, true, 6, Shape({5})),
      conv({{"kernel", "(3,)"}, {"dilate", "(2,)"}}, Shape({2, 4, 17}), 8, 2, false, 2, Shape({3})),
      conv({{"kernel", "(5, 5)"}}, Shape({4, 1, 28, 28}), 20, 1, true, 1, Shape({5, 5})),
      conv({{"kernel", "(1, 1)"}}, Shape({2, 32, 7, 7}), 16, 1, false, 32, Shape({1, 1})),
      conv({{"kernel", "(3, 3, 3)"}, {"pad", "(1, 1, 1)"}}, Shape({2, 4, 6, 7, 5}), 8, 1, true, 4, Shape({3, 3, 3})),
      conv({{"kernel", "(2, 3, 2)"}, {"stride", "(2, 1, 2)"}, {"dilate", "(1, 2, 1)"}}, Shape({1, 6, 7, 8, 6}), 6, 3,
           false, 2, Shape({2, 3, 2})),
  };
}

std::vector<PrecisionCase> deconv_cases() {
  auto deconv = [](op::AttrMap a, Shape x, int64_t f, int64_t g, bool bias, Shape k) {
    a["num_filter"] = std::to_string(f);
    a["num_group"] = std::to_string(g);
    a["no_bias"] = bias ? "False" : "True";
    std::vector<int64_t> w{x[1], f / g};
    for (auto d : k.dims()) w.push_back(d);
    std::vector<Shape> s{x, Shape(w)};
    if (bias) s.push_back(Shape({f}));
    return PrecisionCase{"Deconvolution", a, s};
  };
  return {
      deconv({{"kernel", "(4, 4)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}}, Shape({2, 16, 5, 6}), 8, 1, true,
             Shape({4, 4})),
      deconv({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"adj", "(1, 1)"}}, Shape({1, 8, 6, 6}),
             16, 1, false, Shape({3, 3})),
      deconv({{"kernel", "(3, 3)"}, {"stride", "(3, 2)"}, {"adj", "(2, 1)"}}, Shape({1, 4, 4, 5}), 4, 1, true,
             Shape({3, 3})),
      deconv({{"kernel", "(3, 3)"}, {"dilate", "(2, 2)"}}, Shape({2, 8, 5, 5}), 8, 2, true, Shape({3, 3})),
      deconv({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"target_shape", "(11, 12)"}}, Shape({1, 4, 5, 6}), 6, 1,
             false, Shape({3, 3})),
      deconv({{"kernel", "(4,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}}, Shape({2, 4, 9}), 6, 1, true, Shape({4})),
      deconv({{"kernel", "(3, 3, 3)"}, {"stride", "(2, 2, 2)"}, {"pad", "(1, 1, 1)"}, {"adj", "(1, 0, 1)"}},
             Shape({1, 4, 3, 4, 3}), 6, 2, true, Shape({3, 3, 3})),
  };
}

std::vector<PrecisionCase> pool_cases() {
  auto pool = [](op::AttrMap a, Shape x) { return PrecisionCase{"Pooling", a, {x}}; };
  return {
      pool({{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, Shape({2, 8, 12, 12})),
      pool({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pooling_convention", "full"}},
           Shape({2, 8, 13, 11})),
      pool({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}},
           Shape({2, 8, 13, 12})),
      pool({{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}, {"count_include_pad", "False"}},
           Shape({2, 4, 9, 9})),
      pool({{"kernel", "(3, 3)"},
            {"stride", "(2, 2)"},
            {"pad", "(1, 1)"},
            {"pool_type", "avg"},
            {"pooling_convention", "full"}},
           Shape({1, 2, 10, 9})),
      pool({{"kernel", "(3, 3)"},
            {"stride", "(2, 2)"},
            {"pad", "(1, 1)"},
            {"pool_type", "avg"},
            {"pooling_convention", "full"},
            {"count_include_pad", "False"}},
           Shape({1, 2, 10, 9})),
      pool({{"kernel", "(2, 2)"}, {"pool_type", "sum"}}, Shape({1, 4, 7, 7})),
      pool({{"kernel", "(3, 3)"},
            {"stride", "(2, 2)"},
            {"pad", "(1, 1)"},
            {"pool_type", "sum"},
            {"pooling_convention", "full"}},
           Shape({1, 3, 8, 8})),
      pool({{"global_pool", "True"}}, Shape({2, 16, 7, 5})),
      pool({{"global_pool", "True"}, {"pool_type", "avg"}}, Shape({2, 16, 7, 5})),
      pool({{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}}, Shape({2, 4, 21})),
      pool({{"kernel", "(2,)"}, {"stride", "(2,)"}, {"pool_type", "avg"}, {"pooling_convention", "full"}},
           Shape({2, 4, 21})),
      pool({{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}}, Shape({2, 3, 6, 8, 7})),
      pool({{"kernel", "(3, 3, 3)"}, {"stride", "(2, 2, 2)"}, {"pad", "(1, 1, 1)"}, {"pool_type", "avg"}},
           Shape({1, 4, 7, 6, 9})),
      pool({{"kernel", "(3, 2, 3)"},
            {"stride", "(2, 2, 2)"},
            {"pad", "(1, 1, 1)"},
            {"pool_type", "avg"},
            {"pooling_convention", "full"},
            {"count_include_pad", "False"}},
           Shape({1, 2, 6, 6, 7})),
      pool({{"kernel", "(2, 2, 2)"}, {"pool_type", "sum"}}, Shape({1, 3, 4, 5, 4})),
      pool({{"global_pool", "True"}, {"pool_type", "avg"}}, Shape({2, 5, 3, 4, 3})),
  };
}

std::vector<PrecisionCase> all_cases() {
  std::vector<PrecisionCase> all = conv_cases();
  for (auto* more : {deconv_cases, pool_cases}) {
    auto c = more();
    all.insert(all.end(), c.begin(), c.end());
  }
  all.push_back({"FullyConnected", {{"num_hidden", "24"}}, {Shape({16, 4, 5, 5}), Shape({24, 100}), Shape({24})}});
  all.push_back({"FullyConnected",
                 {{"num_hidden", "10"}, {"flatten", "False"}, {"no_bias", "True"}},
                 {Shape({3, 5, 32}), Shape({10, 32})}});
  return all;
}

std::string case_name(const ::testing::TestParamInfo<PrecisionCase>& info) {
  return info.param.op + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(NnConv, Float32VsFloat64, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace braid::test
