// Matrix products: dot (N-D, contracting the last axis of lhs with the first of rhs) and
// batch_dot (a product per leading index), both one GEMM per matrix on OpenBLAS (matrix_dot.h has
// what the GPU kernels share).
#include <optional>
#include <utility>

#include "matrix_dot.h"
#include "matrix_util.h"

namespace braid::op::detail {
namespace {

std::string flags(const DotParam& p) {
  return cat("transpose_a=", p.transpose_a ? "True" : "False", ", transpose_b=", p.transpose_b ? "True" : "False");
}

}  // namespace

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
  // m and n: the products of the axes not contracted (a contracted extent may be 0).
  pr.g.k = kl;
  pr.g.m = 1;
  pr.g.n = 1;
  for (int i = 0; i < ln; ++i)
    if (i != (p.transpose_a ? 0 : ln - 1)) pr.g.m *= l[i];
  for (int i = 0; i < rn; ++i)
    if (i != (p.transpose_b ? rn - 1 : 0)) pr.g.n *= r[i];
  pr.out = Shape(out);
  return pr;
}

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

namespace {

// The axes dot contracts: (lhs's, rhs's).
std::pair<int, int> contracted_axes(const DotParam& p, int ln, int rn) {
  if (ln == 1 && rn == 1) return {0, 0};
  return {p.transpose_a ? 0 : ln - 1, p.transpose_b ? rn - 1 : 0};
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
    // MXNet's storage type for the result: the kernel computes densely, NDArray calls convert
    // (ndarray/sparse_dispatch.cc), a graph's output stays dense.
    auto stype = rd.get_optional<std::string>("forward_stype");
    rd.finish();
    BRAID_CHECK(!stype || *stype == "default" || *stype == "csr" || *stype == "row_sparse", "operator ", name,
                ": forward_stype must be 'default', 'csr' or 'row_sparse', got '", stype.value_or(""), "'");
    return std::any(p);
  };
  d.list_arguments = args({"lhs", "rhs"});
  d.infer_shape = [product, name](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out,
                                  std::vector<Shape>&) {
    if (!in[0].known() || !in[1].known()) return false;
    if (!in[0].fully_known() || !in[1].fully_known()) {
      // Partial shapes (0: unknown): for dot, a contracted extent known on one side is the
      // other's (a deferred weight learns its input size, as MXNet's NumPy dot does; its
      // batch_dot leaves an unknown extent unknown); the output where the known dimensions
      // decide it, as MXNet (a batch size left unknown stays unknown); otherwise wait for more.
      const auto [la, ra] = contracted_axes(param<DotParam>(p), in[0].ndim(), in[1].ndim());
      if (name == "dot" && la >= 0 && la < in[0].ndim() && ra >= 0 && ra < in[1].ndim()) {
        if (!dim_known(in[0][la]) && dim_known(in[1][ra])) in[0][la] = in[1][ra];
        if (!dim_known(in[1][ra]) && dim_known(in[0][la])) in[1][ra] = in[0][la];
      }
      try {
        merge_shape(out[0], product(param<DotParam>(p), in[0], in[1]).out, name, "output");
      } catch (const Error&) {
      }
      return false;
    }
    merge_shape(out[0], product(param<DotParam>(p), in[0], in[1]).out, name, "output");
    return out[0].fully_known();
  };
  d.infer_type = [name](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    infer_same_type(name, in, out, aux);
    BRAID_CHECK(out[0] == kDTypeUnknown || is_floating(out[0]), "operator ", name,
                " supports float32, float64, float16 and bfloat16, not ", dtype_name(out[0]),
                "; convert with astype first");
  };
  d.cpu.forward = [product, name](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const Product pr = product(param<DotParam>(p), a.inputs[0].shape, a.inputs[1].shape);
    BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, name.c_str(), {
      product_forward<T>(pr, a.inputs[0], a.inputs[1], a.outputs[0], a.req[0], gemm_batched<T>);
    });
  };
  d.cpu.backward = [product, name](const OpContext&, const std::any& p, const BackwardArgs& a) {
    const Product pr = product(param<DotParam>(p), a.inputs[0].shape, a.inputs[1].shape);
    BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, name.c_str(), { product_backward<T>(pr, a, gemm_batched<T>); });
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
