#pragma once
/// The parameter server's processes (MXNet's kvstore_server): a process started by `braid launch`
/// (or MXNet's tools/launch.py) with DMLC_ROLE=scheduler or server runs that role until the job
/// ends. Workers use kv::create("dist_sync") and friends.
///
///   int main() { if (kv::is_server_process()) return kv::run_server(); ... }
namespace braid::kv {

/// Whether DMLC_ROLE says this process is the scheduler or a server.
bool is_server_process();
/// Runs the role of DMLC_ROLE (scheduler or server) with the DMLC_* configuration until the job
/// ends; returns the process's exit status (0: every worker finished; 1: the job failed, logged).
/// Throws braid::Error on a bad configuration.
int run_server();

}  // namespace braid::kv
