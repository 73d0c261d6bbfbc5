#include "braid/gluon/nn/sequential.h"

#include "braid/base/error.h"

namespace braid::gluon::nn {
namespace {

std::vector<NDArray> run_in_order(const std::vector<std::pair<std::string, BlockPtr>>& children,
                                  std::vector<NDArray> x) {
  for (const auto& [name, child] : children) x = (*child)(x);
  return x;
}

BlockPtr child_at(const Block& b, size_t i) {
  BRAID_CHECK(i < b.children().size(), "index ", i, " is out of range for ", b.prefix(), " with ",
              b.children().size(), " children");
  return b.children()[i].second;
}

}  // namespace

std::vector<NDArray> Sequential::forward(const std::vector<NDArray>& inputs) {
  return run_in_order(children(), inputs);
}
BlockPtr Sequential::operator[](size_t i) const { return child_at(*this, i); }

std::vector<NDArray> HybridSequential::forward(const std::vector<NDArray>& inputs) {
  return run_in_order(children(), inputs);
}
BlockPtr HybridSequential::operator[](size_t i) const { return child_at(*this, i); }

}  // namespace braid::gluon::nn
