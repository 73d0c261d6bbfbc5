#include "braid/base/context.h"

#include <cstdlib>

#include "braid/base/error.h"

namespace braid {

std::string Context::str() const {
  const char* kind = "cpu";
  switch (dev_type) {
    case DeviceType::CPU:
      kind = "cpu";
      break;
    case DeviceType::GPU:
      kind = "gpu";
      break;
    case DeviceType::CPUPinned:
      kind = "cpu_pinned";
      break;
    case DeviceType::CPUShared:
      kind = "cpu_shared";
      break;
  }
  return cat(kind, "(", dev_id, ")");
}

Context Context::parse(const std::string& s) {
  auto open = s.find('(');
  auto close = s.find(')');
  BRAID_CHECK(open != std::string::npos && close == s.size() - 1 && close > open + 1, "cannot parse context '", s,
              "'; expected cpu(0), gpu(1) or cpu_pinned(0)");
  std::string kind = s.substr(0, open);
  std::string id = s.substr(open + 1, close - open - 1);
  char* end = nullptr;
  long v = std::strtol(id.c_str(), &end, 10);
  BRAID_CHECK(*end == '\0' && v >= 0, "bad device id in context '", s, "'");
  if (kind == "cpu") return cpu(static_cast<int>(v));
  if (kind == "gpu") return gpu(static_cast<int>(v));
  if (kind == "cpu_pinned") return cpu_pinned(static_cast<int>(v));
  if (kind == "cpu_shared") return {DeviceType::CPUShared, static_cast<int>(v)};
  throw Error(cat("unknown device type in context '", s, "'; expected cpu, gpu or cpu_pinned"));
}

std::ostream& operator<<(std::ostream& os, const Context& c) { return os << c.str(); }

}  // namespace braid
