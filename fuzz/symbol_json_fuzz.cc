// libFuzzer target: the input bytes as MXNet symbol JSON. A symbol that loads is also listed and
// written back, the paths `braid symbol show` takes. braid::Error is the answer to a bad file; any
// other outcome (a crash, another exception, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "braid/base/error.h"
#include "braid/symbol/symbol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const braid::Symbol symbol = braid::Symbol::fromjson(std::string(reinterpret_cast<const char*>(data), size));
    symbol.list_arguments();
    symbol.get_internals().list_outputs();
    symbol.tojson();
  } catch (const braid::Error&) {
  }
  return 0;
}
