// add_n (ElementWiseSum): the element-wise sum of num_args arrays of one shape; each input's
// gradient is the output's.
#include "add_n.h"

#include "op/op_util.h"

namespace braid::op::detail {

void register_add_n_ops(Registry& r) {
  OpDef d;
  d.name = "add_n";
  d.doc = "The element-wise sum of num_args arrays of one shape.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "add_n");
    const int n = rd.get<int>("num_args");
    rd.finish();
    BRAID_CHECK(n >= 1, "operator add_n: num_args=", n, " must be at least 1");
    return std::any(n);
  };
  d.list_arguments = [](const std::any& p) {
    std::vector<std::string> names;
    for (int i = 0; i < param<int>(p); ++i) names.push_back(cat("arg", i));
    return names;
  };
  d.key_var_num_args = "num_args";
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("add_n", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "add_n", {
      T* y = a.outputs[0].ptr<T>();
      const int64_t n = a.outputs[0].size();
      // Summed in a local buffer first: the output may share memory with an input.
      std::vector<T> sum(a.inputs[0].ptr<T>(), a.inputs[0].ptr<T>() + n);
      for (size_t k = 1; k < a.inputs.size(); ++k) {
        const T* x = a.inputs[k].ptr<T>();
        for (int64_t i = 0; i < n; ++i) sum[static_cast<size_t>(i)] += x[i];
      }
      for (int64_t i = 0; i < n; ++i) assign(y[i], a.req[0], sum[static_cast<size_t>(i)]);
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    const TBlob& g = a.out_grads[0];
    for (size_t k = 0; k < a.in_grads.size(); ++k) {
      const TBlob& dx = a.in_grads[k];
      if (a.req[k] == OpReq::Null || dx.dptr == g.dptr) continue;
      BRAID_TYPE_SWITCH(dx.dtype, T, "add_n", {
        const T* gp = g.ptr<T>();
        T* d = dx.ptr<T>();
        for (int64_t i = 0, n = dx.size(); i < n; ++i) assign(d[i], a.req[k], gp[i]);
      });
    }
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("ElementWiseSum", "add_n");
}

}  // namespace braid::op::detail
