// batch_take (MXNet's deprecated form of pick): out[i] = a[i, indices[i]], the index clipped into
// the row. It has no gradient, as in MXNet.
#include <algorithm>

#include "index_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {

void register_batch_take_ops(Registry& r) {
  OpDef d;
  d.name = "batch_take";
  d.doc = "Takes one element per row: out[i] = a[i, indices[i]] (indices clipped into the row).";
  d.parse = no_params("batch_take");
  d.list_arguments = args({"a", "indices"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[1], "batch_take", "output (the indices' shape)");
    merge_shape(in[1], out[0], "batch_take", "indices");
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() >= 1 && in[0][0] == in[1].size(), "operator batch_take: a has shape ", in[0],
                " but indices ", in[1], " give ", in[1].size(), " rows; give one index per row of a");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (in[1] == kDTypeUnknown) in[1] = DType::Int32;
    if (out[0] == kDTypeUnknown) out[0] = in[0];
    if (in[0] == kDTypeUnknown) in[0] = out[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const TBlob &x = a.inputs[0], &out = a.outputs[0];
    const int64_t rows = x.shape[0], cols = rows == 0 ? 0 : x.size() / rows;
    const std::vector<int64_t> idx = read_indices(a.inputs[1], "batch_take");
    BRAID_TYPE_SWITCH(out.dtype, T, "batch_take", {
      const T* xv = x.ptr<T>();
      T* o = out.ptr<T>();
      for (int64_t i = 0; i < rows; ++i)
        assign(o[i], a.req[0], xv[i * cols + std::clamp<int64_t>(idx[static_cast<size_t>(i)], 0, cols - 1)]);
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
