#pragma once
// The reduction kernels of the GPU (reduce.cu, reduce_arg.cu), with the reducers and gradient
// rules of op/math/reduce_functions.h. The input is seen as kept and reduced dimensions (each
// run of one kind merged, size-1 axes dropped); an output element folds its reduced elements
// with one thread when they are few, with one block when there are many, and with several blocks
// and a second pass over their results when the outputs are too few to fill the GPU.
#include <algorithm>
#include <utility>
#include <vector>

#include "braid/base/shape.h"
#include "braid/op/registry.h"
#include "op/common/cuda_launch.cuh"
#include "op/math/reduce_functions.h"

namespace braid::op::detail {

constexpr int kMaxReduceDims = 12;

/// Dimensions of one kind, outermost first, with their input strides.
struct DimList {
  int n = 0;
  int64_t shape[kMaxReduceDims], stride[kMaxReduceDims];

  /// The input offset of index i of these dimensions (row-major).
  __device__ int64_t offset(int64_t i) const {
    int64_t off = 0;
    for (int k = n - 1; k >= 0; --k) {
      off += (i % shape[k]) * stride[k];
      i /= shape[k];
    }
    return off;
  }
};

struct ReduceLayout {
  DimList kept, reduced;
  int64_t out_size = 1, count = 1;  // output elements, input elements folded into each
};

/// The layout of reducing the axes `reduced` of an input of `shape`; throws naming `op` where
/// it has more dimensions than the kernels take.
inline ReduceLayout reduce_layout(const Shape& shape, const std::vector<bool>& reduced, const char* op) {
  ReduceLayout l;
  int64_t stride = 1;
  bool last_reduced = false;
  for (int a = shape.ndim() - 1; a >= 0; --a) {  // innermost first: strides grow
    const int64_t size = shape[a];
    const bool red = reduced[static_cast<size_t>(a)];
    (red ? l.count : l.out_size) *= size;
    if (size != 1) {
      DimList& dims = red ? l.reduced : l.kept;
      if (dims.n > 0 && last_reduced == red && dims.stride[dims.n - 1] * dims.shape[dims.n - 1] == stride) {
        dims.shape[dims.n - 1] *= size;  // merges with its inner neighbour
      } else {
        BRAID_CHECK(dims.n < kMaxReduceDims, "operator ", op, " on a GPU reduces arrays of at most ", kMaxReduceDims,
                    " alternating runs of axes; use cpu()");
        dims.shape[dims.n] = size;
        dims.stride[dims.n] = stride;
        ++dims.n;
      }
      last_reduced = red;
    }
    stride *= size;
  }
  // Collected innermost first; DimList::offset wants the outermost first.
  for (DimList* d : {&l.kept, &l.reduced})
    for (int i = 0, j = d->n - 1; i < j; ++i, --j) {
      std::swap(d->shape[i], d->shape[j]);
      std::swap(d->stride[i], d->stride[j]);
    }
  return l;
}

/// Folds the reduced elements first, first + step, ... below `end` of the output element whose
/// input block starts at `base`.
template <class R, class T>
__device__ typename R::Acc fold(const T* x, const ReduceLayout& l, int64_t base, int64_t first, int64_t end,
                                int64_t step) {
  typename R::Acc acc = R::init();
  for (int64_t r = first; r < end; r += step) R::reduce(acc, x[base + l.reduced.offset(r)]);
  return acc;
}

/// Combines part[0..blockDim.x) (blockDim.x a power of two) into part[0].
template <class R>
__device__ void combine_block(typename R::Acc* part) {
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) R::combine(part[threadIdx.x], part[threadIdx.x + half]);
    __syncthreads();
  }
}

template <class Acc>
__device__ Acc* shared_accumulators() {
  extern __shared__ __align__(16) unsigned char shared[];
  return reinterpret_cast<Acc*>(shared);
}

// Block b (grid-stride) folds slice b % slices, `per` reduced elements, of output element
// b / slices: its threads fold a strided share each and combine in shared memory; out(b, acc)
// takes the slice's accumulator.
template <class R, class T, class Out>
__global__ void reduce_by_blocks(const T* x, ReduceLayout l, int64_t slices, int64_t per, Out out) {
  auto* part = shared_accumulators<typename R::Acc>();
  for (int64_t b = blockIdx.x; b < l.out_size * slices; b += gridDim.x) {
    const int64_t first = (b % slices) * per, end = std::min(l.count, first + per);
    part[threadIdx.x] = fold<R>(x, l, l.kept.offset(b / slices), first + threadIdx.x, end, blockDim.x);
    combine_block<R>(part);
    if (threadIdx.x == 0) out(b, part[0]);
    __syncthreads();  // part[0] is read before the next slice overwrites it
  }
}

// Output element o from the accumulators of its `slices` slices.
template <class R, class Out>
__global__ void combine_slices(const typename R::Acc* partial, int64_t out_size, int64_t slices, Out out) {
  auto* part = shared_accumulators<typename R::Acc>();
  for (int64_t o = blockIdx.x; o < out_size; o += gridDim.x) {
    typename R::Acc acc = R::init();
    for (int64_t s = threadIdx.x; s < slices; s += blockDim.x) R::combine(acc, partial[o * slices + s]);
    part[threadIdx.x] = acc;
    combine_block<R>(part);
    if (threadIdx.x == 0) out(o, part[0]);
    __syncthreads();
  }
}

