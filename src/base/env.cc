#include "braid/base/env.h"

#include <cstdlib>

#include "braid/base/error.h"

namespace braid {

std::optional<std::string> env_str(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const char* v = std::getenv(n)) return std::string(v);
  return std::nullopt;
}

long long env_int(std::initializer_list<const char*> names, long long fallback) {
  for (const char* n : names) {
    const char* v = std::getenv(n);
    if (!v) continue;
    char* end = nullptr;
    long long x = std::strtoll(v, &end, 10);
    BRAID_CHECK(end != v && *end == '\0', "environment variable ", n, "='", v, "' is not an integer");
    return x;
  }
  return fallback;
}

}  // namespace braid
