// The GPU's strided copy (strided_copy.h): one thread per destination element, which sums the
// source elements of the dimensions the destination does not advance along (stride 0, req Add:
// the backward of tile and repeat), so no two threads write one element. The data-movement ops
// of the matrix family move their data through it on a GPU, with their CPU kernels.
#include <algorithm>

#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

// Enough for the data-movement ops on 6-D arrays (tile walks each axis as two).
constexpr int kMaxCopyDims = 12;

// The simplified layout with the dimensions the destination advances along first (in their
// order, the last one fastest) and those of destination stride 0 after them.
struct DeviceLayout {
  int ndim = 0;  // dimensions walked by the threads
  int nsum = 0;  // destination-stride-0 dimensions each thread sums over
  int64_t shape[kMaxCopyDims], src[kMaxCopyDims], dst[kMaxCopyDims];
};

DeviceLayout device_layout(const CopyLayout& l, const char* op) {
  BRAID_CHECK(l.shape.size() <= static_cast<size_t>(kMaxCopyDims), "operator ", op, " on a GPU copies through at most ",
              kMaxCopyDims, " dimensions after merging, this copy needs ", l.shape.size(), "; use cpu()");
  DeviceLayout d;
  for (bool summed : {false, true})
    for (size_t k = 0; k < l.shape.size(); ++k) {
      if ((l.dst[k] == 0) != summed) continue;
      d.shape[d.ndim + d.nsum] = l.shape[k];
      d.src[d.ndim + d.nsum] = l.src[k];
      d.dst[d.ndim + d.nsum] = l.dst[k];
      (summed ? d.nsum : d.ndim)++;
    }
  return d;
}

// The source and destination offsets of index i of dimensions [first, first + count).
__device__ inline void offsets(const DeviceLayout& l, int first, int count, int64_t i, int64_t& so, int64_t& dof) {
  so = dof = 0;
  for (int k = first + count - 1; k >= first; --k) {
    const int64_t c = i % l.shape[k];
    i /= l.shape[k];
    so += c * l.src[k];
    dof += c * l.dst[k];
  }
}

template <class T>
__global__ void strided_copy_kernel(const T* src, T* dst, DeviceLayout l, int64_t n, int64_t summed, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    int64_t so, dof, unused;
    offsets(l, 0, l.ndim, i, so, dof);
    auto v = cuda::load_value(src[so]);  // 16-bit values summed in float
    for (int64_t j = 1; j < summed; ++j) {
      int64_t sj;
      offsets(l, l.ndim, l.nsum, j, sj, unused);
      v += cuda::load_value(src[so + sj]);
    }
    cuda::store(dst[dof], add, v);
  }
}

template <class T>
void launch(const void* src, void* dst, const DeviceLayout& l, bool add) {
  int64_t n = 1, summed = 1;
  for (int k = 0; k < l.ndim; ++k) n *= l.shape[k];
  for (int k = l.ndim; k < l.ndim + l.nsum; ++k) summed *= l.shape[k];
  strided_copy_kernel<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      static_cast<const T*>(src), static_cast<T*>(dst), l, n, summed, add);
}

}  // namespace

void strided_copy_gpu(DType dtype, const void* src, int64_t src_offset, const Dims& src_strides, void* dst,
                      int64_t dst_offset, const Dims& dst_strides, const Dims& shape, OpReq req, const char* op) {
  if (req == OpReq::Null || std::find(shape.begin(), shape.end(), 0) != shape.end()) return;
  const size_t esize = dtype_size(dtype);
  const void* s = static_cast<const char*>(src) + src_offset * static_cast<int64_t>(esize);
  void* d = static_cast<char*>(dst) + dst_offset * static_cast<int64_t>(esize);
  const CopyLayout l = simplify_layout(shape, src_strides, dst_strides);
  if (req == OpReq::Write && l.shape.size() == 1 && l.src[0] == 1 && l.dst[0] == 1) {
    cudaMemcpyAsync(d, s, static_cast<size_t>(l.shape[0]) * esize, cudaMemcpyDeviceToDevice, cuda::stream());
    cuda::finish(op);
    return;
  }
  const DeviceLayout dl = device_layout(l, op);
  if (req == OpReq::Write) {  // moving bits needs only the element size: every dtype works
    BRAID_CHECK(dl.nsum == 0, "operator ", op, ": a GPU copy writing one element from several needs req Add");
    switch (esize) {
      case 1:
        launch<uint8_t>(s, d, dl, false);
        break;
      case 2:
        launch<uint16_t>(s, d, dl, false);
        break;
      case 4:
        launch<uint32_t>(s, d, dl, false);
        break;
      default:
        launch<uint64_t>(s, d, dl, false);
        break;
    }
  } else {
    cuda::with_compute_type(dtype, op, [&](auto t) { launch<decltype(t)>(s, d, dl, true); });
  }
  cuda::finish(op);
}

void fill_zero_gpu(const TBlob& b) {
  cudaMemsetAsync(b.dptr, 0, static_cast<size_t>(b.size()) * dtype_size(b.dtype), cuda::stream());
  cuda::finish("fill_zero");
}

void register_matrix_gpu_kernels(Registry& r) {
  // Their kernels move data through data_mover(ctx) only.
  // They take 16-bit arrays as they are (the CPU's kernels convert them: its data movers don't).
  for (const char* name : {"transpose",  "SwapAxis", "reshape_like", "flip",        "slice_axis",     "slice",
                           "slice_like", "Reshape",  "expand_dims",  "squeeze",     "tile",           "repeat",
                           "concat",     "stack",    "split",        "_split_v2",   "depth_to_space", "space_to_depth",
                           "diag",       "Crop",     "_np_reshape",  "_npx_reshape"}) {
    r.at(name).gpu = r.at(name).cpu;
    r.at(name).gpu.takes_16bit = true;
  }
  // Flatten (src/op/nn/flatten.cc) keeps the elements in order: a copy either way.
  Kernels& flatten = r.at("Flatten").gpu;
  flatten.takes_16bit = true;
  flatten.forward = [](const OpContext& oc, const std::any&, const ForwardArgs& a) {
    copy_in_order(oc.ctx, a.inputs[0], a.outputs[0], a.req[0], "Flatten");
  };
  flatten.backward = [](const OpContext& oc, const std::any&, const BackwardArgs& a) {
    copy_in_order(oc.ctx, a.out_grads[0], a.in_grads[0], a.req[0], "Flatten");
  };
}

}  // namespace braid::op::detail
