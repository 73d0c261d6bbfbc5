#pragma once
// Internal to autograd: the recorded graph behind some arrays, in an order fit for walking it.
#include <memory>
#include <vector>

#include "imperative/tape.h"

namespace braid::autograd::detail {

/// Nodes reachable from `heads`, each after all of its parents. A node released by an earlier
/// backward is a constant to later graphs built on its outputs (MXNet clears their autograd
/// entries): nothing flows through it. A released head is an error.
std::vector<std::shared_ptr<imperative::Node>> topological_order(const std::vector<imperative::Entry>& heads);

}  // namespace braid::autograd::detail
