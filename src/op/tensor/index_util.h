#pragma once
// Index arrays for the indexing and ordering operators: indices arrive in any dtype (MXNet
// passes them as float32 by default) and positions are written back in any dtype.
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "braid/op/tensor.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

/// What an index outside [0, n) means: clamped, taken modulo n, or an error.
enum class IndexMode { Clip, Wrap, Raise };

/// Reads the `mode` attribute among `choices` ("clip", "wrap", "raise").
IndexMode read_index_mode(ParamReader& r, const std::vector<std::string>& choices);

/// The elements of an index array as integers; floats are truncated toward zero (MXNet's cast).
/// A NaN index throws naming `op`.
std::vector<int64_t> read_indices(const TBlob& b, const std::string& op);

/// Index j mapped into [0, n) according to `mode` (n > 0), or -1 where mode is Raise and j is out
/// of range: the rule of both devices' kernels.
BRAID_HOST_DEVICE int64_t map_index(int64_t j, int64_t n, IndexMode mode) {
  if (j >= 0 && j < n) return j;
  switch (mode) {
    case IndexMode::Clip:
      return j < 0 ? 0 : n - 1;
    case IndexMode::Wrap:
      return (j % n + n) % n;
    default:
      return -1;
  }
}

/// map_index, where Raise throws naming `op`.
inline int64_t resolve_index(int64_t j, int64_t n, IndexMode mode, const std::string& op) {
  const int64_t mapped = map_index(j, n, mode);
  if (mapped >= 0) return mapped;
  throw Error(cat("operator ", op, ": index ", j, " is out of bounds for an axis of size ", n,
                  " (mode='raise'; use mode='clip' or 'wrap' to map it into range)"));
}

/// Writes `pos` (one per element of `out`) into `out` of any dtype, honouring req.
void store_indices(const std::vector<int64_t>& pos, const TBlob& out, OpReq req);

/// Throws naming `op` when `dtype` cannot hold every position below `len` exactly (uint8 past
/// 255, float16 past 2048, ...), as MXNet does for topk's dtype.
void check_index_dtype(const std::string& op, DType dtype, int64_t len);

/// Zeroes the gradient of an index input (req Write), which has none; Add and Null leave it.
void zero_index_grad(const TBlob& grad, OpReq req);

/// Types of (data, index) -> output ops: the output has the data's dtype; an index of unknown
/// dtype defaults to float32, MXNet's default for index arrays.
void infer_data_index_type(const std::string& op, std::vector<DType>& in, std::vector<DType>& out);

/// dst[0..n) = src[0..n) (or += with req Add).
template <class T>
void copy_block(T* dst, const T* src, int64_t n, OpReq req) {
  if (req == OpReq::Write) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else if (req == OpReq::Add) {
    for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
  }
}

/// dst[0..n) += src[0..n).
template <class T>
void add_block(T* dst, const T* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

}  // namespace braid::op::detail
