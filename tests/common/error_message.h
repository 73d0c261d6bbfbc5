#pragma once
// The message of the braid::Error a call throws, for tests that compare whole messages (test
// helper).
#include <functional>
#include <string>

#include "braid/base/error.h"

namespace braid::test {

/// The message of the braid::Error `f` throws; "(no error)" when it returns.
inline std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace braid::test
