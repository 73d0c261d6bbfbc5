// The parameter server's network transport in a build without ZeroMQ (BRAID_WITH_ZMQ=OFF), in
// place of zmq_van.cc: a node of a real job cannot start, and says why. Jobs whose nodes are
// threads of one process (the in-process transport) still run.
#include "braid/base/error.h"
#include "van.h"

namespace braid::kv::ps {

std::unique_ptr<Van> make_zmq_van(std::string, int) {
  throw Error(
      "the parameter server (dist_* KVStores, braid server) needs ZeroMQ, which this build of Braid lacks: "
      "configure with -DBRAID_WITH_ZMQ=ON where libzmq is installed");
}

}  // namespace braid::kv::ps
