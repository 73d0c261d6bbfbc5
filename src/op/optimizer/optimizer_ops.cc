// The fused optimizer updates (update_op_list.h), each one engine operation over plain loops;
// MXNet's _sparse_adagrad_update is an alias of the dense AdaGrad.
#include "op/register_all.h"
#include "update_op.h"
#include "update_op_list.h"

namespace braid::op::detail {

void register_optimizer_ops(Registry& r) {
  for_each_update_op([&r](auto rule, const UpdateOpSpec& spec) { add_update_ops<decltype(rule)>(r, spec); });
  r.add_alias("_sparse_adagrad_update", "_braid_adagrad_update");
}

}  // namespace braid::op::detail