template <class R, class T, class Out>
__global__ void reduce_by_threads(const T* x, ReduceLayout l, Out out) {
  BRAID_GRID_STRIDE_LOOP(o, l.out_size) { out(o, fold<R>(x, l, l.kept.offset(o), 0, l.count, 1)); }
}

template <class R>
struct StorePartial {
  typename R::Acc* partial;
  __device__ void operator()(int64_t b, typename R::Acc acc) const { partial[b] = acc; }
};

/// Slices per output element: one where a block per output element fills the GPU or there is
/// little to fold; otherwise enough for about kWantedBlocks blocks of at least kMinPerBlock
/// elements each (a sum over every axis of a large array).
inline int64_t slices_for(const ReduceLayout& l) {
  constexpr int64_t kWantedBlocks = 1024, kMinPerBlock = 16 * cuda::kThreadsPerBlock;
  const int64_t wanted = (kWantedBlocks + l.out_size - 1) / l.out_size;
  return std::max<int64_t>(1, std::min(wanted, l.count / kMinPerBlock));
}

/// The scratch memory reduce_gpu needs (0: none).
template <class R>
size_t reduce_scratch_bytes(const ReduceLayout& l) {
  const int64_t slices = l.count >= cuda::kThreadsPerBlock ? slices_for(l) : 1;
  return slices > 1 ? static_cast<size_t>(l.out_size * slices) * sizeof(typename R::Acc) : 0;
}

/// Calls out(o, acc) with the accumulator of every output element o; `scratch` holds
/// reduce_scratch_bytes<R>(l) bytes.
template <class R, class T, class Out>
void reduce_gpu(const T* x, const ReduceLayout& l, Out out, void* scratch) {
  if (l.out_size == 0) return;
  const auto grid = [](int64_t blocks) { return static_cast<unsigned>(std::min<int64_t>(blocks, 65535)); };
  constexpr size_t kShared = cuda::kThreadsPerBlock * sizeof(typename R::Acc);
  // A block per output element pays off where each folds more elements than a block has threads.
  if (l.count < cuda::kThreadsPerBlock) {
    reduce_by_threads<R><<<cuda::blocks_for(l.out_size), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(x, l, out);
    return;
  }
  const int64_t slices = slices_for(l);
  if (slices == 1) {
    reduce_by_blocks<R><<<grid(l.out_size), cuda::kThreadsPerBlock, kShared, cuda::stream()>>>(x, l, 1, l.count, out);
    return;
  }
  auto* partial = static_cast<typename R::Acc*>(scratch);
  const int64_t per = (l.count + slices - 1) / slices;
  reduce_by_blocks<R><<<grid(l.out_size * slices), cuda::kThreadsPerBlock, kShared, cuda::stream()>>>(
      x, l, slices, per, StorePartial<R>{partial});
  combine_slices<R>
      <<<grid(l.out_size), cuda::kThreadsPerBlock, kShared, cuda::stream()>>>(partial, l.out_size, slices, out);
}

/// out = R::finish(acc), or added to it.
template <class R, class T>
struct StoreResult {
  T* y;
  int64_t count;
  bool add;
  __device__ void operator()(int64_t o, typename R::Acc acc) const { cuda::store(y[o], add, R::finish(acc, count)); }
};

/// The output element of input element i: its kept dimensions' index. `out_stride` is indexed
/// like `in_shape` (0 for reduced dimensions).
struct InputToOutput {
  int n = 0;
  int64_t in_shape[kMaxReduceDims], out_stride[kMaxReduceDims];

  __device__ int64_t operator()(int64_t i) const {
    int64_t o = 0;
    for (int k = n - 1; k >= 0; --k) {
      o += (i % in_shape[k]) * out_stride[k];
      i /= in_shape[k];
    }
    return o;
  }
};

inline InputToOutput input_to_output(const Shape& shape, const std::vector<bool>& reduced, const char* op) {
  InputToOutput m;
  int64_t stride = 1;
  for (int a = shape.ndim() - 1; a >= 0; --a) {
    if (shape[a] == 1) continue;
    const bool red = reduced[static_cast<size_t>(a)];
    const int64_t out_stride = red ? 0 : stride;
    if (m.n > 0 && (m.out_stride[m.n - 1] == 0) == red &&
        (red || m.out_stride[m.n - 1] * m.in_shape[m.n - 1] == out_stride)) {
      m.in_shape[m.n - 1] *= shape[a];
    } else {
      BRAID_CHECK(m.n < kMaxReduceDims, "operator ", op, " on a GPU reduces arrays of at most ", kMaxReduceDims,
                  " alternating runs of axes; use cpu()");
      m.in_shape[m.n] = shape[a];
      m.out_stride[m.n] = out_stride;
      ++m.n;
    }
    if (!red) stride *= shape[a];
  }
  for (int i = 0, j = m.n - 1; i < j; ++i, --j) {  // outermost first
    std::swap(m.in_shape[i], m.in_shape[j]);
    std::swap(m.out_stride[i], m.out_stride[j]);
  }
  return m;
}

// dx[i] = rule(x[i], y[o], g[o], count) for the output element o of every input element i.
template <class T, class Rule>
__global__ void reduce_grad_kernel(const T* x, const T* y, const T* g, T* dx, InputToOutput to_out, int64_t n, T count,
                                   bool add, Rule rule) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const int64_t o = to_out(i);
    cuda::store(dx[i], add, static_cast<T>(rule(x[i], y[o], g[o], count)));
  }
}

/// argmax, argmin, argmax_channel (reduce_arg.cu).
void register_arg_reduce_gpu_kernels(Registry& r);

}  // namespace braid::op::detail
