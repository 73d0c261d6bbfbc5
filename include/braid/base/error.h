#pragma once
/// braid::Error, the one exception type of the library, and BRAID_CHECK to raise it.
/// Messages name what was wrong (op, file, shapes) and how to fix it.
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace braid {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// Concatenates anything printable with operator<< into one string.
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

}  // namespace braid

/// Throws braid::Error with the concatenated message when `cond` is false.
#define BRAID_CHECK(cond, ...)                                    \
  do {                                                            \
    if (!(cond)) throw ::braid::Error(::braid::cat(__VA_ARGS__)); \
  } while (0)
