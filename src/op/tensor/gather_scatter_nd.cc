// gather_nd, scatter_nd and _scatter_set_nd (MXNet 1.x): `indices` (M, Y...) addresses the first M
// axes of a (X_0, ..., X_{N-1}) array; each of its Y columns picks one block of shape
// (X_M, ..., X_{N-1}). gather_nd reads those blocks into (Y..., X_M, ...); scatter_nd writes
// (Y..., X_M, ...) blocks into zeros of `shape`; _scatter_set_nd into a copy of `lhs` (NDArray
// item assignment with index arrays). Negative indices count from the end of their axis; others
// outside it raise IndexError.
#include "braid/base/index_error.h"
#include "index_util.h"
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

/// Where each column of `indices` starts in the flattened array of shape `target`, in blocks of
/// `block` elements.
struct NdIndex {
  std::vector<int64_t> offsets;
  int64_t block = 1;
};

NdIndex nd_offsets(const TBlob& indices, const Shape& target, const std::string& op) {
  const int64_t m = indices.shape.ndim() == 0 ? 1 : indices.shape[0];
  const int64_t columns = m == 0 ? 0 : indices.size() / m;
  const std::vector<int64_t> idx = read_indices(indices, op);
  NdIndex r;
  r.block = target.prod(static_cast<int>(m), target.ndim());
  r.offsets.assign(static_cast<size_t>(columns), 0);
  for (int64_t y = 0; y < columns; ++y) {
    int64_t flat = 0;
    for (int64_t k = 0; k < m; ++k) {
      const int64_t size = target[static_cast<int>(k)];
      int64_t j = idx[static_cast<size_t>(k * columns + y)];
      if (j < -size || j >= size)
        throw IndexError(cat("operator ", op, ": index ", j, " is out of bounds for axis ", k, " with size ", size));
      if (j < 0) j += size;
      flat = flat * size + j;
    }
    r.offsets[static_cast<size_t>(y)] = flat * r.block;
  }
  return r;
}

/// The shape (Y..., X_M, ...) of the blocks that indices of shape `ind` address in `target`.
Shape blocks_shape(const Shape& ind, const Shape& target, const std::string& op) {
  BRAID_CHECK(ind.ndim() >= 1, "operator ", op, ": indices must have at least one axis (M, ...); got ", ind);
  BRAID_CHECK(ind[0] <= target.ndim(), "operator ", op, ": indices address ", ind[0], " axes of an array with only ",
              target.ndim(), " (", target, ")");
  std::vector<int64_t> dims(ind.dims().begin() + 1, ind.dims().end());
  dims.insert(dims.end(), target.dims().begin() + ind[0], target.dims().end());
  return Shape(std::move(dims));
}

struct ScatterNdParam {
  Shape shape;
};

std::any parse_scatter_shape(const AttrMap& a, const std::string& op) {
  ParamReader rd(a, op);
  ScatterNdParam p;
  p.shape = Shape(rd.get<std::vector<int64_t>>("shape", {}));
  rd.finish();
  return std::any(p);
}

// out[offset(y)] = blocks[y] for every column y: `out` already holds the base values.
template <class T>
void scatter_blocks(T* out, const T* blocks, const NdIndex& at) {
  for (size_t y = 0; y < at.offsets.size(); ++y)
    copy_block(out + at.offsets[y], blocks + static_cast<int64_t>(y) * at.block, at.block, OpReq::Write);
}

template <class T>
void gather_blocks(T* out, const T* from, const NdIndex& at, OpReq req) {
  for (size_t y = 0; y < at.offsets.size(); ++y)
    copy_block(out + static_cast<int64_t>(y) * at.block, from + at.offsets[y], at.block, req);
}

