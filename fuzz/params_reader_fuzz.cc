// libFuzzer target: the input bytes as a `.params` file. braid::Error is the answer to a bad
// file; any other outcome (a crash, another exception, a hang, memory beyond the input's size)
// is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "braid/base/error.h"
#include "braid/io/params.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    braid::io::load_from_bytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const braid::Error&) {
  }
  return 0;
}
