// Internal: MXNet's multi-weight updates (multi_sgd_update, multi_sgd_mom_update and their
// multi_mp_ twins): one operator updating num_weights weights, each with its own learning rate
// and weight decay (attributes lrs, wds), as one engine operation instead of one per weight.
// Arguments per weight i: weight_i, grad_i, the rule's states (mom_i), then weight32_i for the
// mp_ twins; outputs: the new weights (normally the weights themselves). The per-weight math is
// the single update's rule (update_rules.h). The preloaded_ forms take lrs and wds as two last
// arguments (arrays of num_weights values) instead of attributes.
#pragma once
#include <string>
#include <vector>

#include "braid/op/registry.h"
#include "update_op_list.h"
#include "update_param.h"

namespace braid::op::detail {

struct MultiUpdateParam {
  UpdateParam common;  // every attribute but lr and wd
  std::vector<double> lrs, wds;
  int num_weights = 1;

  /// Weight i's attributes.
  UpdateParam of(size_t i) const {
    UpdateParam p = common;
    p.lr = lrs[i];
    p.wd = wds[i];
    return p;
  }
};

/// One multi-weight op: its name and the single update it repeats.
struct MultiUpdateSpec {
  std::string name;        // "multi_sgd_mom_update"
  UpdateOpSpec single;     // the rule's states and attributes ("sgd_mom_update")
  bool multi_precision;    // weight32_i after the states
  bool preloaded = false;  // lrs and wds are the two last arguments
};

/// The multi-weight ops MXNet has, each with the rule it runs: visit(Rule{}, spec).
template <class Visit>
void for_each_multi_update_op(Visit&& visit) {
  for_each_update_op([&visit](auto rule, const UpdateOpSpec& single) {
    if (single.name != "sgd_update" && single.name != "sgd_mom_update") return;
    visit(rule, MultiUpdateSpec{"multi_" + single.name, single, false});
    visit(rule, MultiUpdateSpec{"multi_mp_" + single.name, single, true});
  });
}

/// The preloaded_ forms (lrs and wds as arrays): visit(Rule{}, spec). CPU kernels only.
template <class Visit>
void for_each_preloaded_update_op(Visit&& visit) {
  for_each_multi_update_op([&visit](auto rule, MultiUpdateSpec spec) {
    spec.name = "preloaded_" + spec.name;
    spec.preloaded = true;
    visit(rule, spec);
  });
}

/// Everything but the kernels.
OpDef multi_update_op_def(const MultiUpdateSpec& spec);

/// The arguments of weight i inside a call's inputs, as the single update's ForwardArgs.
ForwardArgs single_update_args(const ForwardArgs& all, size_t group_size, size_t i);

}  // namespace braid::op::detail
