// Data parallelism by hand, as the d2l seed program does it: a LeNet-like network whose
// parameters are copied to cpu(0) and cpu(1), the batch split between them, one backward per
// device and the gradients summed, must give the gradient of the whole batch on one device.
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/indexing.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

namespace braid {
namespace {

using Params = std::vector<NDArray>;

NDArray net(const NDArray& x, const Params& p) {
  NDArray h = nd::relu(nd::invoke1("Convolution", {x, p[0], p[1]}, {{"kernel", "(3, 3)"}, {"num_filter", "4"}}));
  h = nd::invoke1("Pooling", {h}, {{"pool_type", "avg"}, {"kernel", "(2, 2)"}, {"stride", "(2, 2)"}});
  h = nd::invoke1("Flatten", {h});
  return nd::dot(h, p[2]) + p[3];
}

NDArray loss(const NDArray& y_hat, const NDArray& y) { return -nd::pick(nd::invoke1("log_softmax", {y_hat}), y, -1); }

Params copies_with_grad(const Params& params, Context ctx) {
  Params out;
  for (const auto& p : params) {
    out.push_back(p.copyto(ctx));
    out.back().attach_grad();
  }
  return out;
}

TEST(MultiDevice, GradientsSummedOverDevicesEqualTheWholeBatchGradient) {
  nd::seed(5);
  const Params params{nd::random_normal(0, 0.5, Shape({4, 1, 3, 3})), nd::random_normal(0, 0.1, Shape({4})),
                      nd::random_normal(0, 0.5, Shape({36, 3})), nd::random_normal(0, 0.1, Shape({3}))};
  NDArray x = nd::random_normal(0, 1, Shape({8, 1, 8, 8}));
  NDArray y = nd::array({0, 1, 2, 0, 1, 2, 2, 1}, Shape({8}));

  Params whole = copies_with_grad(params, cpu(0));
  NDArray l;
  {
    autograd::RecordScope record;
    l = nd::sum(loss(net(x, whole), y));
  }
  l.backward();

  std::vector<Params> per_device{copies_with_grad(params, cpu(0)), copies_with_grad(params, cpu(1))};
  std::vector<NDArray> losses;
  {
    autograd::RecordScope record;
    for (int d = 0; d < 2; ++d) {
      NDArray xd = x.slice(4 * d, 4 * d + 4).as_in_context(cpu(d)),
              yd = y.slice(4 * d, 4 * d + 4).as_in_context(cpu(d));
      losses.push_back(nd::sum(loss(net(xd, per_device[d]), yd)));
    }
  }
  for (auto& ld : losses) ld.backward();
  for (size_t i = 0; i < params.size(); ++i) {
    // The seed's allreduce, in place on the gradient buffers that grad() hands out.
    NDArray g0 = per_device[0][i].grad(), g1 = per_device[1][i].grad();
    EXPECT_EQ(g1.ctx(), cpu(1));
    g0 += g1.copyto(cpu(0));
    g0.copyto(g1);
    auto want = whole[i].grad().to_vector<float>();
    for (int d = 0; d < 2; ++d) {
      auto got = per_device[d][i].grad().to_vector<float>();
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_NEAR(got[k], want[k], 1e-4f + 1e-4f * std::abs(want[k])) << "param " << i << " device " << d;
    }
  }
}

}  // namespace
}  // namespace braid
