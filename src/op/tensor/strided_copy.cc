#include "strided_copy.h"

#include <algorithm>
#include <cstring>

namespace braid::op::detail {
namespace {

struct Layout {
  Dims shape, src, dst;
};

// Drops size-1 dimensions and merges neighbours that are contiguous in both layouts, so that a
// plain copy becomes one row and a transpose of (a, b, c) -> (c, a, b) becomes 2-D.
Layout simplify(const Dims& shape, const Dims& src, const Dims& dst) {
  Layout l;
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

// Copies the 2-D block spanned by dimensions q (rows) and `last` in square tiles, so that both
// the unit-stride reads and the unit-stride writes stay in cache.
template <class T>
void copy_tiled(const T* src, T* dst, const Layout& l, size_t q, size_t last, OpReq req) {
  constexpr int64_t kTile = 32;
  const int64_t nq = l.shape[q], nl = l.shape[last];
  const int64_t sq = l.src[q], sl = l.src[last], dq = l.dst[q], dl = l.dst[last];
  for (int64_t a0 = 0; a0 < nq; a0 += kTile) {
    const int64_t a1 = std::min(nq, a0 + kTile);
    for (int64_t b0 = 0; b0 < nl; b0 += kTile) {
      const int64_t b1 = std::min(nl, b0 + kTile);
      for (int64_t a = a0; a < a1; ++a)
        copy_row(src + a * sq + b0 * sl, sl, dst + a * dq + b0 * dl, dl, b1 - b0, req);
    }
  }
}

template <class T>
void strided_copy_typed(const T* src, const Dims& src_strides, T* dst, const Dims& dst_strides,
                        const Dims& shape, OpReq req) {
  if (req == OpReq::Null) return;
  for (int64_t d : shape)
    if (d == 0) return;
  const Layout l = simplify(shape, src_strides, dst_strides);
  const size_t last = l.shape.size() - 1;
  // A transposing copy: the innermost dimension is unit-stride on one side only and another
  // dimension is unit-stride on the other side.
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
  } else {
    for_each_index(l, outer, [&](int64_t so, int64_t dof) {
      copy_tiled(src + so, dst + dof, l, static_cast<size_t>(q), last, req);
    });
  }
}

}  // namespace

Dims contiguous_strides(const Dims& shape) {
  Dims s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

void strided_copy(DType dtype, const void* src, int64_t src_offset, const Dims& src_strides,
                  void* dst, int64_t dst_offset, const Dims& dst_strides, const Dims& shape,
                  OpReq req, const char* op) {
  BRAID_TYPE_SWITCH(dtype, T, op, {
    strided_copy_typed(static_cast<const T*>(src) + src_offset, src_strides,
                       static_cast<T*>(dst) + dst_offset, dst_strides, shape, req);
  });
}

void fill_zero(const TBlob& b) {
  std::memset(b.dptr, 0, static_cast<size_t>(b.size()) * dtype_size(b.dtype));
}

}  // namespace braid::op::detail
