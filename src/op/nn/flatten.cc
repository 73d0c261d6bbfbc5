// Flatten (alias flatten): (d0, d1, ..., dk) -> (d0, d1 * ... * dk), a copy of the elements.
#include "nn_util.h"

namespace braid::op::detail {

void register_flatten_ops(Registry& r) {
  OpDef d;
  d.name = "Flatten";
  d.doc = "Collapses all axes but the first: (d0, d1, ..., dk) -> (d0, d1 * ... * dk).";
  d.parse = no_params("Flatten");
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    BRAID_CHECK(in[0].ndim() >= 1, "operator Flatten: data must have at least one dimension, got a scalar");
    merge_shape(out[0], Shape({in[0][0], in[0].prod(1, in[0].ndim())}), "Flatten", "output");
    return in[0].fully_known();
  };
  // A plain copy in both directions: the layout of the elements does not change.
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "Flatten", {
      const T* x = a.inputs[0].ptr<T>();
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.inputs[0].size(), [x](int64_t i) { return x[i]; });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, "Flatten", {
      const T* g = a.out_grads[0].ptr<T>();
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.in_grads[0].size(), [g](int64_t i) { return g[i]; });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("flatten", "Flatten");
}

}  // namespace braid::op::detail
