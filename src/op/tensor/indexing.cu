// CUDA kernels of take, pick and one_hot (indexing.cc): data of every dtype the CPU takes,
// indices of any dtype (floats truncated toward zero), gradients float32 and float64. With
// mode='raise' an index out of range (or NaN) is flagged on the device and thrown after the kernel,
// as the CPU throws; that waits for the GPU, so the other modes (clip, the default, and wrap)
// take a NaN for -1 and check nothing, as MXNet's GPU kernels do.
#include <type_traits>

#include "axis_util.h"
#include "indexing_param.h"
#include "op/common/cuda_launch.cuh"
#include "op/common/cuda_libs.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

// The index v as an integer (floats clamped first, as read_indices does); NaN sets *bad where
// checked, and is -1.
template <class I>
__device__ int64_t to_index(I v, int* bad) {
  if constexpr (std::is_floating_point_v<I>) {
    if (v != v) {
      if (bad) *bad = 1;
      return -1;
    }
    constexpr I kLimit = I(4.0e18);
    return static_cast<int64_t>(v < -kLimit ? -kLimit : (v > kLimit ? kLimit : v));
  } else {
    return static_cast<int64_t>(v);
  }
}

// resolve_index on the device: Raise sets *bad instead of throwing.
__device__ int64_t resolve(int64_t j, int64_t n, IndexMode mode, int* bad) {
  const int64_t mapped = map_index(j, n, mode);
  if (mapped >= 0) return mapped;
  if (bad) *bad = 1;
  return 0;
}

/// A device flag the kernels set on a bad index for mode='raise' (null, and nothing checked,
/// for the other modes); check() throws naming the op once the kernels ran.
class BadIndexFlag {
 public:
  explicit BadIndexFlag(IndexMode mode)
      : flag_(mode == IndexMode::Raise ? static_cast<int*>(cuda::workspace(sizeof(int))) : nullptr) {
    if (flag_) cudaMemsetAsync(flag_, 0, sizeof(int), cuda::stream());
  }
  int* get() const { return flag_; }
  void check(const char* op) const {
    if (!flag_) return;
    int bad = 0;
    cudaMemcpyAsync(&bad, flag_, sizeof(int), cudaMemcpyDeviceToHost, cuda::stream());
    cuda::wait(op);
    BRAID_CHECK(!bad, "operator ", op, ": an index is NaN or (mode='raise') out of bounds for its axis");
  }

 private:
  int* flag_;
};

// ---- take: output (outer, m, inner) from data (outer, n, inner) at m indices ----

template <class T, class I>
__global__ void take_forward(const T* x, const I* idx, T* y, AxisSplit s, int64_t m, IndexMode mode, bool add,
                             int* bad) {
  BRAID_GRID_STRIDE_LOOP(k, s.outer * m * s.inner) {
    const int64_t i = k % s.inner, j = (k / s.inner) % m, o = k / (s.inner * m);
    const int64_t p = resolve(to_index(idx[j], bad), s.n, mode, bad);
    cuda::store(y[k], add, x[(o * s.n + p) * s.inner + i]);
  }
}

// Several indices may name one slice: their gradients add up atomically.
template <class T, class I>
__global__ void take_backward(const T* g, const I* idx, T* dx, AxisSplit s, int64_t m, IndexMode mode, int* bad) {
  BRAID_GRID_STRIDE_LOOP(k, s.outer * m * s.inner) {
    const int64_t i = k % s.inner, j = (k / s.inner) % m, o = k / (s.inner * m);
    const int64_t p = resolve(to_index(idx[j], bad), s.n, mode, bad);
    atomicAdd(&dx[(o * s.n + p) * s.inner + i], g[k]);
  }
}

AxisSplit take_split(const std::any& pa, const Shape& data) {
  const AxisSplit s = split_at_axis(data, checked_axis("take", data, param<TakeParam>(pa).axis));
  BRAID_CHECK(s.n > 0, "operator take: cannot take from an axis of size 0");
  return s;
}

Kernels take_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const AxisSplit s = take_split(pa, a.inputs[0].shape);
    const int64_t m = a.inputs[1].size(), n = s.outer * m * s.inner;
    const BadIndexFlag bad(param<TakeParam>(pa).mode);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "take", {
      BRAID_TYPE_SWITCH(a.inputs[1].dtype, I, "take indices", {
        take_forward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<T>(), a.inputs[1].ptr<I>(), a.outputs[0].ptr<T>(), s, m, param<TakeParam>(pa).mode,
            a.req[0] == OpReq::Add, bad.get());
      });
    });
    bad.check("take");
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[1] == OpReq::Write) fill_zero_gpu(a.in_grads[1]);
    if (a.req[0] != OpReq::Null) {
      const AxisSplit s = take_split(pa, a.inputs[0].shape);
      const int64_t m = a.inputs[1].size(), n = s.outer * m * s.inner;
      const BadIndexFlag bad(param<TakeParam>(pa).mode);
      if (a.req[0] == OpReq::Write) fill_zero_gpu(a.in_grads[0]);
      BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, "take", {
        BRAID_TYPE_SWITCH(a.inputs[1].dtype, I, "take indices", {
          take_backward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
              a.out_grads[0].ptr<T>(), a.inputs[1].ptr<I>(), a.in_grads[0].ptr<T>(), s, m, param<TakeParam>(pa).mode,
              bad.get());
        });
      });
      bad.check("take");
    }
    cuda::finish("take");
  };
  return k;
}

