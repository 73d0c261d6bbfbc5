#pragma once
// Internal: a server node of a parameter-server job.
#include "config.h"

namespace braid::kv::ps {

/// Registers as a server and serves until the job ends; returns the exit status.
int run_server_node(const Config& config);

}  // namespace braid::kv::ps
