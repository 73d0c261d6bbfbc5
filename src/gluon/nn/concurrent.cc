#include "braid/gluon/nn/concurrent.h"

#include <string>

namespace braid::gluon::nn {

std::vector<NDArray> HybridConcurrent::forward(const std::vector<NDArray>& inputs) {
  std::vector<OpArg> outputs;
  for (const auto& [name, child] : children()) outputs.emplace_back((*child)(one_input(inputs)));
  return {call_op1("Concat", outputs, {{"dim", std::to_string(axis_)}, {"num_args", std::to_string(outputs.size())}})};
}

}  // namespace braid::gluon::nn
