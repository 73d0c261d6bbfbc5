#pragma once
// Internal: what dot and batch_dot compute — their attributes, the GEMMs a call amounts to, and
// the products of forward and backward written once over a GEMM function, shared by the CPU
// (matrix_dot.cc, OpenBLAS/oneDNN) and GPU (matrix_dot.cu, cuBLAS) kernels.
#include "op/common/gemm.h"
#include "op/op_util.h"

namespace braid::op::detail {

struct DotParam {
  bool transpose_a = false, transpose_b = false;
};

// What a call computes: `batch` products of the GEMM `g`, giving an array of shape `out`.
struct Product {
  GemmDims g;
  int64_t batch = 1;
  Shape out;
};

// MXNet's dot: lhs is seen as a matrix (prod of all axes but the last) × (last axis), or with
// transpose_a as the transpose of (first axis) × (the rest); rhs as (first axis) × (the rest),
// or with transpose_b as the transpose of (all but the last) × (last). Two vectors give (1,).
Product dot_product(const DotParam& p, const Shape& l, const Shape& r);

// batch_dot: (..., m, k) · (..., k, n) per leading index; the flags transpose the last two axes.
Product batch_dot_product(const DotParam& p, const Shape& l, const Shape& r);

using ProductFn = Product (*)(const DotParam&, const Shape&, const Shape&);

// `gemm(dims, batch, a, stride_a, b, stride_b, c, stride_c, accumulate)` runs batched row-major
// products (detail::gemm_batched's contract).
template <class T, class Gemm>
void product_forward(const Product& pr, const TBlob& a, const TBlob& b, const TBlob& c, OpReq req, Gemm gemm) {
  if (req == OpReq::Null) return;
  const GemmDims& g = pr.g;
  gemm(g, pr.batch, a.ptr<T>(), g.m * g.k, b.ptr<T>(), g.k * g.n, c.ptr<T>(), g.m * g.n, req == OpReq::Add);
}

// With C = op(A)·op(B) and G = dL/dC: dop(A) = G·op(B)ᵀ and dop(B) = op(A)ᵀ·G, written in the
// stored layouts of A and B.
template <class T, class Gemm>
void product_backward(const Product& pr, const BackwardArgs& args, Gemm gemm) {
  const GemmDims& g = pr.g;
  const T* a = args.inputs[0].ptr<T>();
  const T* b = args.inputs[1].ptr<T>();
  const T* grad = args.out_grads[0].ptr<T>();
  const int64_t sa = g.m * g.k, sb = g.k * g.n, sc = g.m * g.n;
  if (args.req[0] != OpReq::Null) {
    T* da = args.in_grads[0].ptr<T>();
    const bool add = args.req[0] == OpReq::Add;
    if (!g.trans_a)  // dA (m×k) = G·op(B)ᵀ
      gemm(GemmDims{false, !g.trans_b, g.m, g.k, g.n}, pr.batch, grad, sc, b, sb, da, sa, add);
    else  // dA (k×m) = op(B)·Gᵀ
      gemm(GemmDims{g.trans_b, true, g.k, g.m, g.n}, pr.batch, b, sb, grad, sc, da, sa, add);
  }
  if (args.req[1] != OpReq::Null) {
    T* db = args.in_grads[1].ptr<T>();
    const bool add = args.req[1] == OpReq::Add;
    if (!g.trans_b)  // dB (k×n) = op(A)ᵀ·G
      gemm(GemmDims{!g.trans_a, false, g.k, g.n, g.m}, pr.batch, a, sa, grad, sc, db, sb, add);
    else  // dB (n×k) = Gᵀ·op(A)
      gemm(GemmDims{true, g.trans_a, g.n, g.k, g.m}, pr.batch, grad, sc, a, sa, db, sb, add);
  }
}

}  // namespace braid::op::detail
