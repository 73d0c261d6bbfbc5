#pragma once
/// Device context, MXNet's `Context`: a device type and an id. Codes match `.params` (1 cpu, 2 gpu,
/// 3 cpu_pinned).
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace braid {

enum class DeviceType : int32_t { CPU = 1, GPU = 2, CPUPinned = 3, CPUShared = 5 };

struct Context {
  DeviceType dev_type = DeviceType::CPU;
  int32_t dev_id = 0;

  bool is_cpu_family() const { return dev_type != DeviceType::GPU; }
  bool operator==(const Context& o) const { return dev_type == o.dev_type && dev_id == o.dev_id; }
  bool operator!=(const Context& o) const { return !(*this == o); }
  bool operator<(const Context& o) const { return dev_type != o.dev_type ? dev_type < o.dev_type : dev_id < o.dev_id; }
  /// "cpu(0)", "gpu(1)", "cpu_pinned(0)".
  std::string str() const;
  /// Parses the spelling of str(); throws braid::Error on anything else.
  static Context parse(const std::string& s);
};

inline Context cpu(int id = 0) { return {DeviceType::CPU, id}; }
inline Context gpu(int id = 0) { return {DeviceType::GPU, id}; }
inline Context cpu_pinned(int id = 0) { return {DeviceType::CPUPinned, id}; }

std::ostream& operator<<(std::ostream& os, const Context& c);
/// Number of GPUs this build can use (0 without CUDA).
int num_gpus();

}  // namespace braid

template <>
struct std::hash<braid::Context> {
  size_t operator()(const braid::Context& c) const noexcept {
    return std::hash<int64_t>()((static_cast<int64_t>(c.dev_type) << 32) | c.dev_id);
  }
};
