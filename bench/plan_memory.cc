// Peak activation memory of a model's training graph with and without the memory planner: the
// model zoo network is hybridized and traced once, SoftmaxOutput is put on top, and the graph is
// bound for training (gradients of the parameters, not of the data). Prints one JSON line per
// model: the bytes of intermediate results and gradients each in its own buffer, the bytes the
// planner allocates, and the saving.
//
//   plan_memory [--models lenet,mlp,resnet-mini] [--batch 64]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "braid/base/error.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/ndarray/creation.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/executor.h"

namespace {

using namespace braid;

PlanStats training_plan(const Symbol& net, int64_t batch, bool plan_memory) {
  Symbol loss = sym::make("SoftmaxOutput", {{"data", net}}, {}, "softmax");
  Executor ex = Executor::simple_bind(loss, cpu(), {{"data", Shape{batch, 1, 28, 28}}}, GradReq::Write, {},
                                      {"data", "softmax_label"}, {}, {.plan_memory = plan_memory, .fuse = true});
  return ex.plan_stats();
}

void report(const std::string& model, int64_t batch) {
  auto block = gluon::model_zoo::get_simple_model(model);
  auto* net = dynamic_cast<gluon::HybridBlock*>(block.get());
  BRAID_CHECK(net, "model ", model, " is not a HybridBlock");
  net->initialize();
  net->hybridize();
  (*net)(nd::zeros(Shape{batch, 1, 28, 28})).wait_to_read();
  const Symbol graph = net->traced_symbol();
  PlanStats off = training_plan(graph, batch, false), on = training_plan(graph, batch, true);
  nlohmann::json out{{"model", model},
                     {"batch", batch},
                     {"unplanned_mb", static_cast<double>(off.planned_bytes) / (1 << 20)},
                     {"planned_mb", static_cast<double>(on.planned_bytes) / (1 << 20)},
                     {"saving", 1.0 - static_cast<double>(on.planned_bytes) / static_cast<double>(off.planned_bytes)},
                     {"inplace_ops", on.inplace_ops},
                     {"fused_ops", on.fused_ops}};
  std::printf("%s\n", out.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("peak activation memory of training graphs, with and without the memory planner");
  std::string models = "lenet,mlp,resnet-mini";
  int64_t batch = 64;
  app.add_option("--models", models)->capture_default_str();
  app.add_option("--batch", batch)->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    std::stringstream list(models);
    for (std::string m; std::getline(list, m, ',');) report(m, batch);
  } catch (const braid::Error& e) {
    std::fprintf(stderr, "plan_memory: %s\n", e.what());
    return 2;
  }
  return 0;
}
