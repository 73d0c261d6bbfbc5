// What an Executor hands out (outputs, gradients) stays valid and correct when the executor is
// destroyed with its kernels still queued: the kernels own what they use, fused chains included.
#include <gtest/gtest.h>

#include <memory>

#include "braid/symbol/executor.h"
#include "common/drop_then_read.h"
#include "common/face_like_net.h"

namespace braid {
namespace {

Executor bind_face(bool loss, GradReq req, int64_t batch) {
  Symbol net = test::face_like_net(loss);
  const auto params = test::face_params(net);
  Executor ex = Executor::simple_bind(net, cpu(), {{"data", test::face_input_shape(batch)}}, req);
  auto args = ex.arg_dict(), aux = ex.aux_dict();
  for (const auto& [name, value] : params.arg) value.copyto(args.at(name));
  for (const auto& [name, value] : params.aux) value.copyto(aux.at(name));
  if (loss) nd::array<float>({0, 3, 1, 4}, Shape{batch}).copyto(args.at("softmax_label"));
  return ex;
}

NDArray pixels() { return test::face_pixels(4, 7); }

TEST(ExecutorLifetime, TheTestNetworkHasAFusedChain) {
  // The pattern below only covers fused kernels if the plan fuses some.
  Executor ex = bind_face(false, GradReq::Null, 4);
  EXPECT_GE(ex.plan_stats().fused_ops, 2);
}

TEST(ExecutorLifetime, OutputsOutliveTheExecutor) {
  test::expect_results_outlive_producer(
      [](const NDArray& x) {
        auto ex = std::make_shared<Executor>(bind_face(false, GradReq::Null, 4));
        ex->forward(false, {{"data", x}});
        return test::Produced{ex->outputs(), ex};
      },
      pixels);
}

TEST(ExecutorLifetime, GradientsAndUpdatedStatesOutliveTheExecutor) {
  test::expect_results_outlive_producer(
      [](const NDArray& x) {
        auto ex = std::make_shared<Executor>(bind_face(true, GradReq::Write, 4));
        ex->forward(true, {{"data", x}});
        ex->backward();
        std::vector<NDArray> out = ex->outputs();
        for (const auto& [name, g] : ex->grad_dict())
          if (name != "data" && name != "softmax_label") out.push_back(g);
        for (const auto& [name, a] : ex->aux_dict()) out.push_back(a);  // moving statistics, written in training
        return test::Produced{out, ex};
      },
      pixels);
}

}  // namespace
}  // namespace braid
