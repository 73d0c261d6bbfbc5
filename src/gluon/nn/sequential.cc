#include "braid/gluon/nn/sequential.h"

#include <optional>

#include "braid/base/error.h"

namespace braid::gluon::nn {
namespace {

// The one context every parameter of `block` lives on, if there is exactly one (none for a
// block without parameters, or with parameters copied to several contexts).
std::optional<Context> home_context(const Block& block) {
  std::optional<Context> home;
  for (const auto& [name, p] : block.collect_params()) {
    if (!p->initialized() && !p->deferred()) return std::nullopt;
    const auto contexts = p->list_ctx();
    if (contexts.size() != 1 || (home && *home != contexts[0])) return std::nullopt;
    home = contexts[0];
  }
  return home;
}

// With `follow_params` (model parallelism, Sequential only: a hybridized graph runs on one
// context), a child whose parameters live on another context than its input gets the input
// copied there — a recorded copy, so gradients flow back across.
std::vector<NDArray> run_in_order(const std::vector<std::pair<std::string, BlockPtr>>& children, std::vector<NDArray> x,
                                  bool follow_params) {
  for (const auto& [name, child] : children) {
    if (auto home = follow_params ? home_context(*child) : std::nullopt)
      for (auto& a : x) a = a.as_in_context(*home);
    x = (*child)(x);
  }
  return x;
}

BlockPtr child_at(const Block& b, size_t i) {
  BRAID_CHECK(i < b.children().size(), "index ", i, " is out of range for ", b.prefix(), " with ", b.children().size(),
              " children");
  return b.children()[i].second;
}

}  // namespace

std::vector<NDArray> Sequential::forward(const std::vector<NDArray>& inputs) {
  return run_in_order(children(), inputs, true);
}
BlockPtr Sequential::operator[](size_t i) const { return child_at(*this, i); }

std::vector<NDArray> HybridSequential::forward(const std::vector<NDArray>& inputs) {
  return run_in_order(children(), inputs, false);
}
BlockPtr HybridSequential::operator[](size_t i) const { return child_at(*this, i); }

}  // namespace braid::gluon::nn
