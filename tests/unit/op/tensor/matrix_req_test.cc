// Every case of the matrix gradient table run through the registry with each OpReq: Add must
// accumulate onto what is there, Null must leave the buffer alone, and float32 must agree with
// float64.
#include <gtest/gtest.h>

#include <random>

#include "braid/op/registry.h"
#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

struct Buffers {
  std::vector<std::vector<double>> in, out, grad_out, grad_in;
};

class MatrixReq : public ::testing::TestWithParam<GradCase> {
 protected:
  void SetUp() override {
    const GradCase& c = GetParam();
    def_ = &op::Registry::get().find(c.op);
    param_ = def_->parse(c.attrs);
    in_shapes_ = c.shapes;
    out_shapes_.resize(static_cast<size_t>(def_->num_outputs(param_)));
    std::vector<Shape> aux;
    ASSERT_TRUE(def_->infer_shape(param_, in_shapes_, out_shapes_, aux));
    std::mt19937_64 gen(99);
    std::uniform_real_distribution<double> u(-1, 1);
    auto fill = [&](const std::vector<Shape>& shapes, std::vector<std::vector<double>>& v) {
      v.resize(shapes.size());
      for (size_t i = 0; i < shapes.size(); ++i) {
        v[i].resize(static_cast<size_t>(shapes[i].size()));
        for (auto& x : v[i]) x = static_cast<float>(u(gen));  // exact in float32 too
      }
    };
    fill(in_shapes_, b_.in);
    fill(out_shapes_, b_.grad_out);
    fill(out_shapes_, b_.out);
    fill(in_shapes_, b_.grad_in);
  }

  template <class T>
  static std::vector<op::TBlob> blobs(std::vector<std::vector<T>>& v, const std::vector<Shape>& s) {
    std::vector<op::TBlob> r;
    for (size_t i = 0; i < v.size(); ++i) r.push_back({v[i].data(), s[i], DTypeOf<T>::value});
    return r;
  }

  template <class T>
  std::vector<std::vector<T>> forward(std::vector<std::vector<T>> in, std::vector<std::vector<T>> out, op::OpReq req) {
    op::ForwardArgs fa{blobs(in, in_shapes_), blobs(out, out_shapes_), {}, {}};
    fa.req.assign(out.size(), req);
    def_->cpu.forward(op::OpContext{}, param_, fa);
    return out;
  }

  std::vector<std::vector<double>> backward(std::vector<std::vector<double>> grad_in,
                                            const std::vector<op::OpReq>& req) {
    auto in = b_.in, out = forward<double>(b_.in, b_.out, op::OpReq::Write), g = b_.grad_out;
    op::BackwardArgs ba{
        blobs(g, out_shapes_), blobs(in, in_shapes_), blobs(out, out_shapes_), {}, blobs(grad_in, in_shapes_), req};
    def_->cpu.backward(op::OpContext{}, param_, ba);
    return grad_in;
  }

  const op::OpDef* def_ = nullptr;
  std::any param_;
  std::vector<Shape> in_shapes_, out_shapes_;
  Buffers b_;
};

TEST_P(MatrixReq, ForwardAddAccumulatesAndFloat32Agrees) {
  auto written = forward<double>(b_.in, b_.out, op::OpReq::Write);
  auto added = forward<double>(b_.in, b_.out, op::OpReq::Add);
  for (size_t k = 0; k < written.size(); ++k)
    for (size_t j = 0; j < written[k].size(); ++j)
      ASSERT_NEAR(added[k][j], b_.out[k][j] + written[k][j], 1e-12) << "output " << k << " element " << j;

  std::vector<std::vector<float>> in32, out32;
  for (auto& v : b_.in) in32.emplace_back(v.begin(), v.end());
  for (auto& v : b_.out) out32.emplace_back(v.begin(), v.end());
  auto written32 = forward<float>(in32, out32, op::OpReq::Write);
  for (size_t k = 0; k < written.size(); ++k)
    for (size_t j = 0; j < written[k].size(); ++j)
      ASSERT_NEAR(written32[k][j], written[k][j], 1e-5) << "output " << k << " element " << j;
}

TEST_P(MatrixReq, BackwardHonoursWriteAddAndNull) {
  const size_t n = in_shapes_.size();
  auto written = backward(b_.grad_in, std::vector<op::OpReq>(n, op::OpReq::Write));
  auto added = backward(b_.grad_in, std::vector<op::OpReq>(n, op::OpReq::Add));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < written[i].size(); ++j)
      ASSERT_NEAR(added[i][j], b_.grad_in[i][j] + written[i][j], 1e-12) << "input " << i << " element " << j;
  // Null for the first input: its buffer is untouched, the others still written.
  std::vector<op::OpReq> req(n, op::OpReq::Write);
  req[0] = op::OpReq::Null;
  auto partial = backward(b_.grad_in, req);
  EXPECT_EQ(partial[0], b_.grad_in[0]);
  for (size_t i = 1; i < n; ++i) EXPECT_EQ(partial[i], written[i]) << "input " << i;
}

INSTANTIATE_TEST_SUITE_P(Matrix, MatrixReq, ::testing::ValuesIn(matrix_grad_cases()), grad_case_name);

}  // namespace
}  // namespace braid::test
