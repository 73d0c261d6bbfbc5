#pragma once
// Internal: a server node of a parameter-server job. It keeps one slice of each key's value
// (key_value.h) and answers the workers: init stores the first value; push adds a worker's
// value (2-bit codes decoded) and, in sync mode, applies the sum once every worker has pushed
// for the round, answering all of them then; in async mode each push applies at once. Applying
// runs the optimizer the workers sent (the sum is the gradient) or, without one, replaces the
// value. Pulls are answered with the value's bytes, without a copy.
#include "config.h"

namespace braid::kv::ps {

/// Registers as a server and serves until the job ends; returns the exit status.
int run_server_node(const Config& config);

}  // namespace braid::kv::ps
