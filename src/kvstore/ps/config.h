#pragma once
// Internal: a parameter-server node's configuration, from ps-lite's environment (what MXNet's
// tools/launch.py and `braid launch` set): DMLC_ROLE, DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT,
// DMLC_NUM_SERVER, DMLC_NUM_WORKER, DMLC_INTERFACE, DMLC_NODE_HOST, PS_VERBOSE,
// PS_HEARTBEAT_INTERVAL, PS_HEARTBEAT_TIMEOUT, and Braid's BRAID_PS_SECRET (or
// BRAID_PS_SECRET_FILE) and BRAID_PS_CONNECT_TIMEOUT.
#include <optional>
#include <string>

namespace braid::kv::ps {

enum class Role { Scheduler, Server, Worker };
const char* role_name(Role role);
/// The role named `name` ("scheduler", "server", "worker"), or none.
std::optional<Role> role_from_name(const std::string& name);

/// How nodes reach each other: ZeroMQ over TCP (jobs), or in memory between nodes that are
/// threads of one process (tests of the nodes' logic; see van.h).
enum class Transport { ZeroMQ, InProcess };

struct Config {
  Role role = Role::Worker;
  std::string root_uri;  // the scheduler's address
  int root_port = 0;
  int num_servers = 0, num_workers = 0;
  std::string host;                 // the address this node binds to (the scheduler: root_uri)
  int node_port = 0;                // DMLC_PORT: the port a server or worker listens on (0: any free one)
  int verbose = 0;                  // PS_VERBOSE: 1 logs connections, 2 every message
  double heartbeat_interval_s = 1;  // 0: no heartbeats
  double heartbeat_timeout_s = 10;  // a node silent this long is dead
  double connect_timeout_s = 120;   // how long the job may take to register (every role)
  std::string secret;               // empty: nodes and messages are not authenticated
  Transport transport = Transport::ZeroMQ;

  /// From the environment; throws naming the missing or malformed variable and what to set.
  static Config from_env();
  /// Whether DMLC_ROLE is set (the process was started as a node of a distributed job).
  static bool in_job();
};

/// The job's secret: BRAID_PS_SECRET, or the first line of the file BRAID_PS_SECRET_FILE (which
/// only its owner may read), or empty; throws if the two disagree or the file is not fit.
std::string secret_from_env();

/// The IPv4 address of network interface `name` (DMLC_INTERFACE), e.g. "lo" -> 127.0.0.1.
std::string interface_address(const std::string& name);
/// Where a node binds without DMLC_NODE_HOST or DMLC_INTERFACE: the first IPv4 interface that is
/// not the loopback (as ps-lite), else 127.0.0.1.
std::string first_network_address();

}  // namespace braid::kv::ps
