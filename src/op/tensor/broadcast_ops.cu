// CUDA kernels of broadcast_to, broadcast_like, broadcast_axis and where (broadcast_ops.cc). The broadcasts are
// strided copies (strided_copy.cu): the input read with stride 0 along the broadcast dimensions,
// and the gradient summed back along them.
#include "broadcast.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

Kernels broadcast_kernels(const std::string& name) {
  Kernels k;
  k.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    const TBlob &x = a.inputs[0], &y = a.outputs[0];
    strided_copy_gpu(y.dtype, x.dptr, 0, broadcast_strides(y.shape, x.shape), y.dptr, 0,
                     contiguous_strides(y.shape.dims()), y.shape.dims(), a.req[0], name.c_str());
  };
  k.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.in_grads.size() > 1 && a.req[1] == OpReq::Write) fill_zero_gpu(a.in_grads[1]);  // broadcast_like's rhs
    if (a.req[0] == OpReq::Null) return;
    const TBlob &g = a.out_grads[0], &dx = a.in_grads[0];
    if (a.req[0] == OpReq::Write) fill_zero_gpu(dx);
    strided_copy_gpu(g.dtype, g.dptr, 0, contiguous_strides(g.shape.dims()), dx.dptr, 0,
                     broadcast_strides(g.shape, dx.shape), g.shape.dims(), OpReq::Add, name.c_str());
  };
  return k;
}

// Each value of the condition covers `inner` consecutive elements: 1, or a row of x (1-D condition).
template <class C, class T>
__global__ void where_forward(const C* c, const T* x, const T* y, T* out, int64_t n, int64_t inner, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) { cuda::store(out[i], add, c[i / inner] != C(0) ? x[i] : y[i]); }
}

// dx or dy is null where that gradient is not wanted.
template <class C, class T>
__global__ void where_backward(const C* c, const T* g, T* dx, bool add_dx, T* dy, bool add_dy, int64_t n,
                               int64_t inner) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const bool pick_x = c[i / inner] != C(0);
    if (dx) cuda::store(dx[i], add_dx, pick_x ? g[i] : T(0));
    if (dy) cuda::store(dy[i], add_dy, pick_x ? T(0) : g[i]);
  }
}

int64_t where_inner(const TBlob& cond, int64_t n) { return n / (cond.size() > 0 ? cond.size() : 1); }

Kernels where_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const int64_t n = a.outputs[0].size();
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, C, "where condition", {
      BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "where", {
        where_forward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<C>(), a.inputs[1].ptr<T>(), a.inputs[2].ptr<T>(), a.outputs[0].ptr<T>(), n,
            where_inner(a.inputs[0], n), a.req[0] == OpReq::Add);
      });
    });
    cuda::finish("where");
  };
  k.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    const int64_t n = a.out_grads[0].size();
    if (a.req[0] == OpReq::Write) fill_zero_gpu(a.in_grads[0]);  // the condition has no gradient
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, C, "where condition", {
      BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, "where", {
        T* dx = a.req[1] == OpReq::Null ? nullptr : a.in_grads[1].ptr<T>();
        T* dy = a.req[2] == OpReq::Null ? nullptr : a.in_grads[2].ptr<T>();
        where_backward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<C>(), a.out_grads[0].ptr<T>(), dx, a.req[1] == OpReq::Add, dy, a.req[2] == OpReq::Add, n,
            where_inner(a.inputs[0], n));
      });
    });
    cuda::finish("where");
  };
  return k;
}

}  // namespace

void register_broadcast_gpu_kernels(Registry& r) {
  r.at("broadcast_to").gpu = broadcast_kernels("broadcast_to");
  r.at("broadcast_like").gpu = broadcast_kernels("broadcast_like");
  r.at("broadcast_axis").gpu = broadcast_kernels("broadcast_axis");
  r.at("where").gpu = where_kernels();
}

}  // namespace braid::op::detail
