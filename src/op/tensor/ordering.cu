// CUDA kernels of topk, sort and argsort (ordering.cc). One thread per input element counts the
// elements of its line that come before it (ordering.h's total, stable order): that rank is its
// place in the sorted line, so the k first are placed without a sort. O(n) work per element: for
// lines of up to some thousands of elements.
#include <type_traits>

#include "index_util.h"
#include "op/common/cuda_dtype.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "ordering.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

// Where a thread writes: positions in the index output (I; null where not computed), values in
// `values` (null where not returned), or every element's 0/1 in `mask` (null but for ret_typ mask).
template <class T, class I>
struct TopKOutputs {
  I* indices;
  T* values;
  T* mask;
  bool add_indices, add_values, add_mask;
};

template <class T, class I>
__global__ void topk_kernel(const T* x, TopKLayout l, bool ascend, TopKOutputs<T, I> out) {
  const AxisSplit s = l.s;
  BRAID_GRID_STRIDE_LOOP(flat, s.outer * s.n * s.inner) {
    const int64_t i = flat % s.inner, j = (flat / s.inner) % s.n, o = flat / (s.inner * s.n);
    const T* line = x + o * s.n * s.inner + i;
    const T v = x[flat];
    int64_t rank = 0;
    for (int64_t q = 0; q < s.n; ++q) rank += comes_before(line[q * s.inner], q, v, j, ascend);
    if (out.mask) {
      cuda::store(out.mask[flat], out.add_mask, rank < l.k ? T(1) : T(0));
      continue;
    }
    if (rank >= l.k) continue;
    const int64_t e = (o * l.k + rank) * s.inner + i;
    if (out.indices) {
      if constexpr (std::is_same_v<I, __half>)
        out.indices[e] = cuda::store_value<I>(j);  // Write only (checked on the host), as on the CPU
      else
        cuda::store(out.indices[e], out.add_indices, cuda::store_value<I>(j));
    }
    if (out.values) cuda::store(out.values[e], out.add_values, v);
  }
}

template <class T, class I>
void launch_topk(const TBlob& x, const TopKLayout& l, bool ascend, const TopKOutputs<T, I>& out) {
  const int64_t n = x.size();
  topk_kernel<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(static_cast<const T*>(x.dptr), l,
                                                                                  ascend, out);
}

// Calls f(I{}) with the device type of an index output's dtype (ordering.cc's kIndexDTypes).
template <class F>
void with_index_type(DType t, const char* op, F&& f) {
  if (t == DType::Float16) return f(__half{});
  BRAID_TYPE_SWITCH(t, I, op, { f(I{}); });
}

template <class T>
void topk_forward_gpu(const std::string& name, const TopKParam& p, const ForwardArgs& a) {
  const TopKLayout l = topk_layout(name, p, a.inputs[0].shape);
  if (p.ret == RetTyp::Mask) {
    if (a.req[0] == OpReq::Null) return;
    launch_topk<T, T>(a.inputs[0], l, p.is_ascend,
                      {nullptr, nullptr, a.outputs[0].ptr<T>(), false, false, a.req[0] == OpReq::Add});
    return;
  }
  const size_t idx_out = returns_values(p) ? 1 : 0;
  const TBlob& indices = a.outputs[idx_out];
  check_index_dtype(name, indices.dtype, l.s.n);
  BRAID_CHECK(indices.dtype != DType::Float16 || a.req[idx_out] != OpReq::Add, "operator ", name,
              ": adding to float16 indices is not supported");
  T* values = returns_values(p) && a.req[0] != OpReq::Null ? a.outputs[0].ptr<T>() : nullptr;
  with_index_type(indices.dtype, name.c_str(), [&](auto tag) {
    using I = decltype(tag);
    I* idx = a.req[idx_out] == OpReq::Null ? nullptr : static_cast<I*>(indices.dptr);
    launch_topk<T, I>(a.inputs[0], l, p.is_ascend,
                      {idx, values, nullptr, a.req[idx_out] == OpReq::Add, a.req[0] == OpReq::Add, false});
  });
}

// dx[source of e] += g[e] for each selected element e; the sources of one line are distinct.
template <class T, class I>
__global__ void topk_backward_kernel(const T* g, const I* pos, T* dx, TopKLayout l) {
  const AxisSplit s = l.s;
  BRAID_GRID_STRIDE_LOOP(e, s.outer * l.k * s.inner) {
    const int64_t i = e % s.inner, o = e / (l.k * s.inner);
    const auto j = static_cast<int64_t>(cuda::load_value(pos[e]));
    dx[(o * s.n + j) * s.inner + i] += g[e];
  }
}

Kernels topk_kernels(const std::string& name, bool differentiable) {
  Kernels k;
  k.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { topk_forward_gpu<T>(name, param<TopKParam>(pa), a); });
    cuda::finish(name.c_str());
  };
  if (!differentiable) return k;
  k.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<TopKParam>(pa);
    const TBlob& dx = a.in_grads[0];
    if (a.req[0] == OpReq::Write) fill_zero_gpu(dx);
    if (returns_values(p)) {
      const TopKLayout l = topk_layout(name, p, a.inputs[0].shape);
      const int64_t n = a.out_grads[0].size();
      BRAID_REAL_TYPE_SWITCH(dx.dtype, T, name.c_str(), {
        with_index_type(a.outputs[1].dtype, name.c_str(), [&](auto tag) {
          using I = decltype(tag);
          topk_backward_kernel<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
              a.out_grads[0].ptr<T>(), static_cast<const I*>(a.outputs[1].dptr), dx.ptr<T>(), l);
        });
      });
    }
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_ordering_gpu_kernels(Registry& r) {
  r.at("topk").gpu = topk_kernels("topk", true);
  r.at("sort").gpu = topk_kernels("sort", true);
  r.at("argsort").gpu = topk_kernels("argsort", false);
}

}  // namespace braid::op::detail
