// Matrix products: dot (N-D, contracting the last axis of lhs with the first of rhs) and
// batch_dot (a product per leading index), both one GEMM per matrix on OpenBLAS.
#include <optional>

#include "matrix_util.h"
#include "op/common/gemm.h"

namespace braid::op::detail {
namespace {

struct DotParam {
  bool transpose_a = false, transpose_b = false;
};

// What a call computes: `batch` products of the GEMM `g`, giving an array of shape `out`.
struct Product {
  GemmDims g;
  int64_t batch = 1;
  Shape out;
};

std::string flags(const DotParam& p) {
  return cat("transpose_a=", p.transpose_a ? "True" : "False", ", transpose_b=", p.transpose_b ? "True" : "False");
}

// MXNet's dot: lhs is seen as a matrix (prod of all axes but the last) × (last axis), or with
// transpose_a as the transpose of (first axis) × (the rest); rhs as (first axis) × (the rest),
// or with transpose_b as the transpose of (all but the last) × (last). Two vectors give (1,).
Product dot_product(const DotParam& p, const Shape& l, const Shape& r) {
  BRAID_CHECK(l.ndim() >= 1 && r.ndim() >= 1, "operator dot: 0-D inputs are not supported (shapes ", l, " and ", r,
              ")");
  Product pr;
  pr.g.trans_a = p.transpose_a;
  pr.g.trans_b = p.transpose_b;
  if (l.ndim() == 1 && r.ndim() == 1) {
    BRAID_CHECK(!p.transpose_a && !p.transpose_b, "operator dot: cannot transpose vectors (shapes ", l, " and ", r,
                ", ", flags(p), ")");
    BRAID_CHECK(l[0] == r[0], "operator dot: vectors of shapes ", l, " and ", r, " differ in length");
    pr.g = {false, false, 1, 1, l[0]};
    pr.out = Shape({1});
    return pr;
  }
  const int ln = l.ndim(), rn = r.ndim();
  const int64_t kl = p.transpose_a ? l[0] : l[ln - 1];
  const int64_t kr = p.transpose_b ? r[rn - 1] : r[0];
  BRAID_CHECK(kl == kr, "operator dot: shapes ", l, " and ", r, " do not match (", flags(p), "): lhs contracts its ",
              p.transpose_a ? "first" : "last", " axis of size ", kl, ", rhs its ", p.transpose_b ? "last" : "first",
              " axis of size ", kr);
  Dims out;
  if (ln > 1) {
    auto b = l.dims().begin();
    out.insert(out.end(), p.transpose_a ? b + 1 : b, p.transpose_a ? l.dims().end() : b + ln - 1);
  }
  if (rn > 1) {
    auto b = r.dims().begin();
    out.insert(out.end(), p.transpose_b ? b : b + 1, p.transpose_b ? b + rn - 1 : r.dims().end());
  }
  pr.g.k = kl;
  pr.g.m = l.size() / kl;
  pr.g.n = r.size() / kr;
  pr.out = Shape(out);
  return pr;
}

// batch_dot: (..., m, k) · (..., k, n) per leading index; the flags transpose the last two axes.
Product batch_dot_product(const DotParam& p, const Shape& l, const Shape& r) {
  const int n = l.ndim();
  BRAID_CHECK(n >= 3 && r.ndim() == n, "operator batch_dot: needs two arrays of the same rank >= 3 ",
              "(batch, rows, columns), got shapes ", l, " and ", r);
  for (int i = 0; i < n - 2; ++i)
    BRAID_CHECK(l[i] == r[i], "operator batch_dot: shapes ", l, " and ", r,
                " differ in the leading (batch) dimensions");
  Product pr;
  pr.g.trans_a = p.transpose_a;
  pr.g.trans_b = p.transpose_b;
  pr.g.m = p.transpose_a ? l[n - 1] : l[n - 2];
  pr.g.n = p.transpose_b ? r[n - 2] : r[n - 1];
  const int64_t kl = p.transpose_a ? l[n - 2] : l[n - 1];
  const int64_t kr = p.transpose_b ? r[n - 1] : r[n - 2];
  BRAID_CHECK(kl == kr, "operator batch_dot: shapes ", l, " and ", r, " do not match (", flags(p),
              "): lhs matrices contract a dimension of size ", kl, ", rhs matrices one of size ", kr);
  pr.g.k = kl;
  pr.batch = l.prod(0, n - 2);
  Dims out(l.dims().begin(), l.dims().end() - 2);
  out.push_back(pr.g.m);
  out.push_back(pr.g.n);
  pr.out = Shape(out);
  return pr;
}

using ProductFn = Product (*)(const DotParam&, const Shape&, const Shape&);

template <class T>
void product_forward(const Product& pr, const TBlob& a, const TBlob& b, const TBlob& c, OpReq req) {
  const GemmDims& g = pr.g;
  gemm_batched(g, pr.batch, a.ptr<T>(), g.m * g.k, b.ptr<T>(), g.k * g.n, c.ptr<T>(), g.m * g.n, req == OpReq::Add);
}

// With C = op(A)·op(B) and G = dL/dC: dop(A) = G·op(B)ᵀ and dop(B) = op(A)ᵀ·G, written in the
// stored layouts of A and B.
template <class T>
void product_backward(const Product& pr, const BackwardArgs& args) {
  const GemmDims& g = pr.g;
  const T* a = args.inputs[0].ptr<T>();
  const T* b = args.inputs[1].ptr<T>();
  const T* grad = args.out_grads[0].ptr<T>();
  const int64_t sa = g.m * g.k, sb = g.k * g.n, sc = g.m * g.n;
  if (args.req[0] != OpReq::Null) {
    T* da = args.in_grads[0].ptr<T>();
    const bool add = args.req[0] == OpReq::Add;
    if (!g.trans_a)  // dA (m×k) = G·op(B)ᵀ
      gemm_batched(GemmDims{false, !g.trans_b, g.m, g.k, g.n}, pr.batch, grad, sc, b, sb, da, sa, add);
    else  // dA (k×m) = op(B)·Gᵀ
      gemm_batched(GemmDims{g.trans_b, true, g.k, g.m, g.n}, pr.batch, b, sb, grad, sc, da, sa, add);
  }
  if (args.req[1] != OpReq::Null) {
    T* db = args.in_grads[1].ptr<T>();
    const bool add = args.req[1] == OpReq::Add;
    if (!g.trans_b)  // dB (k×n) = op(A)ᵀ·G
      gemm_batched(GemmDims{!g.trans_a, false, g.k, g.n, g.m}, pr.batch, a, sa, grad, sc, db, sb, add);
    else  // dB (n×k) = Gᵀ·op(A)
      gemm_batched(GemmDims{true, g.trans_a, g.n, g.k, g.m}, pr.batch, grad, sc, a, sa, db, sb, add);
  }
}

void add_product_op(Registry& r, const std::string& name, const std::string& doc, ProductFn product) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    DotParam p;
    p.transpose_a = rd.get<bool>("transpose_a", false);
    p.transpose_b = rd.get<bool>("transpose_b", false);
    // MXNet's sparse storage choice; only dense arrays exist here.
    auto stype = rd.get_optional<std::string>("forward_stype");
    rd.finish();
    BRAID_CHECK(!stype || *stype == "default", "operator ", name, ": forward_stype=", stype.value_or(""),
                " is not supported; only dense (default) storage exists");
    return std::any(p);
  };
  d.list_arguments = args({"lhs", "rhs"});
  d.infer_shape = [product, name](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out,
                                  std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    merge_shape(out[0], product(param<DotParam>(p), in[0], in[1]).out, name, "output");
    return out[0].fully_known();
  };
  d.infer_type = [name](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    infer_same_type(name, in, out, aux);
    BRAID_CHECK(out[0] == kDTypeUnknown || out[0] == DType::Float32 || out[0] == DType::Float64, "operator ", name,
                " supports float32 and float64, not ", dtype_name(out[0]), "; convert with astype first");
  };
  d.cpu.forward = [product, name](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const Product pr = product(param<DotParam>(p), a.inputs[0].shape, a.inputs[1].shape);
    BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, name.c_str(),
                           { product_forward<T>(pr, a.inputs[0], a.inputs[1], a.outputs[0], a.req[0]); });
  };
  d.cpu.backward = [product, name](const OpContext&, const std::any& p, const BackwardArgs& a) {
    const Product pr = product(param<DotParam>(p), a.inputs[0].shape, a.inputs[1].shape);
    BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, name.c_str(), { product_backward<T>(pr, a); });
  };
  r.add(std::move(d));
}

}  // namespace

void register_matrix_dot_ops(Registry& r) {
  add_product_op(r, "dot",
                 "Product of two arrays: the last axis of lhs (first with transpose_a) is summed "
                 "against the first axis of rhs (last with transpose_b).",
                 dot_product);
  add_product_op(r, "batch_dot",
                 "Matrix product per batch index of (..., m, k) and (..., k, n) arrays; the flags "
                 "transpose the matrices.",
                 batch_dot_product);
}

}  // namespace braid::op::detail