// ---- pick: output element k is line (k / inner, k % inner) of data (outer, n, inner) ----

__device__ inline int64_t picked(int64_t k, int64_t j, const AxisSplit& s) {
  return ((k / s.inner) * s.n + j) * s.inner + k % s.inner;
}

template <class T, class I>
__global__ void pick_forward(const T* x, const I* idx, T* y, AxisSplit s, IndexMode mode, bool add, int* bad) {
  BRAID_GRID_STRIDE_LOOP(k, s.outer * s.inner) {
    cuda::store(y[k], add, x[picked(k, resolve(to_index(idx[k], bad), s.n, mode, bad), s)]);
  }
}

// Each line has one picked element: no two threads add to one.
template <class T, class I>
__global__ void pick_backward(const T* g, const I* idx, T* dx, AxisSplit s, IndexMode mode, int* bad) {
  BRAID_GRID_STRIDE_LOOP(k, s.outer * s.inner) {
    dx[picked(k, resolve(to_index(idx[k], bad), s.n, mode, bad), s)] += g[k];
  }
}

AxisSplit pick_split(const std::any& pa, const Shape& data) {
  const AxisSplit s = split_at_axis(data, checked_axis("pick", data, param<PickParam>(pa).axis));
  BRAID_CHECK(s.n > 0, "operator pick: cannot pick from an axis of size 0");
  return s;
}

Kernels pick_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const AxisSplit s = pick_split(pa, a.inputs[0].shape);
    const int64_t n = s.outer * s.inner;
    const BadIndexFlag bad(param<PickParam>(pa).mode);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "pick", {
      BRAID_TYPE_SWITCH(a.inputs[1].dtype, I, "pick index", {
        pick_forward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<T>(), a.inputs[1].ptr<I>(), a.outputs[0].ptr<T>(), s, param<PickParam>(pa).mode,
            a.req[0] == OpReq::Add, bad.get());
      });
    });
    bad.check("pick");
  };
  k.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[1] == OpReq::Write) fill_zero_gpu(a.in_grads[1]);
    if (a.req[0] != OpReq::Null) {
      const AxisSplit s = pick_split(pa, a.inputs[0].shape);
      const int64_t n = s.outer * s.inner;
      const BadIndexFlag bad(param<PickParam>(pa).mode);
      if (a.req[0] == OpReq::Write) fill_zero_gpu(a.in_grads[0]);
      BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, "pick", {
        BRAID_TYPE_SWITCH(a.inputs[1].dtype, I, "pick index", {
          pick_backward<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
              a.out_grads[0].ptr<T>(), a.inputs[1].ptr<I>(), a.in_grads[0].ptr<T>(), s, param<PickParam>(pa).mode,
              bad.get());
        });
      });
      bad.check("pick");
    }
    cuda::finish("pick");
  };
  return k;
}

// ---- one_hot: row r of the output is on at column indices[r], off elsewhere ----

template <class T, class I>
__global__ void one_hot_forward(const I* idx, T* y, int64_t rows, int64_t depth, T on, T off, bool add, int* bad) {
  BRAID_GRID_STRIDE_LOOP(k, rows * depth) {
    cuda::store(y[k], add, k % depth == to_index(idx[k / depth], bad) ? on : off);
  }
}

Kernels one_hot_kernels() {
  Kernels k;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<OneHotParam>(pa);
    const int64_t rows = a.inputs[0].size();
    const BadIndexFlag bad(IndexMode::Clip);  // an index out of range makes a row of off_value
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "one_hot", {
      BRAID_TYPE_SWITCH(a.inputs[0].dtype, I, "one_hot indices", {
        one_hot_forward<<<cuda::blocks_for(rows * p.depth), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            a.inputs[0].ptr<I>(), a.outputs[0].ptr<T>(), rows, p.depth, static_cast<T>(p.on_value),
            static_cast<T>(p.off_value), a.req[0] == OpReq::Add, bad.get());
      });
    });
    bad.check("one_hot");
  };
  return k;
}

}  // namespace

void register_indexing_gpu_kernels(Registry& r) {
  r.at("take").gpu = take_kernels();
  r.at("pick").gpu = pick_kernels();
  r.at("one_hot").gpu = one_hot_kernels();
}

}  // namespace braid::op::detail
