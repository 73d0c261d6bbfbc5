#include "cpu_reduce.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "imperative/push_op.h"

namespace braid::kv::detail {
namespace {

constexpr int64_t kParallelFrom = 1 << 16;     // elements from which a kernel uses its OpenMP threads
constexpr int64_t kShardsFrom = 1 << 18;       // elements from which a sum is split over contexts
constexpr int64_t kAlign = 16;                 // elements: parts start on 64-byte lines
constexpr int64_t kStreamFromBytes = 4 << 20;  // outputs from which sums store past the caches

// SSE (the build's baseline) for both element types.
__m128 load(const float* p) { return _mm_loadu_ps(p); }
__m128d load(const double* p) { return _mm_loadu_pd(p); }
__m128 add(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
__m128d add(__m128d a, __m128d b) { return _mm_add_pd(a, b); }
void store(float* p, __m128 v, bool stream) { stream ? _mm_stream_ps(p, v) : _mm_storeu_ps(p, v); }
void store(double* p, __m128d v, bool stream) { stream ? _mm_stream_pd(p, v) : _mm_storeu_pd(p, v); }

// out[i] = the sum of the values' elements begin + i, a vector at a time. Large outputs are
// streamed past the caches: a plain store first reads each destination line, a third more
// traffic on a sum that is bound by memory.
template <typename T>
void add_range(const std::vector<NDArray>& values, int64_t begin, T* out, int64_t n) {
  constexpr int64_t kLanes = 16 / sizeof(T);
  std::vector<const T*> in;
  for (const auto& v : values) in.push_back(static_cast<const T*>(v.blob().dptr) + begin);
  const size_t count = in.size();
  const bool stream =
      n * static_cast<int64_t>(sizeof(T)) >= kStreamFromBytes && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  const int64_t vectors = n / kLanes;
#pragma omp parallel if (n > kParallelFrom)
  {
#pragma omp for schedule(static) nowait
    for (int64_t v = 0; v < vectors; ++v) {
      const int64_t i = v * kLanes;
      auto acc = load(in[0] + i);
      for (size_t k = 1; k < count; ++k) acc = add(acc, load(in[k] + i));
      store(out + i, acc, stream);
    }
    if (stream) _mm_sfence();  // streamed stores land before the engine reports the write
  }
  for (int64_t i = vectors * kLanes; i < n; ++i) {
    T acc = in[0][i];
    for (size_t k = 1; k < count; ++k) acc += in[k][i];
    out[i] = acc;
  }
}

// out = the sum of `values` over out.size() elements from `begin`.
void add_range(const std::vector<NDArray>& values, int64_t begin, const NDArray& out) {
  if (out.dtype() == DType::Float32)
    add_range(values, begin, static_cast<float*>(out.blob().dptr), out.size());
  else
    add_range(values, begin, static_cast<double*>(out.blob().dptr), out.size());
}

void copy_bytes(char* to, const char* from, size_t bytes) {
  constexpr size_t kBlock = size_t{1} << 20;
  const auto blocks = static_cast<int64_t>((bytes + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(b) * kBlock;
    std::memcpy(to + at, from + at, std::min(kBlock, bytes - at));
  }
}

char* bytes_of(const NDArray& a) { return static_cast<char*>(a.blob().dptr); }

imperative::Kernel kernel_on(const NDArray& out, const char* name) {
  imperative::Kernel k;
  k.ctx = out.ctx();
  k.name = name;
  k.writes.push_back(out.var());
  return k;
}

}  // namespace

bool on_cpus(const std::vector<NDArray>& arrays, DType dtype) {
  if (dtype != DType::Float32 && dtype != DType::Float64) return false;
  return std::all_of(arrays.begin(), arrays.end(),
                     [&](const NDArray& a) { return a.ctx().is_cpu_family() && a.dtype() == dtype && !a.is_sparse(); });
}

void sum_into(const std::vector<NDArray>& values, const NDArray& out) {
  imperative::Kernel k = kernel_on(out, "kvstore sum");
  for (const auto& v : values) k.reads.push_back(v.var());
  k.fn = [values, out] { add_range(values, 0, out); };
  imperative::push(std::move(k));
}

bool Shards::worth_it(const std::vector<NDArray>& values) {
  if (values[0].size() < kShardsFrom) return false;
  return std::any_of(values.begin(), values.end(), [&](const NDArray& v) { return v.ctx() != values[0].ctx(); });
}

void Shards::fit(const std::vector<NDArray>& values) {
  std::vector<Context> contexts;
  for (const auto& v : values)
    if (std::find(contexts.begin(), contexts.end(), v.ctx()) == contexts.end()) contexts.push_back(v.ctx());
  const bool same =
      parts.size() == contexts.size() && std::equal(parts.begin(), parts.end(), contexts.begin(),
                                                    [](const NDArray& p, Context c) { return p.ctx() == c; });
  if (same) return;
  const int64_t n = values[0].size();
  const auto count = static_cast<int64_t>(contexts.size());
  const int64_t step = (n / count + kAlign - 1) / kAlign * kAlign;
  parts.clear();
  begin.clear();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t from = std::min(n, i * step), to = i + 1 == count ? n : std::min(n, from + step);
    parts.push_back(NDArray(Shape{to - from}, contexts[static_cast<size_t>(i)], values[0].dtype()));
    begin.push_back(from);
  }
}

void reduce_scatter(const std::vector<NDArray>& values, const Shards& shards) {
  for (size_t i = 0; i < shards.parts.size(); ++i) {
    const NDArray& part = shards.parts[i];
    imperative::Kernel k = kernel_on(part, "kvstore reduce-scatter");
    for (const auto& v : values) k.reads.push_back(v.var());
    k.fn = [values, part, from = shards.begin[i]] { add_range(values, from, part); };
    imperative::push(std::move(k));
  }
}

void all_gather(const Shards& shards, const NDArray& out) {
  imperative::Kernel k = kernel_on(out, "kvstore all-gather");
  for (const auto& p : shards.parts) k.reads.push_back(p.var());
  k.fn = [parts = shards.parts, begin = shards.begin, out] {
    const size_t item = dtype_size(out.dtype());
    for (size_t i = 0; i < parts.size(); ++i)
      copy_bytes(bytes_of(out) + static_cast<size_t>(begin[i]) * item, bytes_of(parts[i]),
                 static_cast<size_t>(parts[i].size()) * item);
  };
  imperative::push(std::move(k));
}

void copy_on_destination(const NDArray& from, const NDArray& out) {
  imperative::Kernel k = kernel_on(out, "kvstore copy");
  k.reads.push_back(from.var());
  k.fn = [from, out] {
    copy_bytes(bytes_of(out), bytes_of(from), static_cast<size_t>(out.size()) * dtype_size(out.dtype()));
  };
  imperative::push(std::move(k));
}

}  // namespace braid::kv::detail
