#include "braid/base/error.h"
#include "commands.h"

namespace braid::cli {

int params_show(const std::string& path, std::ostream&) {
  throw Error("params show: io/params is not built yet");
}

}  // namespace braid::cli
