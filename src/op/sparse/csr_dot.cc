// _sparse_csr_dot_dense(data, indptr, indices, rhs): the product of a csr matrix (given by its
// parts, num_cols columns) and a dense 2-d rhs, or with transpose_a of its transpose: what
// nd.dot(csr, dense) runs, in time and memory proportional to the stored values. Its gradient
// reaches rhs only (the csr matrix is data): the same product with transpose_a flipped.
#include <algorithm>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct CsrDotParam {
  bool transpose_a = false;
  int64_t num_cols = 0;
};

// out (+)= A·rhs, or Aᵀ·rhs with transpose; A: rows × cols in csr (ptr, col, val); rhs row length k.
template <class T, class I>
void csr_product(const T* val, const I* ptr, const I* col, int64_t rows, const T* rhs, int64_t k, bool transpose,
                 T* out, int64_t out_rows, OpReq req) {
  if (req == OpReq::Null) return;
  if (req == OpReq::Write) std::fill(out, out + out_rows * k, T(0));
  if (!transpose) {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t r = 0; r < rows; ++r) {
      T* y = out + r * k;
      for (auto p = static_cast<int64_t>(ptr[r]); p < static_cast<int64_t>(ptr[r + 1]); ++p) {
        const T a = val[p];
        const T* x = rhs + static_cast<int64_t>(col[p]) * k;
        for (int64_t j = 0; j < k; ++j) y[j] += a * x[j];
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {  // rows of A scatter into the rows of out their columns name
    const T* x = rhs + r * k;
    for (auto p = static_cast<int64_t>(ptr[r]); p < static_cast<int64_t>(ptr[r + 1]); ++p) {
      const T a = val[p];
      T* y = out + static_cast<int64_t>(col[p]) * k;
      for (int64_t j = 0; j < k; ++j) y[j] += a * x[j];
    }
  }
}

void run_product(const TBlob& val, const TBlob& ptr, const TBlob& col, const TBlob& rhs, bool transpose,
                 const TBlob& out, OpReq req) {
  const int64_t rows = ptr.size() - 1, k = rhs.shape[1];
  BRAID_REAL_TYPE_SWITCH(val.dtype, T, "_sparse_csr_dot_dense", {
    BRAID_TYPE_SWITCH(ptr.dtype, I, "_sparse_csr_dot_dense indices", {
      csr_product<T, I>(val.ptr<T>(), ptr.ptr<I>(), col.ptr<I>(), rows, rhs.ptr<T>(), k, transpose, out.ptr<T>(),
                        out.shape[0], req);
    });
  });
}

}  // namespace

void register_csr_dot_ops(Registry& r) {
  OpDef d;
  d.name = "_sparse_csr_dot_dense";
  d.doc =
      "The product of a csr matrix (data, indptr, indices; num_cols columns), or its transpose with "
      "transpose_a, and a dense 2-d rhs.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "_sparse_csr_dot_dense");
    CsrDotParam p;
    p.transpose_a = rd.get<bool>("transpose_a", false);
    p.num_cols = rd.get<int64_t>("num_cols");
    rd.finish();
    BRAID_CHECK(p.num_cols >= 0, "_sparse_csr_dot_dense: num_cols must be >= 0, got ", p.num_cols);
    return std::any(p);
  };
  d.list_arguments = args({"data", "indptr", "indices", "rhs"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<CsrDotParam>(pa);
    if (!in[1].known() || !in[3].known()) return false;
    BRAID_CHECK(in[3].ndim() == 2, "_sparse_csr_dot_dense: rhs must be 2-d, got ", in[3]);
    const int64_t rows = in[1][0] - 1;
    BRAID_CHECK(in[3][0] == (p.transpose_a ? rows : p.num_cols), "_sparse_csr_dot_dense: a ", rows, "x", p.num_cols,
                " csr matrix", p.transpose_a ? ", transposed," : "", " cannot multiply rhs of shape ", in[3]);
    merge_shape(out[0], Shape{p.transpose_a ? p.num_cols : rows, in[3][1]}, "_sparse_csr_dot_dense", "output");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    BRAID_CHECK(in[0] == kDTypeUnknown || in[3] == kDTypeUnknown || in[0] == in[3], "_sparse_csr_dot_dense: the ",
                "values are ", dtype_name(in[0]), " but rhs is ", dtype_name(in[3]));
    BRAID_CHECK(in[1] == kDTypeUnknown || in[2] == kDTypeUnknown || in[1] == in[2],
                "_sparse_csr_dot_dense: ", "indptr and indices must have one dtype");
    out[0] = in[0] == kDTypeUnknown ? in[3] : in[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    run_product(a.inputs[0], a.inputs[1], a.inputs[2], a.inputs[3], param<CsrDotParam>(pa).transpose_a, a.outputs[0],
                a.req[0]);
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    for (int i = 0; i < 3; ++i)
      BRAID_CHECK(a.req[static_cast<size_t>(i)] == OpReq::Null,
                  "_sparse_csr_dot_dense: the csr matrix's parts get no gradient; only rhs does");
    run_product(a.inputs[0], a.inputs[1], a.inputs[2], a.out_grads[0], !param<CsrDotParam>(pa).transpose_a,
                a.in_grads[3], a.req[3]);
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
