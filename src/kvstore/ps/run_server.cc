// The entry of scheduler and server processes.
#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/kvstore/ps.h"
#include "node.h"
#include "scheduler.h"
#include "server.h"

namespace braid::kv {

bool is_server_process() {
  const auto role = env_str({"DMLC_ROLE"});
  return role && (*role == "scheduler" || *role == "server");
}

int run_server() {
  ps::Config config = ps::Config::from_env();
  BRAID_CHECK(config.role != ps::Role::Worker,
              "run_server: DMLC_ROLE is worker; a worker creates a dist_* "
              "KVStore instead (kv::create(\"dist_sync\"))");
  if (config.role == ps::Role::Scheduler) return ps::Scheduler(config).run();
  return ps::run_server_node(config);
}

std::string job_secret() { return ps::secret_from_env(); }

std::string host_address() {
  const auto interface = env_str({"DMLC_INTERFACE"});
  return interface && !interface->empty() ? ps::interface_address(*interface) : ps::first_network_address();
}

}  // namespace braid::kv
