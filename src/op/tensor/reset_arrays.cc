// MXNet's reset_arrays(*arrays, num_arrays): sets every element of each input to zero, in place,
// as one operation (Gluon's zero_grad over many parameters). No outputs.
#include <cstring>

#include "braid/op/param_reader.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

int num_arrays(const std::any& p) { return p.has_value() ? std::any_cast<int>(p) : 1; }

}  // namespace

void register_reset_arrays_ops(Registry& r) {
  OpDef d;
  d.name = "reset_arrays";
  d.doc = "Sets every element of the num_arrays inputs to zero, in place.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "reset_arrays");
    const int n = rd.get<int>("num_arrays", 1);
    rd.finish();
    BRAID_CHECK(n >= 1, "operator reset_arrays: num_arrays is ", n, "; give at least 1");
    return std::any(n);
  };
  d.list_arguments = [](const std::any& p) {
    std::vector<std::string> names;
    for (int i = 0; i < num_arrays(p); ++i) names.push_back(cat("array_", i));
    return names;
  };
  d.key_var_num_args = "num_arrays";
  d.num_outputs = [](const std::any&) { return 0; };
  d.mutate_inputs = [](const std::any& p) {
    std::vector<int> all(static_cast<size_t>(num_arrays(p)));
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    return all;
  };
  d.infer_shape = [](const std::any&, std::vector<Shape>&, std::vector<Shape>&, std::vector<Shape>&) { return true; };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>&, std::vector<DType>&) {};
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    for (const TBlob& b : a.inputs) std::memset(b.dptr, 0, static_cast<size_t>(b.size()) * dtype_size(b.dtype));
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
