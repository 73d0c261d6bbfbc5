#pragma once
// A whole parameter-server job (a scheduler, servers and workers) as threads of this process,
// over the in-process transport (kvstore/ps/inproc_van.h): the nodes' and servers' logic without
// sockets. Each job needs a port number of its own (a name for the in-process network).
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kvstore/ps/dist_store.h"
#include "kvstore/ps/scheduler.h"
#include "kvstore/ps/server.h"

namespace braid::test {

inline kv::ps::Config job_config(kv::ps::Role role, int port, int workers, int servers, const std::string& secret) {
  kv::ps::Config c;
  c.secret = secret;
  c.role = role;
  c.root_uri = c.host = "in-process";
  c.root_port = port;
  c.num_servers = servers;
  c.num_workers = workers;
  c.transport = kv::ps::Transport::InProcess;
  return c;
}

struct JobStatus {
  int scheduler = -1;
  std::vector<int> servers;
};

/// Runs the job: the scheduler and each server on a thread of its own, `work(store)` on one
/// thread per worker; returns the exit statuses of the scheduler and the servers.
template <class Work>
JobStatus run_job(const std::string& type, int port, int workers, int servers, Work work,
                  const std::string& secret = "") {
  JobStatus status;
  status.servers.assign(static_cast<size_t>(servers), -1);
  std::thread scheduler([&] {
    status.scheduler = kv::ps::Scheduler(job_config(kv::ps::Role::Scheduler, port, workers, servers, secret)).run();
  });
  std::vector<std::thread> threads;
  for (int s = 0; s < servers; ++s)
    threads.emplace_back([&, s] {
      status.servers[static_cast<size_t>(s)] =
          kv::ps::run_server_node(job_config(kv::ps::Role::Server, port, workers, servers, secret));
    });
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      auto store = kv::ps::make_worker_store(type, job_config(kv::ps::Role::Worker, port, workers, servers, secret));
      work(*store);
    });
  for (auto& t : threads) t.join();
  scheduler.join();
  return status;
}

}  // namespace braid::test
