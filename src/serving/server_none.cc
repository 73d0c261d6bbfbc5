// The inference server of a build without cpp-httplib (BRAID_WITH_SERVING=OFF), in place of
// server.cc: `braid serve` says what the build lacks. Models, repositories and batching (the
// rest of serving/) are built either way.
#include "braid/base/error.h"
#include "braid/serving/server.h"
#include "serving/connection_gate.h"

// Never made here; complete only so that InferenceServer's members can be destroyed.
namespace httplib {
class ThreadPool {};
}  // namespace httplib

namespace braid::serving {

class HttpRoutes {};

InferenceServer::InferenceServer(std::shared_ptr<Repository>, ServerOptions) {
  throw Error(
      "the inference server (braid serve) needs cpp-httplib, which this build of Braid lacks: configure with "
      "-DBRAID_WITH_SERVING=ON where libcpp-httplib-dev is installed");
}
InferenceServer::~InferenceServer() = default;
void InferenceServer::start() {}
void InferenceServer::stop() {}

}  // namespace braid::serving
