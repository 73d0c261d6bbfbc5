#include "server.h"

#include "braid/base/error.h"
#include "node.h"

namespace braid::kv::ps {

int run_server_node(const Config& config) {
  Node node(config);
  node.start([&node](Message&& m) { node.log("no key-value service yet; dropped " + m.describe()); });
  try {
    node.wait_for_exit();
  } catch (const Error&) {
    return 1;  // logged by the node
  }
  return 0;
}

}  // namespace braid::kv::ps
