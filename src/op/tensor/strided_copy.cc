#include "strided_copy.h"

#include <algorithm>
#include <cstring>

namespace braid::op::detail {
namespace {

using Layout = CopyLayout;

// Calls f(src_offset, dst_offset) for every index of the dimensions `dims` of `l`.
template <class F>
void for_each_index(const Layout& l, const std::vector<int>& dims, F f) {
  int64_t total = 1;
  for (int a : dims) total *= l.shape[static_cast<size_t>(a)];
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t so = 0, dof = 0;
  for (int64_t it = 0; it < total; ++it) {
    f(so, dof);
    for (size_t k = dims.size(); k-- > 0;) {
      size_t a = static_cast<size_t>(dims[k]);
      if (++idx[k] < l.shape[a]) {
        so += l.src[a];
        dof += l.dst[a];
        break;
      }
      so -= l.src[a] * (l.shape[a] - 1);
      dof -= l.dst[a] * (l.shape[a] - 1);
      idx[k] = 0;
    }
  }
}

template <class T>
void copy_row(const T* src, int64_t ss, T* dst, int64_t ds, int64_t n, OpReq req) {
  if (req == OpReq::Write) {
    if (ss == 1 && ds == 1) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
    }
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * ds] += src[i * ss];
  }
}

// dst[c·dst_ld + r] = src[r·src_ld + c] for r < rows, c < cols. Square blocks one cache line
// wide are staged in a local buffer, so every line of src and dst is touched once per block
// whatever the leading dimensions (a power-of-two stride would otherwise thrash one cache set);
// the blocks are visited in groups of 16×16 to stay within the TLB.
template <class T>
void transpose_2d(const T* src, int64_t src_ld, T* dst, int64_t dst_ld, int64_t rows, int64_t cols, OpReq req) {
  constexpr int64_t W = 64 / sizeof(T) < 4 ? 4 : 64 / sizeof(T), kGroup = 16 * W;
  T buf[W][W];
  auto block = [&](int64_t r0, int64_t c0) {
    const int64_t nr = std::min(W, rows - r0), nc = std::min(W, cols - c0);
    const T* s = src + r0 * src_ld + c0;
    T* d = dst + c0 * dst_ld + r0;
    if (nr < W || nc < W) {
      for (int64_t c = 0; c < nc; ++c) copy_row(s + c, src_ld, d + c * dst_ld, 1, nr, req);
      return;
    }
    for (int64_t r = 0; r < W; ++r)
      for (int64_t c = 0; c < W; ++c) buf[c][r] = s[r * src_ld + c];
    for (int64_t c = 0; c < W; ++c) copy_row(buf[c], 1, d + c * dst_ld, 1, W, req);
  };
  for (int64_t rg = 0; rg < rows; rg += kGroup)
    for (int64_t cg = 0; cg < cols; cg += kGroup)
      for (int64_t r0 = rg; r0 < std::min(rows, rg + kGroup); r0 += W)
        for (int64_t c0 = cg; c0 < std::min(cols, cg + kGroup); c0 += W) block(r0, c0);
}

template <class T>
void strided_copy_typed(const T* src, const Dims& src_strides, T* dst, const Dims& dst_strides, const Dims& shape,
                        OpReq req) {
  if (req == OpReq::Null) return;
  for (int64_t d : shape)
    if (d == 0) return;
  const Layout l = simplify_layout(shape, src_strides, dst_strides);
  const size_t last = l.shape.size() - 1;
  // A transposing copy: the innermost dimension is unit-stride on one side only and another
  // dimension q is unit-stride on the other side.
  int q = -1;
  const bool src_inner = l.src[last] == 1, dst_inner = l.dst[last] == 1;
  if (src_inner != dst_inner && l.shape[last] > 1)
    for (size_t k = 0; k < last; ++k)
      if ((src_inner ? l.dst[k] : l.src[k]) == 1) q = static_cast<int>(k);
  std::vector<int> outer;
  for (size_t k = 0; k < last; ++k)
    if (static_cast<int>(k) != q) outer.push_back(static_cast<int>(k));
  if (q < 0) {
    for_each_index(l, outer, [&](int64_t so, int64_t dof) {
      copy_row(src + so, l.src[last], dst + dof, l.dst[last], l.shape[last], req);
    });
    return;
  }
  const auto qk = static_cast<size_t>(q);
  for_each_index(l, outer, [&](int64_t so, int64_t dof) {
    if (src_inner)  // src rows run along `last`, dst rows along q
      transpose_2d(src + so, l.src[qk], dst + dof, l.dst[last], l.shape[qk], l.shape[last], req);
    else  // src rows run along q, dst rows along `last`
      transpose_2d(src + so, l.src[last], dst + dof, l.dst[qk], l.shape[last], l.shape[qk], req);
  });
}

}  // namespace

CopyLayout simplify_layout(const Dims& shape, const Dims& src, const Dims& dst) {
  CopyLayout l;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    if (!l.shape.empty() && l.src.back() == src[k] * shape[k] && l.dst.back() == dst[k] * shape[k]) {
      l.shape.back() *= shape[k];
      l.src.back() = src[k];
      l.dst.back() = dst[k];
    } else {
      l.shape.push_back(shape[k]);
      l.src.push_back(src[k]);
      l.dst.push_back(dst[k]);
    }
  }
  if (l.shape.empty()) l = {{1}, {1}, {1}};
  return l;
}

Dims contiguous_strides(const Dims& shape) {
  Dims s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

namespace {

struct CopyArgs {
  const void* src;
  int64_t src_offset;
  const Dims& src_strides;
  void* dst;
  int64_t dst_offset;
  const Dims& dst_strides;
  const Dims& shape;
  OpReq req;
};

template <class T>
void strided_copy_as(const CopyArgs& a) {
  strided_copy_typed(static_cast<const T*>(a.src) + a.src_offset, a.src_strides, static_cast<T*>(a.dst) + a.dst_offset,
                     a.dst_strides, a.shape, a.req);
}

}  // namespace

void strided_copy(DType dtype, const void* src, int64_t src_offset, const Dims& src_strides, void* dst,
                  int64_t dst_offset, const Dims& dst_strides, const Dims& shape, OpReq req, const char* op) {
  const CopyArgs a{src, src_offset, src_strides, dst, dst_offset, dst_strides, shape, req};
  if (req == OpReq::Write) {  // moving bits needs only the element size: every dtype works
    switch (dtype_size(dtype)) {
      case 1:
        return strided_copy_as<uint8_t>(a);
      case 2:
        return strided_copy_as<uint16_t>(a);
      case 4:
        return strided_copy_as<uint32_t>(a);
      case 8:
        return strided_copy_as<uint64_t>(a);
      default:
        break;
    }
  }
  BRAID_TYPE_SWITCH(dtype, T, op, { strided_copy_as<T>(a); });
}

void fill_zero(const TBlob& b) { std::memset(b.dptr, 0, static_cast<size_t>(b.size()) * dtype_size(b.dtype)); }

const DataMover& data_mover([[maybe_unused]] Context ctx) {
#if BRAID_CUDA_KERNELS
  static const DataMover gpu{strided_copy_gpu, fill_zero_gpu};
  if (!ctx.is_cpu_family()) return gpu;
#endif
  static const DataMover cpu{strided_copy, fill_zero};
  return cpu;
}

void copy_in_order(Context ctx, const TBlob& from, const TBlob& to, OpReq req, const char* op) {
  data_mover(ctx).copy(from.dtype, from.dptr, 0, {1}, to.dptr, 0, {1}, {from.size()}, req, op);
}

}  // namespace braid::op::detail
