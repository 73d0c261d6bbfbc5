// Executor::set_monitor_callback (MXNet's monitor): every node's arrays under MXNet's names, in
// the order the nodes run, with the values they held when the node ran even though planned
// buffers are reused by later nodes; the results of a monitored run equal an unmonitored one's.
#include <gtest/gtest.h>

#include <cmath>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/random.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/executor.h"

namespace braid {
namespace {

/// data -> FullyConnected(6) "fc" -> sigmoid "act" -> FullyConnected(2) "out" -> LinearRegressionOutput "loss"
Symbol net() {
  sym::Prefix fresh("");
  Symbol h = sym::make("FullyConnected", {Symbol::Variable("data")}, {{"num_hidden", "6"}}, "fc");
  Symbol a = sym::make("Activation", {h}, {{"act_type", "sigmoid"}}, "act");
  Symbol o = sym::make("FullyConnected", {a}, {{"num_hidden", "2"}}, "out");
  return sym::make("LinearRegressionOutput", {o}, {}, "loss");
}

struct Seen {
  std::vector<std::string> names, ops;
  std::map<std::string, NDArray> copies;  // a copy of each array taken in the callback
};

Executor bind(const Symbol& s, bool data_grad) {
  nd::seed(3);
  auto shapes = s.infer_shape({{"data", Shape{4, 5}}, {"loss_label", Shape{4, 2}}});
  std::vector<NDArray> args, grads;
  const auto names = s.list_arguments();
  for (size_t i = 0; i < names.size(); ++i) {
    args.push_back(nd::random_uniform(-1, 1, shapes.arg[i]));
    const bool wanted = names[i] != "loss_label" && (data_grad || names[i] != "data");
    grads.push_back(wanted ? nd::zeros(shapes.arg[i]) : NDArray());
  }
  return Executor::bind(s, cpu(), args, grads);
}

void watch(Executor& ex, Seen& seen, bool monitor_all) {
  ex.set_monitor_callback(
      [&seen](const std::string& name, const std::string& op, const NDArray& a) {
        seen.names.push_back(name);
        seen.ops.push_back(op);
        seen.copies[name] = a.copy();
      },
      monitor_all);
}

TEST(ExecutorMonitor, NamesFollowMXNetsExecutor) {
  Executor ex = bind(net(), false);
  Seen seen;
  watch(ex, seen, false);
  ex.forward(true);
  ex.backward();
  // Outputs as the nodes run; then each backward node's gradients, every argument's (data's
  // too, though unwanted: MXNet's backward nodes compute them all).
  const std::vector<std::string> want{"fc_output",
                                      "act_output",
                                      "out_output",
                                      "loss_output",
                                      "loss_backward_output0",
                                      "loss_backward_output1",
                                      "out_backward_output0",
                                      "out_backward_output1",
                                      "out_backward_output2",
                                      "act_backward_output",
                                      "fc_backward_output0",
                                      "fc_backward_output1",
                                      "fc_backward_output2"};
  EXPECT_EQ(seen.names, want);
  EXPECT_EQ(seen.ops[0], "FullyConnected");
  EXPECT_EQ(seen.ops[9], "_backward_Activation");
}

TEST(ExecutorMonitor, MonitorAllAddsEachNodesInputs) {
  Executor ex = bind(net(), true);
  Seen seen;
  watch(ex, seen, true);
  ex.forward(false);
  // Each bound variable is reported under its own name before the node input it feeds.
  const std::vector<std::string> want{"data",       "fc_data",    "fc_weight",  "fc_weight",  "fc_bias",
                                      "fc_bias",    "fc_output",  "act_input0", "act_output", "out_data",
                                      "out_weight", "out_weight", "out_bias",   "out_bias",   "out_output",
                                      "loss_data",  "loss_label", "loss_label", "loss_output"};
  EXPECT_EQ(seen.names, want);
  EXPECT_EQ(seen.copies["data"].to_vector<float>(), seen.copies["fc_data"].to_vector<float>());
  // An input is the array its producer output: act's input is fc's output (MXNet registers Activation
  // without input names, so its monitor calls them input0, input1...).
  EXPECT_EQ(seen.copies["act_input0"].to_vector<float>(), seen.copies["fc_output"].to_vector<float>());
}

TEST(ExecutorMonitor, ArraysHoldTheirValuesAndResultsAreUnchanged) {
  Executor plain = bind(net(), true);
  plain.forward(true);
  plain.backward();
  Executor ex = bind(net(), true);
  Seen seen;
  watch(ex, seen, false);
  ex.forward(true);
  ex.backward();
  EXPECT_EQ(ex.outputs()[0].to_vector<float>(), plain.outputs()[0].to_vector<float>());
  for (const auto& [name, grad] : plain.grad_dict())
    EXPECT_EQ(ex.grad_dict().at(name).to_vector<float>(), grad.to_vector<float>()) << name;
  // fc's output, as seen, is what sigmoid turns into act's output, though its buffer is reused.
  std::vector<float> h = seen.copies["fc_output"].to_vector<float>(), a = seen.copies["act_output"].to_vector<float>();
  ASSERT_EQ(h.size(), a.size());
  for (size_t i = 0; i < h.size(); ++i) EXPECT_NEAR(a[i], 1 / (1 + std::exp(-h[i])), 1e-6) << i;
  // The gradients the last node reports are those bound.
  EXPECT_EQ(seen.copies["fc_backward_output1"].to_vector<float>(), ex.grad_dict().at("fc_weight").to_vector<float>());
}

TEST(ExecutorMonitor, AReshapedExecutorStaysMonitoredAndANullCallbackStops) {
  Executor ex = bind(net(), false);
  Seen seen;
  watch(ex, seen, false);
  Executor bigger = ex.reshape({{"data", Shape{6, 5}}, {"loss_label", Shape{6, 2}}}, false, true);
  bigger.forward(false);
  EXPECT_EQ(seen.names.size(), 4u);
  EXPECT_EQ(seen.copies["fc_output"].shape(), Shape({6, 6}));
  bigger.set_monitor_callback(nullptr);
  bigger.forward(false);
  EXPECT_EQ(seen.names.size(), 4u);
}

}  // namespace
}  // namespace braid
