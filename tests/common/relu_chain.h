#pragma once
// A valid but long graph for tests that nothing on the load path recurses once per node (test
// helper).
#include <string>

#include "braid/base/error.h"

namespace braid::test {

/// MXNet's symbol JSON of data -> relu -> ... -> relu: `length` relu nodes named r1...rN.
inline std::string relu_chain_json(int length) {
  std::string s = R"({"nodes": [{"op": "null", "name": "data", "inputs": []})";
  for (int i = 1; i <= length; ++i)
    s += cat(R"(, {"op": "relu", "name": "r)", i, R"(", "inputs": [[)", i - 1, ", 0, 0]]}");
  return s + cat(R"(], "arg_nodes": [0], "heads": [[)", length, ", 0, 0]]}");
}

}  // namespace braid::test
