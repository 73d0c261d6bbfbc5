// braid infer in a build without cpp-httplib (BRAID_WITH_SERVING=OFF), in place of infer.cc.
#include "braid/base/error.h"
#include "commands.h"

namespace braid::cli {

int infer(const InferOptions&) {
  throw Error(
      "braid infer needs cpp-httplib, which this build of Braid lacks: configure with -DBRAID_WITH_SERVING=ON "
      "where libcpp-httplib-dev is installed");
}

}  // namespace braid::cli
