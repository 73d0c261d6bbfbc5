// contrib.index_copy(old_tensor, index_vector, new_tensor) (MXNet 1.x): a copy of old_tensor
// whose rows index_vector[i] are new_tensor's rows i. Gradients: old_tensor gets the output
// gradient except on the replaced rows, new_tensor the output gradient of the rows it filled.
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "op/tensor/index_util.h"

namespace braid::op::detail {
namespace {

/// The replaced row of each row of new_tensor; an index outside old_tensor's rows throws.
std::vector<int64_t> copied_rows(const TBlob& index, int64_t rows) {
  std::vector<int64_t> pos = read_indices(index, "index_copy");
  for (auto& j : pos) j = resolve_index(j, rows, IndexMode::Raise, "index_copy");
  return pos;
}

}  // namespace

void register_index_copy_ops(Registry& r) {
  OpDef d;
  d.name = "_contrib_index_copy";
  d.doc = "A copy of old_tensor with rows index_vector[i] replaced by new_tensor's rows i.";
  d.parse = no_params("index_copy");
  d.list_arguments = args({"old_tensor", "index_vector", "new_tensor"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[0], "index_copy", "output");
    merge_shape(in[0], out[0], "index_copy", "old_tensor");
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() >= 1 && in[1].ndim() == 1,
                "operator index_copy: old_tensor needs rows and index_vector "
                "must be 1-D; got ",
                in[0], " and ", in[1]);
    std::vector<int64_t> rows{in[1][0]};
    rows.insert(rows.end(), in[0].dims().begin() + 1, in[0].dims().end());
    merge_shape(in[2], Shape(std::move(rows)), "index_copy", "new_tensor");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    const DType t = in[0] != kDTypeUnknown ? in[0] : in[2] != kDTypeUnknown ? in[2] : out[0];
    if (t == kDTypeUnknown) return;
    in[0] = in[2] = out[0] = t;
    if (in[1] == kDTypeUnknown) in[1] = DType::Int64;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const TBlob &old = a.inputs[0], &fresh = a.inputs[2];
    const std::vector<int64_t> pos = copied_rows(a.inputs[1], old.shape[0]);
    const int64_t row = old.shape[0] == 0 ? 0 : old.size() / old.shape[0];
    BRAID_TYPE_SWITCH(old.dtype, T, "index_copy", {
      write_with_req(a.outputs[0].ptr<T>(), old.size(), a.req[0], [&](T* y) {
        std::copy(old.ptr<T>(), old.ptr<T>() + old.size(), y);
        for (size_t i = 0; i < pos.size(); ++i)
          std::copy_n(fresh.ptr<T>() + static_cast<int64_t>(i) * row, row, y + pos[i] * row);
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    const TBlob& dy = a.out_grads[0];
    const std::vector<int64_t> pos = copied_rows(a.inputs[1], dy.shape[0]);
    const int64_t row = dy.shape[0] == 0 ? 0 : dy.size() / dy.shape[0];
    BRAID_TYPE_SWITCH(dy.dtype, T, "index_copy", {
      const T* g = dy.ptr<T>();
      if (a.req[0] != OpReq::Null)
        write_with_req(a.in_grads[0].ptr<T>(), dy.size(), a.req[0], [&](T* dx) {
          std::copy(g, g + dy.size(), dx);
          for (int64_t p : pos) std::fill_n(dx + p * row, row, T(0));
        });
      if (a.req[2] != OpReq::Null)
        write_with_req(a.in_grads[2].ptr<T>(), a.inputs[2].size(), a.req[2], [&](T* dn) {
          for (size_t i = 0; i < pos.size(); ++i)
            std::copy_n(g + pos[i] * row, row, dn + static_cast<int64_t>(i) * row);
        });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
