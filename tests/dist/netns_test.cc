// A job over a real network between "hosts": the scheduler, a server and a worker each in a
// network namespace of its own, joined by veth pairs on a bridge (10.213.N.0/24). The server
// finds its address through DMLC_INTERFACE, the others are given DMLC_NODE_HOST. Needs root and
// `ip netns`; skips, saying why, where the machine does not allow them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include "dist/job.h"

namespace braid::test {
namespace {

class Namespaces {
 public:
  Namespaces() : tag_(std::to_string(getpid() % 100000)), subnet_("10.213." + std::to_string(getpid() % 250) + ".") {}
  ~Namespaces() { run(teardown()); }

  std::string ns(int i) const { return "braid" + tag_ + "-" + std::to_string(i); }
  std::string address(int i) const { return subnet_ + std::to_string(i); }
  std::string device(int i) const { return "bn" + tag_ + "-" + std::to_string(i); }  // inside namespace i

  /// Builds the network; the reason it could not, or "".
  std::string build() {
    std::string script = "set -e; ip link add " + bridge() + " type bridge; ip link set " + bridge() + " up;";
    for (int i = 1; i <= 3; ++i) {
      const std::string outside = "bb" + tag_ + "-" + std::to_string(i);
      script += "ip netns add " + ns(i) + "; ip link add " + outside + " type veth peer name " + device(i) +
                "; ip link set " + device(i) + " netns " + ns(i) + "; ip link set " + outside + " master " + bridge() +
                "; ip link set " + outside + " up; ip -n " + ns(i) + " addr add " + address(i) + "/24 dev " +
                device(i) + "; ip -n " + ns(i) + " link set " + device(i) + " up; ip -n " + ns(i) + " link set lo up;";
    }
    return run(script) ? "" : "creating network namespaces, veth pairs and a bridge failed: " + last_output_;
  }

 private:
  std::string bridge() const { return "bb" + tag_; }
  std::string teardown() const {
    std::string s;
    for (int i = 1; i <= 3; ++i) s += "ip netns del " + ns(i) + " 2>/dev/null;";
    return s + "ip link del " + bridge() + " 2>/dev/null; true";
  }
  bool run(const std::string& script) {
    const std::string out = ::testing::TempDir() + "/braid_netns_" + tag_ + ".out";
    const int rc = std::system(("(" + script + ") > '" + out + "' 2>&1").c_str());
    last_output_ = read(out);
    return rc == 0;
  }

  std::string tag_, subnet_, last_output_;
};

TEST(MultiHost, SchedulerServerAndWorkerInThreeNetworkNamespaces) {
  if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root (ip netns); this test runs as uid " << geteuid();
  if (std::system("ip netns list > /dev/null 2>&1") != 0) GTEST_SKIP() << "`ip netns` is not available here";
  Namespaces net;
  if (const std::string why = net.build(); !why.empty()) GTEST_SKIP() << why;

  Job job(1, 1, {{"DMLC_PS_ROOT_URI", net.address(1)}});
  auto in_ns = [&](int i, std::vector<std::string> argv) {
    argv.insert(argv.begin(), {"/usr/sbin/ip", "netns", "exec", net.ns(i)});
    return argv;
  };
  auto env = [&](const char* role, std::map<std::string, std::string> more) {
    auto e = job.env(role);
    e.erase("DMLC_NODE_HOST");
    for (auto& [k, v] : more) e[k] = v;
    return e;
  };
  Process scheduler(in_ns(1, {BRAID_BINARY_DIR "/bin/braid", "server"}),
                    env("scheduler", {{"DMLC_NODE_HOST", net.address(1)}}), job.log_of("scheduler", 0));
  Process server(in_ns(2, {BRAID_BINARY_DIR "/bin/braid", "server"}),
                 env("server", {{"DMLC_INTERFACE", net.device(2)}}), job.log_of("server", 0));
  Process worker(in_ns(3, {BRAID_BINARY_DIR "/tests/braid_dist_kv_worker", "dist_sync", "sync_optimizer", job.dir}),
                 env("worker", {{"DMLC_NODE_HOST", net.address(3)}}), job.log_of("worker", 0));
  EXPECT_EQ(worker.wait(60), std::optional<int>(0))
      << read(job.log_of("worker", 0)) << read(job.log_of("server", 0)) << read(job.log_of("scheduler", 0));
  EXPECT_EQ(server.wait(15), std::optional<int>(0)) << read(job.log_of("server", 0));
  EXPECT_EQ(scheduler.wait(15), std::optional<int>(0)) << read(job.log_of("scheduler", 0));
}

}  // namespace
}  // namespace braid::test
