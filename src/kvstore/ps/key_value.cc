#include "key_value.h"

#include <algorithm>
#include <cstdio>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/base/half.h"

namespace braid::kv::ps {

int64_t bigarray_bound() {
  const long long bound = env_int({"MXNET_KVSTORE_BIGARRAY_BOUND"}, 1000000);
  BRAID_CHECK(bound > 0, "MXNET_KVSTORE_BIGARRAY_BOUND must be positive, got ", bound);
  return bound;
}

std::vector<Slice> slices_of(int64_t key, int64_t rows, int64_t row_width, int num_servers, int64_t bound) {
  const int64_t size = rows * row_width;
  if (size < bound) {
    const int server = static_cast<int>((static_cast<uint64_t>(key) * 9973u) % static_cast<uint64_t>(num_servers));
    return {{server, 0, size}};
  }
  const int64_t most = std::max(bound, kMinSliceElements);
  std::vector<Slice> parts;
  for (int s = 0; s < num_servers; ++s) {
    const int64_t first = rows * s / num_servers, last = rows * (s + 1) / num_servers;
    const int64_t n = std::min(last - first, ((last - first) * row_width + most - 1) / most);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = first + (last - first) * i / n, b = first + (last - first) * (i + 1) / n;
      parts.push_back({s, a * row_width, b * row_width});
    }
  }
  return parts;
}

std::string format_timing(ServerTiming t) { return cat(t.work_us, " ", t.wait_us); }

ServerTiming parse_timing(const std::string& body) {
  ServerTiming t;
  long long work = 0, wait = 0;
  if (body.size() < 64 && std::sscanf(body.c_str(), "%lld %lld", &work, &wait) == 2 && work >= 0 && wait >= 0)
    t = {work, wait};
  return t;
}

void add_elements(DType dtype, void* dst, const void* src, int64_t n) {
  if (dtype == DType::Float16) {  // a storage type: summed through float
    auto* d = static_cast<half_t*>(dst);
    const auto* s = static_cast<const half_t*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = float_to_half(half_to_float(d[i]) + half_to_float(s[i]));
    return;
  }
  BRAID_TYPE_SWITCH(dtype, T, "the parameter server's sum", {
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] + s[i]);
  })
}

}  // namespace braid::kv::ps
