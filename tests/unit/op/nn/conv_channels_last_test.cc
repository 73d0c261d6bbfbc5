// Convolution and Pooling with layout NHWC (NWC, NDHWC) give, in float32 and float64, the results and
// gradients of the same op on the channels-first copies of their arguments: MXNet's layout
// attribute, with Convolution's weight (num_filter, kh, kw, C / num_group).
#include <gtest/gtest.h>

#include <random>

#include "unit/op/op_runner.h"

namespace braid::test {
namespace {

// (n, c, spatial...) -> (n, spatial..., c), or back when `to_last` is false.
Values move_channels(const Values& v, const Shape& first, bool to_last) {
  const int64_t n = first[0], c = first[1], spatial = first.size() / (n * c);
  Values out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t s = 0; s < spatial; ++s) {
        const int64_t cf = (i * c + k) * spatial + s, cl = (i * spatial + s) * c + k;
        if (to_last)
          out[static_cast<size_t>(cl)] = v[static_cast<size_t>(cf)];
        else
          out[static_cast<size_t>(cf)] = v[static_cast<size_t>(cl)];
      }
  return out;
}

Shape channels_last_shape(const Shape& s) {
  std::vector<int64_t> d = s.dims();
  d.erase(d.begin() + 1);
  d.push_back(s[1]);
  return Shape(d);
}

Values random_values(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Values v(static_cast<size_t>(n));
  for (auto& x : v) x = u(gen);
  return v;
}

struct Case {
  std::string op;
  op::AttrMap attrs;
  std::vector<Shape> shapes;  // channels first; data and weight move their channel axis last
  std::string layout;
};

template <class T>
void expect_same_as_channels_first(const Case& c) {
  SCOPED_TRACE(c.op + " " + c.shapes[0].str() + " " + c.layout);
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
  std::vector<Values> first, last;
  std::vector<Shape> last_shapes;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    first.push_back(random_values(c.shapes[i].size(), static_cast<unsigned>(7 + i)));
    const bool moves = i < 2 && c.shapes[i].ndim() > 2;  // data and weight, not bias
    last.push_back(moves ? move_channels(first[i], c.shapes[i], true) : first[i]);
    last_shapes.push_back(moves ? channels_last_shape(c.shapes[i]) : c.shapes[i]);
  }
  const Shape y_shape = infer(c.op, c.attrs, c.shapes).out_shapes[0];
  const Values dy = random_values(y_shape.size(), 99);
  auto ref = run_op<T>(c.op, c.attrs, c.shapes, first, dy);
  op::AttrMap attrs = c.attrs;
  attrs["layout"] = c.layout;
  auto got = run_op<T>(c.op, attrs, last_shapes, last, move_channels(dy, y_shape, true));
  EXPECT_EQ(got.out_shapes[0], channels_last_shape(y_shape));
  expect_near(move_channels(got.outputs[0], y_shape, false), ref.outputs[0], tol, tol, "output");
  // With req Add the gradients land on what the buffers held (1.5 everywhere).
  auto added = run_op<T>(c.op, attrs, last_shapes, last, move_channels(dy, y_shape, true), op::OpReq::Add, 1.5);
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    const bool moves = i < 2 && c.shapes[i].ndim() > 2;
    const std::string what = "gradient of input " + std::to_string(i);
    expect_near(moves ? move_channels(got.in_grads[i], c.shapes[i], false) : got.in_grads[i], ref.in_grads[i], tol, tol,
                what);
    Values plus = got.in_grads[i];
    for (double& v : plus) v += 1.5;
    expect_near(added.in_grads[i], plus, tol, tol, what + " (req Add)");
  }
}

std::vector<Case> cases() {
  auto conv = [](op::AttrMap a, std::vector<Shape> s) { return Case{"Convolution", a, s, "NHWC"}; };
  auto pool = [](op::AttrMap a, Shape x, std::string layout = "NHWC") { return Case{"Pooling", a, {x}, layout}; };
  return {
      conv({{"kernel", "(5, 5)"}, {"num_filter", "20"}}, {Shape({2, 1, 12, 12}), Shape({20, 1, 5, 5}), Shape({20})}),
      conv({{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"stride", "(2, 1)"}, {"pad", "(1, 1)"}},
           {Shape({2, 5, 9, 8}), Shape({6, 5, 3, 3}), Shape({6})}),
      conv({{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"dilate", "(2, 2)"}, {"no_bias", "True"}},
           {Shape({1, 3, 9, 9}), Shape({4, 3, 3, 3})}),
      conv({{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"num_group", "2"}, {"pad", "(1, 1)"}},
           {Shape({2, 4, 6, 6}), Shape({6, 2, 3, 3}), Shape({6})}),
      pool({{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, Shape({2, 8, 6, 10})),  // four channels at a time
      pool({{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, Shape({2, 5, 7, 9})),   // remainder, odd row and column
      pool({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pooling_convention", "full"}},
           Shape({2, 3, 9, 8})),
      pool({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}}, Shape({2, 3, 9, 8})),
      pool({{"kernel", "(2, 2)"}, {"pool_type", "sum"}}, Shape({1, 4, 5, 5})),
      pool({{"global_pool", "True"}, {"pool_type", "avg"}}, Shape({2, 6, 4, 3})),
      pool({{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}}, Shape({2, 4, 11}), "NWC"),
      Case{"Convolution",
           {{"kernel", "(2, 3, 3)"}, {"num_filter", "6"}, {"num_group", "2"}, {"pad", "(1, 1, 0)"}},
           {Shape({2, 4, 4, 6, 5}), Shape({6, 2, 2, 3, 3}), Shape({6})},
           "NDHWC"},
      pool({{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}}, Shape({2, 5, 4, 6, 7}), "NDHWC"),
      pool({{"kernel", "(3, 3, 3)"}, {"pad", "(1, 1, 1)"}, {"pool_type", "avg"}}, Shape({1, 3, 4, 5, 4}), "NDHWC"),
  };
}

TEST(ChannelsLast, Float32MatchesChannelsFirst) {
  for (const auto& c : cases()) expect_same_as_channels_first<float>(c);
}

TEST(ChannelsLast, Float64MatchesChannelsFirst) {
  for (const auto& c : cases()) expect_same_as_channels_first<double>(c);
}

TEST(ChannelsLast, UnsupportedLayoutsAreClearErrors) {
  const op::OpDef& deconv = op::Registry::get().find("Deconvolution");
  try {
    deconv.parse({{"kernel", "(2, 2)"}, {"num_filter", "2"}, {"layout", "NHWC"}});
    FAIL() << "Deconvolution accepted layout NHWC";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layout 'NHWC'"), std::string::npos) << e.what();
  }
  try {
    op::Registry::get().find("Pooling").parse({{"kernel", "(2, 2)"}, {"layout", "NWC"}});
    FAIL() << "Pooling accepted layout NWC with a 2-D kernel";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not match kernel"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid::test