void add_gather_nd(Registry& r) {
  OpDef d;
  d.name = "gather_nd";
  d.doc = "Blocks of `data` at the index columns of `indices` (M, Y...): output (Y..., data.shape[M:]).";
  d.parse = no_params("gather_nd");
  d.list_arguments = args({"data", "indices"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    merge_shape(out[0], blocks_shape(in[1], in[0], "gather_nd"), "gather_nd", "output");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_data_index_type("gather_nd", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const NdIndex at = nd_offsets(a.inputs[1], a.inputs[0].shape, "gather_nd");
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "gather_nd",
                      { gather_blocks(a.outputs[0].ptr<T>(), a.inputs[0].ptr<T>(), at, a.req[0]); });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    const NdIndex at = nd_offsets(a.inputs[1], a.inputs[0].shape, "gather_nd");
    BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, "gather_nd", {
      T* dx = a.in_grads[0].ptr<T>();
      const T* g = a.out_grads[0].ptr<T>();
      if (a.req[0] == OpReq::Write) std::fill(dx, dx + a.in_grads[0].size(), T(0));
      for (size_t y = 0; y < at.offsets.size(); ++y)
        add_block(dx + at.offsets[y], g + static_cast<int64_t>(y) * at.block, at.block);
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

void add_scatter_nd(Registry& r) {
  OpDef d;
  d.name = "scatter_nd";
  d.doc =
      "Zeros of `shape` with the blocks of `data` (Y..., shape[M:]) written at the index columns of `indices` "
      "(M, Y...); where columns repeat, one of them wins.";
  d.parse = [](const AttrMap& a) { return parse_scatter_shape(a, "scatter_nd"); };
  d.list_arguments = args({"data", "indices"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const Shape& target = param<ScatterNdParam>(pa).shape;
    BRAID_CHECK(target.ndim() > 0, "operator scatter_nd: attribute 'shape' (the output's shape) is required");
    merge_shape(out[0], target, "scatter_nd", "output");
    if (!in[1].fully_known()) return false;
    merge_shape(in[0], blocks_shape(in[1], target, "scatter_nd"), "scatter_nd", "data");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    infer_data_index_type("scatter_nd", in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const NdIndex at = nd_offsets(a.inputs[1], a.outputs[0].shape, "scatter_nd");
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "scatter_nd", {
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* y) {
        std::fill(y, y + a.outputs[0].size(), T(0));
        scatter_blocks(y, a.inputs[0].ptr<T>(), at);
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    zero_index_grad(a.in_grads[1], a.req[1]);
    if (a.req[0] == OpReq::Null) return;
    const NdIndex at = nd_offsets(a.inputs[1], a.out_grads[0].shape, "scatter_nd");
    BRAID_TYPE_SWITCH(a.in_grads[0].dtype, T, "scatter_nd",
                      { gather_blocks(a.in_grads[0].ptr<T>(), a.out_grads[0].ptr<T>(), at, a.req[0]); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

void add_scatter_set_nd(Registry& r) {
  OpDef d;
  d.name = "_scatter_set_nd";
  d.doc = "A copy of `lhs` with the blocks of `rhs` written at the index columns of `indices` (item assignment).";
  d.parse = [](const AttrMap& a) { return parse_scatter_shape(a, "_scatter_set_nd"); };
  d.list_arguments = args({"lhs", "rhs", "indices"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[0], "_scatter_set_nd", "output");
    merge_shape(in[0], out[0], "_scatter_set_nd", "lhs");
    if (!in[0].fully_known() || !in[2].fully_known()) return false;
    merge_shape(in[1], blocks_shape(in[2], in[0], "_scatter_set_nd"), "_scatter_set_nd", "rhs");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    DType t = in[0] != kDTypeUnknown ? in[0] : in[1] != kDTypeUnknown ? in[1] : out[0];
    if (t == kDTypeUnknown) return;
    in[0] = in[1] = out[0] = t;
    if (in[2] == kDTypeUnknown) in[2] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const NdIndex at = nd_offsets(a.inputs[2], a.inputs[0].shape, "_scatter_set_nd");
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "_scatter_set_nd", {
      const T* lhs = a.inputs[0].ptr<T>();
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* y) {
        if (y != lhs) std::copy(lhs, lhs + a.inputs[0].size(), y);
        scatter_blocks(y, a.inputs[1].ptr<T>(), at);
      });
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_gather_scatter_nd_ops(Registry& r) {
  add_gather_nd(r);
  add_scatter_nd(r);
  add_scatter_set_nd(r);
}

}  // namespace braid::op::detail
