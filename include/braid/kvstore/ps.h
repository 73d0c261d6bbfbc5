#pragma once
/// The parameter server's processes (MXNet's kvstore_server): a process started by `braid launch`
/// (or MXNet's tools/launch.py) with DMLC_ROLE=scheduler or server runs that role until the job
/// ends. Workers use kv::create("dist_sync") and friends.
///
///   int main() { if (kv::is_server_process()) return kv::run_server(); ... }
#include <functional>
#include <memory>
#include <string>

namespace braid::optim {
class Optimizer;
}

namespace braid::kv {

/// Whether DMLC_ROLE says this process is the scheduler or a server.
bool is_server_process();
/// Runs the role of DMLC_ROLE (scheduler or server) with the DMLC_* configuration until the job
/// ends; returns the process's exit status (0: every worker finished; 1: the job failed, logged).
/// Throws braid::Error on a bad configuration.
int run_server();

/// How this process's servers rebuild an optimizer a worker sent as Optimizer::foreign_image()
/// (a Python optimizer's pickle): set by the Python module, so that servers started from the
/// same Python script run the user's optimizer. Without one such an optimizer is refused with
/// an error saying how to start the servers.
using OptimizerLoader = std::function<std::shared_ptr<optim::Optimizer>(const std::string& image)>;
void set_optimizer_loader(OptimizerLoader loader);

/// Ends this process's part in its parameter-server job now, after the pending operations of
/// its dist_* stores: what destroying them does, for language bindings whose stores may outlive
/// the program (Python destroys objects late, or never, at exit). Later operations on those
/// stores fail.
void finish_workers();

/// The job's secret, which authenticates its nodes and every message between them:
/// BRAID_PS_SECRET, or the first line of the file BRAID_PS_SECRET_FILE names (readable by its owner
/// only); empty if neither is set. Throws braid::Error if the two disagree or the file is not fit.
std::string job_secret();

/// This machine's address as the job's other machines reach it (what `braid launch` gives as
/// DMLC_PS_ROOT_URI for ssh and MPI jobs): DMLC_INTERFACE's address if that is set, else the
/// first IPv4 address that is not the loopback (ps-lite's choice), else 127.0.0.1.
std::string host_address();

}  // namespace braid::kv
